package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/vmplane/vmplane/client"
)

// testAuditLog makes a change as tenant A's user and reads it back from the audit
// log, filtered and paged; tenant B's user never sees it, the operator does.
func testAuditLog(t *testing.T, ctx context.Context, w *world) {
	since := time.Now().Add(-time.Second)
	port := "8443"
	r, err := w.a.CreateFirewallRule(ctx, client.FirewallRuleSpec{Direction: "in", Action: "accept", Protocol: "tcp", Port: &port})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.a.DeleteFirewallRule(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	got := collect(t, w.a.AuditLog(ctx, client.AuditFilter{Target: r.ID, Since: since, ListOptions: client.ListOptions{Limit: 1}}))
	if len(got) != 2 || got[0].Action != "DELETE /api/client/firewall/rules/{id}" || got[1].Action != "POST /api/client/firewall/rules" ||
		got[0].Result != "ok" || got[1].TenantID != w.tenA.ID || got[1].ActorKind != "user" || got[1].Client == "" {
		t.Fatalf("tenant A's entries of its rule: %+v; want its delete, then its create, in pages of one", got)
	}
	if other := collect(t, w.b.AuditLog(ctx, client.AuditFilter{Target: r.ID})); len(other) != 0 {
		t.Fatalf("tenant B reads tenant A's entries %+v", other)
	}
	page, err := w.admin.AuditLogPage(ctx, client.AuditFilter{Action: "POST /api/client/firewall/rules", Target: r.ID, Until: time.Now().Add(time.Minute)})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != got[1].ID {
		t.Fatalf("the operator's filtered page: %+v, %v", page, err)
	}
}
