package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// keyLog records the keys a watcher heard of.
type keyLog struct {
	mu   sync.Mutex
	seen map[string]int
}

func (l *keyLog) add(k []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]int{}
	}
	l.seen[string(k)]++
}

func (l *keyLog) count(k string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[k]
}

// TestEtcdWatchSeesOtherMembers: a write through another client of the same etcd
// (another member) reaches this store's watchers, deletes and expiries included.
func TestEtcdWatchSeesOtherMembers(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	a := openEtcd(t, srv, "/shared/")
	b := openEtcd(t, srv, "/shared/")
	if !a.Shared() {
		t.Fatal("the etcd store says it is not shared")
	}
	var heard keyLog
	a.Watch([]byte("vm/"), heard.add)

	ctx := context.Background()
	if err := b.Commit(ctx, new(persistence.Batch).Put([]byte("vm/1"), []byte("x")).Put([]byte("tenant/1"), []byte("x"))); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "a to hear of b's put of vm/1", func() bool { return heard.count("vm/1") == 1 })
	if v, err := a.Get(context.Background(), []byte("vm/1")); err != nil || string(v) != "x" {
		t.Fatalf("a reads %q, %v; want b's write", v, err)
	}
	if err := b.Commit(ctx, new(persistence.Batch).Del([]byte("vm/1")).PutTTL([]byte("vm/2"), []byte("x"), time.Second)); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "a to hear of b's delete of vm/1", func() bool { return heard.count("vm/1") == 2 })
	// The expiry of vm/2's lease is a delete of its own, heard by every member.
	testwait.Eventually(t, "a to hear of vm/2's put and its expiry", func() bool { return heard.count("vm/2") == 2 })
	if n := heard.count("tenant/1"); n != 0 {
		t.Fatalf("a's vm/ watcher heard of tenant/1 %d times", n)
	}
}

// TestEtcdOutage: with etcd gone, Health turns unavailable by itself and writes fail
// with apierr.ErrUnavailable, writing nothing; once etcd is back, Health heals, writes
// work and the watch follows other members again, all with the same store.
func TestEtcdOutage(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	s, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints(), RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var heard keyLog
	s.Watch(nil, heard.add)
	ctx := context.Background()
	if err := s.Commit(ctx, new(persistence.Batch).Put([]byte("before"), []byte("x"))); err != nil {
		t.Fatal(err)
	}

	srv.Stop()
	// Before the probe noticed: the write waits for etcd up to the request timeout, and
	// cannot tell whether it went out: a 504 (it may have been applied), or a 503 when
	// the client knew it was never sent.
	if err := s.Commit(ctx, new(persistence.Batch).Put([]byte("during/0"), []byte("x"))); !errors.Is(err, apierr.ErrTimeout) && !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Commit right after etcd stopped: %v; want apierr.ErrTimeout or ErrUnavailable", err)
	}
	testwait.Until(t, func() error {
		err := s.Health()
		if !errors.Is(err, apierr.ErrUnavailable) || !strings.Contains(err.Error(), "etcd unreachable") {
			return fmt.Errorf("Health() = %v; want unavailable: etcd unreachable", err)
		}
		return nil
	})
	batch := new(persistence.Batch).Put([]byte("during/1"), []byte("x")).Put([]byte("during/2"), []byte("x"))
	if err := s.Commit(ctx, batch); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Commit while etcd is down: %v; want apierr.ErrUnavailable", err)
	}
	if err := s.Enqueue(new(persistence.Batch).Put([]byte("during/3"), []byte("x")), nil).Wait(ctx); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Enqueue while etcd is down: %v; want apierr.ErrUnavailable", err)
	}
	if _, err := s.Get(context.Background(), []byte("before")); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Get while etcd is down: %v; want apierr.ErrUnavailable", err)
	}

	srv.Restart()
	testwait.Until(t, func() error { return s.Health() })
	for _, k := range []string{"during/0", "during/1", "during/2", "during/3"} {
		if _, err := s.Get(context.Background(), []byte(k)); !errors.Is(err, persistence.ErrNotFound) {
			t.Errorf("Get(%s) after the outage: %v; want nothing of the failed writes", k, err)
		}
	}
	// Writes succeed again. The first may still take past this store's 1 s request
	// timeout on a loaded machine (the restarted etcd's first sync): it failed a CI run
	// so, "the write may have been applied"; the same put again is harmless.
	testwait.Until(t, func() error {
		return s.Commit(ctx, new(persistence.Batch).Put([]byte("after"), []byte("x")))
	})
	other := openEtcd(t, srv, persistence.DefaultEtcdPrefix)
	if err := other.Commit(ctx, new(persistence.Batch).Put([]byte("from-other"), []byte("x"))); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the watch to follow another member's write after the outage", func() bool {
		return heard.count("from-other") > 0
	})
}

