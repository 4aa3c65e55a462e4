package kit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/apierr"
)

// fakeCluster is a cluster of runtimes in one process: ownership is a shared map, and
// Forward crosses through JSON as the real transport does, so that a message that
// would not survive the trip fails here too.
type fakeCluster struct {
	mu      sync.Mutex
	owners  map[string]string // kind/id → member name
	members map[string]*Runtime
	down    map[string]bool // members that refuse connections
	// older are members that run an older version of vmplane: what is sent to them
	// carries a version of its message newer than any they know.
	older    map[string]bool
	forwards int
	released int
	// loseAnswers delivers each request and then reports a timeout, as an owner whose
	// answer did not come back in time.
	loseAnswers bool
}

// fakeMember is one member's view of the fake cluster.
type fakeMember struct {
	c    *fakeCluster
	name string
}

func (m *fakeMember) Local(kind, id string) bool {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	return m.c.owners[kind+"/"+id] == m.name
}

func (m *fakeMember) Place(_ context.Context, kind, id string) (Member, bool, error) {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	key := kind + "/" + id
	o, ok := m.c.owners[key]
	if !ok {
		m.c.owners[key] = m.name
		o = m.name
	}
	return Member{Name: o, Addr: o}, o == m.name, nil
}

func (m *fakeMember) Moved(string, string, Member) {}

func (m *fakeMember) Release(kind, id string) {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	if m.c.owners[kind+"/"+id] == m.name {
		delete(m.c.owners, kind+"/"+id)
		m.c.released++
	}
}

func (m *fakeMember) Forward(ctx context.Context, to Member, req Forwarded) (Wired, error) {
	m.c.mu.Lock()
	m.c.forwards++
	rt, down := m.c.members[to.Name], m.c.down[to.Name]
	m.c.mu.Unlock()
	if down {
		return Wired{}, fmt.Errorf("%w: %s refused", ErrNotDelivered, to.Name)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return Wired{}, err
	}
	var got Forwarded
	if err := json.Unmarshal(b, &got); err != nil {
		return Wired{}, err
	}
	m.c.mu.Lock()
	if m.c.older[to.Name] {
		got.Msg.Version++
	}
	m.c.mu.Unlock()
	ans, err := rt.Deliver(ctx, got)
	m.c.mu.Lock()
	lose := m.c.loseAnswers
	m.c.mu.Unlock()
	if lose && err == nil {
		return Wired{}, apierr.New(apierr.ErrTimeout, "member %s did not answer in time; the request may have taken effect", to.Name)
	}
	return ans, err
}

func (c *fakeCluster) setOwner(key, member string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.owners[key] = member
}

type wireIncr struct{ By int }
type wireState struct {
	N          int
	Member     string
	OutOfOrder bool
}
type notWired struct{ X int }

func init() {
	Wire("kittest.incr", 1, &wireIncr{})
	Wire("kittest.state", 1, wireState{})
}

// startMembers starts n runtimes over their own stores, joined by a fake cluster.
func startMembers(t *testing.T, n int) (*fakeCluster, []*Kind) {
	c := &fakeCluster{owners: map[string]string{}, members: map[string]*Runtime{}, down: map[string]bool{}, older: map[string]bool{}}
	var kinds []*Kind
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("m%d", i)
		m := &fakeMember{c: c, name: name}
		rt := newTestRuntime(t, EntityOptions{}, WithPlacement(m))
		c.members[name] = rt
		k := rt.StartKind("counters", time.Minute, func(id string) Entity { return &countOn{member: name} }, nil)
		kinds = append(kinds, k)
	}
	return c, kinds
}

// countOn is an in-memory counter that says where it runs and in which order it got
// its increments.
type countOn struct {
	member     string
	n, last    int
	outOfOrder bool
}

func (c *countOn) Load() error { return nil }

func (c *countOn) Handle(ctx *Ctx, msg any) {
	switch m := msg.(type) {
	case *wireIncr:
		c.n += m.By
		if m.By != 0 {
			c.outOfOrder = c.outOfOrder || m.By < c.last
			c.last = m.By
		}
		ctx.Respond(wireState{N: c.n, Member: c.member, OutOfOrder: c.outOfOrder})
	case *notWired:
		ctx.Respond(wireState{N: c.n, Member: c.member})
	}
}

