package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
)

// fieldsOf returns the fields a 400 problem names.
func fieldsOf(t *testing.T, r *response) []string {
	t.Helper()
	expect(t, r, 400, "invalid_request")
	var p problemBody
	r.decode(t, &p)
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Field)
	}
	return out
}

// Issue 16.10: what the document says is required is required, for every kind; a
// refused create stores nothing.
func TestCreateRequiresDocumentedFields(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Acme", nil)
	users := len(listOf[auth.User](s, admin, "/api/resources/users"))
	cases := []struct {
		path, token string
		body        map[string]any
		field       string
	}{
		{"/api/resources/users", admin, map[string]any{"email": "n@example.test", "role": "user", "password": "long-enough", "tenant_id": a.ID}, "name"},
		{"/api/resources/users", admin, map[string]any{"email": "n@example.test", "name": "N", "password": "long-enough", "tenant_id": a.ID}, "role"},
		{"/api/resources/users", admin, map[string]any{"email": "n@example.test", "name": "N", "role": "root", "password": "long-enough", "tenant_id": a.ID}, "role"},
		{"/api/resources/tenants", admin, map[string]any{"quota": map[string]any{"machines": 1}}, "name"},
		{"/api/client/machines", a.Token, map[string]any{"name": "web", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}, "template_id"},
		{"/api/client/firewall/rules", a.Token, map[string]any{"direction": "in", "action": "accept"}, "protocol"},
		{"/api/client/firewall/rules", a.Token, map[string]any{"direction": "sideways", "action": "accept", "protocol": "tcp"}, "direction"},
		{"/api/resources/health-checks", a.Token, map[string]any{"type": "tcp", "target": "192.0.2.1:22"}, "name"},
	}
	for _, c := range cases {
		if got := fieldsOf(t, s.do(req{method: "POST", path: c.path, token: c.token, body: c.body})); !slices.Contains(got, c.field) {
			t.Errorf("POST %s %v: got errors on %v; want one on %s", c.path, c.body, got, c.field)
		}
	}
	if n := len(listOf[auth.User](s, admin, "/api/resources/users")); n != users {
		t.Fatalf("got %d users; want %d: a refused create stored one", n, users)
	}
}

// Issue 16.11: a body that is not sent as JSON is 415 with the allowed media types.
func TestNonJSONBodyIsUnsupported(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Acme", nil)
	body := `{"name":"web-1","template_id":"tpl-debian-12","cpu_cores":1,"memory_mb":1024,"disk_gb":10}`
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/json; charset=iso-8859-1"} {
		r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: body, header: map[string]string{"Content-Type": ct}})
		expect(t, r, 415, "unsupported_media_type")
		var p problemBody
		r.decode(t, &p)
		if !slices.Equal(p.Allowed, []string{"application/json"}) {
			t.Fatalf("%s: got allowed %v; want [application/json]", ct, p.Allowed)
		}
	}
	if n := countMachines(t, s, a.Token); n != 0 {
		t.Fatalf("got %d machines; want none created from a refused body", n)
	}
	// A merge patch may say so.
	rule := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{"direction": "in", "action": "accept", "protocol": "any"}})
	expect(t, rule, 201, "")
	var fr tenants.FirewallRule
	rule.decode(t, &fr)
	expect(t, s.do(req{method: "PATCH", path: "/api/client/firewall/rules/" + fr.ID, token: a.Token, body: `{"enabled":false}`,
		header: map[string]string{"Content-Type": "application/merge-patch+json"}}), 200, "")
}