// TestEtcdFence: once the member's lease is gone, its next write fails with ErrFenced
// and writes nothing, lost is called once, and later writes fail the same way; while
// the lease holds, a false condition is told apart from the fence.
func TestEtcdFence(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	s := openEtcd(t, srv, "/fence/")
	ctx := context.Background()
	lease, err := s.Client().Grant(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client().Put(ctx, s.Prefix()+"members/me", "me", clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	var lost atomic.Int32
	s.SetFence([]byte("members/me"), lease.ID, func() { lost.Add(1) })

	if err := s.Commit(ctx, new(persistence.Batch).Put([]byte("vm/1"), []byte("x"))); err != nil {
		t.Fatalf("a write under a live lease: %v", err)
	}
	err = s.Commit(ctx, new(persistence.Batch).Require(persistence.IfAbsent([]byte("vm/1"))).Put([]byte("vm/1"), []byte("y")))
	if !persistence.IsConditionFailed(err) || persistence.IsFenced(err) {
		t.Fatalf("a false condition under a live lease: %v; want ErrConditionFailed", err)
	}

	if _, err := s.Client().Revoke(ctx, lease.ID); err != nil {
		t.Fatal(err)
	}
	err = s.Commit(ctx, new(persistence.Batch).Put([]byte("vm/2"), []byte("x")))
	if !persistence.IsFenced(err) || !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("a write after the lease was revoked: %v; want ErrFenced", err)
	}
	if _, err := s.Get(context.Background(), []byte("vm/2")); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("the fenced write was written: %v", err)
	}
	err = s.Enqueue(new(persistence.Batch).Require(persistence.IfAbsent([]byte("vm/1"))).Put([]byte("vm/3"), []byte("x")), nil).Wait(ctx)
	if !persistence.IsFenced(err) {
		t.Fatalf("a later write: %v; want ErrFenced", err)
	}
	if !persistence.IsFenced(s.Health()) {
		t.Fatalf("Health() = %v; want ErrFenced", s.Health())
	}
	if n := lost.Load(); n != 1 {
		t.Fatalf("lost called %d times; want once", n)
	}
	// Reads still work.
	if v, err := s.Get(context.Background(), []byte("vm/1")); err != nil || string(v) != "x" {
		t.Fatalf("Get after the fence failed: %q, %v", v, err)
	}
}

// TestEtcdTooManyOps: a batch over the server's --max-txn-ops fails alone, clearly,
// and writes nothing.
func TestEtcdTooManyOps(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t, func(c *embed.Config) { c.MaxTxnOps = 16 })
	s := openEtcd(t, srv, "/ops/")
	b := new(persistence.Batch)
	for i := range 17 {
		b.Put(fmt.Appendf(nil, "k/%02d", i), []byte("x"))
	}
	err := s.Commit(context.Background(), b)
	if !errors.Is(err, apierr.ErrPayloadTooLarge) || !strings.Contains(err.Error(), "--max-txn-ops") {
		t.Fatalf("a batch of 17 ops with --max-txn-ops=16: %v; want payload_too_large naming --max-txn-ops", err)
	}
	if _, err := s.Get(context.Background(), []byte("k/00")); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("part of the refused batch was written: %v", err)
	}
	if err := s.Commit(context.Background(), new(persistence.Batch).Put([]byte("k/ok"), []byte("x"))); err != nil {
		t.Fatalf("a small batch after it: %v", err)
	}
	if err := s.Health(); err != nil {
		t.Fatalf("Health() = %v after a refused batch; want nil", err)
	}
}

// TestEtcdMetrics: the collectors count requests and errors by op.
func TestEtcdMetrics(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	s := openEtcd(t, srv, "/metrics/")
	reg := prometheus.NewPedanticRegistry()
	for _, c := range s.Collectors() {
		reg.MustRegister(c)
	}
	ctx := context.Background()
	if err := s.Commit(ctx, new(persistence.Batch).Put([]byte("k"), []byte("v"))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(context.Background(), []byte("k")); err != nil {
		t.Fatal(err)
	}
	if err := s.Scan(context.Background(), nil, nil, 0, func(k, v []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	_ = s.Commit(ctx, new(persistence.Batch).Require(persistence.IfAbsent([]byte("k"))).Put([]byte("k"), []byte("w")))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, f := range families {
		if f.GetName() != "vmplane_etcd_request_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				counts[l.GetValue()] = m.GetHistogram().GetSampleCount()
			}
		}
	}
	if counts["txn"] < 2 || counts["get"] < 1 || counts["scan"] < 1 {
		t.Fatalf("request counts by op %v; want 2 txn, a get and a scan at least", counts)
	}
	// A failed condition is an answer, not a failed request.
	for _, f := range families {
		if f.GetName() == "vmplane_etcd_request_errors_total" && len(f.GetMetric()) > 0 {
			t.Fatalf("errors counted with etcd up: %v", f)
		}
	}
}

// TestOpenEtcdUnreachable: opening a store on an etcd that does not answer fails with
// apierr.ErrUnavailable, once the request timeout has passed.
func TestOpenEtcdUnreachable(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	srv.Stop()
	_, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints(), RequestTimeout: 200 * time.Millisecond})
	if !errors.Is(err, apierr.ErrUnavailable) || !strings.Contains(err.Error(), "etcd unreachable") {
		t.Fatalf("OpenEtcd on a stopped etcd: %v; want unavailable: etcd unreachable", err)
	}
}

