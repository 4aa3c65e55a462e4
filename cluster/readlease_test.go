package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// fakeWatch stands in for a member's store (persistence.Etcd): the test moves its
// watch's revision by hand.
type fakeWatch struct {
	mu      sync.Mutex
	rev     int64
	moved   chan struct{} // closed and replaced when rev moves
	catchUp int           // CatchUp calls
	hold    chan struct{} // when set, CatchUp waits until it is closed
	stale   bool          // WatchedThrough reports no recent catch-up

	// Watch follows etcd through cli until ctx ends (nil cli: it hears nothing).
	cli     *clientv3.Client
	ctx     context.Context
	watches sync.WaitGroup
}

func newFakeWatch() *fakeWatch { return &fakeWatch{moved: make(chan struct{})} }

// Watch tells fn of the writes of keys under prefix (under the tests' "/test/").
func (f *fakeWatch) Watch(prefix []byte, fn func(key []byte)) {
	if f.cli == nil {
		return
	}
	ch := f.cli.Watch(f.ctx, "/test/"+string(prefix), clientv3.WithPrefix())
	f.watches.Add(1)
	go func() {
		defer f.watches.Done()
		for resp := range ch {
			for _, ev := range resp.Events {
				fn(ev.Kv.Key[len("/test/"):])
			}
		}
	}()
}

func (f *fakeWatch) advance(rev int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rev = max(f.rev, rev)
	close(f.moved)
	f.moved = make(chan struct{})
}

