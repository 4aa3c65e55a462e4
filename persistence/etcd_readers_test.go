package persistence

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/etcdtest"
)

// testReaders stands in for the cluster's read leases (cluster.ReadLease): its store's
// writes wait for each holder's watch (Seen), as the cluster's acks do over HTTP.
type testReaders struct {
	holders []*Etcd
	hold    atomic.Bool
	fail    error // what Settle fails with, if set

	mu    sync.Mutex
	revs  []int64
	rec   [][]byte // the records the last Settle was given
	calls int
}

func (r *testReaders) Prefix() string { return "members/" }
func (r *testReaders) Holding() bool  { return r.hold.Load() }
func (r *testReaders) Settle(ctx context.Context, rev int64, recs [][]byte) error {
	r.mu.Lock()
	r.revs, r.rec = append(r.revs, rev), recs
	r.calls++
	r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	for _, h := range r.holders {
		if err := h.Seen(ctx, rev); err != nil {
			return err
		}
	}
	return nil
}

// heardLog counts what a watcher heard, by key.
type heardLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *heardLog) add(k []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	l.n[string(k)]++
}

func (l *heardLog) count(k string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[k]
}

// TestEtcdReadLease: a member holding a read lease answers CaughtUp at once, and yet
// its watchers have heard of every write another member acknowledged before, though its
// watch lags 300 ms: the writer's commit waited for the holder's watch (Settle, given
// the members' records as of the write and the write's revision).
func TestEtcdReadLease(t *testing.T) {
	srv := etcdtest.Start(t)
	open := func(delay time.Duration) *Etcd {
		s, err := OpenEtcd(EtcdOptions{Endpoints: srv.Endpoints(), Prefix: "/lease/", watchDelay: delay})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open(0), open(300*time.Millisecond)
	ctx := context.Background()
	if err := a.Commit(ctx, new(Batch).Put([]byte("members/b"), []byte(`{"name":"b"}`))); err != nil {
		t.Fatal(err)
	}
	var heard heardLog
	b.Watch([]byte("vm/"), heard.add)
	ra := &testReaders{holders: []*Etcd{b}}
	a.SetReaders(ra)
	rb := &testReaders{}
	rb.hold.Store(true)
	b.SetReaders(rb)

	for _, k := range []string{"vm/1", "vm/2", "vm/1"} {
		before := heard.count(k)
		if err := a.Commit(ctx, new(Batch).Put([]byte(k), []byte("x"))); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := b.CaughtUp(ctx); err != nil {
			t.Fatal(err)
		}
		if n := heard.count(k); n != before+1 {
			t.Fatalf("b holds a read lease and a's write of %s was acknowledged, but b's watchers heard of it %d times; want %d", k, n-before, 1)
		}
		if waited := time.Since(start); waited >= 300*time.Millisecond {
			t.Fatalf("CaughtUp on a member holding a read lease took %s: it caught up with etcd instead", waited)
		}
		resp, err := a.Client().Get(ctx, "/lease/"+k)
		if err != nil {
			t.Fatal(err)
		}
		ra.mu.Lock()
		rev, recs := ra.revs[len(ra.revs)-1], ra.rec
		ra.mu.Unlock()
		if rev != resp.Kvs[0].ModRevision {
			t.Fatalf("Settle was given revision %d; the write is at %d", rev, resp.Kvs[0].ModRevision)
		}
		if !slices.ContainsFunc(recs, func(v []byte) bool { return string(v) == `{"name":"b"}` }) {
			t.Fatalf("Settle was given the records %q; want the member records read in the write's transaction", recs)
		}
	}

	// Queued writes: answered in queue order, each once b's watchers heard of it.
	var mu sync.Mutex
	var order []int
	var answered sync.WaitGroup
	for i := range 5 {
		k := []byte("vm/q" + string(rune('0'+i)))
		answered.Add(1)
		a.Enqueue(new(Batch).Put(k, []byte("x")), func(err error) {
			defer answered.Done()
			mu.Lock()
			defer mu.Unlock()
			if err == nil && heard.count(string(k)) != 1 {
				t.Errorf("%s was answered before b's watchers heard of it", k)
			}
			if err != nil {
				t.Errorf("queued write of %s: %v", k, err)
			}
			order = append(order, i)
		})
	}
	answered.Wait()
	if !slices.Equal(order, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("queued writes answered in the order %v; want the queue's", order)
	}

	// A condition that fails writes nothing: nothing to wait for.
	ra.mu.Lock()
	calls := ra.calls
	ra.mu.Unlock()
	err := a.Commit(ctx, new(Batch).Require(IfAbsent([]byte("vm/1"))).Put([]byte("vm/1"), []byte("y")))
	if !errors.Is(err, ErrConditionFailed) {
		t.Fatalf("Commit of a taken key = %v; want ErrConditionFailed", err)
	}
	ra.mu.Lock()
	after := ra.calls
	ra.mu.Unlock()
	if after != calls {
		t.Fatalf("a failed condition called Settle")
	}

	// Not holding: CaughtUp catches up (and waits out b's lagging watch).
	rb.hold.Store(false)
	if err := a.Commit(ctx, new(Batch).Put([]byte("vm/3"), []byte("x"))); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CaughtUp(ctx); err != nil || heard.count("vm/3") != 1 {
		t.Fatalf("CaughtUp without a lease = %v, and the watchers heard of vm/3 %d times; want once", err, heard.count("vm/3"))
	}

	// A write that a holder did not confirm is made but not acknowledged: a timeout,
	// the outcome a client retries with its idempotency key.
	ra.fail = errors.New("member b did not answer")
	err = a.Commit(ctx, new(Batch).Put([]byte("vm/4"), []byte("x")))
	if !errors.Is(err, apierr.ErrTimeout) {
		t.Fatalf("Commit whose holder did not confirm = %v; want a timeout", err)
	}
	if v, err := a.Get(ctx, []byte("vm/4")); err != nil || string(v) != "x" {
		t.Fatalf("the unconfirmed write: Get = %q, %v; want it made", v, err)
	}
}
