package kit

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// counter is a test entity: a number persisted under test/<id>, plus an unpersisted
// scratch value that a restart must forget.
type counter struct {
	rt      *Runtime
	id      string
	n       int
	scratch int
}

type (
	incr     struct{}
	get      struct{}
	scribble struct{}
	boom     struct{}
	state    struct{ N, Scratch int }
)

func (c *counter) Load() error {
	c.n, c.scratch = 0, 0
	v, err := c.rt.Store.Get(context.Background(), persistence.Key("test", c.id))
	if errors.Is(err, persistence.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	c.n, err = strconv.Atoi(string(v))
	return err
}

func (c *counter) Handle(ctx *Ctx, msg any) {
	switch msg.(type) {
	case *incr:
		if err := c.rt.Commit(new(persistence.Batch).Put(persistence.Key("test", c.id), []byte(strconv.Itoa(c.n+1)))); err != nil {
			ctx.Fail(err)
			return
		}
		c.n++
		ctx.Respond(state{c.n, c.scratch})
	case *scribble:
		c.scratch++
		ctx.Respond(state{c.n, c.scratch})
	case *get:
		ctx.Respond(state{c.n, c.scratch})
	case *boom:
		panic("boom")
	}
}

// newTestSystem starts a runtime over a store in t.TempDir(), stopped at cleanup.
func newTestSystem(t testing.TB, entities ...EntityOptions) *Runtime {
	t.Helper()
	var opts EntityOptions
	if len(entities) > 0 {
		opts = entities[0]
	}
	return newTestRuntime(t, opts)
}

// newTestRuntime is newTestSystem with options for New (a fake clock).
func newTestRuntime(t testing.TB, entities EntityOptions, opts ...Option) *Runtime {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rt := New(store, nil, entities, opts...)
	t.Cleanup(func() {
		rt.Shutdown()
		store.Close()
	})
	return rt
}

func TestEntityPanicAnswersAtOnceAndRestartsFromStore(t *testing.T) {
	s := newTestSystem(t)
	k := s.StartKind("counters", 0, func(id string) Entity { return &counter{rt: s, id: id} }, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	send := func(msg any) (state, error) { return Ask[state](ctx, k, "c1", msg) }

	for i := 0; i < 2; i++ {
		if _, err := send(&incr{}); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := send(&scribble{}); st.Scratch != 1 {
		t.Fatalf("got scratch %d; want 1", st.Scratch)
	}
	// The panic is answered with an internal error, not left to time out.
	_, err := send(&boom{})
	if !errors.Is(err, apierr.ErrInternal) {
		t.Fatalf("got %v; want an internal error at once", err)
	}
	st, err := send(&get{})
	if err != nil {
		t.Fatal(err)
	}
	if st.N != 2 || st.Scratch != 0 {
		t.Fatalf("got %+v after the restart; want N 2 from the store and scratch forgotten", st)
	}
	// Other entities of the kind are untouched by one entity's panic.
	other, err := Ask[state](ctx, k, "c2", &incr{})
	if err != nil || other.N != 1 {
		t.Fatalf("got %+v, %v; want c2 at 1", other, err)
	}
}

func TestEntityPassivatesAndComesBack(t *testing.T) {
	s := newTestSystem(t)
	k := s.StartKind("idlers", 20*time.Millisecond, func(id string) Entity { return &counter{rt: s, id: id} }, nil)
	ctx := context.Background()
	if _, err := Ask[state](ctx, k, "a", &incr{}); err != nil {
		t.Fatal(err)
	}
	kittest.WaitFor(t, "the idle entity to passivate", func() bool { return k.live.Load() == 0 })
	st, err := Ask[state](ctx, k, "a", &get{})
	if err != nil || st.N != 1 {
		t.Fatalf("got %+v, %v; want the entity back with N 1", st, err)
	}
}

// handingOff is a test entity whose handed-off work the test finishes, without a
// message to the entity.
type handingOff struct {
	counter
	work *atomic.Int64
}

func (h *handingOff) HandedOff() *atomic.Int64 { return h.work }

// An entity with handed-off work in flight is not passivated however long it idles;
// once the work is done it is, although no message told it so. The kind runs on a
// fake clock; an idle entity without work beside it shows that the sweep ran.
func TestEntityWithWorkInFlightIsNotPassivated(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := newTestRuntime(t, EntityOptions{}, WithClock(clock))
	works := map[string]*atomic.Int64{"busy": new(atomic.Int64), "idle": new(atomic.Int64)}
	k := s.StartKind("handers", 20*time.Millisecond, func(id string) Entity {
		return &handingOff{counter: counter{rt: s, id: id}, work: works[id]}
	}, nil)
	works["busy"].Add(1)
	for id := range works {
		if _, err := Ask[state](context.Background(), k, id, &get{}); err != nil {
			t.Fatal(err)
		}
	}
	sweep := func() {
		t.Helper()
		// The idle sweep's ticker is the clock's one waiter.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := clock.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal("the idle sweep never waited on the clock")
		}
		// Past the idle time (20 ms) by a few sweep intervals; not much more: Advance
		// steps the ticker through every interval it passes.
		clock.Advance(50 * time.Millisecond)
	}
	sweep()
	kittest.WaitFor(t, "the idle entity to passivate", func() bool { return k.live.Load() <= 1 })
	if n := k.live.Load(); n != 1 {
		t.Fatalf("got %d live entities with work in flight; want 1", n)
	}
	works["busy"].Add(-1)
	sweep()
	kittest.WaitFor(t, "the entity to passivate once its work is done", func() bool { return k.live.Load() == 0 })
}

// Messages sent while an entity passivates are neither lost nor handled by two
// incarnations: a burst of increments across idle timeouts must count exactly.
func TestPassivationLosesNoMessage(t *testing.T) {
	s := newTestSystem(t)
	k := s.StartKind("flappers", time.Millisecond, func(id string) Entity { return &counter{rt: s, id: id} }, nil)
	ctx := context.Background()
	for i := 0; i < 40; i++ {
		if _, err := Ask[state](ctx, k, "f", &incr{}); err != nil {
			t.Fatalf("increment %d: %v", i, err)
		}
		if i%4 == 0 {
			// Idle past the 1 ms timeout, so the next increments race the entity's
			// passivation: that race, not any one outcome, is what this test is for.
			time.Sleep(3 * time.Millisecond)
		}
	}
	st, err := Ask[state](ctx, k, "f", &get{})
	if err != nil || st.N != 40 {
		t.Fatalf("got %+v, %v; want 40", st, err)
	}
}

// lookup is a counter that knows whether its record exists.
type lookup struct{ counter }

func (l *lookup) Absent() bool { return l.n == 0 }

// Lookups of ids that do not exist leave no entity running, however many there are,
// although the kind's idle time is long; an entity whose record exists stays.
func TestLookupsOfMissingIDsLeaveNothingRunning(t *testing.T) {
	s := newTestSystem(t)
	k := s.StartKind("lookups", time.Hour, func(id string) Entity { return &lookup{counter{rt: s, id: id}} }, nil)
	ctx := context.Background()
	if _, err := Ask[state](ctx, k, "real", &incr{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3000; i++ {
		st, err := Ask[state](ctx, k, "missing-"+strconv.Itoa(i), &get{})
		if err != nil || st.N != 0 {
			t.Fatalf("lookup %d: got %+v, %v; want an empty answer", i, st, err)
		}
	}
	kittest.WaitFor(t, "the entities of missing ids to passivate", func() bool { return k.live.Load() == 1 })
	// The real one is still the same incarnation: its unpersisted scratch survived.
	if _, err := Ask[state](ctx, k, "real", &scribble{}); err != nil {
		t.Fatal(err)
	}
	if st, err := Ask[state](ctx, k, "real", &scribble{}); err != nil || st.Scratch != 2 || st.N != 1 {
		t.Fatalf("got %+v, %v; want the entity kept running (scratch 2, N 1)", st, err)
	}
}

// With a bound on live entities, lookups of many existing ids keep at most that many
// running; an evicted entity comes back from the store on its next message.
func TestLiveEntitiesStayWithinTheBound(t *testing.T) {
	const bound = 20
	s := newTestSystem(t, EntityOptions{Idle: time.Hour, MaxLive: bound})
	k := s.StartKind("bounded", time.Minute, func(id string) Entity { return &counter{rt: s, id: id} }, nil)
	if k.idle != time.Hour || k.maxLive != bound {
		t.Fatalf("got idle %s, max live %d; want the system's 1h and %d", k.idle, k.maxLive, bound)
	}
	ctx := context.Background()
	const n = 500
	for i := 0; i < n; i++ {
		if _, err := Ask[state](ctx, k, strconv.Itoa(i), &incr{}); err != nil {
			t.Fatal(err)
		}
	}
	kittest.WaitFor(t, "the live entities to come within the bound", func() bool { return k.live.Load() <= bound })
	for i := 0; i < n; i += 50 {
		st, err := Ask[state](ctx, k, strconv.Itoa(i), &incr{})
		if err != nil || st.N != 2 {
			t.Fatalf("entity %d: got %+v, %v; want N 2 (its first increment kept in the store)", i, st, err)
		}
	}
	kittest.WaitFor(t, "the live entities to come within the bound", func() bool { return k.live.Load() <= bound })
	// A kind that never idles (its entities run on their own) is not bounded.
	s2 := newTestSystem(t, EntityOptions{Idle: time.Hour, MaxLive: 1})
	if k2 := s2.StartKind("runners", 0, func(id string) Entity { return &counter{rt: s2, id: id} }, nil); k2.maxLive != 0 || k2.idle != 0 {
		t.Fatalf("got idle %s, max live %d for a kind that never idles; want 0, 0", k2.idle, k2.maxLive)
	}
}
