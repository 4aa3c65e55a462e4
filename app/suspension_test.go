package app

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/internal/testwait"
)

// suspendedExceptions are the routes that write which a suspended tenant's users may
// still call: the account routes (signing in and out, ending sessions, their password
// and second factor) and revoking an API key. Every other route that writes, and the
// console's ticket, answers 403 tenant_suspended.
func suspendedException(rt api.Route) bool {
	return strings.HasPrefix(rt.Path, "/api/auth/") || (rt.Method == "DELETE" && rt.Path == "/api/resources/api-keys/{id}")
}

// TestSuspendedTenantWalk suspends a tenant with a billing key and calls every route of
// the route table that writes (and every console ticket) as its user, naming its own
// machine: each answers 403 tenant_suspended with the reason, so a new route is held
// back without a line here. Reads, a refresh and the end of a session still work; an
// operator acting on the tenant's records is not held; the suspension survives a
// restart; the unsuspend (start) starts the machine the suspension stopped, and the
// user writes again.
func TestSuspendedTenantWalk(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.tenant(admin, "Unpaid", nil)
	m := s.provision(ten.Token, smallMachine)
	billing := s.newKey(admin, map[string]any{"name": "billing", "scopes": []string{"billing"}})
	tenantsKey := s.newKey(admin, map[string]any{"name": "tenants", "scopes": []string{"tenants:write"}})
	userKey := s.newKey(ten.Token, map[string]any{"name": "mine", "scopes": []string{"admin"}})
	suspend := "/api/resources/tenants/" + ten.ID + "/suspend"
	reason := map[string]any{"reason": "invoice 2026-11 unpaid"}

	expect(t, s.do(req{method: "POST", path: suspend, token: ten.Token, body: reason}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: suspend, token: tenantsKey.Secret, body: reason}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: suspend, token: billing.Secret, body: map[string]any{}}), 400, "invalid_request")
	expect(t, s.do(req{method: "POST", path: "/api/resources/tenants/01NOBODY/suspend", token: billing.Secret, body: reason}), 404, "not_found")
	r := s.do(req{method: "POST", path: suspend, token: billing.Secret, body: reason})
	expect(t, r, 200, "")
	var got tenants.Tenant
	r.decode(t, &got)
	if sp := got.Suspension; sp == nil || sp.Reason != "invoice 2026-11 unpaid" || sp.Action != tenants.SuspendStop || !slices.Equal(sp.Machines, []string{m.ID}) {
		t.Fatalf("suspended: got %+v; want the reason, action stop and machine %s", sp, m.ID)
	}
	testwait.Eventually(t, "the tenant's machine stopped", func() bool {
		mm := s.machine(admin, m.ID)
		return mm.Status == machines.StatusStopped && mm.TaskID == nil
	})

	// Every route that writes, as the tenant's user and with its key.
	fill := strings.NewReplacer("{id}", m.ID, "{vmId}", m.ID, "{action}", "start", "{name}", "snap")
	held := 0
	for _, rt := range s.app.Edge().Routes() {
		if rt.Access == api.Public || rt.Access == api.AdminOnly || suspendedException(rt) {
			continue
		}
		if (rt.Method == "GET" || rt.Method == "HEAD") && !strings.HasSuffix(rt.Path, "/console") {
			continue
		}
		for _, tok := range []string{ten.Token, userKey.Secret} {
			rq := req{method: rt.Method, path: fill.Replace(rt.Path), token: tok}
			if rt.Method == "POST" || rt.Method == "PATCH" || rt.Method == "PUT" {
				rq.body = `{}`
			}
			r := s.do(rq)
			if tok == userKey.Secret && strings.HasSuffix(rt.Path, "/console") {
				expect(t, r, 403, "forbidden") // no key opens a console, suspended or not
				continue
			}
			if r.Status != 403 || !strings.Contains(string(r.Body), `"code":"tenant_suspended"`) || !strings.Contains(string(r.Body), "invoice 2026-11 unpaid") {
				t.Errorf("%s %s: got %d %s; want 403 tenant_suspended with the reason", rt.Method, rq.path, r.Status, r.Body)
			}
		}
		held++
	}
	if held < 20 {
		t.Fatalf("only %d routes held back; the walk found too few", held)
	}
	// What a suspended tenant's user still does.
	s.reads(ten.Token, 200)
	expect(t, s.do(req{method: "GET", path: "/api/client/machines/" + m.ID, token: ten.Token}), 200, "")
	login := s.login("unpaid@example.test", "tenant-password")
	r = s.do(req{method: "POST", path: "/api/auth/refresh", body: map[string]string{"refresh_token": login.RefreshToken}})
	expect(t, r, 200, "")
	expect(t, s.do(req{method: "POST", path: "/api/auth/logout", token: ten.Token, body: map[string]string{"refresh_token": login.RefreshToken}}), 204, "")
	// An operator is not held back on the tenant's records.
	expect(t, s.do(req{method: "POST", path: "/api/resources/firewall-rules", token: admin, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "tcp", "port": "22", "tenant_id": ten.ID}}), 201, "")

	// Suspending again sets the reason only; the suspension survives a restart.
	r = s.do(req{method: "POST", path: suspend, token: billing.Secret, body: map[string]any{"reason": "two invoices unpaid", "action": "none"}})
	expect(t, r, 200, "")
	var again tenants.Tenant
	r.decode(t, &again)
	if sp := again.Suspension; sp == nil || sp.Reason != "two invoices unpaid" || !sp.Since.Equal(got.Suspension.Since) || sp.Action != tenants.SuspendStop {
		t.Fatalf("suspended again: got %+v; want the new reason and nothing else changed", sp)
	}
	s.restart()
	tok := s.login("unpaid@example.test", "tenant-password").Token
	r = s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/actions/start", token: tok})
	expect(t, r, 403, "tenant_suspended")
	if !strings.Contains(string(r.Body), "two invoices unpaid") {
		t.Fatalf("after a restart: got %s; want the reason", r.Body)
	}

	unsuspend := "/api/resources/tenants/" + ten.ID + "/unsuspend"
	r = s.do(req{method: "POST", path: unsuspend, token: billing.Secret, body: map[string]any{"start": true}})
	expect(t, r, 200, "")
	var back tenants.Tenant
	r.decode(t, &back)
	if back.Suspension != nil {
		t.Fatalf("unsuspended: got %+v; want no suspension", back.Suspension)
	}
	testwait.Eventually(t, "the machine the suspension stopped started again", func() bool {
		mm := s.machine(admin, m.ID)
		return mm.Status == machines.StatusRunning && mm.TaskID == nil
	})
	expect(t, s.do(req{method: "POST", path: unsuspend, token: billing.Secret, body: map[string]any{}}), 200, "")
	r = s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/actions/reboot", token: tok})
	expect(t, r, 202, "")

}

