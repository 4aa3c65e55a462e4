package cluster

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/leakcheck"
	"github.com/vmplane/vmplane/internal/testwait"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

// testMember is one member with its own etcd client, as a separate process has.
type testMember struct {
	*Cluster
	cli  *clientv3.Client
	lost atomic.Bool
	left chan kit.Member
}

func join(t *testing.T, srv *etcdtest.Server, name string) *testMember {
	t.Helper()
	return joinAt(t, srv, name, "127.0.0.1:1")
}

// joinAt is join with the address the member's record gives (where it serves).
func joinAt(t *testing.T, srv *etcdtest.Server, name, addr string) *testMember {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m := &testMember{cli: cli, left: make(chan kit.Member, 16)}
	c, err := Join(Options{Client: cli, Prefix: "/test/", Name: name, Addr: addr, Lost: func() { m.lost.Store(true) }})
	if err != nil {
		cli.Close()
		t.Fatal(err)
	}
	m.Cluster = c
	c.OnMemberLeft(func(_ context.Context, km kit.Member) { m.left <- km })
	t.Cleanup(m.leave)
	return m
}

// leave is a graceful stop; safe after crash.
func (m *testMember) leave() {
	if m.Cluster != nil {
		m.Leave()
		m.Cluster = nil
	}
	m.cli.Close()
}

// crash stops the member as kill -9 would: its lease is neither renewed nor revoked.
func (m *testMember) crash() {
	m.cli.Close()
	m.cancel()
	m.done.Wait()
	m.Cluster = nil
}

// twoMembers starts an etcd and members a and b on it, each seeing the other.
func twoMembers(t *testing.T) (*etcdtest.Server, *testMember, *testMember) {
	t.Helper()
	srv := etcdtest.Start(t)
	a, b := join(t, srv, "a"), join(t, srv, "b")
	testwait.Eventually(t, "two members", func() bool { return len(b.Members()) == 2 })
	return srv, a, b
}

func names(ms []MemberStatus) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

func TestMembersSeeEachOtherAndDepartures(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b, c := join(t, srv, "a"), join(t, srv, "b"), join(t, srv, "c")
	for _, m := range []*testMember{a, b, c} {
		testwait.Eventually(t, "three members seen by "+m.Name(), func() bool { return len(m.Members()) == 3 })
	}
	if got := fmt.Sprint(names(a.Members())); got != "[a b c]" {
		t.Fatalf("members %s; want [a b c]", got)
	}
	c.leave()
	for _, m := range []*testMember{a, b} {
		select {
		case left := <-m.left:
			if left.Name != "c" {
				t.Fatalf("%s saw %s leave; want c", m.Name(), left.Name)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s never saw c leave", m.Name())
		}
		if got := fmt.Sprint(names(m.Members())); got != "[a b]" {
			t.Fatalf("%s sees %s; want [a b]", m.Name(), got)
		}
	}
	if a.lost.Load() || b.lost.Load() {
		t.Fatal("a live member reported a lost lease")
	}
}

func TestEachEntityIsClaimedByExactlyOneMember(t *testing.T) {
	srv := etcdtest.Start(t)
	ms := []*testMember{join(t, srv, "a"), join(t, srv, "b"), join(t, srv, "c")}
	for _, m := range ms {
		testwait.Eventually(t, "three members", func() bool { return len(m.Members()) == 3 })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("vm-%d", i)
		var wg sync.WaitGroup
		owners := make([]string, len(ms))
		locals := make([]bool, len(ms))
		for j, m := range ms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, local, err := m.Place(ctx, "machines", id)
				if err != nil {
					t.Error(err)
					return
				}
				owners[j], locals[j] = got.Name, local
			}()
		}
		wg.Wait()
		n := 0
		for j, m := range ms {
			if owners[j] != owners[0] {
				t.Fatalf("%s: members disagree on the owner: %v", id, owners)
			}
			if locals[j] {
				n++
				if owners[j] != m.Name() || !m.Local("machines", id) {
					t.Fatalf("%s: %s says local but the owner is %s", id, m.Name(), owners[j])
				}
			}
		}
		if n != 1 {
			t.Fatalf("%s: %d members hold it; want exactly 1", id, n)
		}
	}
}

func TestADeadMembersEntitiesMoveOnceItsLeaseExpires(t *testing.T) {
	_, a, b := twoMembers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, local, err := a.Place(ctx, "tenants", "t1"); err != nil || !local {
		t.Fatalf("a claims t1: local %v, %v", local, err)
	}
	if m, local, err := b.Place(ctx, "tenants", "t1"); err != nil || local || m.Name != "a" {
		t.Fatalf("b sees t1 on %s (local %v, %v); want a", m.Name, local, err)
	}
	a.crash()
	// b keeps asking, as a request would; it gets t1 once a's lease has expired, and
	// counts it as taken over.
	testwait.Eventually(t, "t1 moved to b", func() bool {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		defer pcancel()
		_, local, err := b.Place(pctx, "tenants", "t1")
		return err == nil && local
	})
	if b.Stats().Takeovers != 1 {
		t.Fatalf("b counted %d takeovers; want 1", b.Stats().Takeovers)
	}
}

