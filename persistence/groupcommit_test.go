package persistence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/testwait"
)

func TestGroupCommitGroups(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})
	const writers, each = 64, 16
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			<-start
			for i := range each {
				k := Key("vm", fmt.Sprintf("%02d-%02d", g, i))
				if err := s.Commit(context.Background(), new(Batch).Put(k, k)); err != nil {
					t.Errorf("Commit(%s): %v", k, err)
				}
			}
		})
	}
	close(start)
	wg.Wait()

	st := s.Stats()
	if st.Commits != writers*each {
		t.Fatalf("Stats().Commits = %d; want %d", st.Commits, writers*each)
	}
	if st.Groups >= st.Commits {
		t.Fatalf("Stats().Groups = %d; want fewer than the %d commits", st.Groups, st.Commits)
	}
	t.Logf("%d commits in %d synced transactions (%.1f per group)", st.Commits, st.Groups, float64(st.Commits)/float64(st.Groups))
	if n := len(scanAll(t, s, "vm/", "", 0)); n != writers*each {
		t.Fatalf("Scan found %d keys; want %d", n, writers*each)
	}
}

// heldWriter opens a store whose writer blocks before its first group until release is
// called, so that tests can queue requests behind it and have them taken as one group.
func heldWriter(t *testing.T, opts Options) (s *Badger, firstTaken <-chan struct{}, release func()) {
	t.Helper()
	taken := make(chan struct{})
	gate := make(chan struct{})
	var once sync.Once
	first := true
	opts.beforeGroup = func() {
		if first { // only the writer goroutine runs this
			first = false
			close(taken)
			<-gate
		}
	}
	s = openStore(t, opts)
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // cleanups run last-first: this one before openStore's Close
	return s, taken, release
}

// waitPending waits until n commits are queued behind the held writer.
func waitPending(t *testing.T, s *Badger, n int64) {
	t.Helper()
	testwait.Until(t, func() error {
		if got := s.Stats().PendingWrites; got != n {
			return fmt.Errorf("PendingWrites = %d; want %d", got, n)
		}
		return nil
	})
}

type result struct {
	name string
	err  error
}

// commitAsync commits b in a goroutine and sends the result on out.
func commitAsync(ctx context.Context, s Store, name string, b *Batch, out chan<- result) {
	go func() { out <- result{name, s.Commit(ctx, b)} }()
}

func TestInvalidBatchFailsAlone(t *testing.T) {
	t.Parallel()
	s, firstTaken, release := heldWriter(t, Options{})
	out := make(chan result, 16)
	commitAsync(context.Background(), s, "first", new(Batch).Put([]byte("k/first"), []byte("v")), out)
	<-firstTaken

	big := bytes.Repeat([]byte("x"), MaxValueSize)
	batches := []struct {
		name    string
		b       *Batch
		wantErr *apierr.Error // nil: must succeed
	}{
		{"ok1", new(Batch).Put([]byte("k/ok1"), []byte("v")), nil},
		{"empty-key", new(Batch).Put([]byte("k/partial"), []byte("v")).Put(nil, []byte("v")), apierr.ErrInternal},
		{"ok2", new(Batch).Put([]byte("k/ok2"), []byte("v")).Del([]byte("k/first")), nil},
		{"reserved", new(Batch).Put([]byte("!badger!x"), []byte("v")), apierr.ErrInternal},
		{"value-too-big", new(Batch).Put([]byte("k/big"), append(big, 'x')), apierr.ErrPayloadTooLarge},
		// Each value is allowed, but three of them exceed Badger's transaction limit
		// (15% of a 16 MiB memtable): Badger itself refuses this one, part-way.
		{"txn-too-big", new(Batch).Put([]byte("k/big1"), big).Put([]byte("k/big2"), big).Put([]byte("k/big3"), big), apierr.ErrPayloadTooLarge},
		{"ok3", new(Batch).Put([]byte("k/ok3"), []byte("v")), nil},
	}
	for i, tt := range batches {
		commitAsync(context.Background(), s, tt.name, tt.b, out)
		waitPending(t, s, int64(i+1)) // keep the queue in this order
	}
	groupsBefore := s.Stats().Groups
	release()

	want := map[string]*apierr.Error{"first": nil}
	for _, tt := range batches {
		want[tt.name] = tt.wantErr
	}
	for range want {
		r := <-out
		w := want[r.name]
		switch {
		case w == nil && r.err != nil:
			t.Errorf("%s: got %v; want success", r.name, r.err)
		case w != nil && !errors.Is(r.err, w):
			t.Errorf("%s: got %v; want an error of kind %s", r.name, r.err, w.Code)
		}
	}
	for k, want := range map[string]bool{"k/ok1": true, "k/ok2": true, "k/ok3": true, "k/first": false,
		"k/partial": false, "k/big": false, "k/big1": false} {
		_, err := s.Get(context.Background(), []byte(k))
		if got := err == nil; got != want {
			t.Errorf("key %s present = %v (%v); want %v", k, got, err, want)
		}
	}
	// The first group, then ok1+ok2 in one transaction, the too-big batch alone fails,
	// then ok3 in a second one.
	if g := s.Stats().Groups - groupsBefore; g != 3 {
		t.Errorf("synced transactions after release = %d; want 3", g)
	}
	if st := s.Stats(); st.CommitErrors != 4 || st.Commits != 4 {
		t.Errorf("Stats = %+v; want 4 commits and 4 errors", st)
	}
}

