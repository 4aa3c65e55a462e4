package app

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/internal/testwait"
)

// walkPages lists path with limit=1, following next_cursor, and checks that the
// pages join up to the whole list (as one page of 500 answers it), in order, with no
// duplicates. It returns how many items the list has.
func (s *testServer) walkPages(t *testing.T, tok, path string) int {
	t.Helper()
	type page struct {
		Items      []json.RawMessage `json:"items"`
		NextCursor *string           `json:"next_cursor"`
	}
	get := func(query string) page {
		t.Helper()
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		r := s.do(req{method: "GET", path: path + sep + query, token: tok})
		expect(t, r, 200, "")
		var p page
		r.decode(t, &p)
		return p
	}
	idOf := func(raw json.RawMessage) string {
		// An item's id, or its name where a list's items are named (snapshots).
		var v struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &v); err != nil || v.ID == "" && v.Name == "" {
			t.Fatalf("%s: an item without an id or name: %s", path, raw)
		}
		if v.ID == "" {
			return v.Name
		}
		return v.ID
	}
	whole := get("limit=500")
	if whole.NextCursor != nil {
		t.Fatalf("%s: more than 500 items; the fixture is too big", path)
	}
	var want []string
	for _, it := range whole.Items {
		want = append(want, idOf(it))
	}
	var got []string
	seen := map[string]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > len(want) {
			t.Fatalf("%s: more pages than items (%d) with limit=1: got %v", path, len(want), got)
		}
		q := "limit=1"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		p := get(q)
		if len(p.Items) > 1 {
			t.Fatalf("%s: got %d items in a page of limit=1", path, len(p.Items))
		}
		for _, it := range p.Items {
			id := idOf(it)
			if seen[id] {
				t.Fatalf("%s: %s comes twice when paging", path, id)
			}
			seen[id] = true
			got = append(got, id)
		}
		if p.NextCursor == nil {
			break
		}
		if len(p.Items) == 0 {
			t.Fatalf("%s: an empty page with a next cursor", path)
		}
		cursor = *p.NextCursor
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s: the pages of limit=1 join up to\n%v\nwant the whole list\n%v", path, got, want)
	}
	return len(want)
}

