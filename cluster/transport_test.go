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