// VMPLANE_SUSPEND_ACTION is the action of a suspension that names none (none here:
// the machine runs on), and a value that is no action is refused at start.
func TestSuspendActionSetting(t *testing.T) {
	t.Parallel()
	bad := Defaults()
	bad.SuspendAction = "pause"
	if err := bad.validate(); err == nil || !strings.Contains(err.Error(), "suspend-action") {
		t.Fatalf("suspend-action pause: got %v; want it refused", err)
	}
	s, admin := synced(t, func(c *Config) { c.SuspendAction = tenants.SuspendNone })
	ten := s.tenant(admin, "Lenient", nil)
	m := s.provision(ten.Token, smallMachine)
	r := s.do(req{method: "POST", path: "/api/resources/tenants/" + ten.ID + "/suspend", token: admin, body: map[string]any{"reason": "late"}})
	expect(t, r, 200, "")
	var got tenants.Tenant
	r.decode(t, &got)
	if sp := got.Suspension; sp == nil || sp.Action != tenants.SuspendNone || len(sp.Machines) != 0 {
		t.Fatalf("got %+v; want action none and no machine touched", sp)
	}
	if st := s.machine(admin, m.ID).Status; st != machines.StatusRunning {
		t.Fatalf("the machine: got %s; want still running", st)
	}
}

