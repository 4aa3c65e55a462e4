// Package storetest is the conformance suite of persistence.Store: every behaviour of
// the interface contract that actors rely on, run against each implementation (Badger,
// etcd) so that they stay interchangeable.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// Run runs the suite. open returns a new, empty store for one subtest and closes it
// when the subtest ends (Close must be idempotent: one subtest closes it itself). The
// subtests run in parallel: open may be called from several goroutines at once.
func Run(t *testing.T, open func(t *testing.T) persistence.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s persistence.Store)
	}{
		{"GetMissing", testGetMissing},
		{"BatchIsAtomicAndLastWriteWins", testBatch},
		{"ScanOrderAfterLimit", testScan},
		{"ScanPages", testScanPages},
		{"GetMany", testGetMany},
		{"ScanCallbackError", testScanCallbackError},
		{"TTLExpires", testTTL},
		{"EnqueueOrder", testEnqueueOrder},
		{"AfterFailedPredecessor", testAfter},
		{"WatchBeforeCommitReturns", testWatch},
		{"Conditions", testConditions},
		{"ConditionRace", testConditionRace},
		{"CancelledContext", testCancelled},
		{"ScanCancelledMidway", testScanCancelledMidway},
		{"Close", testClose},
	}
	// Each case has a store of its own (open), so they run side by side: most of
	// their time is waiting (a TTL to pass, etcd to answer), not work.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

func commit(t *testing.T, s persistence.Store, b *persistence.Batch) {
	t.Helper()
	if err := s.Commit(context.Background(), b); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func wantValue(t *testing.T, s persistence.Store, key, want string) {
	t.Helper()
	v, err := s.Get(context.Background(), []byte(key))
	if err != nil || string(v) != want {
		t.Fatalf("Get(%s) = %q, %v; want %q", key, v, err, want)
	}
}

func wantMissing(t *testing.T, s persistence.Store, key string) {
	t.Helper()
	if v, err := s.Get(context.Background(), []byte(key)); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("Get(%s) = %q, %v; want ErrNotFound", key, v, err)
	}
}

// scan returns the keys Scan gives, in its order.
func scan(t *testing.T, s persistence.Store, prefix, after string, limit int) []string {
	t.Helper()
	var keys []string
	err := s.Scan(context.Background(), []byte(prefix), []byte(after), limit, func(k, v []byte) error {
		keys = append(keys, string(k))
		return nil
	})
	if err != nil {
		t.Fatalf("Scan(%q, %q, %d): %v", prefix, after, limit, err)
	}
	return keys
}

func testGetMissing(t *testing.T, s persistence.Store) {
	wantMissing(t, s, "nothing/here")
	if _, err := s.Get(context.Background(), nil); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("Get(nil) = %v; want ErrNotFound", err)
	}
	if err := s.Health(); err != nil {
		t.Fatalf("Health() = %v on a new store", err)
	}
}

func testBatch(t *testing.T, s persistence.Store) {
	commit(t, s, new(persistence.Batch).Put([]byte("a/1"), []byte("x")).Put([]byte("a/2"), []byte("y")))
	wantValue(t, s, "a/1", "x")
	wantValue(t, s, "a/2", "y")
	// Several writes of one key in a batch: the last wins.
	commit(t, s, new(persistence.Batch).
		Put([]byte("a/1"), []byte("first")).Put([]byte("a/1"), []byte("second")).
		Put([]byte("a/2"), []byte("gone")).Del([]byte("a/2")).
		Del([]byte("a/3")).Put([]byte("a/3"), []byte("back")))
	wantValue(t, s, "a/1", "second")
	wantMissing(t, s, "a/2")
	wantValue(t, s, "a/3", "back")
	// Deleting a missing key is no error; an empty batch is no write.
	commit(t, s, new(persistence.Batch).Del([]byte("a/never")))
	commit(t, s, new(persistence.Batch))
	before := s.Stats().Commits
	commit(t, s, new(persistence.Batch).Put([]byte("a/4"), []byte("z")))
	if got := s.Stats().Commits; got != before+1 {
		t.Fatalf("Stats().Commits went from %d to %d after one commit", before, got)
	}
}

