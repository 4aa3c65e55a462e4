package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// idle is an entity that answers nothing: the requests here never reach one.
type idle struct{}

func (idle) Load() error          { return nil }
func (idle) Handle(*kit.Ctx, any) {}

// A member that gets a message it cannot read (sent by a member of a newer version of
// vmplane) answers 409 "not delivered" and says why, so the sender looks again and
// retries, instead of dropping it or answering an error.
func TestAMessageThisMemberCannotReadIsNotDelivered(t *testing.T) {
	srv := etcdtest.Start(t)
	a := join(t, srv, "a")
	rt := kit.New(nil, nil, kit.EntityOptions{}, kit.WithPlacement(a.Cluster))
	t.Cleanup(rt.Shutdown)
	rt.StartKind("things", time.Minute, func(string) kit.Entity { return idle{} }, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a.Serve(rt, ln)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	self := kit.Member{Name: "a", Addr: ln.Addr().String()}
	for _, msg := range []kit.Wired{
		{Type: "things.future", Version: 1, Body: json.RawMessage(`{}`)},
		{Type: "error", Version: 7, Body: json.RawMessage(`{}`)},
	} {
		_, err = a.Forward(ctx, self, kit.Forwarded{Kind: "things", ID: "x", Msg: msg})
		want := "a: this member runs an older version of vmplane (unknown message " + msg.Type + "@"
		if !errors.Is(err, kit.ErrNotDelivered) || !strings.Contains(err.Error(), want) {
			t.Fatalf("forwarding %s@%d: %v; want not delivered: %s...", msg.Type, msg.Version, err, want)
		}
	}
	// An entity this member does not hold is not delivered either, as before.
	_, err = a.Forward(ctx, self, kit.Forwarded{Kind: "nothing", ID: "x", Msg: kit.Wired{Type: "error", Version: 1, Body: json.RawMessage(`{}`)}})
	if !errors.Is(err, kit.ErrNotDelivered) || !strings.Contains(err.Error(), "does not hold nothing/x") {
		t.Fatalf("forwarding to an unknown kind: %v; want not delivered", err)
	}
}

// A departing member refuses forwarded requests as not delivered, gives its entities
// up at once (the others claim them), and does not report the lease it revoked as lost.
func TestADepartingMemberRefusesAndHandsOver(t *testing.T) {
	_, a, b := twoMembers(t)
	serve := func(m *testMember) net.Listener {
		rt := kit.New(nil, nil, kit.EntityOptions{}, kit.WithPlacement(m.Cluster))
		t.Cleanup(rt.Shutdown)
		rt.StartKind("things", time.Minute, func(string) kit.Entity { return idle{} }, nil)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		m.Serve(rt, ln)
		return ln
	}
	ln := serve(a)
	serve(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, local, err := a.Place(ctx, "things", "x"); err != nil || !local {
		t.Fatalf("a claiming things/x: local %v, %v", local, err)
	}
	a.Depart(ctx)
	_, err := b.Forward(ctx, kit.Member{Name: "a", Addr: ln.Addr().String()},
		kit.Forwarded{Kind: "things", ID: "x", Msg: kit.Wired{Type: "error", Version: 1, Body: json.RawMessage(`{}`)}})
	if !errors.Is(err, kit.ErrNotDelivered) || !strings.Contains(err.Error(), "a: member a is leaving the cluster") {
		t.Fatalf("forwarding to a departing member: %v; want not delivered, leaving", err)
	}
	if a.Local("things", "x") {
		t.Fatal("a still serves things/x after departing")
	}
	testwait.Eventually(t, "b claims things/x", func() bool {
		_, local, err := b.Place(ctx, "things", "x")
		return err == nil && local
	})
	if a.lost.Load() {
		t.Fatal("a reported the lease it gave up as lost")
	}
}

// slow is an entity that answers each request once release is closed or after wait,
// whichever comes first: an owner that is busy, or one that hangs.
type slow struct {
	wait    time.Duration
	release <-chan struct{}
}

func (slow) Load() error { return nil }
func (s slow) Handle(c *kit.Ctx, _ any) {
	select {
	case <-time.After(s.wait):
	case <-s.release:
	}
	c.Fail(apierr.New(apierr.ErrConflict, "answered late"))
}

// joinServing starts member name on srv serving kind "things" with slow entities at
// the address its record gives, and returns it with that address. Its entities are
// released before its runtime stops.
func joinServing(t *testing.T, srv *etcdtest.Server, name string, s slow) (*testMember, kit.Member) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := joinAt(t, srv, name, ln.Addr().String())
	rt := kit.New(nil, nil, kit.EntityOptions{}, kit.WithPlacement(m.Cluster))
	t.Cleanup(rt.Shutdown)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s.release = release
	rt.StartKind("things", time.Minute, func(string) kit.Entity { return s }, nil)
	m.Serve(rt, ln)
	return m, kit.Member{Name: name, Addr: ln.Addr().String()}
}

// busyOwner starts members a and b, b holding things/x with entities that answer after
// wait (or hang, for a long one); it returns them and b's address.
func busyOwner(t *testing.T, wait time.Duration) (a, b *testMember, owner kit.Member) {
	t.Helper()
	srv := etcdtest.Start(t)
	a, _ = joinServing(t, srv, "a", slow{wait: wait})
	b, owner = joinServing(t, srv, "b", slow{wait: wait})
	testwait.Eventually(t, "two members", func() bool { return len(a.Members()) == 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, local, err := b.Place(ctx, "things", "x"); err != nil || !local {
		t.Fatalf("b claiming things/x: local %v, %v", local, err)
	}
	return a, b, owner
}

var askThings = kit.Forwarded{Kind: "things", ID: "x", Msg: kit.Wired{Type: "error", Version: 1, Body: json.RawMessage(`{}`)}}

// A request forwarded to an owner that is busy waits as long as its caller allows, as
// it would on the owner itself: before, the transport cut every forward at 3 s and
// answered 504 (outcome unknown) though the owner was alive and answered later.
func TestAForwardToABusyOwnerWaitsForItsAnswer(t *testing.T) {
	a, _, owner := busyOwner(t, 3500*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ans, err := a.Forward(ctx, owner, askThings)
	if err != nil {
		t.Fatalf("forwarding to a busy owner: %v; want its answer", err)
	}
	if !strings.Contains(string(ans.Body), "answered late") {
		t.Fatalf("forwarded answer %s %s; want the entity's", ans.Type, ans.Body)
	}
}

// A request forwarded to an owner that hangs (paused, cut off: its connection stays
// open) ends when the owner's lease ends, not at the request's deadline: the member
// that forwarded closes its connections to it on seeing it leave, and answers 504,
// the outcome unknown.
func TestAForwardToAHungOwnerEndsWhenItLeaves(t *testing.T) {
	a, b, owner := busyOwner(t, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := a.Forward(ctx, owner, askThings)
		done <- err
	}()
	// b's request is under way (its entity holds it) when b's lease ends, as when
	// etcd expires the lease of a member that stopped renewing it.
	testwait.Eventually(t, "b serving the forwarded request", func() bool {
		b.transport.mu.Lock()
		defer b.transport.mu.Unlock()
		return b.transport.active == 1
	})
	if _, err := a.cli.Revoke(ctx, b.Lease()); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if !errors.Is(err, apierr.ErrTimeout) || !strings.Contains(err.Error(), "member b left the cluster while handling the request") {
		t.Fatalf("forwarding to a member whose lease ended: %v; want 504, it left", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the forward lasted until the request's deadline")
	}
}

// A connection to a member that was busy when the member left goes back to fasthttp's
// pool once its answer is read, and closeTo closes it there: the pool still lists it.
// When the member comes back at the same address, a forward that takes that
// connection must know that nothing was sent (not delivered: sent again), never
// answer "may have taken effect".
func TestAForwardOnAConnectionClosedInThePoolIsNotSent(t *testing.T) {
	a, _, owner := busyOwner(t, time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.Forward(ctx, owner, askThings); err != nil {
		t.Fatalf("first forward: %v", err)
	}
	// The state closeTo leaves when the answer came in between closeIdle and it:
	// the connection closed, in the pool.
	if n := a.transport.client.closeTo(owner.Addr); n != 1 {
		t.Fatalf("closed %d connections to b; want the one the forward used", n)
	}
	_, err := a.Forward(ctx, owner, askThings)
	if err != nil && !errors.Is(err, kit.ErrNotDelivered) {
		t.Fatalf("forward on the closed connection: %v; want not delivered", err)
	}
	// fasthttp dropped the closed connection: the request goes out on a new one.
	ans, err := a.Forward(ctx, owner, askThings)
	if err != nil || !strings.Contains(string(ans.Body), "answered late") {
		t.Fatalf("forward after it: %s, %v; want the entity's answer", ans.Body, err)
	}
}
