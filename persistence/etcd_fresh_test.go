package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// passed waits until s's WatchedThrough is after t and returns its reset count.
func passed(t *testing.T, s *persistence.Etcd, after time.Time) uint64 {
	t.Helper()
	var resets uint64
	testwait.Eventually(t, "WatchedThrough to pass the write", func() bool {
		at, r := s.WatchedThrough()
		resets = r
		return at.After(after)
	})
	return resets
}

// TestEtcdWatchedThrough: once a member's WatchedThrough is past the moment another
// member's write was acknowledged, its watchers have heard of that write, also when
// nothing under the store's prefix moved its watch (a write elsewhere in etcd).
func TestEtcdWatchedThrough(t *testing.T) {
	// Not parallel: a catch-up round is given up after etcdFreshWait (1 s), which
	// etcd under the load of the parallel tests can miss.
	srv := etcdtest.Start(t)
	a := openEtcd(t, srv, "/fresh/")
	b := openEtcd(t, srv, "/fresh/")
	var heard keyLog
	b.Watch([]byte("user/"), heard.add)
	if at, resets := b.WatchedThrough(); resets != 0 {
		t.Fatalf("WatchedThrough() = %v, %d at the start; want no resets", at, resets)
	}
	ctx := context.Background()
	for i, k := range []string{"user/1", "user/2", "user/1"} {
		if err := a.Commit(ctx, new(persistence.Batch).Put([]byte(k), []byte("x"))); err != nil {
			t.Fatal(err)
		}
		acked := time.Now()
		if r := passed(t, b, acked); r != 0 {
			t.Fatalf("%d resets; want none", r)
		}
		if n := heard.count(k); n != 1+i/2 {
			t.Fatalf("WatchedThrough passed the write of %s, and the watcher heard of it %d times; want %d", k, n, 1+i/2)
		}
	}
	// Outside the prefix: the watch hears nothing, and etcd's progress notification
	// moves it on.
	if _, err := a.Client().Put(ctx, "/elsewhere/x", "y"); err != nil {
		t.Fatal(err)
	}
	passed(t, b, time.Now())
}

// TestEtcdWatchedThroughAfterCompaction: a watch that resumes past writes etcd
// compacted away counts a reset before its WatchedThrough passes them.
func TestEtcdWatchedThroughAfterCompaction(t *testing.T) {
	// Not parallel: a catch-up round is given up after etcdFreshWait (1 s), which
	// etcd under the load of the parallel tests can miss.
	srv := etcdtest.Start(t)
	other := openEtcd(t, srv, "/fresh-compact/")
	s, proxy, _ := cutOff(t, srv, other)

	proxy.Cut()
	ctx := context.Background()
	for _, k := range []string{"vm/1", "vm/2"} {
		if err := other.Commit(ctx, new(persistence.Batch).Put([]byte(k), []byte("x"))); err != nil {
			t.Fatal(err)
		}
	}
	acked := time.Now()
	resp, err := other.Client().Get(ctx, "any")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Client().Compact(ctx, resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	proxy.Heal()
	if r := passed(t, s, acked); r != 1 {
		t.Fatalf("WatchedThrough passed the compacted writes with %d resets; want 1", r)
	}
}

// TestEtcdCaughtUp: once CaughtUp returns on a member, its watchers have heard of
// every write another member acknowledged before the call, with the member's answers
// and watch events coming 100 ms late (so a CaughtUp that did not wait would fail),
// many callers at once (sharing rounds), and after a write outside the prefix (the
// progress notification's path).
func TestEtcdCaughtUp(t *testing.T) {
	// Not parallel: a catch-up round is given up after etcdFreshWait (1 s), which
	// etcd under the load of the parallel tests can miss.
	srv := etcdtest.Start(t)
	a := openEtcd(t, srv, "/caught/")
	b, proxy, heard := cutOff(t, srv, a)
	proxy.Delay(100 * time.Millisecond)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				k := fmt.Sprintf("vm/%d-%d", g, i)
				if err := a.Commit(ctx, new(persistence.Batch).Put([]byte(k), []byte("x"))); err != nil {
					t.Error(err)
					return
				}
				resets, err := b.CaughtUp(ctx)
				if err != nil || resets != 0 {
					t.Errorf("CaughtUp() = %d, %v; want no resets", resets, err)
					return
				}
				if n := heard.count(k); n != 1 {
					t.Errorf("CaughtUp returned and the watcher heard of %s %d times; want once", k, n)
				}
			}
		}()
	}
	wg.Wait()
	if _, err := a.Client().Put(ctx, "/elsewhere/x", "y"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CaughtUp(ctx); err != nil {
		t.Fatalf("CaughtUp after a write outside the prefix: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CaughtUp(ctx); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("CaughtUp on a closed store = %v; want unavailable", err)
	}
}

// TestEtcdCaughtUpOncePerRequest: a request (a context with a CatchUp) catches up once
// however many caches it checks, and the next request catches up again: its CaughtUp
// sees another member's write acknowledged before it began, with the member's answers
// and watch events 100 ms late (a CatchUp that outlived its request, or that was shared
// between two, fails here), and a CatchUp of one store is not taken for another's.
func TestEtcdCaughtUpOncePerRequest(t *testing.T) {
	// Not parallel: a catch-up round is given up after etcdFreshWait (1 s), which
	// etcd under the load of the parallel tests can miss.
	srv := etcdtest.Start(t)
	a := openEtcd(t, srv, "/caught-once/")
	b, proxy, heard := cutOff(t, srv, a)
	proxy.Delay(100 * time.Millisecond)
	ctx := context.Background()
	for i := range 3 {
		k := fmt.Sprintf("vm/once-%d", i)
		if err := a.Commit(ctx, new(persistence.Batch).Put([]byte(k), []byte("x"))); err != nil {
			t.Fatal(err)
		}
		req := context.WithValue(ctx, persistence.CatchUpKey, new(persistence.CatchUp))
		before := caughtRounds(t, b)
		for range 3 { // three caches checked by one request
			if _, err := b.CaughtUp(req); err != nil {
				t.Fatal(err)
			}
			if n := heard.count(k); n != 1 {
				t.Fatalf("request %d: CaughtUp returned and the watcher heard of %s %d times; want once", i, k, n)
			}
		}
		if n := caughtRounds(t, b) - before; n != 1 {
			t.Fatalf("request %d: %d catch-up rounds for three checks; want 1", i, n)
		}
		// The same context on another store catches up with that one.
		before = caughtRounds(t, a)
		if _, err := a.CaughtUp(req); err != nil {
			t.Fatal(err)
		}
		if n := caughtRounds(t, a) - before; n != 1 {
			t.Fatalf("request %d: %d rounds on the second store; want 1", i, n)
		}
	}
}

// caughtRounds is the count of s's catch-up rounds (its "caught-up" requests).
func caughtRounds(t *testing.T, s *persistence.Etcd) uint64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	for _, c := range s.Collectors() {
		reg.MustRegister(c)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, f := range families {
		if f.GetName() != "vmplane_etcd_request_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == "caught-up" {
					n += m.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	return n
}
