package cluster

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestMemberListResyncRetriesAfterCompaction: a member whose watch of the member list
// fell behind a compaction reads the list again; when etcd refuses that read, it tries
// again until it succeeds, rather than watch from the present and miss for good the
// departures in the history it lost.
func TestMemberListResyncRetriesAfterCompaction(t *testing.T) {
	srv := etcdtest.Start(t)
	proxy := etcdtest.NewProxy(t, srv)
	// a's client fails its range reads on demand (the resync's read is the only one a
	// member makes here), with an error the client does not retry by itself.
	var refuse atomic.Bool
	var refused atomic.Int64
	refuseReads := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if refuse.Load() && method == "/etcdserverpb.KV/Range" {
			refused.Add(1)
			return status.Error(codes.ResourceExhausted, "test: etcd refuses the read")
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: proxy.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(refuseReads)}})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	a, err := Join(Options{Client: cli, Prefix: "/test/", Name: "a", Addr: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Leave()
	left := make(chan kit.Member, 4)
	a.OnMemberLeft(func(_ context.Context, m kit.Member) { left <- m })
	b := join(t, srv, "b")
	testwait.Eventually(t, "a sees b", func() bool { return len(a.Members()) == 2 })

	// While a is cut off from etcd, b leaves and etcd compacts the history a's watch has
	// not read yet.
	proxy.Cut()
	b.leave()
	ctl, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	put, err := ctl.Put(ctx, "/test/unrelated", "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Compact(ctx, put.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	refuse.Store(true)
	proxy.Heal()
	testwait.Eventually(t, "a reads the member list again after its read was refused", func() bool { return refused.Load() >= 1 })
	refuse.Store(false)
	testwait.Eventually(t, "a sees b gone", func() bool { return fmt.Sprint(names(a.Members())) == "[a]" })
	select {
	case m := <-left:
		if m.Name != "b" {
			t.Fatalf("a saw %s leave; want b", m.Name)
		}
	case <-time.After(testwait.Timeout):
		t.Fatal("a never told its listeners that b left")
	}
	if a.Lost() {
		t.Fatal("a lost its lease")
	}
}

// TestLeaveEndsTheMemberLeftListeners: a listener still running when its member leaves
// is told (its context ends) and waited for: none outlives the member (the package's
// leak check would name it).
func TestLeaveEndsTheMemberLeftListeners(t *testing.T) {
	_, a, b := twoMembers(t)
	running := make(chan kit.Member, 1)
	var ended atomic.Bool
	b.OnMemberLeft(func(ctx context.Context, m kit.Member) {
		defer ended.Store(true)
		running <- m
		<-ctx.Done()
		// Work to finish after the member was told to stop (as the composition root's
		// listener has), so that a Leave that did not wait would return before it.
		wctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout)
		defer cancel()
		for range 20 {
			_, _ = b.cli.Get(wctx, "/test/members/a")
		}
	})
	a.leave()
	select {
	case m := <-running:
		if m.Name != "a" {
			t.Fatalf("b's listener told %s left; want a", m.Name)
		}
	case <-time.After(testwait.Timeout):
		t.Fatal("b's listener never ran")
	}
	b.leave()
	if !ended.Load() {
		t.Fatal("b's listener still runs after b left")
	}
}

// TestMaintainedCountsMembersThatLackIt: Maintained is true while every live member
// announces what this one maintains, and counts each arrival of a member that does not,
// which stays counted after it left (a reader comparing two counts sees it came and
// went between them).
func TestMaintainedCountsMembersThatLackIt(t *testing.T) {
	srv := etcdtest.Start(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	a, err := Join(Options{Client: cli, Prefix: "/test/", Name: "a", Addr: "127.0.0.1:1", Maintains: []string{"counters"}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Leave()
	f := func(what string, all bool, lacking uint64) {
		t.Helper()
		testwait.Until(t, func() error {
			if gotAll, gotLacking := a.Maintained("counters"); gotAll != all || gotLacking != lacking {
				return fmt.Errorf("%s: Maintained = %v, %d; want %v, %d", what, gotAll, gotLacking, all, lacking)
			}
			return nil
		})
	}
	f("alone", true, 0)
	old := join(t, srv, "old") // announces nothing
	f("with a member that lacks it", false, 1)
	old.leave()
	f("once it left", true, 1)
	newer, err := Join(Options{Client: cli, Prefix: "/test/", Name: "newer", Addr: "127.0.0.1:2", Maintains: []string{"counters", "more"}})
	if err != nil {
		t.Fatal(err)
	}
	defer newer.Leave()
	testwait.Eventually(t, "a sees newer", func() bool { return len(a.Members()) == 2 })
	f("with a member that has it", true, 1)
	if all, lacking := newer.Maintained("counters"); all != true || lacking != 1 {
		t.Fatalf("newer: Maintained = %v, %d; want true, 1 (a lacks its \"more\")", all, lacking)
	}
}