// TestEveryListRoutePages walks every list route of the route table (those answering a
// Page) with limit=1 and checks that the pages join up to the whole list with no
// duplicates, for an operator and, on the routes a tenant user may call, for one.
// Every list has at least two items here, so that paging is exercised; a new list
// route fails the test until it has a fixture.
func TestEveryListRoutePages(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.SimMachines = 6 })
	a := s.tenant(admin, "Pager", nil)
	s.tenant(admin, "Other", nil)
	// A second session of the operator and of the tenant's user.
	s.login(testAdminEmail, testAdminPassword)
	s.login("pager@example.test", "tenant-password")
	// Two running machines of the cluster handed to the tenant.
	var ms []machines.Machine
	for _, m := range s.machines(admin) {
		if m.Status == machines.StatusRunning && len(ms) < 2 {
			r := s.do(req{method: "PATCH", path: "/api/resources/machines/" + m.ID, token: admin, body: map[string]any{"tenant_id": a.ID}})
			expect(t, r, 200, "")
			ms = append(ms, m)
		}
	}
	if len(ms) < 2 {
		t.Fatal("fewer than two running machines to hand to the tenant")
	}
	m1 := ms[0]
	for _, port := range []string{"22", "80", "443"} {
		expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
			"direction": "in", "action": "accept", "protocol": "tcp", "port": port, "machine_id": m1.ID}}), 201, "")
	}
	expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "drop", "protocol": "any"}}), 201, "")
	for _, action := range []string{"stop", "start"} {
		expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m1.ID + "/power-schedules", token: a.Token,
			body: map[string]any{"action": action, "cron": "0 3 * * *"}}), 201, "")
	}
	s.createBackupSchedule(a.Token, m1.ID, map[string]any{"cron": "0 4 * * *", "retention": 1})
	bs := s.createBackupSchedule(a.Token, m1.ID, map[string]any{"cron": everySecond, "retention": 3})
	testwait.Eventually(t, "two backups", func() bool { return len(s.backupsOf(a.Token, m1.ID)) >= 2 })
	s.disableBackupSchedule(a.Token, bs.ID)
	for _, m := range ms {
		s.createCheck(a.Token, "/api/resources/health-checks", map[string]any{"name": "ssh " + m.Name, "type": "tcp",
			"target": m.Interfaces[0].IPAddresses[0] + ":22", "interval_s": 300, "timeout_ms": 500})
		// A failed task on each machine: a task and a task_failed alert each.
		s.sim.FailNext(m.VMID, "reboot", nil)
		s.waitTask(admin, s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: admin}).ID)
	}
	testwait.Eventually(t, "two task_failed alerts", func() bool { return len(s.alertsOf(a.Token, "/api/resources/alert-events", "")) >= 2 })

	for _, name := range []string{"first", "second"} {
		s.waitTask(a.Token, s.startTask(req{method: "POST", path: "/api/client/machines/" + m1.ID + "/snapshots", token: a.Token,
			body: map[string]any{"name": name}}).ID)
	}

	isoURL, isoSum := isoServer(t, "pages")
	s.addISO(admin, map[string]any{"name": "public image", "url": isoURL, "checksum": isoSum})
	s.addISO(admin, map[string]any{"name": "the tenant's image", "url": isoURL, "checksum": isoSum, "tenant_id": a.ID})

	for _, name := range []string{"one", "two"} {
		s.newKey(admin, map[string]any{"name": name, "scopes": []string{"read"}})
		s.newKey(a.Token, map[string]any{"name": name, "scopes": []string{"read"}})
	}
	for _, name := range []string{"small", "medium", "large"} {
		expect(t, s.do(req{method: "POST", path: "/api/resources/plans", token: admin, body: map[string]any{
			"name": name, "cpu_cores": 1, "memory_mb": 512, "disk_gb": 20}}), 201, "")
	}
	// Two webhooks of the tenant, one of the operator's; two deliveries to the first.
	hookRC := newHookReceiver(t)
	hook := s.createHook(a.Token, map[string]any{"url": hookRC.URL, "events": []string{"tenant.suspended", "tenant.unsuspended"}})
	s.createHook(a.Token, map[string]any{"url": hookRC.URL, "events": []string{"*"}})
	s.createHook(admin, map[string]any{"url": hookRC.URL, "events": []string{"alert.updated"}})
	s.suspendTenant(admin, a.ID)
	s.unsuspendTenant(admin, a.ID)
	testwait.Eventually(t, "two deliveries", func() bool { return len(s.deliveries(a.Token, hook.ID)) == 2 })
	for _, n := range []string{"1", "2", "3"} {
		expect(t, s.do(req{method: "POST", path: "/api/resources/ip-pools", token: admin, body: map[string]any{
			"name": "pool " + n, "cidr": "10." + n + ".0.0/16", "gateway": "10." + n + ".0.1"}}), 201, "")
	}
	for _, n := range []string{"1", "2"} {
		expect(t, s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{"name": "location " + n, "driver": "sim"}}), 201, "")
	}
	type fixture struct{ admin, tenant []string }
	both := func(p ...string) fixture { return fixture{admin: p, tenant: p} }
	op := func(p ...string) fixture { return fixture{admin: p} }
	client := func(p ...string) fixture {
		f := fixture{tenant: p}
		for _, q := range p {
			sep := "?"
			if strings.Contains(q, "?") {
				sep = "&"
			}
			f.admin = append(f.admin, q+sep+"tenant_id="+a.ID)
		}
		return f
	}
	fixtures := map[string]fixture{
		"GET /api/virt/vms":       op("/api/virt/vms"),
		"GET /api/virt/nodes":     op("/api/virt/nodes"),
		"GET /api/virt/templates": op("/api/virt/templates"),
		"GET /api/sim/vms":        op("/api/sim/vms"),
		"GET /api/sim/nodes":      op("/api/sim/nodes"),
		"GET /api/sim/templates":  op("/api/sim/templates"),

		"GET /api/auth/sessions":      both("/api/auth/sessions"),
		"GET /api/resources/api-keys": both("/api/resources/api-keys"),

		"GET /api/client/machines":                         client("/api/client/machines"),
		"GET /api/client/firewall/rules":                   client("/api/client/firewall/rules", "/api/client/firewall/rules?machine_id="+m1.ID),
		"GET /api/client/machines/{vmId}/power-schedules":  client("/api/client/machines/" + m1.ID + "/power-schedules"),
		"GET /api/client/machines/{vmId}/backup-schedules": client("/api/client/machines/" + m1.ID + "/backup-schedules"),
		"GET /api/client/machines/{vmId}/backups":          client("/api/client/machines/" + m1.ID + "/backups"),
		"GET /api/client/machines/{vmId}/snapshots":        client("/api/client/machines/" + m1.ID + "/snapshots"),
		"GET /api/client/machines/{vmId}/tasks":            client("/api/client/machines/" + m1.ID + "/tasks"),
		"GET /api/client/locations":                        client("/api/client/locations"),

		"GET /api/monitoring/health-checks": op("/api/monitoring/health-checks", "/api/monitoring/health-checks?tenant_id="+a.ID),
		"GET /api/monitoring/alerts/events": op("/api/monitoring/alerts/events", "/api/monitoring/alerts/events?kind=task_failed"),

		"GET /api/resources/machines":                 both("/api/resources/machines"),
		"GET /api/resources/firewall-rules":           both("/api/resources/firewall-rules"),
		"GET /api/resources/tasks":                    both("/api/resources/tasks"),
		"GET /api/resources/tenants":                  op("/api/resources/tenants"),
		"GET /api/resources/users":                    op("/api/resources/users"),
		"GET /api/resources/nodes":                    op("/api/resources/nodes"),
		"GET /api/resources/templates":                both("/api/resources/templates"),
		"GET /api/resources/power-schedules":          both("/api/resources/power-schedules", "/api/resources/power-schedules?machine_id="+m1.ID),
		"GET /api/resources/backup-schedules":         both("/api/resources/backup-schedules"),
		"GET /api/resources/backups":                  both("/api/resources/backups", "/api/resources/backups?machine_id="+m1.ID),
		"GET /api/resources/health-checks":            both("/api/resources/health-checks"),
		"GET /api/resources/alert-events":             both("/api/resources/alert-events"),
		"GET /api/resources/plans":                    both("/api/resources/plans"),
		"GET /api/resources/isos":                     both("/api/resources/isos"),
		"GET /api/resources/webhooks":                 both("/api/resources/webhooks"),
		"GET /api/resources/webhooks/{id}/deliveries": both("/api/resources/webhooks/" + hook.ID + "/deliveries"),
		"GET /api/audit":                              both("/api/audit", "/api/audit?action=POST+/api/client/firewall/rules"),
		"GET /api/resources/ip-pools":                 op("/api/resources/ip-pools"),
		"GET /api/resources/locations":                op("/api/resources/locations"),
	}

	lists := 0
	for _, rt := range s.app.Edge().Routes() {
		if rt.Reply == nil || !strings.HasPrefix(reflect.TypeOf(rt.Reply).Name(), "Page[") {
			continue
		}
		lists++
		key := rt.Method + " " + rt.Path
		if rt.Query["limit"] == "" || rt.Query["cursor"] == "" {
			t.Errorf("%s answers a page but does not document limit and cursor", key)
		}
		f, ok := fixtures[key]
		if !ok {
			t.Errorf("list route %s has no paging fixture: add one", key)
			continue
		}
		if rt.Access == api.AdminOnly && len(f.tenant) > 0 {
			t.Errorf("%s is for operators; its fixture has tenant paths", key)
		}
		t.Run(strings.ReplaceAll(key, "/", "_"), func(t *testing.T) {
			for _, p := range f.admin {
				if n := s.walkPages(t, admin, p); n < 2 {
					t.Errorf("%s lists %d items for an operator; a fixture needs at least 2 to page", p, n)
				}
			}
			for _, p := range f.tenant {
				if n := s.walkPages(t, a.Token, p); n < 2 {
					t.Errorf("%s lists %d items for the tenant; a fixture needs at least 2 to page", p, n)
				}
			}
		})
	}
	if lists < len(fixtures) {
		t.Errorf("found %d list routes; the fixtures name %d: a list route is gone or no longer answers a page", lists, len(fixtures))
	}
}