func TestCloseDrainsQueuedCommits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, firstTaken, release := heldWriter(t, Options{Dir: dir})
	const queued = 20
	out := make(chan result, queued+1)
	commitAsync(context.Background(), s, "first", new(Batch).Put([]byte("k/first"), []byte("v")), out)
	<-firstTaken
	for i := range queued {
		commitAsync(context.Background(), s, "q", new(Batch).Put(Key("k", fmt.Sprint(i)), []byte("v")), out)
	}
	waitPending(t, s, queued)

	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	testwait.Eventually(t, "the gate closed by Close", s.gate.isClosed)
	if err := s.Commit(context.Background(), new(Batch).Put([]byte("k/late"), []byte("v"))); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Commit while closing: got %v; want an apierr.ErrUnavailable error", err)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while commits were queued", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Every queued commit was acknowledged before Close returned.
	if st := s.Stats(); st.Commits != queued+1 || st.PendingWrites != 0 {
		t.Fatalf("Stats when Close returned = %+v; want %d commits, none pending", st, queued+1)
	}
	for range queued + 1 {
		if r := <-out; r.err != nil {
			t.Fatalf("queued commit: %v", r.err)
		}
	}

	s2 := openStore(t, Options{Dir: dir})
	if n := len(scanAll(t, s2, "k/", "", 0)); n != queued+1 {
		t.Fatalf("after reopen: %d keys; want %d", n, queued+1)
	}
}

func TestCommitCancelledWhileQueued(t *testing.T) {
	t.Parallel()
	s, firstTaken, release := heldWriter(t, Options{})
	takenCtx, cancelTaken := context.WithCancel(context.Background())
	out := make(chan result, 2)
	commitAsync(takenCtx, s, "taken", new(Batch).Put([]byte("k/taken"), []byte("v")), out)
	<-firstTaken

	queuedCtx, cancelQueued := context.WithCancel(context.Background())
	commitAsync(queuedCtx, s, "queued", new(Batch).Put([]byte("k/queued"), []byte("v")), out)
	waitPending(t, s, 1)

	// A queued commit is withdrawn at once.
	cancelQueued()
	if r := <-out; r.name != "queued" || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled queued commit: got %s %v; want queued context.Canceled", r.name, r.err)
	}
	// A taken commit waits for its result despite its context.
	cancelTaken()
	select {
	case r := <-out:
		t.Fatalf("commit taken by the writer returned %v before the write finished", r.err)
	case <-time.After(20 * time.Millisecond):
	}
	release()
	if r := <-out; r.err != nil {
		t.Fatalf("taken commit: got %v; want success", r.err)
	}
	if _, err := s.Get(context.Background(), []byte("k/taken")); err != nil {
		t.Fatalf("Get(k/taken): %v", err)
	}
	if _, err := s.Get(context.Background(), []byte("k/queued")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(k/queued): got %v; want ErrNotFound: a withdrawn commit must not be written", err)
	}
	if p := s.Stats().PendingWrites; p != 0 {
		t.Fatalf("PendingWrites = %d; want 0", p)
	}
}