// Issue 17.7: every string and array of a request body is bounded; a body over a bound
// is 400 naming the field, and nothing is stored.
func TestUnboundedInputRefused(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Acme", nil)
	keys := make([]string, 150000)
	for i := range keys {
		keys[i] = "k"
	}
	spec := func(k, v any) map[string]any {
		m := map[string]any{"name": "web-1", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}
		m[k.(string)] = v
		return m
	}
	for _, c := range []struct {
		path  string
		body  map[string]any
		field string
	}{
		{"/api/client/machines", spec("ssh_keys", keys), "ssh_keys"},
		{"/api/client/machines", spec("ssh_keys", []string{strings.Repeat("A", 9000)}), "ssh_keys[0]"},
		{"/api/client/machines", spec("name", strings.Repeat("n", 64)), "name"},
		{"/api/client/machines", spec("password", strings.Repeat("p", 129)), "password"},
		{"/api/client/firewall/rules", map[string]any{"direction": "in", "action": "accept", "protocol": "any", "comment": strings.Repeat("c", 256)}, "comment"},
		{"/api/resources/health-checks", map[string]any{"name": strings.Repeat("h", 101), "type": "tcp", "target": "192.0.2.1:22", "interval_s": 60, "timeout_ms": 500}, "name"},
	} {
		if got := fieldsOf(t, s.do(req{method: "POST", path: c.path, token: a.Token, body: c.body})); !slices.Equal(got, []string{c.field}) {
			t.Errorf("POST %s: got errors on %v; want one on %s", c.path, got, c.field)
		}
	}
	if n := countMachines(t, s, a.Token); n != 0 {
		t.Fatalf("got %d machines; want none", n)
	}
}

// Issue 16.26: a query parameter is either honoured (the machine lists filter by name,
// status, node and tenant) or refused with 400 naming it, on every route alike.
func TestQueryParametersHonouredOrRefused(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Acme", nil)
	web := s.provision(a.Token, smallMachine)
	db := s.provision(a.Token, map[string]any{"name": "db-1", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10})
	s.run(req{method: "POST", path: "/api/client/machines/" + db.ID + "/actions/stop", token: a.Token})

	names := func(tok, path string) []string {
		t.Helper()
		var out []string
		for _, m := range listOf[machines.Machine](s, tok, path) {
			out = append(out, m.Name)
		}
		slices.Sort(out)
		return out
	}
	f := func(tok, path string, want ...string) {
		t.Helper()
		if got := names(tok, path); !slices.Equal(got, want) {
			t.Errorf("GET %s: got %v; want %v", path, got, want)
		}
	}
	for _, base := range []string{"/api/client/machines", "/api/resources/machines"} {
		f(a.Token, base+"?name="+web.Name, web.Name)
		f(a.Token, base+"?status=stopped", "db-1")
		f(a.Token, base+"?status=running&name=db-1")
		f(a.Token, base+"?node="+web.Node+"&name="+web.Name, web.Name)
		f(a.Token, base+"?name=db-1&limit=1", "db-1")
	}
	f(admin, "/api/virt/vms?tenant_id="+a.ID, "app-1", "db-1")
	f(admin, "/api/virt/vms?tenant_id="+a.ID+"&status=stopped", "db-1")
	f(admin, "/api/resources/machines?tenant_id="+a.ID+"&name=app-1", "app-1")

	for _, c := range []struct{ tok, path, field string }{
		{a.Token, "/api/client/machines?colour=red", "colour"},
		{a.Token, "/api/client/machines?status=asleep", "status"},
		{admin, "/api/virt/vms?limit=ten", "limit"},
		{admin, "/api/resources/tenants?name=Acme", "name"},
		{a.Token, "/api/resources/firewall-rules?machine=" + web.ID, "machine"},
		{admin, "/api/health?verbose=1", "verbose"},
		{admin, "/api/monitoring/alerts/events?status=open", "status"},
		{admin, "/api/virt/vms/" + web.ID + "?x=1", "x"},
	} {
		if got := fieldsOf(t, s.do(req{method: "GET", path: c.path, token: c.tok})); !slices.Equal(got, []string{c.field}) {
			t.Errorf("GET %s: got errors on %v; want one on %s", c.path, got, c.field)
		}
	}
}

