package app

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/actors/webhooks"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestTenantIsolationMatrix walks every tenant-scoped resource and every client route
// with a second tenant's token. The first tenant's records must be 404 to read, change
// or delete; lists must never contain them; a create naming the first tenant is 403.
// Resources are found from the route table, so a new scoped resource is covered by
// default: it must appear in fixtures below, or the test fails.
func TestTenantIsolationMatrix(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	w := newIsolationWorld(s, admin)
	a, b, am, bm := w.a, w.b, w.am, w.bm
	arule, atask, apower, abackup, abk, ahc, aalert := w.arule, w.atask, w.apower, w.abackup, w.abk, w.ahc, w.aalert
	akey := s.newKey(a.Token, map[string]any{"name": "alpha's", "scopes": []string{"read"}})

	// One record of tenant A per scoped resource, and a valid create body for it.
	type fixture struct {
		id     string
		create map[string]any
		update map[string]any
	}
	fixtures := map[string]fixture{
		"machines":       {am.ID, smallMachine, map[string]any{"name": "stolen"}},
		"firewall-rules": {arule.ID, map[string]any{"direction": "in", "action": "drop", "protocol": "any"}, map[string]any{"enabled": false}},
		"tasks":          {atask.ID, nil, nil},
		"power-schedules": {apower.ID, map[string]any{"machine_id": bm.ID, "action": "stop", "cron": "0 3 * * *"},
			map[string]any{"enabled": false}},
		"backup-schedules": {abackup.ID, map[string]any{"machine_id": bm.ID, "cron": "0 3 * * *", "retention": 1},
			map[string]any{"retention": 1}},
		"backups": {abk.ID, nil, nil},
		"health-checks": {ahc.ID, map[string]any{"name": "bravo ssh", "type": "tcp",
			"target": bm.Interfaces[0].IPAddresses[0] + ":22", "interval_s": 60, "timeout_ms": 500}, map[string]any{"name": "stolen"}},
		// Read and acknowledge only: no DELETE route, so no update fixture here (the
		// PATCH is covered by TestMonitoringForTenants).
		"alert-events": {aalert.ID, nil, nil},
		// No PATCH: the key's DELETE is walked by TestAuthorizationWalk.
		"api-keys": {akey.ID, map[string]any{"name": "bravo's", "scopes": []string{"read"}}, nil},
		// Operators alone add and delete images: a tenant reads them only.
		"isos": {w.aiso.ID, nil, nil},
		"webhooks": {w.ahook.ID, map[string]any{"url": "https://192.0.2.1/bravo", "events": []string{"*"}},
			map[string]any{"enabled": false}},
	}
	aIDs := []string{am.ID, arule.ID, atask.ID, apower.ID, abackup.ID, abk.ID, ahc.ID, aalert.ID, akey.ID, w.aiso.ID, w.ahook.ID}

	scoped := map[string]bool{}
	for _, rt := range s.app.Edge().Routes() {
		rest, ok := strings.CutPrefix(rt.Path, "/api/resources/")
		if !ok || strings.Contains(rest, "/") || rt.Method != "GET" {
			continue
		}
		// A resource a tenant user can list is tenant-scoped or shared reference data
		// (templates, and the plans a tenant may move to).
		if res := s.do(req{method: "GET", path: rt.Path, token: b.Token}); res.Status == 200 && rest != "templates" && rest != "plans" {
			scoped[rest] = true
		}
	}
	for name := range scoped {
		if _, ok := fixtures[name]; !ok {
			t.Errorf("scoped resource %s has no isolation fixture: add one", name)
		}
	}

	for name, f := range fixtures {
		base := "/api/resources/" + name
		t.Run(name, func(t *testing.T) {
			expect(t, s.do(req{method: "GET", path: base + "/" + f.id, token: b.Token}), 404, "not_found")
			if f.update != nil {
				expect(t, s.do(req{method: "PATCH", path: base + "/" + f.id, token: b.Token, body: f.update}), 404, "not_found")
				expect(t, s.do(req{method: "DELETE", path: base + "/" + f.id, token: b.Token}), 404, "not_found")
			}
			list := s.do(req{method: "GET", path: base + "?limit=500", token: b.Token})
			expect(t, list, 200, "")
			for _, id := range aIDs {
				if strings.Contains(string(list.Body), id) {
					t.Fatalf("tenant B's list of %s contains tenant A's %s", name, id)
				}
			}
			if f.create != nil {
				body := map[string]any{"tenant_id": a.ID}
				for k, v := range f.create {
					body[k] = v
				}
				expect(t, s.do(req{method: "POST", path: base, token: b.Token, body: body}), 403, "forbidden")
				// Naming its own tenant is fine.
				body["tenant_id"] = b.ID
				if res := s.do(req{method: "POST", path: base, token: b.Token, body: body}); res.Status >= 300 {
					t.Fatalf("got %d %s creating with its own tenant_id; want success", res.Status, res.Body)
				}
			}
			// Tenant A still sees its record, unchanged.
			expect(t, s.do(req{method: "GET", path: base + "/" + f.id, token: a.Token}), 200, "")
		})
	}

	t.Run("client routes", func(t *testing.T) {
		for _, c := range []struct {
			r    req
			want int
			code string
		}{
			{req{method: "PATCH", path: "/api/client/machines/" + am.ID + "/resources", body: map[string]any{"cpu_cores": 2}}, 404, "not_found"},
			{req{method: "POST", path: "/api/client/machines/" + am.ID + "/actions/stop"}, 404, "not_found"},
			{req{method: "PATCH", path: "/api/client/firewall/rules/" + arule.ID, body: map[string]any{"enabled": false}}, 404, "not_found"},
			{req{method: "DELETE", path: "/api/client/firewall/rules/" + arule.ID}, 404, "not_found"},
			{req{method: "POST", path: "/api/client/firewall/rules", body: map[string]any{"direction": "in", "action": "drop", "protocol": "any", "machine_id": am.ID}}, 400, "invalid_request"},
			{req{method: "POST", path: "/api/client/firewall/rules", body: map[string]any{"direction": "in", "action": "drop", "protocol": "any", "tenant_id": a.ID}}, 403, "forbidden"},
			// The same, with the key written with an escape: still a tenant_id.
			{req{method: "POST", path: "/api/client/firewall/rules", body: `{"direction":"in","action":"drop","protocol":"any","\u0074enant_id":"` + a.ID + `"}`}, 403, "forbidden"},
			{req{method: "GET", path: "/api/client/overview?tenant_id=" + a.ID}, 403, "forbidden"},
			{req{method: "GET", path: "/api/client/machines?tenant_id=" + a.ID}, 403, "forbidden"},
			{req{method: "GET", path: "/api/tasks/" + atask.ID}, 404, "not_found"},
			{req{method: "GET", path: "/api/virt/vms/" + am.ID}, 403, "forbidden"},
			{req{method: "POST", path: "/api/client/machines/" + am.ID + "/power-schedules", body: map[string]any{"action": "stop", "cron": "0 3 * * *"}}, 404, "not_found"},
			{req{method: "GET", path: "/api/client/machines/" + am.ID + "/power-schedules"}, 404, "not_found"},
			{req{method: "POST", path: "/api/client/machines/" + am.ID + "/backup-schedules", body: map[string]any{"cron": "0 3 * * *", "retention": 1}}, 404, "not_found"},
			{req{method: "GET", path: "/api/client/machines/" + am.ID + "/backup-schedules"}, 404, "not_found"},
			{req{method: "POST", path: "/api/client/machines/" + am.ID + "/media", body: map[string]any{"iso_id": w.aiso.ID}}, 404, "not_found"},
			{req{method: "DELETE", path: "/api/client/machines/" + am.ID + "/media"}, 404, "not_found"},
			{req{method: "PUT", path: "/api/client/machines/" + am.ID + "/boot-order", body: map[string]any{"order": []string{"disk"}}}, 404, "not_found"},
			{req{method: "POST", path: "/api/client/machines/" + am.ID + "/rescue", body: map[string]any{"enabled": false}}, 404, "not_found"},
			{req{method: "POST", path: "/api/client/machines/" + bm.ID + "/media", body: map[string]any{"iso_id": w.aiso.ID}}, 404, "not_found"},
			{req{method: "POST", path: "/api/resources/power-schedules", body: map[string]any{"machine_id": am.ID, "action": "stop", "cron": "0 3 * * *"}}, 400, "invalid_request"},
		} {
			c.r.token = b.Token
			expect(t, s.do(c.r), c.want, c.code)
		}
		for _, p := range []string{"/api/client/machines", "/api/client/firewall/rules", "/api/client/overview", "/api/client/usage-trends?days=2"} {
			res := s.do(req{method: "GET", path: p, token: b.Token})
			expect(t, res, 200, "")
			for _, id := range aIDs {
				if strings.Contains(string(res.Body), id) {
					t.Fatalf("%s for tenant B contains tenant A's %s", p, id)
				}
			}
		}
		if !strings.Contains(string(s.do(req{method: "GET", path: "/api/client/machines", token: b.Token}).Body), bm.ID) {
			t.Fatal("tenant B does not see its own machine")
		}
	})

	t.Run("operator resources", func(t *testing.T) {
		for _, p := range []string{"/api/resources/tenants", "/api/resources/users", "/api/resources/nodes", "/api/resources/tenants/" + a.ID} {
			expect(t, s.do(req{method: "GET", path: p, token: b.Token}), 403, "forbidden")
		}
		expect(t, s.do(req{method: "POST", path: "/api/resources/users", token: b.Token, body: map[string]any{
			"email": "x@example.test", "name": "x", "role": "admin", "password": "password-123"}}), 403, "forbidden")
		expect(t, s.do(req{method: "GET", path: "/api/resources/templates", token: b.Token}), 200, "")
		expect(t, s.do(req{method: "GET", path: "/api/resources/nope", token: b.Token}), 404, "not_found")
	})

	// The audit log: each tenant reads its own entries only (B's include its refused
	// tries at A's records, which name the ids B sent, in B's log alone).
	t.Run("audit log", func(t *testing.T) {
		for _, c := range []struct{ tok, own string }{{a.Token, a.ID}, {b.Token, b.ID}} {
			log := s.auditLog(c.tok, "")
			if len(log) == 0 {
				t.Fatalf("tenant %s reads no audit entry", c.own)
			}
			for _, e := range log {
				if e.TenantID != c.own {
					t.Fatalf("tenant %s reads another tenant's entry %+v", c.own, e)
				}
			}
		}
	})
}

