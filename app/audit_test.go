package app

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
)

// audited is r sent with the request id rid, by which the test finds its entries.
func audited(r req, rid string) req {
	h := map[string]string{"X-Request-Id": rid}
	for k, v := range r.header {
		h[k] = v
	}
	r.header = h
	return r
}

// auditLog is the whole log as tok reads it, newest first, page after page.
func (s *testServer) auditLog(tok, query string) []kit.AuditEntry {
	s.t.Helper()
	var out []kit.AuditEntry
	cursor := ""
	for {
		r := s.do(req{method: "GET", path: "/api/audit?limit=500&cursor=" + url.QueryEscape(cursor) + query, token: tok})
		expect(s.t, r, 200, "")
		var p struct {
			Items      []kit.AuditEntry `json:"items"`
			NextCursor *string          `json:"next_cursor"`
		}
		r.decode(s.t, &p)
		out = append(out, p.Items...)
		if p.NextCursor == nil {
			return out
		}
		cursor = *p.NextCursor
	}
}

// entriesOf are the entries of the request rid, as the operator reads them: the
// request's own, not the end of a task it started (taskEnds).
func (s *testServer) entriesOf(admin, rid string) []kit.AuditEntry {
	s.t.Helper()
	var out []kit.AuditEntry
	for _, e := range s.auditLog(admin, "") {
		if e.RequestID == rid && !strings.HasPrefix(e.Action, machines.TaskAuditPrefix) {
			out = append(out, e)
		}
	}
	return out
}

// taskEnds are the entries recording the end of the tasks the request rid started.
func (s *testServer) taskEnds(admin, rid string) []kit.AuditEntry {
	s.t.Helper()
	var out []kit.AuditEntry
	for _, e := range s.auditLog(admin, "") {
		if e.RequestID == rid && strings.HasPrefix(e.Action, machines.TaskAuditPrefix) {
			out = append(out, e)
		}
	}
	return out
}

// oneEntry is the one entry of the request rid, checked against want's non-empty
// fields.
func (s *testServer) oneEntry(admin, rid string, want kit.AuditEntry) kit.AuditEntry {
	s.t.Helper()
	got := s.entriesOf(admin, rid)
	if len(got) != 1 {
		s.t.Fatalf("%s: %d entries %+v; want one", rid, len(got), got)
	}
	e := got[0]
	for _, f := range []struct{ name, got, want string }{
		{"actor", e.Actor, want.Actor}, {"actor_kind", e.ActorKind, want.ActorKind}, {"user_id", e.UserID, want.UserID},
		{"action", e.Action, want.Action}, {"target_kind", e.TargetKind, want.TargetKind}, {"target_id", e.TargetID, want.TargetID},
		{"result", e.Result, want.Result}, {"reason", e.Reason, want.Reason}, {"tenant_id", e.TenantID, want.TenantID},
	} {
		if f.want != "" && f.got != f.want {
			s.t.Fatalf("%s: %s is %q; want %q (entry %+v)", rid, f.name, f.got, f.want, e)
		}
	}
	if e.Client != "127.0.0.1" || e.Time.IsZero() || e.ID == "" {
		s.t.Fatalf("%s: entry %+v; want the client's address, a time and an id", rid, e)
	}
	return e
}