// On etcd, a suspension made through one member refuses the tenant's writes through
// every member, and its end lets them through again everywhere.
func TestClusterSuspendRefusesWritesOnEveryMember(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	ten := ms[0].tenant(admin, "Spread", nil)
	rule := func(m *testServer) *response {
		return doWith(t, m.client, m.base, req{method: "POST", path: "/api/client/firewall/rules", token: ten.Token, body: firewallRule})
	}
	expect(t, rule(ms[2]), 201, "")
	expect(t, doWith(t, ms[1].client, ms[1].base, req{method: "POST", path: "/api/resources/tenants/" + ten.ID + "/suspend", token: admin,
		body: map[string]any{"reason": "unpaid", "action": "none"}}), 200, "")
	for i, m := range ms {
		r := rule(m)
		if r.Status != 403 || !strings.Contains(string(r.Body), "tenant_suspended") {
			t.Errorf("member %d: got %d %s; want 403 tenant_suspended", i, r.Status, r.Body)
		}
	}
	expect(t, doWith(t, ms[2].client, ms[2].base, req{method: "POST", path: "/api/resources/tenants/" + ten.ID + "/unsuspend", token: admin,
		body: map[string]any{}}), 200, "")
	for _, m := range ms {
		expect(t, rule(m), 201, "")
	}
}

// TestMachineSuspendedWalk suspends one of a tenant's machines for billing (with a
// billing key; action suspend) and calls every route of the route table that writes to
// a machine named in its path, and its console ticket, as the tenant's user on that
// machine: each answers 403 machine_suspended with the reason. The machine still reads,
// the tenant's other machine still takes changes, the tenant cannot resume it, and the
// unsuspend (start) resumes it.
func TestMachineSuspendedWalk(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.tenant(admin, "Partly", nil)
	m := s.provision(ten.Token, smallMachine)
	other := s.provision(ten.Token, map[string]any{"name": "app-2", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10})
	billing := s.newKey(admin, map[string]any{"name": "billing", "scopes": []string{"billing"}})
	path := "/api/virt/vms/" + m.ID
	expect(t, s.do(req{method: "POST", path: path + "/suspend-billing", token: ten.Token, body: map[string]any{"reason": "x"}}), 403, "forbidden")
	r := s.do(req{method: "POST", path: path + "/suspend-billing", token: billing.Secret, body: map[string]any{"reason": "order 7 unpaid", "action": "suspend"}})
	expect(t, r, 200, "")
	var got machines.Machine
	r.decode(t, &got)
	if bs := got.BillingSuspension; bs == nil || bs.Reason != "order 7 unpaid" || bs.Action != "suspend" {
		t.Fatalf("suspended: got %+v", bs)
	}
	testwait.Eventually(t, "the machine suspended on the hypervisor", func() bool {
		mm := s.machine(admin, m.ID)
		return mm.Status == machines.StatusSuspended && mm.TaskID == nil
	})

	fill := strings.NewReplacer("{id}", m.ID, "{vmId}", m.ID, "{action}", "resume", "{name}", "snap")
	held := 0
	for _, rt := range s.app.Edge().Routes() {
		if rt.Access == api.Public || rt.Access == api.AdminOnly || suspendedException(rt) {
			continue
		}
		if !strings.Contains(rt.Path, "{vmId}") && !strings.HasPrefix(rt.Path, "/api/resources/machines/{id}") {
			continue
		}
		if (rt.Method == "GET" || rt.Method == "HEAD") && !strings.HasSuffix(rt.Path, "/console") {
			continue
		}
		rq := req{method: rt.Method, path: fill.Replace(rt.Path), token: ten.Token}
		if rt.Method == "POST" || rt.Method == "PATCH" || rt.Method == "PUT" {
			rq.body = `{}`
		}
		r := s.do(rq)
		if r.Status != 403 || !strings.Contains(string(r.Body), `"code":"machine_suspended"`) || !strings.Contains(string(r.Body), "order 7 unpaid") {
			t.Errorf("%s %s: got %d %s; want 403 machine_suspended with the reason", rt.Method, rq.path, r.Status, r.Body)
		}
		held++
	}
	if held < 10 {
		t.Fatalf("only %d routes held back; the walk found too few", held)
	}
	r = s.do(req{method: "GET", path: "/api/client/machines/" + m.ID, token: ten.Token})
	expect(t, r, 200, "")
	if !strings.Contains(string(r.Body), `"billing_suspension":{"reason":"order 7 unpaid"`) {
		t.Fatalf("the machine as its tenant reads it: %s; want its billing_suspension", r.Body)
	}
	s.waitTask(ten.Token, s.startTask(req{method: "POST", path: "/api/client/machines/" + other.ID + "/actions/reboot", token: ten.Token}).ID)
	// Suspending again only sets the reason; the unsuspend (start) resumes the machine.
	expect(t, s.do(req{method: "POST", path: path + "/suspend-billing", token: billing.Secret, body: map[string]any{"reason": "order 8 unpaid"}}), 200, "")
	r = s.do(req{method: "POST", path: path + "/unsuspend-billing", token: billing.Secret, body: map[string]any{"start": true}})
	expect(t, r, 200, "")
	testwait.Eventually(t, "the machine resumed", func() bool {
		mm := s.machine(admin, m.ID)
		return mm.Status == machines.StatusRunning && mm.TaskID == nil
	})
	expect(t, s.do(req{method: "POST", path: path + "/unsuspend-billing", token: billing.Secret, body: map[string]any{}}), 200, "")
	s.waitTask(ten.Token, s.startTask(req{method: "POST", path: "/api/client/machines/" + m.ID + "/actions/reboot", token: ten.Token}).ID)
}

