package app

import (
	"net/http"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/internal/testwait"
)

// lateAudit is what the edge logs when it records an entry its room did not carry in
// the batch of the change (httpedge/audit.go).
const lateAudit = "audit entry recorded after its change"

// TestAuditRoomsCarryTheirEntries: the rooms that used to leave their entry to the
// edge (schedules, health checks, alert acknowledgements, ISOs, backup deletes,
// console tickets) record it in the batch of their change: one entry per request,
// with actor, action, target, result, request id and client, and none written after
// the change by the edge.
func TestAuditRoomsCarryTheirEntries(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	core, logs := observer.New(zap.DebugLevel)
	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}, log: zap.New(core)}
	s.start()
	t.Cleanup(s.stop)
	admin := s.adminToken()
	s.sync(admin)
	var op, au auth.User
	r := s.do(req{method: "GET", path: "/api/auth/me", token: admin})
	expect(t, r, 200, "")
	r.decode(t, &op)
	a := s.tenant(admin, "Rooms", nil)
	r = s.do(req{method: "GET", path: "/api/auth/me", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &au)
	m := s.provision(a.Token, smallMachine)
	var rids []string
	do := func(rq req, rid string, status int, want kit.AuditEntry) *response {
		t.Helper()
		r := s.do(audited(rq, rid))
		expect(t, r, status, "")
		want.Result = kit.AuditResultOK
		s.oneEntry(admin, rid, want)
		rids = append(rids, rid)
		return r
	}

	// Schedules: made by the tenant, changed and deleted by the operator.
	var ps schedules.PowerSchedule
	do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/power-schedules", token: a.Token,
		body: map[string]any{"action": "stop", "cron": "0 3 * * *"}}, "sched-create", 201,
		kit.AuditEntry{Actor: au.ID, Action: "POST /api/client/machines/{vmId}/power-schedules", TenantID: a.ID}).decode(t, &ps)
	s.oneEntry(admin, "sched-create", kit.AuditEntry{TargetID: ps.ID})
	do(req{method: "PATCH", path: "/api/resources/power-schedules/" + ps.ID, token: admin, body: map[string]any{"enabled": false}}, "sched-change", 200,
		kit.AuditEntry{Actor: op.ID, Action: "PATCH /api/resources/power-schedules/{id}", TargetID: ps.ID, TenantID: a.ID})
	do(req{method: "DELETE", path: "/api/resources/power-schedules/" + ps.ID, token: admin}, "sched-delete", 204,
		kit.AuditEntry{Actor: op.ID, TargetID: ps.ID, TenantID: a.ID})

	// A health check's life.
	var hc struct{ ID string }
	do(req{method: "POST", path: "/api/resources/health-checks", token: admin, body: map[string]any{"name": "ssh", "type": "tcp",
		"target": "192.0.2.1:22", "interval_s": 60, "timeout_ms": 500, "machine_id": m.ID}}, "check-create", 201,
		kit.AuditEntry{Actor: op.ID}).decode(t, &hc)
	s.oneEntry(admin, "check-create", kit.AuditEntry{TargetID: hc.ID})
	do(req{method: "PATCH", path: "/api/resources/health-checks/" + hc.ID, token: admin, body: map[string]any{"name": "ssh-2"}}, "check-change", 200,
		kit.AuditEntry{Actor: op.ID, TargetID: hc.ID})
	do(req{method: "DELETE", path: "/api/resources/health-checks/" + hc.ID, token: admin}, "check-delete", 204,
		kit.AuditEntry{Actor: op.ID, TargetID: hc.ID})

	// A failed task's alert, acknowledged.
	s.sim.FailNext(m.VMID, "reboot", nil)
	s.waitTask(a.Token, s.startTask(req{method: "POST", path: "/api/client/machines/" + m.ID + "/actions/reboot", token: a.Token}).ID)
	testwait.Eventually(t, "the machine's task_failed alert", func() bool { return len(s.alertsOf(admin, "/api/resources/alert-events", m.ID)) == 1 })
	alert := s.alertsOf(admin, "/api/resources/alert-events", m.ID)[0]
	do(req{method: "PATCH", path: "/api/resources/alert-events/" + alert.ID, token: admin, body: map[string]any{"status": "acknowledged"}}, "alert-ack", 200,
		kit.AuditEntry{Actor: op.ID, TargetID: alert.ID, TenantID: a.ID})

	// A backup taken, then deleted by the tenant.
	r = s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/backups", token: a.Token, body: map[string]any{"note": "n"}})
	expect(t, r, 202, "")
	var taken struct{ Task tasks.Task }
	r.decode(t, &taken)
	if task := s.waitTask(a.Token, taken.Task.ID); task.Status != tasks.TaskSucceeded {
		t.Fatalf("backup: %+v", task)
	}
	bk := s.backupsOf(a.Token, m.ID)[0]
	do(req{method: "DELETE", path: "/api/resources/backups/" + bk.ID, token: a.Token}, "backup-delete", 204,
		kit.AuditEntry{Actor: au.ID, TargetID: bk.ID, TenantID: a.ID})

	// A console's ticket: a GET, recorded as the use of the machine it is.
	do(req{method: "GET", path: "/api/client/machines/" + m.ID + "/console", token: a.Token}, "console", 200,
		kit.AuditEntry{Actor: au.ID, Action: "GET /api/client/machines/{vmId}/console", TargetKind: "machines", TargetID: m.ID, TenantID: a.ID})

	// An ISO added, then deleted.
	url, sum := isoServer(t, "rooms iso")
	var added struct{ ISO struct{ ID string } }
	do(req{method: "POST", path: "/api/resources/isos", token: admin, body: map[string]any{"name": "rooms", "url": url, "checksum": sum}}, "iso-add", 202,
		kit.AuditEntry{Actor: op.ID, Action: "POST /api/resources/isos"}).decode(t, &added)
	s.oneEntry(admin, "iso-add", kit.AuditEntry{TargetID: added.ISO.ID})
	testwait.Eventually(t, "the ISO fetched", func() bool {
		var iso struct{ Status string }
		r := s.do(req{method: "GET", path: "/api/resources/isos/" + added.ISO.ID, token: admin})
		r.decode(t, &iso)
		return iso.Status != "pending"
	})
	do(req{method: "DELETE", path: "/api/resources/isos/" + added.ISO.ID, token: admin}, "iso-delete", 204,
		kit.AuditEntry{Actor: op.ID, TargetID: added.ISO.ID})

	for _, rid := range rids {
		for _, e := range logs.FilterMessage(lateAudit).All() {
			if e.ContextMap()["request_id"] == rid {
				t.Fatalf("%s: its entry was written by the edge after the change, not in the change's batch", rid)
			}
		}
	}
}