func (f *fakeWatch) Seen(ctx context.Context, rev int64) error {
	for {
		f.mu.Lock()
		at, moved := f.rev, f.moved
		f.mu.Unlock()
		if at >= rev {
			return nil
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (f *fakeWatch) CatchUp(ctx context.Context) error {
	f.mu.Lock()
	f.catchUp++
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (f *fakeWatch) WatchedThrough() (time.Time, uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stale {
		return time.Now().Add(-time.Hour), 0
	}
	return time.Now(), 0
}

// leaseMember is a member that serves the others and takes part in read leases.
type leaseMember struct {
	*testMember
	watch *fakeWatch
	lease *ReadLease
}

// joinLeasing starts member name with read leases on a fake watch; maintains is what
// it announces (ReadLeaseFeature unless told otherwise).
func joinLeasing(t *testing.T, srv *etcdtest.Server, name string, maintains ...string) *leaseMember {
	t.Helper()
	return joinLeasingLogged(t, srv, name, nil, maintains...)
}

// joinLeasingLogged is joinLeasing with the member's log going to log.
func joinLeasingLogged(t *testing.T, srv *etcdtest.Server, name string, log *zap.Logger, maintains ...string) *leaseMember {
	t.Helper()
	if maintains == nil {
		maintains = []string{ReadLeaseFeature}
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &leaseMember{testMember: &testMember{cli: cli, left: make(chan kit.Member, 16)}, watch: newFakeWatch()}
	wctx, stopWatch := context.WithCancel(context.Background())
	m.watch.cli, m.watch.ctx = cli, wctx
	c, err := Join(Options{Client: cli, Prefix: "/test/", Name: name, Addr: ln.Addr().String(), Maintains: maintains,
		Log: log, Lost: func() { m.lost.Store(true) }})
	if err != nil {
		cli.Close()
		t.Fatal(err)
	}
	m.Cluster = c
	m.lease = c.StartReadLease(m.watch)
	rt := kit.New(nil, nil, kit.EntityOptions{})
	c.Serve(rt, ln)
	t.Cleanup(func() {
		stopWatch()
		m.watch.watches.Wait()
		m.leave()
		rt.Shutdown()
	})
	return m
}

// records is what a writer's transaction reads of the members: their records now.
func records(t *testing.T, m *leaseMember) [][]byte {
	t.Helper()
	resp, err := m.cli.Get(context.Background(), "/test/members/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for _, kv := range resp.Kvs {
		recs = append(recs, kv.Value)
	}
	return recs
}

// settle runs a's Settle of rev in the background; the channel gets its result.
func settle(a *leaseMember, rev int64, recs [][]byte) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		done <- a.lease.Settle(ctx, rev, recs)
	}()
	return done
}

// TestReadLeaseIsHeldOnlyWhenEveryMemberWaitsForIt: a member takes its read lease once
// it serves the others and caught up once; it gives it up while a member that does
// not wait for read leases (an earlier release) is in the cluster, or while its watch
// is not known to be recent, and takes it again after.
func TestReadLeaseIsHeldOnlyWhenEveryMemberWaitsForIt(t *testing.T) {
	srv := etcdtest.Start(t)
	a := joinLeasing(t, srv, "a")
	testwait.Eventually(t, "a holds its read lease", a.lease.Holding)
	a.watch.mu.Lock()
	caught := a.watch.catchUp
	a.watch.mu.Unlock()
	if caught == 0 {
		t.Fatal("a holds its read lease without having caught up once")
	}
	old := join(t, srv, "old") // announces nothing: an earlier release
	testwait.Eventually(t, "a sees the member of an earlier release and gives its lease up", func() bool { return !a.lease.Holding() })
	old.leave()
	testwait.Eventually(t, "a holds its read lease again", a.lease.Holding)

	a.watch.mu.Lock()
	a.watch.stale = true
	a.watch.mu.Unlock()
	if a.lease.Holding() {
		t.Fatal("a holds its read lease while its watch has not caught up with etcd for an hour")
	}
	a.watch.mu.Lock()
	a.watch.stale = false
	a.watch.mu.Unlock()
	a.Depart(context.Background())
	if a.lease.Holding() {
		t.Fatal("a departing member holds its read lease")
	}
}

// TestSettleWaitsForEveryHolder: a write is answered only once each other member that
// answers acks has seen its revision; a member whose watch lags past ackWait gives its
// read lease up rather than hold the write, and takes it again after a catch-up.
func TestSettleWaitsForEveryHolder(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b, c := joinLeasing(t, srv, "a"), joinLeasing(t, srv, "b"), joinLeasing(t, srv, "c")
	for _, m := range []*leaseMember{a, b, c} {
		testwait.Eventually(t, m.Name()+" holds its read lease", m.lease.Holding)
	}
	recs := records(t, a)
	done := settle(a, 100, recs)
	b.watch.advance(100)
	select {
	case err := <-done:
		t.Fatalf("Settle returned (%v) before c's watch reached the revision", err)
	case <-time.After(100 * time.Millisecond):
	}
	c.watch.advance(100)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Settled revisions are remembered: an earlier one asks nobody.
	if err := <-settle(a, 90, recs); err != nil {
		t.Fatal(err)
	}

	// c lags: past ackWait it gives its lease up and lets the write go on; it takes
	// it again after a catch-up (which waits while c lags).
	lag := make(chan struct{})
	c.watch.mu.Lock()
	c.watch.hold = lag
	c.watch.mu.Unlock()
	b.watch.advance(200)
	if err := <-settle(a, 200, recs); err != nil {
		t.Fatalf("Settle with a lagging member: %v; want it released, and the write answered", err)
	}
	if c.lease.Holding() {
		t.Fatal("c answered a write its watch had not seen and still holds its read lease")
	}
	close(lag)
	testwait.Eventually(t, "c takes its read lease again after a catch-up", c.lease.Holding)
	if st := c.Stats(); st.ReadLeaseReleases != 1 || !st.ReadLease {
		t.Fatalf("c's Stats = %+v; want its lease held again after 1 release", st)
	}
}

// TestALeavingMemberWaitsForNoConnection: the members that see one leave close the
// connections they keep to it, those of the read lease's acks included, so that it
// stops without waiting for them (closeWait) and closing them under a request.
func TestALeavingMemberWaitsForNoConnection(t *testing.T) {
	srv := etcdtest.Start(t)
	core, logs := observer.New(zap.WarnLevel)
	a, b := joinLeasing(t, srv, "a"), joinLeasingLogged(t, srv, "b", zap.New(core))
	for _, m := range []*leaseMember{a, b} {
		testwait.Eventually(t, m.Name()+" holds its read lease", m.lease.Holding)
	}
	// a's write waits for b's ack: a's read lease keeps a connection to b.
	done := settle(a, 100, records(t, a))
	b.watch.advance(100)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b.Depart(context.Background())
	testwait.Eventually(t, "a sees b leave", func() bool { return len(a.Members()) == 1 })
	b.leave()
	if n := logs.FilterMessageSnippet("closes the connections other members still keep").Len(); n != 0 {
		t.Fatalf("b had to close connections a kept to it: %v", logs.All())
	}
}

// TestSettleWaitsForADeadHolderUntilItsLeaseEnds: a member that died answers nothing;
// a write waits until its record is gone (its cluster lease expired, after which it no
// longer holds a read lease by its own clock either) or its acks are withdrawn (a
// lease etcd has not expired yet), then is answered.
func TestSettleWaitsForADeadHolderUntilItsLeaseEnds(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := joinLeasing(t, srv, "a"), joinLeasing(t, srv, "b")
	testwait.Eventually(t, "b holds its read lease", b.lease.Holding)
	recs := records(t, a)
	dead := b.self
	// b dies as kill -9 would: it stops answering, and its lease is not revoked.
	b.transport.close()
	b.crash()
	err := <-settle(a, 10, recs)
	if err != nil {
		t.Fatal(err)
	}
	if !a.gone(dead) {
		resp, err := a.cli.Get(context.Background(), "/test/members/b")
		var rec memberRecord
		if err != nil || len(resp.Kvs) != 1 || json.Unmarshal(resp.Kvs[0].Value, &rec) != nil || rec.Acks {
			t.Fatalf("Settle returned while b, which never confirmed, was still a member announcing acks (%v)", err)
		}
	}
	// A member whose record is gone, or says no acks, is not waited for at all.
	testwait.Eventually(t, "b's lease expires", func() bool { return a.gone(dead) })
	if err := <-settle(a, 11, recs); err != nil {
		t.Fatal(err)
	}
}

// TestSettleGivesUpWithItsContext: a holder that is a member but never answers holds the
// write until the writer's context ends, and Settle says so.
func TestSettleGivesUpWithItsContext(t *testing.T) {
	srv := etcdtest.Start(t)
	a := joinLeasing(t, srv, "a")
	// A member record that answers acks on an address where nobody listens, under a
	// live lease.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ghost := join(t, srv, "ghost")
	// a waits only for members it knows of (a record it has not heard of yet is one
	// that is gone): until its watch brings the ghost's join, Settle rightly returns.
	testwait.Eventually(t, "a hears of the ghost", func() bool { return !a.gone(ghost.self) })
	ghost.self.Acks, ghost.self.Addr = true, addr
	recs := [][]byte{mustJSON(t, ghost.self)}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := a.lease.Settle(ctx, 5, recs); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Settle waiting for a member that never answers = %v; want the context's deadline", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNoReadLeaseOnAnAddressTheMemberCannotReach: a member whose record gives a cluster
// address it does not answer on (a wrong port, a wildcard) would hold every write of the
// others until they give up; it says so in its log and announces no acks instead.
func TestNoReadLeaseOnAnAddressTheMemberCannotReach(t *testing.T) {
	srv := etcdtest.Start(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.ErrorLevel)
	m := &testMember{cli: cli, left: make(chan kit.Member, 16)}
	c, err := Join(Options{Client: cli, Prefix: "/test/", Name: "wrong", Addr: "127.0.0.1:1", Log: zap.New(core),
		Maintains: []string{ReadLeaseFeature}})
	if err != nil {
		t.Fatal(err)
	}
	m.Cluster = c
	l := c.StartReadLease(newFakeWatch())
	rt := kit.New(nil, nil, kit.EntityOptions{})
	t.Cleanup(func() {
		m.leave()
		rt.Shutdown()
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0") // not the address in its record
	if err != nil {
		t.Fatal(err)
	}
	c.Serve(rt, ln)
	testwait.Eventually(t, "the member logs that it does not answer on its own address", func() bool {
		return logs.FilterMessageSnippet("does not answer on its own cluster address").Len() == 1
	})
	resp, err := cli.Get(context.Background(), "/test/members/wrong")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("the member's record: %v, %v", resp, err)
	}
	var rec memberRecord
	if err := json.Unmarshal(resp.Kvs[0].Value, &rec); err != nil || rec.Acks {
		t.Fatalf("the member's record %s announces acks (%v); want none", resp.Kvs[0].Value, err)
	}
	if l.Holding() {
		t.Fatal("the member holds a read lease")
	}
}

// TestSettleWithdrawsAHolderItCannotReach: a member that etcd still renews but the
// writer cannot reach (its cluster listener gone: a split between members) does not
// hold the writes until they time out: past withdrawAfter the writer withdraws its
// acks (its record, under its own lease), waits the fence, and goes on; the member,
// told by its watch, gives its lease up and does not take it again while its record
// says it answers none.
func TestSettleWithdrawsAHolderItCannotReach(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := joinLeasing(t, srv, "a"), joinLeasing(t, srv, "b")
	testwait.Eventually(t, "b holds its read lease", b.lease.Holding)
	recs := records(t, a)
	b.transport.close() // b lives on, and etcd renews its lease
	if err := <-settle(a, 10, recs); err != nil {
		t.Fatalf("Settle with a holder it cannot reach: %v; want its acks withdrawn and the write answered", err)
	}
	resp, err := a.cli.Get(context.Background(), "/test/members/b")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("b's record: %v, %v", resp, err)
	}
	var rec memberRecord
	if err := json.Unmarshal(resp.Kvs[0].Value, &rec); err != nil || rec.Acks || rec.Lease != int64(b.Cluster.lease) {
		t.Fatalf("b's record after the withdrawal: %s (%v); want it under b's lease, without acks", resp.Kvs[0].Value, err)
	}
	if b.lease.Holding() {
		t.Fatal("b holds its read lease after the fence of its withdrawal")
	}
	// The writes that read the new record do not wait for b.
	if err := <-settle(a, 11, records(t, a)); err != nil {
		t.Fatal(err)
	}
}