func TestAskReachesTheOwnerOnAnotherMember(t *testing.T) {
	c, kinds := startMembers(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.setOwner("counters/a", "m1")

	// Asked on m0, answered by the entity on m1, through the wire.
	st, err := Ask[wireState](ctx, kinds[0], "a", &wireIncr{By: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Member != "m1" || st.N != 2 {
		t.Fatalf("got %+v; want N 2 from m1", st)
	}
	// Asked on the owner itself: local, same entity.
	if st, err = Ask[wireState](ctx, kinds[1], "a", &wireIncr{By: 3}); err != nil || st.N != 5 || st.Member != "m1" {
		t.Fatalf("got %+v, %v; want N 5 from m1", st, err)
	}
	if kinds[0].Live() != 0 {
		t.Fatalf("m0 runs %d counters; the entity must be active only on its owner", kinds[0].Live())
	}
	// Unclaimed: the first member that asks claims it.
	if st, err = Ask[wireState](ctx, kinds[0], "b", &wireIncr{By: 1}); err != nil || st.Member != "m0" {
		t.Fatalf("got %+v, %v; want b claimed by m0", st, err)
	}
}

func TestAskOfAnUnregisteredMessageFailsInsteadOfVanishing(t *testing.T) {
	c, kinds := startMembers(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.setOwner("counters/a", "m1")
	_, err := Ask[wireState](ctx, kinds[0], "a", &notWired{X: 1})
	if !errors.Is(err, apierr.ErrInternal) {
		t.Fatalf("got %v; want an internal error for a message that cannot cross", err)
	}
	// Locally it works: only crossing needs the registration.
	if _, err := Ask[wireState](ctx, kinds[1], "a", &notWired{X: 1}); err != nil {
		t.Fatal(err)
	}
}

func TestAskRetriesWhenTheOwnerMoves(t *testing.T) {
	c, kinds := startMembers(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.setOwner("counters/a", "m1")
	c.mu.Lock()
	c.down["m1"] = true
	c.mu.Unlock()
	// m1 refuses; once its claim goes to m2 the retry reaches m2.
	go func() {
		kittest.WaitFor(t, "a forward to the dead member", func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.forwards > 0
		})
		c.setOwner("counters/a", "m2")
	}()
	st, err := Ask[wireState](ctx, kinds[0], "a", &wireIncr{By: 1})
	if err != nil || st.Member != "m2" {
		t.Fatalf("got %+v, %v; want the answer of m2 after the move", st, err)
	}
}

func TestSendToAnotherMemberKeepsOrder(t *testing.T) {
	c, kinds := startMembers(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.setOwner("counters/a", "m1")
	for i := 1; i <= 50; i++ {
		kinds[0].Send("a", &wireIncr{By: i})
	}
	kittest.WaitFor(t, "50 tells delivered on m1", func() bool {
		st, err := Ask[wireState](ctx, kinds[1], "a", &wireIncr{By: 0})
		return err == nil && st.N == 50*51/2
	})
	if st, _ := Ask[wireState](ctx, kinds[1], "a", &wireIncr{By: 0}); st.OutOfOrder {
		t.Fatal("the told increments arrived out of order")
	}
}

func TestAskWaitsForWhatWasToldBefore(t *testing.T) {
	c, kinds := startMembers(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.setOwner("counters/a", "m1")
	for i := 1; i <= 20; i++ {
		kinds[0].Send("a", &wireIncr{By: i})
	}
	// On one member the ask would queue behind the tells in the mailbox; across
	// members it must not overtake them either.
	st, err := Ask[wireState](ctx, kinds[0], "a", &wireIncr{By: 0})
	if err != nil || st.N != 20*21/2 {
		t.Fatalf("got %+v, %v; want the ask answered after the 20 tells (N 210)", st, err)
	}
}

// TestATellWhoseOutcomeIsUnknownIsNotSentAgain: a told message that reached its owner
// but whose answer was lost (a timeout) must not be forwarded a second time.
func TestATellWhoseOutcomeIsUnknownIsNotSentAgain(t *testing.T) {
	c, kinds := startMembers(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.setOwner("counters/a", "m1")
	c.mu.Lock()
	c.loseAnswers = true
	c.mu.Unlock()
	kinds[0].Send("a", &wireIncr{By: 1})
	kittest.WaitFor(t, "the tell delivered once", func() bool {
		st, err := Ask[wireState](ctx, kinds[1], "a", &wireIncr{By: 0})
		return err == nil && st.N == 1
	})
	c.mu.Lock()
	c.loseAnswers = false
	c.mu.Unlock()
	// Whatever was still to come has come by the time a second tell is answered.
	kinds[0].Send("a", &wireIncr{By: 10})
	kittest.WaitFor(t, "the second tell", func() bool {
		st, err := Ask[wireState](ctx, kinds[1], "a", &wireIncr{By: 0})
		return err == nil && st.N >= 11
	})
	if st, _ := Ask[wireState](ctx, kinds[1], "a", &wireIncr{By: 0}); st.N != 11 {
		t.Fatalf("N is %d; want 11: the first tell was applied twice", st.N)
	}
}

// ghost is an entity whose record never exists.
type ghost struct{}

func (ghost) Load() error            { return nil }
func (ghost) Absent() bool           { return true }
func (ghost) Handle(ctx *Ctx, _ any) { ctx.Respond(wireState{}) }

func TestAnAbsentEntityReleasesItsHold(t *testing.T) {
	c := &fakeCluster{owners: map[string]string{}, members: map[string]*Runtime{}, down: map[string]bool{}, older: map[string]bool{}}
	rt := newTestRuntime(t, EntityOptions{}, WithPlacement(&fakeMember{c: c, name: "m0"}))
	c.members["m0"] = rt
	k := rt.StartKind("ghosts", time.Minute, func(string) Entity { return ghost{} }, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A lookup of an id that does not exist claims it, answers, and lets it go.
	if _, err := Ask[wireState](ctx, k, "nobody", &wireIncr{}); err != nil {
		t.Fatal(err)
	}
	kittest.WaitFor(t, "the hold on an absent entity released", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, held := c.owners["ghosts/nobody"]
		return c.released == 1 && !held
	})
}