// cutOff opens a store that reaches srv through a proxy, with a watcher on vm/, and
// waits until its watch follows the writes of other.
func cutOff(t *testing.T, srv *etcdtest.Server, other *persistence.Etcd) (*persistence.Etcd, *etcdtest.Proxy, *keyLog) {
	t.Helper()
	proxy := etcdtest.NewProxy(t, srv)
	s, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: proxy.Endpoints(), Prefix: other.Prefix(), RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	heard := &keyLog{}
	s.Watch([]byte("vm/"), heard.add)
	if err := other.Commit(context.Background(), new(persistence.Batch).Put([]byte("vm/0"), []byte("x"))); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the watch to follow the other member", func() bool { return heard.count("vm/0") == 1 })
	return s, proxy, heard
}

// TestEtcdWatchResumesAfterCut: writes made by another member while this one was cut
// off from etcd reach its watchers once it reconnects: the watch resumes from the last
// revision it saw, with no gap.
func TestEtcdWatchResumesAfterCut(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	other := openEtcd(t, srv, "/resume/")
	s, proxy, heard := cutOff(t, srv, other)

	proxy.Cut()
	testwait.Until(t, func() error {
		if err := s.Health(); !errors.Is(err, apierr.ErrUnavailable) {
			return fmt.Errorf("Health() = %v while cut off; want unavailable", err)
		}
		return nil
	})
	ctx := context.Background()
	for _, b := range []*persistence.Batch{
		new(persistence.Batch).Put([]byte("vm/1"), []byte("x")),
		new(persistence.Batch).Del([]byte("vm/0")),
		new(persistence.Batch).Put([]byte("vm/2"), []byte("x")),
	} {
		if err := other.Commit(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if n := heard.count("vm/1"); n != 0 {
		t.Fatalf("heard of vm/1 %d times while cut off", n)
	}
	proxy.Heal()
	testwait.Eventually(t, "the writes made while cut off to reach the watcher", func() bool {
		return heard.count("vm/1") == 1 && heard.count("vm/2") == 1 && heard.count("vm/0") == 2
	})
	testwait.Until(t, func() error { return s.Health() })
}

// TestEtcdWatchAfterCompaction: when etcd compacted the history the watch had not
// read yet, the watchers hear of every key there is instead.
func TestEtcdWatchAfterCompaction(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	other := openEtcd(t, srv, "/compact/")
	_, proxy, heard := cutOff(t, srv, other)

	proxy.Cut()
	ctx := context.Background()
	// Two writes: compacting at the second leaves the first out of etcd's history.
	for _, k := range []string{"vm/1", "vm/2"} {
		if err := other.Commit(ctx, new(persistence.Batch).Put([]byte(k), []byte("x"))); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := other.Client().Get(ctx, "any")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Client().Compact(ctx, resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	proxy.Heal()
	testwait.Eventually(t, "the watcher to hear of vm/1, written in compacted history", func() bool {
		return heard.count("vm/1") > 0
	})
}

// TestEtcdTTLSharesLeases: TTL writes that expire in the same second share a lease, so
// a hot path does not grant one lease per write.
func TestEtcdTTLSharesLeases(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	s := openEtcd(t, srv, "/ttl/")
	ctx := context.Background()
	const writes = 20
	for i := range writes {
		if err := s.Commit(ctx, new(persistence.Batch).PutTTL(fmt.Appendf(nil, "k/%02d", i), []byte("v"), time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	leases, err := s.Client().Leases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// One per second the writes took, whatever the machine's speed: far fewer than writes
	// unless each write grants its own.
	if n := len(leases.Leases); n == 0 || n >= writes/2 {
		t.Fatalf("%d leases for %d TTL writes of the same TTL; want them shared", n, writes)
	}
	ttl, err := s.Client().TimeToLive(ctx, leases.Leases[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if ttl.GrantedTTL < 3600 || ttl.GrantedTTL > 3601 {
		t.Fatalf("the lease was granted for %d s; want an hour, up to a second more", ttl.GrantedTTL)
	}
}

// TestEtcdFenceAfterPartition: a member cut off from etcd past its lease (no
// keepalive reached etcd) is fenced when it comes back: its first write after the
// partition fails with ErrFenced and writes nothing, rather than overwriting what
// another member took over meanwhile.
func TestEtcdFenceAfterPartition(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	other := openEtcd(t, srv, "/partition/")
	s, proxy, _ := cutOff(t, srv, other)
	ctx := context.Background()
	lease, err := s.Client().Grant(ctx, 1) // the shortest etcd grants; no keepalive
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client().Put(ctx, s.Prefix()+"members/me", "me", clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	var lost atomic.Int32
	s.SetFence([]byte("members/me"), lease.ID, func() { lost.Add(1) })

	proxy.Cut()
	testwait.Until(t, func() error {
		resp, err := other.Client().TimeToLive(ctx, lease.ID)
		if err != nil {
			return err
		}
		if resp.TTL != -1 {
			return fmt.Errorf("the member's lease has %d s left; want it expired", resp.TTL)
		}
		return nil
	})
	// Another member takes over what it owned.
	if err := other.Commit(ctx, new(persistence.Batch).Put([]byte("vm/1"), []byte("new owner"))); err != nil {
		t.Fatal(err)
	}
	proxy.Heal()
	testwait.Until(t, func() error {
		err := s.Commit(ctx, new(persistence.Batch).Put([]byte("vm/1"), []byte("zombie")))
		switch {
		case persistence.IsFenced(err):
			return nil
		case err == nil:
			t.Fatal("the cut-off member wrote after its lease expired")
		}
		return fmt.Errorf("a write after the partition: %v; want ErrFenced", err)
	})
	if v, err := other.Get(context.Background(), []byte("vm/1")); err != nil || string(v) != "new owner" {
		t.Fatalf("vm/1 = %q, %v; want the new owner's write", v, err)
	}
	if n := lost.Load(); n != 1 {
		t.Fatalf("lost called %d times; want once", n)
	}
}

// TestEtcdHealthWhileEtcdHangs: an etcd that takes connections and never answers (no
// error ever comes back, every request waits out its deadline) turns Health
// unavailable from the probe's result, and Health heals once etcd answers again.
func TestEtcdHealthWhileEtcdHangs(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	other := openEtcd(t, srv, "/hang/")
	s, proxy, _ := cutOff(t, srv, other)
	if err := s.Health(); err != nil {
		t.Fatalf("Health() before the hang: %v", err)
	}
	proxy.Hang()
	testwait.Until(t, func() error {
		err := s.Health()
		if !errors.Is(err, apierr.ErrUnavailable) || !strings.Contains(err.Error(), "etcd unreachable") {
			return fmt.Errorf("Health() = %v; want unavailable: etcd unreachable", err)
		}
		return nil
	})
	proxy.Heal()
	testwait.Until(t, func() error { return s.Health() })
}

// TestEtcdReadEndsWithCaller: a read that etcd does not answer ends when its caller's
// context does, with the caller's error, not when the store's own request timeout
// (30 s here) would end it.
func TestEtcdReadEndsWithCaller(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	proxy := etcdtest.NewProxy(t, srv)
	s, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: proxy.Endpoints(), Prefix: "/caller/", RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	// A key far longer than anything else the client sends (probes, keepalives): once
	// the proxy has dropped that much, the read is out and waiting for its answer.
	key := []byte(strings.Repeat("k", 16<<10))
	for _, read := range []struct {
		name string
		do   func(ctx context.Context) error
	}{
		{"Get", func(ctx context.Context) error { _, err := s.Get(ctx, key); return err }},
		{"Scan", func(ctx context.Context) error {
			return s.Scan(ctx, key, nil, 0, func(k, v []byte) error { return nil })
		}},
	} {
		t.Run(read.name, func(t *testing.T) {
			// A read that etcd answers: the client is connected (Heal closed the
			// connections of the subtest before), so the one below goes out.
			if _, err := s.Get(context.Background(), []byte("warm")); !errors.Is(err, persistence.ErrNotFound) {
				t.Fatalf("Get before the hang: %v", err)
			}
			proxy.Hang()
			defer proxy.Heal()
			before := proxy.Dropped()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- read.do(ctx) }()
			testwait.Eventually(t, "the read to be sent to the hung etcd", func() bool {
				return proxy.Dropped()-before >= int64(len(key))
			})
			cancel()
			err := <-done
			if !errors.Is(err, context.Canceled) || !errors.Is(err, apierr.ErrUnavailable) {
				t.Fatalf("%s through a hung etcd, cancelled: %v; want context.Canceled", read.name, err)
			}
			if strings.Contains(err.Error(), "etcd unreachable") {
				t.Fatalf("%s through a hung etcd, cancelled: %v; want the caller's cancellation, not the store's timeout", read.name, err)
			}
		})
	}
}