func TestMaxBatchSplitsGroups(t *testing.T) {
	t.Parallel()
	s, firstTaken, release := heldWriter(t, Options{MaxBatch: 4})
	out := make(chan result, 11)
	commitAsync(context.Background(), s, "first", new(Batch).Put([]byte("k/first"), []byte("v")), out)
	<-firstTaken
	for i := range 10 {
		commitAsync(context.Background(), s, "q", new(Batch).Put(Key("k", fmt.Sprint(i)), []byte("v")), out)
	}
	waitPending(t, s, 10)
	release()
	for range 11 {
		if r := <-out; r.err != nil {
			t.Fatalf("commit: %v", r.err)
		}
	}
	// 1 + ceil(10/4) groups.
	if g := s.Stats().Groups; g != 4 {
		t.Fatalf("Groups = %d; want 4", g)
	}
}

// TestWriteFailureDisablesWrites checks that after a failed commit the store refuses
// writes rather than acknowledging ones it cannot vouch for.
func TestWriteFailureDisablesWrites(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})
	mustCommit(t, s, new(Batch).Put([]byte("k/1"), []byte("v")))
	err := s.failWrites(errors.New("simulated msync failure"))
	if !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("failWrites: got %v; want an apierr.ErrUnavailable error", err)
	}
	if err := s.Commit(context.Background(), new(Batch).Put([]byte("k/2"), []byte("v"))); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Commit after a write failure: got %v; want an apierr.ErrUnavailable error", err)
	}
	if got, err := s.Get(context.Background(), []byte("k/1")); err != nil || string(got) != "v" {
		t.Fatalf("Get after a write failure = %q, %v; want %q", got, err, "v")
	}
}

// TestEnqueueKeepsOrder: batches enqueued one after another, without waiting, are
// written in that order, and each Wait reports its own batch durable.
func TestEnqueueKeepsOrder(t *testing.T) {
	t.Parallel()
	s, firstTaken, release := heldWriter(t, Options{})
	commitAsync(context.Background(), s, "holder", new(Batch).Put([]byte("other"), []byte("x")), make(chan result, 1))
	<-firstTaken
	var ps []*Pending
	var heard []string
	var mu sync.Mutex
	var called sync.WaitGroup
	called.Add(50)
	for i := range 50 {
		ps = append(ps, s.Enqueue(new(Batch).Put([]byte("j"), []byte(strconv.Itoa(i))), func(err error) {
			defer called.Done()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("then(%v) for batch %d", err, i)
			}
			heard = append(heard, strconv.Itoa(i))
		}))
	}
	for i := range 50 {
		ps = append(ps, s.Enqueue(new(Batch).Put([]byte("k"), []byte(strconv.Itoa(i))), nil))
	}
	if _, err := s.Get(context.Background(), []byte("k")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v before the writer ran; want nothing written yet", err)
	}
	release()
	for i, p := range ps {
		if err := p.Wait(context.Background()); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	if v, err := s.Get(context.Background(), []byte("k")); err != nil || string(v) != "49" {
		t.Fatalf("got %q, %v; want the last batch's value 49", v, err)
	}
	called.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 50 || heard[0] != "0" || heard[49] != "49" {
		t.Fatalf("then was called for %v; want every batch once, in order", heard)
	}
}