func TestARestartedMemberReleasesItsPreviousRunAtOnce(t *testing.T) {
	srv, a, _ := twoMembers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, local, err := a.Place(ctx, "tenants", "t1"); err != nil || !local {
		t.Fatalf("a claims t1: local %v, %v", local, err)
	}
	a.crash()
	// The same node name comes back before the old lease expired: the old run's lease
	// is revoked, so t1 is free at once.
	a2 := join(t, srv, "a")
	resp, err := a2.cli.Get(ctx, "/test/owners/tenants/t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 0 {
		t.Fatalf("t1 still claimed by %s after its member restarted", resp.Kvs[0].Value)
	}
	if _, local, err := a2.Place(ctx, "tenants", "t1"); err != nil || !local {
		t.Fatalf("the restarted member claims t1: local %v, %v", local, err)
	}
}

func TestALeaseLostWhileRunningIsReported(t *testing.T) {
	_, a, b := twoMembers(t)
	// Someone (an operator, or etcd after a pause longer than the TTL) ends a's lease.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := b.cli.Revoke(ctx, a.Lease()); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "a told it lost its lease", a.lost.Load)
	if b.lost.Load() {
		t.Fatal("b reported a lost lease")
	}
	// A claim made with the dead lease is refused, never written.
	if _, _, err := a.Place(ctx, "tenants", "t9"); err == nil {
		t.Fatal("a claimed an entity after losing its lease")
	}
}

func TestAReleasedClaimIsFreeAndAReclaimKeepsIt(t *testing.T) {
	_, a, b := twoMembers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	held := func(id string) string {
		resp, err := a.cli.Get(ctx, "/test/owners/machines/"+id)
		if err != nil || len(resp.Kvs) == 0 {
			return ""
		}
		return string(resp.Kvs[0].Value)
	}
	if _, local, err := a.Place(ctx, "machines", "gone"); err != nil || !local {
		t.Fatalf("a claims gone: %v %v", local, err)
	}
	a.Release("machines", "gone")
	testwait.Eventually(t, "the released claim deleted", func() bool { return held("gone") == "" })
	if _, local, err := b.Place(ctx, "machines", "gone"); err != nil || !local {
		t.Fatalf("b claims the released entity: %v %v", local, err)
	}
	// Released and claimed again at once by the same member: the late delete of the
	// release must not remove the new claim.
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("again-%d", i)
		if _, local, err := a.Place(ctx, "machines", id); err != nil || !local {
			t.Fatalf("a claims %s: %v %v", id, local, err)
		}
		a.Release("machines", id)
		if _, local, err := a.Place(ctx, "machines", id); err != nil || !local {
			t.Fatalf("a claims %s again: %v %v", id, local, err)
		}
	}
	// The releases' deletes run in the background: none of them may remove a claim.
	testwait.Never(t, 2*time.Second, "a claim made again deleted by the release before it", func() bool {
		for i := 0; i < 20; i++ {
			if held(fmt.Sprintf("again-%d", i)) == "" {
				return true
			}
		}
		return false
	})
}

// TestAMemberCutOffServesNothingItMayNoLongerHold cuts a member off etcd: once its lease
// was not renewed for a whole TTL another member may hold its entities, so it must stop
// answering for them (not serve what it has in memory) before it even knows the lease
// is gone.
func TestAMemberCutOffServesNothingItMayNoLongerHold(t *testing.T) {
	srv := etcdtest.Start(t)
	proxy := etcdtest.NewProxy(t, srv)
	cli, err := clientv3.New(clientv3.Config{Endpoints: proxy.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	a, err := Join(Options{Client: cli, Prefix: "/test/", Name: "a", Addr: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Leave()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, local, err := a.Place(ctx, "tenants", "t1"); err != nil || !local {
		t.Fatalf("a claims t1: local %v, %v", local, err)
	}
	proxy.Cut()
	testwait.Eventually(t, "a stops answering for t1", func() bool {
		_, _, err := a.Place(ctx, "tenants", "t1")
		return err != nil && !a.Local("tenants", "t1")
	})
	// Back in touch: etcd let the lease expire meanwhile, and the member learns it.
	proxy.Heal()
	testwait.Eventually(t, "a told it lost its lease", a.Lost)
	if _, _, err := a.Place(ctx, "tenants", "t1"); err == nil {
		t.Fatal("a answers for t1 after losing its lease")
	}
}

// TestGoneFollowsTheLease: a member is gone for the claims it made once etcd no longer
// has its lease, as after a kill -9 once the lease expired; never while it lives.
func TestGoneFollowsTheLease(t *testing.T) {
	_, a, b := twoMembers(t)
	owner := a.Self()
	ctx := context.Background()
	for _, m := range []*testMember{a, b} {
		if gone, err := m.Gone(ctx, owner); gone || err != nil {
			t.Fatalf("a live member: Gone %v, %v; want false", gone, err)
		}
	}
	if gone, err := b.Gone(ctx, "run:0123"); !gone || err != nil {
		t.Fatalf("an owner that names no member lease: Gone %v, %v; want true", gone, err)
	}
	a.crash()
	testwait.Eventually(t, "the crashed member gone once its lease expired", func() bool {
		gone, err := b.Gone(ctx, owner)
		return err == nil && gone
	})
}