// TestAuditTenantViewRefreshReuseKeyScope: a tenant reads its entries without the
// client address of an operator's change (its own keep theirs); an operator's API key
// kept to one tenant reads that tenant's entries only; a spent refresh token presented
// again is recorded once, as the failure it is, with the login's revocation.
func TestAuditTenantViewRefreshReuseKeyScope(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a, b := s.tenant(admin, "Viewa", nil), s.tenant(admin, "Viewb", nil)
	rule := map[string]any{"direction": "in", "action": "accept", "protocol": "tcp", "port": "22"}
	expect(t, s.do(audited(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: rule}, "own")), 201, "")
	expect(t, s.do(audited(req{method: "PATCH", path: "/api/resources/tenants/" + a.ID, token: admin, body: map[string]any{"require_totp": false}}, "operator")), 200, "")
	expect(t, s.do(audited(req{method: "POST", path: "/api/client/firewall/rules", token: b.Token, body: rule}, "other")), 201, "")
	seen := map[string]kit.AuditEntry{}
	for _, e := range s.auditLog(a.Token, "") {
		seen[e.RequestID] = e
	}
	if e, ok := seen["own"]; !ok || e.Client != "127.0.0.1" {
		t.Fatalf("the tenant's own entry: %+v (found %v); want its client's address", e, ok)
	}
	if e, ok := seen["operator"]; !ok || e.Client != "" || e.Actor == "" {
		t.Fatalf("the operator's entry as the tenant reads it: %+v (found %v); want it, without the operator's address", e, ok)
	}
	if _, ok := seen["other"]; ok {
		t.Fatal("a tenant reads another tenant's entry")
	}
	// The operator reads the address.
	if e := s.oneEntry(admin, "operator", kit.AuditEntry{}); e.Client != "127.0.0.1" {
		t.Fatalf("the operator's own view: %+v", e)
	}

	// An operator's key kept to tenant b.
	key := s.newKey(admin, map[string]any{"name": "b only", "scopes": []string{"read"}, "tenant_id": b.ID})
	got := map[string]bool{}
	for _, e := range s.auditLog(key.Secret, "") {
		if e.TenantID != b.ID {
			t.Fatalf("a key kept to tenant b reads %+v", e)
		}
		got[e.RequestID] = true
	}
	if !got["other"] || got["own"] || got["operator"] {
		t.Fatalf("a key kept to tenant b reads %v; want b's entries only", got)
	}

	// A refresh token spent, then presented again.
	first := s.login("viewa@example.test", "tenant-password")
	r := refresh(s, first.RefreshToken)
	expect(t, r, 200, "")
	r = s.do(audited(req{method: "POST", path: "/api/auth/refresh", body: map[string]string{"refresh_token": first.RefreshToken}}, "reuse"))
	expect(t, r, 401, "invalid_refresh_token")
	e := s.oneEntry(admin, "reuse", kit.AuditEntry{Action: "POST /api/auth/refresh", Result: "invalid_refresh_token"})
	if e.Reason == "" || e.Actor == "" {
		t.Fatalf("the reuse's entry: %+v; want the user and why", e)
	}
}