// Issue 16.15: in a PATCH (a JSON merge patch) null clears a field whose schema allows
// null; omitted fields keep their value; null on any other field is 400 naming it.
func TestPatchNullClears(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Acme", nil)
	m := s.provision(a.Token, smallMachine)

	// Firewall rules: machine_id, port, source, destination and comment.
	r := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{"direction": "in", "action": "accept",
		"protocol": "tcp", "port": "22", "source": "198.51.100.0/24", "destination": "203.0.113.5", "machine_id": m.ID, "comment": "ssh"}})
	expect(t, r, 201, "")
	var rule tenants.FirewallRule
	r.decode(t, &rule)
	for _, path := range []string{"/api/client/firewall/rules/", "/api/resources/firewall-rules/"} {
		r = s.do(req{method: "PATCH", path: path + rule.ID, token: a.Token, body: map[string]any{"port": nil, "comment": nil}})
		expect(t, r, 200, "")
		var got tenants.FirewallRule
		r.decode(t, &got)
		if got.Port != nil || got.Comment != "" || got.Source == nil || got.MachineID == nil || got.Protocol != "tcp" {
			t.Fatalf("PATCH %s port and comment null: got %+v; want them cleared and the rest kept", path, got)
		}
		r = s.do(req{method: "PATCH", path: path + rule.ID, token: a.Token, body: map[string]any{"source": nil, "destination": nil, "machine_id": nil}})
		expect(t, r, 200, "")
		r.decode(t, &got)
		if got.Source != nil || got.Destination != nil || got.MachineID != nil {
			t.Fatalf("PATCH %s source, destination, machine_id null: got %+v; want them cleared", path, got)
		}
		// Restore for the second path.
		expect(t, s.do(req{method: "PATCH", path: path + rule.ID, token: a.Token, body: map[string]any{"port": "22", "comment": "ssh",
			"source": "198.51.100.0/24", "destination": "203.0.113.5", "machine_id": m.ID}}), 200, "")
	}
	if got := fieldsOf(t, s.do(req{method: "PATCH", path: "/api/client/firewall/rules/" + rule.ID, token: a.Token, body: map[string]any{"protocol": nil}})); !slices.Equal(got, []string{"protocol"}) {
		t.Fatalf("null protocol: got errors on %v; want one on protocol", got)
	}

	// Health checks: machine_id.
	hc := s.createCheck(a.Token, "/api/resources/health-checks", map[string]any{"name": "ssh", "type": "tcp",
		"target": m.Interfaces[0].IPAddresses[0] + ":22", "interval_s": 60, "timeout_ms": 500, "machine_id": m.ID})
	r = s.do(req{method: "PATCH", path: "/api/resources/health-checks/" + hc.ID, token: a.Token, body: map[string]any{"machine_id": nil}})
	expect(t, r, 200, "")
	if got := s.check(admin, hc.ID); got.MachineID != nil || got.Name != "ssh" {
		t.Fatalf("health check machine_id null: got %+v; want it cleared and the name kept", got)
	}
	if got := fieldsOf(t, s.do(req{method: "PATCH", path: "/api/resources/health-checks/" + hc.ID, token: a.Token, body: map[string]any{"name": nil}})); !slices.Equal(got, []string{"name"}) {
		t.Fatalf("null name: got errors on %v; want one on name", got)
	}

	// Machines: an operator's tenant_id null takes the machine from its tenant.
	r = s.do(req{method: "PATCH", path: "/api/resources/machines/" + m.ID, token: admin, body: map[string]any{"tenant_id": nil}})
	expect(t, r, 200, "")
	var got machines.Machine
	r.decode(t, &got)
	if got.TenantID != nil || got.Name != m.Name {
		t.Fatalf("machine tenant_id null: got %+v; want no tenant and the name kept", got)
	}
	expect(t, s.do(req{method: "GET", path: "/api/resources/machines/" + m.ID, token: a.Token}), 404, "not_found")
	// An empty patch changes nothing and says so.
	if got := fieldsOf(t, s.do(req{method: "PATCH", path: "/api/resources/machines/" + m.ID, token: admin, body: map[string]any{}})); !slices.Equal(got, []string{"body"}) {
		t.Fatalf("empty patch: got errors on %v; want one on body", got)
	}
}