func testScan(t *testing.T, s persistence.Store) {
	b := new(persistence.Batch)
	for _, k := range []string{"vm/c", "vm/a", "vm/b", "vm/b/x", "vn/a", "vl/z", "vm"} {
		b.Put([]byte(k), []byte("v:"+k))
	}
	commit(t, s, b)
	for _, tt := range []struct {
		prefix, after string
		limit         int
		want          string
	}{
		{"vm/", "", 0, "[vm/a vm/b vm/b/x vm/c]"},
		{"vm/", "vm/a", 0, "[vm/b vm/b/x vm/c]"},
		{"vm/", "vm/b", 2, "[vm/b/x vm/c]"},
		{"vm/", "vm/aa", 1, "[vm/b]"},
		{"vm/", "vm/c", 0, "[]"},
		{"vm/", "vm/z", 0, "[]"},
		{"vm/", "a", 2, "[vm/a vm/b]"}, // after sorts before the prefix: from the start
		{"vm", "", 0, "[vm vm/a vm/b vm/b/x vm/c]"},
		{"vm", "vm", 0, "[vm/a vm/b vm/b/x vm/c]"},
		{"x/", "", 0, "[]"},
	} {
		got := scan(t, s, tt.prefix, tt.after, tt.limit)
		if fmt.Sprint(got) != tt.want && !(len(got) == 0 && tt.want == "[]") {
			t.Errorf("Scan(%q, after %q, limit %d) = %v; want %s", tt.prefix, tt.after, tt.limit, got, tt.want)
		}
	}
	err := s.Scan(context.Background(), []byte("vm/"), nil, 1, func(k, v []byte) error {
		if string(v) != "v:"+string(k) {
			t.Errorf("Scan gave %s = %q", k, v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testScanPages: a scan longer than a store's internal page (the etcd store reads 500
// keys per request) is whole, ordered, and honours after and limit across pages.
func testScanPages(t *testing.T, s persistence.Store) {
	const n = 1234
	for start := 0; start < n; start += 100 {
		b := new(persistence.Batch)
		for i := start; i < min(start+100, n); i++ {
			b.Put(fmt.Appendf(nil, "p/%05d", i), []byte(strconv.Itoa(i)))
		}
		commit(t, s, b)
	}
	check := func(after string, limit, first, count int) {
		t.Helper()
		got := scan(t, s, "p/", after, limit)
		if len(got) != count {
			t.Fatalf("Scan(after %q, limit %d) gave %d keys; want %d", after, limit, len(got), count)
		}
		for i, k := range got {
			if want := fmt.Sprintf("p/%05d", first+i); k != want {
				t.Fatalf("Scan(after %q, limit %d): key %d is %s; want %s", after, limit, i, k, want)
			}
		}
	}
	check("", 0, 0, n)
	check("", 700, 0, 700)
	check("p/00499", 0, 500, n-500)
	check("p/00100", 1000, 101, 1000)
	check("p/01233", 0, 0, 0)
}

// testGetMany: persistence.GetMany (the store's own MultiGetter when it has one) gives
// each key's value in order, nil for a missing key, over more keys than one etcd
// transaction may hold, and the last write of each key.
func testGetMany(t *testing.T, s persistence.Store) {
	const n = 300
	b := new(persistence.Batch)
	for i := 0; i < n; i += 2 { // the odd ones are missing
		b.Put(fmt.Appendf(nil, "m/%03d", i), []byte(strconv.Itoa(i)))
	}
	commit(t, s, b)
	commit(t, s, new(persistence.Batch).Put([]byte("m/000"), []byte("again")).Del([]byte("m/002")))
	var keys [][]byte
	for i := n - 1; i >= 0; i-- { // not in key order
		keys = append(keys, fmt.Appendf(nil, "m/%03d", i))
	}
	got, err := persistence.GetMany(context.Background(), s, keys)
	if err != nil {
		t.Fatalf("GetMany: %v", err)
	}
	if len(got) != n {
		t.Fatalf("GetMany gave %d values; want %d", len(got), n)
	}
	for j, v := range got {
		i := n - 1 - j
		want := strconv.Itoa(i)
		switch {
		case i == 0:
			want = "again"
		case i == 2 || i%2 == 1:
			if v != nil {
				t.Fatalf("GetMany: key %s (missing) gave %q; want nil", keys[j], v)
			}
			continue
		}
		if string(v) != want {
			t.Fatalf("GetMany: key %s gave %q; want %q", keys[j], v, want)
		}
	}
	if got, err := persistence.GetMany(context.Background(), s, nil); err != nil || len(got) != 0 {
		t.Fatalf("GetMany(no keys) = %q, %v; want nothing", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := persistence.GetMany(ctx, s, keys[:1]); !errors.Is(err, context.Canceled) {
		t.Fatalf("GetMany(ended context) = %v; want context.Canceled", err)
	}
}

func testScanCallbackError(t *testing.T, s persistence.Store) {
	commit(t, s, new(persistence.Batch).Put([]byte("e/1"), []byte("1")).Put([]byte("e/2"), []byte("2")))
	stop := errors.New("stop here")
	calls := 0
	err := s.Scan(context.Background(), []byte("e/"), nil, 0, func(k, v []byte) error {
		calls++
		// A callback may read the store.
		if _, err := s.Get(context.Background(), k); err != nil {
			t.Errorf("Get(%s) inside Scan: %v", k, err)
		}
		return stop
	})
	if err != stop || calls != 1 { //nolint:errorlint // the contract: returned as it is
		t.Fatalf("Scan returned %v after %d calls; want the callback's own error after 1", err, calls)
	}
}

func testTTL(t *testing.T, s persistence.Store) {
	commit(t, s, new(persistence.Batch).
		PutTTL([]byte("ttl/short"), []byte("x"), time.Second).
		PutTTL([]byte("ttl/long"), []byte("y"), time.Hour).
		Put([]byte("ttl/none"), []byte("z")))
	wantValue(t, s, "ttl/long", "y")
	testwait.Eventually(t, "the key with a 1 s TTL to expire", func() bool {
		_, err := s.Get(context.Background(), []byte("ttl/short"))
		return errors.Is(err, persistence.ErrNotFound)
	})
	if got := fmt.Sprint(scan(t, s, "ttl/", "", 0)); got != "[ttl/long ttl/none]" {
		t.Fatalf("Scan after expiry = %s; want the two keys that did not expire", got)
	}
	// Many TTL writes in a row (a hot path): all land.
	for i := range 20 {
		commit(t, s, new(persistence.Batch).PutTTL(fmt.Appendf(nil, "ttl/many/%02d", i), []byte("v"), time.Hour))
	}
	if got := len(scan(t, s, "ttl/many/", "", 0)); got != 20 {
		t.Fatalf("got %d of 20 TTL keys", got)
	}
}

func testEnqueueOrder(t *testing.T, s persistence.Store) {
	const n = 40
	var (
		mu    sync.Mutex
		heard []int
		ps    []*persistence.Pending
	)
	for i := range n {
		ps = append(ps, s.Enqueue(new(persistence.Batch).Put([]byte("q/k"), []byte(strconv.Itoa(i))), func(err error) {
			if err != nil {
				t.Errorf("then(%v) for batch %d", err, i)
			}
			mu.Lock()
			heard = append(heard, i)
			mu.Unlock()
		}))
	}
	// A Commit after the Enqueues of the same caller lands after them.
	commit(t, s, new(persistence.Batch).Put([]byte("q/k"), []byte("commit")))
	for i, p := range ps {
		if !p.Done() {
			t.Fatalf("batch %d is not done after a later Commit returned", i)
		}
		if err := p.Wait(context.Background()); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	wantValue(t, s, "q/k", "commit")
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != n {
		t.Fatalf("then called %d times; want %d", len(heard), n)
	}
	for i, got := range heard {
		if got != i {
			t.Fatalf("results known in the order %v; want the enqueue order", heard)
		}
	}
	// An empty batch is known at once.
	if p := s.Enqueue(new(persistence.Batch), nil); !p.Done() || p.Wait(context.Background()) != nil {
		t.Fatal("an empty batch is not done at once")
	}
}

func testAfter(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	commit(t, s, new(persistence.Batch).Put([]byte("after/exists"), []byte("1")))
	failing := s.Enqueue(new(persistence.Batch).Require(persistence.IfAbsent([]byte("after/exists"))).
		Put([]byte("after/a"), []byte("1")), nil)
	dependent := s.Enqueue(&persistence.Batch{Ops: []persistence.Op{{Key: []byte("after/b"), Value: []byte("1")}}, After: failing}, nil)
	chained := s.Enqueue(&persistence.Batch{Ops: []persistence.Op{{Key: []byte("after/c"), Value: []byte("1")}}, After: dependent}, nil)
	independent := s.Enqueue(new(persistence.Batch).Put([]byte("after/d"), []byte("1")), nil)
	if err := failing.Wait(ctx); !persistence.IsConditionFailed(err) {
		t.Fatalf("the predecessor: %v; want ErrConditionFailed", err)
	}
	for name, p := range map[string]*persistence.Pending{"dependent": dependent, "chained": chained} {
		if err := p.Wait(ctx); err == nil {
			t.Errorf("%s succeeded after its predecessor failed", name)
		}
	}
	if err := independent.Wait(ctx); err != nil {
		t.Fatalf("an independent batch: %v", err)
	}
	for _, k := range []string{"after/a", "after/b", "after/c"} {
		wantMissing(t, s, k)
	}
	// After a predecessor that is known to have failed, through Commit too.
	err := s.Commit(ctx, &persistence.Batch{Ops: []persistence.Op{{Key: []byte("after/e"), Value: []byte("1")}}, After: chained})
	if err == nil {
		t.Fatal("Commit after a failed predecessor succeeded")
	}
	wantMissing(t, s, "after/e")
	commit(t, s, &persistence.Batch{Ops: []persistence.Op{{Key: []byte("after/f"), Value: []byte("1")}}, After: independent})
	wantValue(t, s, "after/f", "1")
}

func testWatch(t *testing.T, s persistence.Store) {
	var (
		mu   sync.Mutex
		seen = map[string]int{}
	)
	s.Watch([]byte("w/"), func(key []byte) {
		mu.Lock()
		seen[string(key)]++
		mu.Unlock()
	})
	saw := func(k string) bool {
		mu.Lock()
		defer mu.Unlock()
		return seen[k] > 0
	}
	commit(t, s, new(persistence.Batch).Put([]byte("w/1"), []byte("x")).Put([]byte("other/1"), []byte("x")))
	if !saw("w/1") {
		t.Fatal("the watcher had not heard of w/1 when Commit returned")
	}
	commit(t, s, new(persistence.Batch).Del([]byte("w/1")))
	p := s.Enqueue(new(persistence.Batch).Put([]byte("w/2"), []byte("x")), nil)
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !saw("w/2") {
		t.Fatal("the watcher had not heard of w/2 when its result was known")
	}
	mu.Lock()
	defer mu.Unlock()
	if seen["w/1"] < 2 {
		t.Fatalf("w/1 heard %d times; want its put and its delete", seen["w/1"])
	}
	if seen["other/1"] > 0 {
		t.Fatal("the watcher heard of a key outside its prefix")
	}
}

func testConditions(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	create := func(v string) *persistence.Batch {
		return new(persistence.Batch).Require(persistence.IfAbsent([]byte("c/admin"))).
			Put([]byte("c/admin"), []byte(v)).Put([]byte("c/by-"+v), []byte("1"))
	}
	commit(t, s, create("first"))
	errorsBefore := s.Stats().CommitErrors
	err := s.Commit(ctx, create("second"))
	if !persistence.IsConditionFailed(err) || !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("a second create: %v; want ErrConditionFailed (a conflict)", err)
	}
	if s.Stats().CommitErrors <= errorsBefore {
		t.Error("a failed condition did not count in Stats().CommitErrors")
	}
	wantValue(t, s, "c/admin", "first")
	wantMissing(t, s, "c/by-second") // nothing of the failed batch

	swap := func(from, to string) error {
		return s.Commit(ctx, new(persistence.Batch).Require(persistence.IfValue([]byte("c/admin"), []byte(from))).
			Put([]byte("c/admin"), []byte(to)))
	}
	if err := swap("first", "third"); err != nil {
		t.Fatalf("IfValue with the current value: %v", err)
	}
	if err := swap("first", "fourth"); !persistence.IsConditionFailed(err) {
		t.Fatalf("IfValue with a stale value: %v; want ErrConditionFailed", err)
	}
	wantValue(t, s, "c/admin", "third")
	// IfValue on a missing key fails, also for an empty value; IfAbsent after a delete holds.
	err = s.Commit(ctx, new(persistence.Batch).Require(persistence.IfValue([]byte("c/none"), nil)).Put([]byte("c/x"), []byte("1")))
	if !persistence.IsConditionFailed(err) {
		t.Fatalf("IfValue on a missing key: %v; want ErrConditionFailed", err)
	}
	commit(t, s, new(persistence.Batch).Put([]byte("c/empty"), nil))
	commit(t, s, new(persistence.Batch).Require(persistence.IfValue([]byte("c/empty"), []byte{})).Put([]byte("c/x"), []byte("1")))
	commit(t, s, new(persistence.Batch).Del([]byte("c/admin")))
	commit(t, s, create("again"))
	// Several conditions: all must hold. A batch of conditions only writes nothing.
	both := new(persistence.Batch).Require(persistence.IfAbsent([]byte("c/free"))).
		Require(persistence.IfAbsent([]byte("c/admin"))).Put([]byte("c/free"), []byte("1"))
	if err := s.Commit(ctx, both); !persistence.IsConditionFailed(err) {
		t.Fatalf("one of two conditions false: %v; want ErrConditionFailed", err)
	}
	wantMissing(t, s, "c/free")
	if err := s.Commit(ctx, new(persistence.Batch).Require(persistence.IfValue([]byte("c/admin"), []byte("again")))); err != nil {
		t.Fatalf("a batch of a true condition only: %v", err)
	}
	if err := s.Commit(ctx, new(persistence.Batch).Require(persistence.IfAbsent([]byte("c/admin")))); !persistence.IsConditionFailed(err) {
		t.Fatalf("a batch of a false condition only: %v; want ErrConditionFailed", err)
	}
	// A condition on a key that expired.
	commit(t, s, new(persistence.Batch).PutTTL([]byte("c/lease"), []byte("1"), time.Second))
	testwait.Eventually(t, "the TTL key to expire", func() bool {
		return s.Commit(ctx, new(persistence.Batch).Require(persistence.IfAbsent([]byte("c/lease"))).Put([]byte("c/lease"), []byte("2"))) == nil
	})
	wantValue(t, s, "c/lease", "2")
}

// testConditionRace: writers racing to create one key, each through its own Commit or
// Enqueue: exactly one wins.
func testConditionRace(t *testing.T, s persistence.Store) {
	const writers = 16
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		won  []int
		errs []error
	)
	for i := range writers {
		wg.Go(func() {
			b := new(persistence.Batch).Require(persistence.IfAbsent([]byte("race/key"))).
				Put([]byte("race/key"), []byte(strconv.Itoa(i)))
			var err error
			if i%2 == 0 {
				err = s.Commit(context.Background(), b)
			} else {
				err = s.Enqueue(b, nil).Wait(context.Background())
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, i)
			case !persistence.IsConditionFailed(err):
				errs = append(errs, err)
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 || len(won) != 1 {
		t.Fatalf("winners %v, other errors %v; want exactly one winner and only condition failures", won, errs)
	}
	wantValue(t, s, "race/key", strconv.Itoa(won[0]))
}

func testCancelled(t *testing.T, s persistence.Store) {
	commit(t, s, new(persistence.Batch).Put([]byte("cancel/there"), []byte("v")))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want error // what the error matches, besides ctx's error
	}{
		{"cancelled", cancelled, apierr.ErrUnavailable},
		{"past its deadline", expired, apierr.ErrTimeout},
	} {
		err := s.Commit(tt.ctx, new(persistence.Batch).Put([]byte("cancel/k"), []byte("v")))
		if !errors.Is(err, tt.ctx.Err()) || !errors.Is(err, tt.want) {
			t.Errorf("Commit with a context %s: %v; want %v and %v", tt.name, err, tt.ctx.Err(), tt.want)
		}
		// A read the caller gave up on fails, even of a key that is there.
		if v, err := s.Get(tt.ctx, []byte("cancel/there")); !errors.Is(err, tt.ctx.Err()) || !errors.Is(err, tt.want) {
			t.Errorf("Get with a context %s = %q, %v; want %v and %v", tt.name, v, err, tt.ctx.Err(), tt.want)
		}
		calls := 0
		err = s.Scan(tt.ctx, []byte("cancel/"), nil, 0, func(k, v []byte) error { calls++; return nil })
		if !errors.Is(err, tt.ctx.Err()) || !errors.Is(err, tt.want) || calls != 0 {
			t.Errorf("Scan with a context %s: %v after %d calls of fn; want %v and %v, and no call",
				tt.name, err, calls, tt.ctx.Err(), tt.want)
		}
	}
	wantMissing(t, s, "cancel/k")
	// The store is as usable as before: giving up is the caller's, not a fault of it.
	wantValue(t, s, "cancel/there", "v")
	if err := s.Health(); err != nil {
		t.Fatalf("Health() after reads with ended contexts: %v", err)
	}
}

// testScanCancelledMidway: a context that ends while Scan runs stops it at the next
// key, with ctx's error.
func testScanCancelledMidway(t *testing.T, s persistence.Store) {
	b := new(persistence.Batch)
	for i := range 10 {
		b.Put([]byte("mid/"+strconv.Itoa(i)), []byte("v"))
	}
	commit(t, s, b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	err := s.Scan(ctx, []byte("mid/"), nil, 0, func(k, v []byte) error {
		calls++
		if calls == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || calls != 3 {
		t.Fatalf("Scan whose context is cancelled in the third call of fn: %v after %d calls; want context.Canceled after 3", err, calls)
	}
}

func testClose(t *testing.T, s persistence.Store) {
	commit(t, s, new(persistence.Batch).Put([]byte("close/k"), []byte("v")))
	// Queued writes are written before Close returns.
	p := s.Enqueue(new(persistence.Batch).Put([]byte("close/q"), []byte("v")), nil)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := p.Wait(context.Background()); err != nil {
		t.Fatalf("a write queued before Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	unavailable := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, apierr.ErrUnavailable) {
			t.Errorf("%s after Close: %v; want apierr.ErrUnavailable", what, err)
		}
	}
	_, err := s.Get(context.Background(), []byte("close/k"))
	unavailable("Get", err)
	unavailable("Scan", s.Scan(context.Background(), nil, nil, 0, func(k, v []byte) error { return nil }))
	unavailable("Commit", s.Commit(context.Background(), new(persistence.Batch).Put([]byte("close/x"), []byte("v"))))
	var heard error
	unavailable("Enqueue", s.Enqueue(new(persistence.Batch).Put([]byte("close/x"), []byte("v")), func(err error) { heard = err }).Wait(context.Background()))
	unavailable("Enqueue's then", heard)
	unavailable("Health", s.Health())
}
