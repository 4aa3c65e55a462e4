package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// auditing is a test entity whose one write carries the audit entry of its request.
type auditing struct {
	rt     *Runtime
	id     string
	member string
}

func (a *auditing) Load() error { return nil }

func (a *auditing) Handle(ctx *Ctx, msg any) {
	m, ok := msg.(*wireIncr)
	if !ok {
		return
	}
	if m.By < 0 { // an answer that writes nothing, so carries no entry
		ctx.Respond(wireState{Member: a.member})
		return
	}
	b := new(persistence.Batch).Put(persistence.Key("test", a.id), []byte("x"))
	if err := a.rt.Audit(b, ctx.Audit().On("test", a.id, "")); err != nil {
		ctx.Fail(err)
		return
	}
	if err := a.rt.Commit(b); err != nil {
		ctx.Fail(err)
		return
	}
	ctx.Respond(wireState{Member: a.member})
}

// testAuditor is the test's audit record layout: audit/<id>, the entry as JSON.
func testAuditor(b *persistence.Batch, e *AuditEntry) error {
	v, err := json.Marshal(e)
	if err != nil {
		return err
	}
	b.Put(persistence.Key("audit", e.ID), v)
	return nil
}

func readEntry(t *testing.T, rt *Runtime, id string) *AuditEntry {
	t.Helper()
	v, err := rt.Store.Get(context.Background(), persistence.Key("audit", id))
	if err != nil {
		return nil
	}
	var e AuditEntry
	if err := json.Unmarshal(v, &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

// TestAuditEntryTravelsToTheEntity: the entry a request's context carries reaches the
// entity that handles it, on this member or (through the wire) on another, and lands in
// the batch it commits, with the target the entity names; a request without one
// writes no entry.
func TestAuditEntryTravelsToTheEntity(t *testing.T) {
	c := &fakeCluster{owners: map[string]string{}, members: map[string]*Runtime{}, down: map[string]bool{}, older: map[string]bool{}}
	var kinds []*Kind
	var rts []*Runtime
	for i := 0; i < 2; i++ {
		name := fmt.Sprintf("m%d", i)
		rt := newTestRuntime(t, EntityOptions{}, WithPlacement(&fakeMember{c: c, name: name}))
		rt.SetAuditor(testAuditor)
		c.members[name] = rt
		kinds = append(kinds, rt.StartKind("auditing", time.Minute, func(id string) Entity { return &auditing{rt: rt, id: id, member: name} }, nil))
		rts = append(rts, rt)
	}
	c.setOwner("auditing/here", "m0")
	c.setOwner("auditing/there", "m1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for _, id := range []string{"here", "there"} {
		e := (&AuditEntry{ID: "e-" + id, Actor: "u1", ActorKind: "user", Action: "POST /x"}).Track()
		if _, err := Ask[wireState](WithAudit(ctx, e), kinds[0], id, &wireIncr{}); err != nil {
			t.Fatal(err)
		}
		owner := rts[0]
		if id == "there" {
			owner = rts[1]
		}
		got := readEntry(t, owner, "e-"+id)
		if got == nil || got.Actor != "u1" || got.TargetKind != "test" || got.TargetID != id || got.Result != AuditResultOK || got.Time.IsZero() {
			t.Fatalf("%s: got entry %+v; want u1's, on test/%s, ok, timed", id, got, id)
		}
		// The edge learns that the entry was carried, here or on the member that
		// answered (Wired.AuditCarried), and records nothing more.
		if !e.Carried() {
			t.Fatalf("%s: Carried() = false after the entity's write carried the entry", id)
		}
		// A request whose entity writes nothing: the entry is not carried, on either
		// member, and the edge records it itself.
		e = (&AuditEntry{ID: "none-" + id, Actor: "u1", ActorKind: "user", Action: "POST /x"}).Track()
		if _, err := Ask[wireState](WithAudit(ctx, e), kinds[0], id, &wireIncr{By: -1}); err != nil {
			t.Fatal(err)
		}
		if e.Carried() || readEntry(t, owner, "none-"+id) != nil {
			t.Fatalf("%s: an answer without a write: Carried() = %v, entry %+v", id, e.Carried(), readEntry(t, owner, "none-"+id))
		}
	}

	// No entry in the context: the write goes alone.
	if _, err := Ask[wireState](ctx, kinds[0], "here", &wireIncr{}); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := rts[0].Store.Scan(ctx, []byte("audit/"), nil, 0, func(k, v []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d entries on m0; want the one request that carried one", n)
	}
}

// TestAuditWithoutAuditorAddsNothing: a runtime whose audit room is not installed (a
// test of one room) commits its batches unchanged.
func TestAuditWithoutAuditorAddsNothing(t *testing.T) {
	rt := newTestRuntime(t, EntityOptions{})
	b := new(persistence.Batch)
	if err := rt.Audit(b, &AuditEntry{ID: "x"}); err != nil || len(b.Ops) != 0 {
		t.Fatalf("got %v, %d ops; want nothing added", err, len(b.Ops))
	}
	var nilEntry *AuditEntry
	if nilEntry.On("k", "i", "t") != nil || nilEntry.By("u") != nil || nilEntry.Carried() {
		t.Fatal("a nil entry must stay nil")
	}
}