// TestAuditLogRecordsEveryKindOfAction: each kind of change leaves one entry, with who,
// what, on what, the result, the request and the client; a refused change leaves its
// refusal only; a read leaves nothing.
func TestAuditLogRecordsEveryKindOfAction(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.PublicURL = "https://panel.example.test/" })
	var op auth.User
	r := s.do(req{method: "GET", path: "/api/auth/me", token: admin})
	expect(t, r, 200, "")
	r.decode(t, &op)
	a := s.tenant(admin, "Audited", nil)
	var au auth.User
	r = s.do(req{method: "GET", path: "/api/auth/me", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &au)

	// A machine's create, then a power action on it.
	r = s.do(audited(req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine}, "create-1"))
	expect(t, r, 202, "")
	var made tenants.Provisioned
	r.decode(t, &made)
	if task := s.waitTask(a.Token, made.Task.ID); task.Status != tasks.TaskSucceeded {
		t.Fatalf("create: %+v", task)
	}
	m := made.Machine
	s.oneEntry(admin, "create-1", kit.AuditEntry{Actor: au.ID, ActorKind: "user", UserID: au.ID, Action: "POST /api/client/machines",
		TargetKind: "machines", TargetID: m.ID, Result: "ok", TenantID: a.ID})
	s.run(audited(req{method: "POST", path: "/api/client/machines/" + m.ID + "/actions/reboot", token: a.Token}, "power-1"))
	s.oneEntry(admin, "power-1", kit.AuditEntry{Actor: au.ID, Action: "POST /api/client/machines/{vmId}/actions/{action}",
		TargetKind: "machines", TargetID: m.ID, Result: "ok", TenantID: a.ID})
	// Each task's end too, under the request that started it, with its result: a
	// create's, a power action's, and a failed one's with the error.
	for _, c := range []struct{ rid, action string }{{"create-1", "task vm.create"}, {"power-1", "task vm.reboot"}} {
		ends := s.taskEnds(admin, c.rid)
		if len(ends) != 1 || ends[0].Action != c.action || ends[0].Result != "ok" || ends[0].Actor != au.ID || ends[0].TargetID != m.ID ||
			ends[0].TenantID != a.ID || ends[0].Client != "127.0.0.1" {
			t.Fatalf("%s: the task's end %+v; want one %s, ok, by the user on the machine", c.rid, ends, c.action)
		}
	}
	s.sim.FailNext(m.VMID, "reboot", nil)
	s.waitTask(a.Token, s.startTask(audited(req{method: "POST", path: "/api/client/machines/" + m.ID + "/actions/reboot", token: a.Token}, "power-2")).ID)
	if ends := s.taskEnds(admin, "power-2"); len(ends) != 1 || ends[0].Result != machines.TaskFailedResult || ends[0].Reason == "" {
		t.Fatalf("a failed power action's end: %+v; want task_failed with the error", ends)
	}

	// Logins: a success, and a failure with its reason.
	expect(t, s.do(audited(req{method: "POST", path: "/api/auth/login", body: loginBody("audited@example.test", "tenant-password")}, "login-ok")), 200, "")
	s.oneEntry(admin, "login-ok", kit.AuditEntry{Actor: au.ID, ActorKind: "user", Action: "POST /api/auth/login",
		TargetKind: "users", TargetID: au.ID, Result: "ok", TenantID: a.ID})
	expect(t, s.do(audited(req{method: "POST", path: "/api/auth/login", body: loginBody("audited@example.test", "not-it")}, "login-bad")), 401, "invalid_credentials")
	bad := s.oneEntry(admin, "login-bad", kit.AuditEntry{Action: "POST /api/auth/login", TargetKind: "users", TargetID: "audited@example.test",
		Result: "invalid_credentials"})
	if bad.Actor != "" || bad.Reason == "" {
		t.Fatalf("a failed login: %+v; want no actor and the reason", bad)
	}

	// An API key's use: the key and the user it acts for.
	key := s.newKey(a.Token, map[string]any{"name": "deploys", "scopes": []string{"read", "machines:write"}})
	r = s.do(audited(req{method: "POST", path: "/api/client/firewall/rules", token: key.Secret, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "tcp", "port": "22"}}, "rule-create"))
	expect(t, r, 201, "")
	var rule tenants.FirewallRule
	r.decode(t, &rule)
	s.oneEntry(admin, "rule-create", kit.AuditEntry{Actor: key.ID, ActorKind: "api_key", UserID: au.ID, Action: "POST /api/client/firewall/rules",
		TargetKind: "rules", TargetID: rule.ID, Result: "ok", TenantID: a.ID})
	expect(t, s.do(audited(req{method: "PATCH", path: "/api/client/firewall/rules/" + rule.ID, token: a.Token, body: map[string]any{"port": "2222"}}, "rule-change")), 200, "")
	s.oneEntry(admin, "rule-change", kit.AuditEntry{Actor: au.ID, Action: "PATCH /api/client/firewall/rules/{id}", TargetKind: "rules", TargetID: rule.ID, Result: "ok", TenantID: a.ID})
	expect(t, s.do(audited(req{method: "DELETE", path: "/api/client/firewall/rules/" + rule.ID, token: a.Token}, "rule-delete")), 204, "")
	s.oneEntry(admin, "rule-delete", kit.AuditEntry{Actor: au.ID, Action: "DELETE /api/client/firewall/rules/{id}", TargetID: rule.ID, Result: "ok", TenantID: a.ID})

	// A login link: made by the operator, spent by the user.
	r = s.do(audited(req{method: "POST", path: "/api/resources/users/" + au.ID + "/login-links", token: admin}, "link-make"))
	expect(t, r, 201, "")
	var link struct{ Token string }
	r.decode(t, &link)
	s.oneEntry(admin, "link-make", kit.AuditEntry{Actor: op.ID, Action: "POST /api/resources/users/{id}/login-links", TargetKind: "users", TargetID: au.ID, Result: "ok", TenantID: a.ID})
	expect(t, s.do(audited(req{method: "POST", path: "/api/auth/login-link", body: map[string]any{"token": link.Token}}, "link-use")), 200, "")
	s.oneEntry(admin, "link-use", kit.AuditEntry{Actor: au.ID, Action: "POST /api/auth/login-link", TargetID: au.ID, Result: "ok", TenantID: a.ID})

	// Settings: a plan, a tenant's, then the tenant's suspension.
	r = s.do(audited(req{method: "POST", path: "/api/resources/plans", token: admin, body: map[string]any{
		"name": "Audit S", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}}, "plan-create"))
	expect(t, r, 201, "")
	var plan struct{ ID string }
	r.decode(t, &plan)
	s.oneEntry(admin, "plan-create", kit.AuditEntry{Actor: op.ID, Action: "POST /api/resources/plans", TargetKind: "plans", TargetID: plan.ID, Result: "ok"})
	expect(t, s.do(audited(req{method: "PATCH", path: "/api/resources/tenants/" + a.ID, token: admin, body: map[string]any{"require_totp": false}}, "tenant-change")), 200, "")
	s.oneEntry(admin, "tenant-change", kit.AuditEntry{Actor: op.ID, Action: "PATCH /api/resources/tenants/{id}", TargetKind: "tenants", TargetID: a.ID, Result: "ok", TenantID: a.ID})
	expect(t, s.do(audited(req{method: "POST", path: "/api/resources/tenants/" + a.ID + "/suspend", token: admin,
		body: map[string]any{"reason": "invoice unpaid", "action": "none"}}, "suspend")), 200, "")
	s.oneEntry(admin, "suspend", kit.AuditEntry{Actor: op.ID, Action: "POST /api/resources/tenants/{id}/suspend", TargetKind: "tenants", TargetID: a.ID, Result: "ok", TenantID: a.ID})

	// Refusals: the refusal itself, once; the suspended tenant's write, a tenant
	// user's operator route, a key beyond its scopes.
	expect(t, s.do(audited(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "tcp", "port": "80"}}, "held")), 403, "tenant_suspended")
	s.oneEntry(admin, "held", kit.AuditEntry{Actor: au.ID, Action: "POST /api/client/firewall/rules", Result: "tenant_suspended", TenantID: a.ID})
	expect(t, s.do(audited(req{method: "POST", path: "/api/resources/tenants/" + a.ID + "/unsuspend", token: a.Token, body: map[string]any{}}, "not-yours")), 403, "forbidden")
	s.oneEntry(admin, "not-yours", kit.AuditEntry{Actor: au.ID, Action: "POST /api/resources/tenants/{id}/unsuspend", TargetID: a.ID, Result: "forbidden"})
	// A write its room refused in the store (the name taken: the batch's condition
	// failed): the refusal, once.
	expect(t, s.do(audited(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": "audited"}}, "taken")), 409, "conflict")
	s.oneEntry(admin, "taken", kit.AuditEntry{Actor: op.ID, Action: "POST /api/resources/tenants", Result: "conflict"})
	readKey := s.newKey(admin, map[string]any{"name": "dashboards", "scopes": []string{"read"}})
	expect(t, s.do(audited(req{method: "POST", path: "/api/resources/tenants", token: readKey.Secret, body: map[string]any{"name": "Nope"}}, "scope")), 403, "forbidden")
	s.oneEntry(admin, "scope", kit.AuditEntry{Actor: readKey.ID, ActorKind: "api_key", UserID: op.ID, Result: "forbidden"})

	// Reads leave nothing.
	for i, path := range []string{"/api/resources/machines", "/api/virt/vms/" + m.ID, "/api/audit", "/api/resources/plans"} {
		rid := fmt.Sprintf("read-%d", i)
		expect(t, s.do(audited(req{method: "GET", path: path, token: admin}, rid)), 200, "")
		if got := s.entriesOf(admin, rid); len(got) != 0 {
			t.Fatalf("the read of %s left %+v", path, got)
		}
	}
}

// TestAuditLogScopeFiltersPages: a tenant's user reads its tenant's entries and never
// another's, an operator reads all; the filters and pages work through the API.
func TestAuditLogScopeFiltersPages(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a, b := s.tenant(admin, "Alpha", nil), s.tenant(admin, "Bravo", nil)
	start := time.Now().UTC()
	rule := func(tok, rid string) {
		t.Helper()
		expect(t, s.do(audited(req{method: "POST", path: "/api/client/firewall/rules", token: tok, body: map[string]any{
			"direction": "in", "action": "accept", "protocol": "tcp", "port": "22"}}, rid)), 201, "")
	}
	for i := 0; i < 3; i++ {
		rule(a.Token, fmt.Sprintf("a-%d", i))
		rule(b.Token, fmt.Sprintf("b-%d", i))
	}
	for _, c := range []struct {
		tok, mine, other string
	}{{a.Token, "a-", "b-"}, {b.Token, "b-", "a-"}} {
		seen := 0
		for _, e := range s.auditLog(c.tok, "") {
			if strings.HasPrefix(e.RequestID, c.other) {
				t.Fatalf("a tenant's user reads another tenant's entry %+v", e)
			}
			if strings.HasPrefix(e.RequestID, c.mine) {
				seen++
			}
		}
		if seen != 3 {
			t.Fatalf("a tenant's user reads %d of its 3 entries", seen)
		}
	}
	all := s.auditLog(admin, "&action="+url.QueryEscape("POST /api/client/firewall/rules")+"&since="+start.Format(time.RFC3339Nano))
	if len(all) != 6 {
		t.Fatalf("the operator's filtered list has %d entries; want the 6 rule creates", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Time.After(all[i-1].Time) {
			t.Fatalf("entries out of order: %v after %v", all[i].Time, all[i-1].Time)
		}
	}
	if got := s.auditLog(admin, "&target="+url.QueryEscape(all[0].TargetID)); len(got) != 1 || got[0].ID != all[0].ID {
		t.Fatalf("by target: %+v", got)
	}
	if got := s.auditLog(admin, "&actor="+all[0].UserID+"&action="+url.QueryEscape("POST /api/client/firewall/rules")); len(got) != 3 {
		t.Fatalf("by actor: %d entries; want its 3", len(got))
	}
	if got := s.auditLog(admin, "&until="+start.Add(-time.Hour).Format(time.RFC3339)+"&action="+url.QueryEscape("POST /api/client/firewall/rules")); len(got) != 0 {
		t.Fatalf("until before any: %+v", got)
	}
	// Pages of one, newest first, the same entries.
	var paged []string
	cursor := ""
	for {
		r := s.do(req{method: "GET", path: "/api/audit?limit=1&action=" + url.QueryEscape("POST /api/client/firewall/rules") + "&cursor=" + url.QueryEscape(cursor), token: a.Token})
		expect(t, r, 200, "")
		var p struct {
			Items      []kit.AuditEntry
			NextCursor *string `json:"next_cursor"`
		}
		r.decode(t, &p)
		for _, e := range p.Items {
			paged = append(paged, e.RequestID)
		}
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	if fmt.Sprint(paged) != "[a-2 a-1 a-0]" {
		t.Fatalf("pages of one: %v; want a-2 a-1 a-0", paged)
	}
	expect(t, s.do(req{method: "GET", path: "/api/audit?cursor=junk", token: admin}), 400, "invalid_request")
	expect(t, s.do(req{method: "GET", path: "/api/audit?since=yesterday", token: admin}), 400, "invalid_request")
}