// isolationWorld is two tenants: A with one record of every tenant-scoped kind, B with
// a machine of its own. Names are distinctive so that a test can look for them in B's
// answers.
type isolationWorld struct {
	a, b    tenantFixture
	am, bm  machines.Machine
	arule   tenants.FirewallRule
	atask   tasks.Task
	apower  schedules.PowerSchedule
	abackup schedules.BackupSchedule
	abk     backups.Backup
	ahc     monitoring.HealthCheck
	aalert  alerts.Alert
	// aiso is an ISO image of tenant A's alone.
	aiso isos.ISO
	// ahook is tenant A's webhook, adelivery a delivery of one of A's events to it.
	ahook     webhooks.NewWebhook
	adelivery webhooks.Delivery
}

// isolationNames are the names newIsolationWorld gives tenant A and its records.
var isolationNames = []string{"Quokka", "quokka@example.test", "quokka-web", "quokka-app", "quokka ssh", "quokka tools"}

func newIsolationWorld(s *testServer, admin string) *isolationWorld {
	t := s.t
	t.Helper()
	w := &isolationWorld{a: s.tenant(admin, "Quokka", nil), b: s.tenant(admin, "Bravo", nil)}
	a := w.a
	// First: A's webhook gets every event of A's that follows.
	w.ahook = s.createHook(a.Token, map[string]any{"url": newHookReceiver(t).URL + "/quokka", "events": []string{"*"}})
	spec := map[string]any{}
	for k, v := range smallMachine {
		spec[k] = v
	}
	spec["name"] = "quokka-app"
	w.am = s.provision(a.Token, spec)
	w.bm = s.provision(w.b.Token, smallMachine)
	am := w.am
	r := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "tcp", "port": "22", "machine_id": am.ID}})
	expect(t, r, 201, "")
	r.decode(t, &w.arule)
	w.atask = s.run(req{method: "POST", path: "/api/resources/machines/" + am.ID, token: a.Token}.with("PATCH", map[string]any{"name": "quokka-web"}))
	r = s.do(req{method: "POST", path: "/api/client/machines/" + am.ID + "/power-schedules", token: a.Token, body: map[string]any{"action": "reboot", "cron": "0 3 * * *"}})
	expect(t, r, 201, "")
	r.decode(t, &w.apower)
	w.abackup = s.createBackupSchedule(a.Token, am.ID, map[string]any{"cron": everySecond, "retention": 2})
	testwait.Eventually(t, "tenant A's backup schedule took no backup", func() bool { return len(s.backupsOf(a.Token, am.ID)) > 0 })
	s.disableBackupSchedule(a.Token, w.abackup.ID)
	w.abk = s.backupsOf(a.Token, am.ID)[0]
	w.ahc = s.createCheck(a.Token, "/api/resources/health-checks", map[string]any{"name": "quokka ssh", "type": "tcp",
		"target": am.Interfaces[0].IPAddresses[0] + ":22", "interval_s": 60, "timeout_ms": 500, "machine_id": am.ID})
	s.sim.FailNext(am.VMID, "reboot", nil)
	s.waitTask(admin, s.startTask(req{method: "POST", path: "/api/virt/vms/" + am.ID + "/actions/reboot", token: admin}).ID)
	testwait.Eventually(t, "tenant A's task_failed alert", func() bool { return len(s.alertsOf(a.Token, "/api/resources/alert-events", am.ID)) == 1 })
	w.aalert = s.alertsOf(a.Token, "/api/resources/alert-events", am.ID)[0]
	url, sum := isoServer(t, "quokka's tools")
	w.aiso, _ = s.addISO(admin, map[string]any{"name": "quokka tools", "url": url, "checksum": sum, "tenant_id": a.ID})
	testwait.Eventually(t, "a delivery to tenant A's webhook", func() bool { return len(s.deliveries(a.Token, w.ahook.ID)) > 0 })
	w.adelivery = s.deliveries(a.Token, w.ahook.ID)[0]
	return w
}

func (r req) with(method string, body any) req {
	r.method, r.body = method, body
	return r
}