// TestResultsInQueueOrder: in a group mixing valid and invalid batches, every result
// is given in queue order, so an invalid batch is not answered before a valid one
// queued ahead of it (an owner's last answer must mean none of its writes is in flight).
func TestResultsInQueueOrder(t *testing.T) {
	t.Parallel()
	s, firstTaken, release := heldWriter(t, Options{})
	commitAsync(context.Background(), s, "holder", new(Batch).Put([]byte("other"), []byte("x")), make(chan result, 1))
	<-firstTaken
	var mu sync.Mutex
	var heard []string
	var called sync.WaitGroup
	enqueue := func(name string, b *Batch) *Pending {
		called.Add(1)
		return s.Enqueue(b, func(error) {
			defer called.Done()
			mu.Lock()
			defer mu.Unlock()
			heard = append(heard, name)
		})
	}
	ok1 := enqueue("ok1", new(Batch).Put([]byte("a"), []byte("1")))
	enqueue("bad", &Batch{Ops: []Op{{}}, After: ok1}) // an empty key: fails alone
	enqueue("dependent", new(Batch).Put([]byte("b"), []byte("1")))
	enqueue("too-big", new(Batch).Put([]byte("c"), bytes.Repeat([]byte("x"), MaxValueSize+1)))
	enqueue("ok2", new(Batch).Put([]byte("d"), []byte("1")))
	release()
	called.Wait()
	mu.Lock()
	defer mu.Unlock()
	if got, want := strings.Join(heard, " "), "ok1 bad dependent too-big ok2"; got != want {
		t.Fatalf("results in the order %q; want the queue's, %q", got, want)
	}
}

// TestEnqueueWithoutGroupCommit: the baseline mode writes and syncs in Enqueue.
func TestEnqueueWithoutGroupCommit(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{NoGroupCommit: true})
	p := s.Enqueue(new(Batch).Put([]byte("k"), []byte("v")), nil)
	if v, err := s.Get(context.Background(), []byte("k")); err != nil || string(v) != "v" {
		t.Fatalf("got %q, %v right after Enqueue; want it written", v, err)
	}
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestAfterFailsDependents: a batch built on an earlier one that failed fails too,
// unwritten, whether they share a group or not; an independent batch is unaffected.
func TestAfterFailsDependents(t *testing.T) {
	t.Parallel()
	s, firstTaken, release := heldWriter(t, Options{})
	commitAsync(context.Background(), s, "holder", new(Batch).Put([]byte("other"), []byte("x")), make(chan result, 1))
	<-firstTaken
	bad := s.Enqueue(&Batch{Ops: []Op{{}}}, nil) // an empty key: fails alone
	b := s.Enqueue(&Batch{Ops: []Op{{Key: []byte("b"), Value: []byte("1")}}, After: bad}, nil)
	c := s.Enqueue(&Batch{Ops: []Op{{Key: []byte("c"), Value: []byte("1")}}, After: b}, nil)
	d := s.Enqueue(new(Batch).Put([]byte("d"), []byte("1")), nil)
	release()
	ctx := context.Background()
	if err := bad.Wait(ctx); err == nil {
		t.Fatal("the invalid batch succeeded")
	}
	for name, p := range map[string]*Pending{"b": b, "c": c} {
		if err := p.Wait(ctx); !errors.Is(err, apierr.ErrUnavailable) {
			t.Errorf("%s: got %v; want it failed as unavailable, its predecessor having failed", name, err)
		}
		if _, err := s.Get(context.Background(), []byte(name)); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s was written (%v) though the write it builds on failed", name, err)
		}
	}
	if err := d.Wait(ctx); err != nil {
		t.Fatalf("an independent batch failed: %v", err)
	}
	// In a later group, and after a success.
	e := s.Enqueue(&Batch{Ops: []Op{{Key: []byte("e"), Value: []byte("1")}}, After: c}, nil)
	f := s.Enqueue(&Batch{Ops: []Op{{Key: []byte("f"), Value: []byte("1")}}, After: d}, nil)
	if err := e.Wait(ctx); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("e: got %v; want it failed", err)
	}
	if err := f.Wait(ctx); err != nil {
		t.Fatalf("f, after a success: %v", err)
	}
}