// A tenant's rules page by position; the rule a cursor names may be deleted before the
// next page is asked for, and the next page starts where it was. A cursor that no page
// handed out is a 400.
func TestRulePagesSurviveDeletingTheCursorRule(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Pager", nil)
	var ids []string
	for _, port := range []string{"21", "22", "80", "443"} {
		r := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
			"direction": "in", "action": "accept", "protocol": "tcp", "port": port}})
		expect(t, r, 201, "")
		var rule tenants.FirewallRule
		r.decode(t, &rule)
		ids = append(ids, rule.ID)
	}
	type page struct {
		Items      []tenants.FirewallRule `json:"items"`
		NextCursor *string                `json:"next_cursor"`
	}
	get := func(q string) page {
		r := s.do(req{method: "GET", path: "/api/client/firewall/rules?" + q, token: a.Token})
		expect(t, r, 200, "")
		var p page
		r.decode(t, &p)
		return p
	}
	first := get("limit=2")
	if len(first.Items) != 2 || first.Items[1].ID != ids[1] || first.NextCursor == nil {
		t.Fatalf("got first page %+v; want rules 1 and 2 and a cursor", first)
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/client/firewall/rules/" + ids[1], token: a.Token}), 204, "")
	next := get("limit=2&cursor=" + url.QueryEscape(*first.NextCursor))
	if len(next.Items) != 2 || next.Items[0].ID != ids[2] || next.Items[1].ID != ids[3] || next.NextCursor != nil {
		t.Fatalf("got next page %+v; want rules 3 and 4 and no cursor", next)
	}
	for _, bad := range []string{"nonsense", "0.x", "-3." + ids[0]} {
		expect(t, s.do(req{method: "GET", path: "/api/client/firewall/rules?cursor=" + url.QueryEscape(bad), token: a.Token}), 400, "invalid_request")
	}
}
