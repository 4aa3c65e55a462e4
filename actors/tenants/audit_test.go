package tenants

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/persistence"
)

// TestRuleWriteCarriesItsAuditEntry: a rule write records the request's audit entry in
// its own batch, on the rule it made and in its tenant; a write the store refuses
// leaves no entry, and one it applies leaves exactly its own.
func TestRuleWriteCarriesItsAuditEntry(t *testing.T) {
	wiretest.SkipOnLoopback(t, "the store's writer tells the entity of the failure (rulesSettled) before it answers")
	var failing atomic.Bool
	s := withFailingRules(t, failing.Load)
	s.rt.SetAuditor(func(b *persistence.Batch, e *kit.AuditEntry) error {
		v, err := json.Marshal(e)
		b.Put(persistence.Key("audit", e.ID), v)
		return err
	})
	ctx := context.Background()
	ten, err := s.Tenants.Create(ctx, "audited", nil)
	if err != nil {
		t.Fatal(err)
	}
	entry := func(id string) context.Context {
		return kit.WithAudit(ctx, &kit.AuditEntry{ID: id, Actor: "u1", ActorKind: "user", Action: "POST /api/client/firewall/rules"})
	}
	stored := func(id string) *kit.AuditEntry {
		t.Helper()
		v, err := s.store.Get(ctx, persistence.Key("audit", id))
		if err != nil {
			return nil
		}
		var e kit.AuditEntry
		if err := json.Unmarshal(v, &e); err != nil {
			t.Fatal(err)
		}
		return &e
	}

	failing.Store(true)
	if _, err := s.Tenants.Firewall().Create(entry("refused"), ten.ID, ruleIn()); err == nil {
		t.Fatal("a write the store refused succeeded")
	}
	if e := stored("refused"); e != nil {
		t.Fatalf("a write the store refused left the entry %+v", e)
	}
	failing.Store(false)
	r, err := s.Tenants.Firewall().Create(entry("made"), ten.ID, ruleIn())
	if err != nil {
		t.Fatal(err)
	}
	if e := stored("made"); e == nil || e.TargetID != r.ID || e.TenantID != ten.ID || e.Result != kit.AuditResultOK || e.Actor != "u1" {
		t.Fatalf("got entry %+v; want u1's, ok, on rule %s of tenant %s", e, r.ID, ten.ID)
	}
}