// TestAfterWithdrawnPredecessor: a batch built on one its caller withdrew fails too,
// and finished requests let go of what they held.
func TestAfterWithdrawnPredecessor(t *testing.T) {
	t.Parallel()
	s, firstTaken, release := heldWriter(t, Options{})
	commitAsync(context.Background(), s, "holder", new(Batch).Put([]byte("other"), []byte("x")), make(chan result, 1))
	<-firstTaken
	p := s.Enqueue(new(Batch).Put([]byte("p"), []byte("1")), nil)
	d := s.Enqueue(&Batch{Ops: []Op{{Key: []byte("d"), Value: []byte("1")}}, After: p}, nil)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want the queued batch withdrawn", err)
	}
	release()
	if err := d.Wait(context.Background()); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("got %v; want the dependent of a withdrawn batch failed", err)
	}
	if _, err := s.Get(context.Background(), []byte("d")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the dependent was written (%v)", err)
	}
	if p.r.after != nil || p.r.batch != nil || d.r.after != nil || d.r.batch != nil {
		t.Fatal("finished requests still hold their batch or predecessor")
	}
}

// isClosed reports whether the gate has been closed.
func (g *gate) isClosed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// TestConditionsInOneGroup: batches with conditions taken as one group (one Badger
// transaction) each see the writes of those before them; a failed condition fails its
// own batch, unwritten, and what builds on it, and nothing else.
func TestConditionsInOneGroup(t *testing.T) {
	t.Parallel()
	s, firstTaken, release := heldWriter(t, Options{})
	commitAsync(context.Background(), s, "holder", new(Batch).Put([]byte("seen"), []byte("old")), make(chan result, 1))
	<-firstTaken
	create1 := s.Enqueue(new(Batch).Require(IfAbsent([]byte("admin"))).Put([]byte("admin"), []byte("1")), nil)
	create2 := s.Enqueue(new(Batch).Require(IfAbsent([]byte("admin"))).Put([]byte("admin"), []byte("2")).Put([]byte("partial"), []byte("2")), nil)
	builds := s.Enqueue(&Batch{Ops: []Op{{Key: []byte("after2"), Value: []byte("x")}}, After: create2}, nil)
	swap := s.Enqueue(new(Batch).Require(IfValue([]byte("admin"), []byte("1"))).Put([]byte("seen"), []byte("new")), nil)
	stale := s.Enqueue(new(Batch).Require(IfValue([]byte("seen"), []byte("old"))).Put([]byte("stale"), []byte("x")), nil)
	plain := s.Enqueue(new(Batch).Put([]byte("plain"), []byte("x")), nil)
	waitPending(t, s, 6)
	groups := s.Stats().Groups
	release()

	ctx := context.Background()
	for name, p := range map[string]*Pending{"create1": create1, "swap": swap, "plain": plain} {
		if err := p.Wait(ctx); err != nil {
			t.Errorf("%s: %v; want it applied", name, err)
		}
	}
	for name, p := range map[string]*Pending{"create2": create2, "stale": stale} {
		if err := p.Wait(ctx); !IsConditionFailed(err) || !errors.Is(err, apierr.ErrConflict) {
			t.Errorf("%s: got %v; want ErrConditionFailed", name, err)
		}
	}
	if err := builds.Wait(ctx); err == nil || IsConditionFailed(err) {
		t.Errorf("a batch after a failed condition: got %v; want it failed as its predecessor did", err)
	}
	for key, want := range map[string]string{"admin": "1", "seen": "new", "plain": "x"} {
		if v, err := s.Get(context.Background(), []byte(key)); err != nil || string(v) != want {
			t.Errorf("Get(%s) = %q, %v; want %q", key, v, err, want)
		}
	}
	for _, key := range []string{"partial", "after2", "stale"} {
		if _, err := s.Get(context.Background(), []byte(key)); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%s) = %v; want it never written", key, err)
		}
	}
	// The holder's group and this one: the six batches shared one transaction.
	if got := s.Stats().Groups - groups; got > 2 {
		t.Errorf("%d synced transactions after the release; want the six batches in one", got)
	}
}