// A billing key terminates a machine: with no grace (the default) it is deleted at
// once, with its backups, as a task; machine.terminated is on the event stream.
func TestTerminateAtOnce(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.tenant(admin, "Gone", nil)
	m := s.provision(ten.Token, smallMachine)
	s.waitTask(ten.Token, s.startTask(req{method: "POST", path: "/api/client/machines/" + m.ID + "/backups", token: ten.Token, body: map[string]any{"note": "n"}}).ID)
	if n := len(s.backupsOf(admin, m.ID)); n != 1 {
		t.Fatalf("got %d backups; want 1", n)
	}
	billing := s.newKey(admin, map[string]any{"name": "billing", "scopes": []string{"billing"}})
	st := s.subscribe(admin, 0)
	expect(t, s.do(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/terminate", token: ten.Token}), 403, "forbidden")
	r := s.do(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/terminate", token: billing.Secret})
	expect(t, r, 202, "")
	var got machines.Machine
	r.decode(t, &got)
	if got.TerminateAt == nil {
		t.Fatalf("terminate: got %s; want terminate_at", r.Body)
	}
	testwait.Eventually(t, "the machine deleted", func() bool {
		return s.do(req{method: "GET", path: "/api/virt/vms/" + m.ID, token: admin}).Status == 404
	})
	if n := len(s.backupsOf(admin, m.ID)); n != 0 {
		t.Fatalf("got %d backups after the termination; want none", n)
	}
	st.until(t, func(ev sseEvent) bool { return ev.Type == "machine.terminated" && strings.Contains(ev.Data, m.ID) })
}

// Within the grace (VMPLANE_TERMINATE_GRACE) a terminated machine is stopped and
// marked, its tenant cannot start it, a cancel takes it back; marked again, its
// deletion survives a restart.
func TestTerminateAfterGraceSurvivesRestart(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.TerminateGrace = 3 * time.Second })
	ten := s.tenant(admin, "Grace", nil)
	m := s.provision(ten.Token, smallMachine)
	path := "/api/virt/vms/" + m.ID + "/terminate"
	r := s.do(req{method: "POST", path: path, token: admin})
	expect(t, r, 202, "")
	var got machines.Machine
	r.decode(t, &got)
	if got.TerminateAt == nil || !got.TerminateAt.After(time.Now()) {
		t.Fatalf("terminate: got %v; want a terminate_at after now", got.TerminateAt)
	}
	testwait.Eventually(t, "the machine stopped within the grace", func() bool {
		mm := s.machine(admin, m.ID)
		return mm.Status == machines.StatusStopped && mm.TaskID == nil
	})
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/actions/start", token: ten.Token}), 409, "invalid_state")
	r = s.do(req{method: "DELETE", path: path, token: admin})
	expect(t, r, 200, "")
	if s.machine(admin, m.ID).TerminateAt != nil {
		t.Fatal("cancelled: terminate_at is still set")
	}
	expect(t, s.do(req{method: "POST", path: path, token: admin}), 202, "")
	s.restart()
	admin = s.adminToken()
	testwait.Eventually(t, "the machine deleted after the restart", func() bool {
		return s.do(req{method: "GET", path: "/api/virt/vms/" + m.ID, token: admin}).Status == 404
	})
}
