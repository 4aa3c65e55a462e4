package app

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/actors/tenants"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// simLocation adds a simulated cluster as a location, and writes its nodes' records
// as the sync of every location records them (id name@location, the name the
// cluster knows, the location), so that placement and capacity see them.
func (s *testServer) simLocation(admin, name string) locations.Location {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{"name": name, "driver": "sim"}})
	expect(s.t, r, 201, "")
	var loc locations.Location
	r.decode(s.t, &loc)
	drv, err := s.app.sys.Locations.Driver(loc.ID)
	if err != nil {
		s.t.Fatal(err)
	}
	ctx := context.Background()
	inv, err := drv.Inventory(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	b := new(persistence.Batch)
	for _, n := range inv.Nodes {
		val, err := persistence.Encode(capacity.NodeVersion, capacity.Node{ID: capacity.NodeID(loc.ID, n.ID), Name: n.ID,
			Location: hvloc.ID(loc.ID), Status: string(n.Status), CPUCores: n.CPUCores, MemoryMB: n.MemoryMB, DiskGB: n.DiskGB, StorageGB: n.StorageGB})
		if err != nil {
			s.t.Fatal(err)
		}
		b.Put(capacity.NodeKey(capacity.NodeID(loc.ID, n.ID)), val)
	}
	// Its templates, as the sync records them (template/<id@location>, version 1):
	// a create in the location names one of them.
	for _, tpl := range inv.Templates {
		tpl.ID, tpl.Location = inventory.TemplateID(loc.ID, tpl.ID), loc.ID
		val, err := persistence.Encode(1, tpl)
		if err != nil {
			s.t.Fatal(err)
		}
		b.Put(persistence.Key("template", tpl.ID), val)
	}
	if err := s.app.store.Commit(ctx, b); err != nil {
		s.t.Fatal(err)
	}
	return loc
}

// TestCreateInALocation: plans and pools of a location (another simulated cluster
// beside the default one, whose node names are the same); a machine made from a plan
// of the location is made there, on one of its nodes, with an address of its pool,
// and counts in its capacity; a body that contradicts the plan's location, names an
// unknown location, a node or a template of another one is 400 naming the field (a
// reinstall from another location's template too); the lists filter
// by location; and the location is not deleted while anything belongs to it.
func TestCreateInALocation(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Travelling", nil)
	b := s.simLocation(admin, "Berlin")
	home := s.createPool(admin, map[string]any{"name": "home", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1"})
	away := s.createPool(admin, map[string]any{"name": "berlin", "cidr": "198.51.100.0/24", "gateway": "198.51.100.1", "location_id": b.ID})
	if home.Location != "" || string(away.Location) != b.ID {
		t.Fatalf("pools: got %q and %q; want default and %s", home.Location, away.Location, b.ID)
	}
	tplB := inventory.TemplateID(b.ID, "tpl-debian-12")
	small := map[string]any{"name": "S-B", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20, "location_id": b.ID}
	planB := s.createPlan(admin, small)
	planHome := s.createPlan(admin, map[string]any{"name": "S", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20})
	r := s.do(req{method: "GET", path: "/api/resources/plans/" + planHome.ID, token: a.Token})
	expect(t, r, 200, "")
	if !bytes.Contains(r.Body, []byte(`"location_id":"default"`)) {
		t.Errorf("a plan of no location: got %s; want location_id default", r.Body)
	}
	for path, body := range map[string]map[string]any{
		"/api/resources/plans":    {"name": "S-X", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20, "location_id": "nowhere"},
		"/api/resources/ip-pools": {"name": "x", "cidr": "203.0.113.0/24", "gateway": "203.0.113.1", "location_id": "nowhere"},
	} {
		expectField(t, s.do(req{method: "POST", path: path, token: admin, body: body}), "location_id")
	}
	expectField(t, s.do(req{method: "PATCH", path: "/api/resources/ip-pools/" + home.ID, token: admin, body: map[string]any{"location_id": "nowhere"}}), "location_id")
	if got := listOf[plans.Plan](s, a.Token, "/api/resources/plans?location="+b.ID); len(got) != 1 || got[0].ID != planB.ID {
		t.Errorf("plans of %s: got %+v; want S-B alone", b.ID, got)
	}
	if got := listOf[addresses.Pool](s, admin, "/api/resources/ip-pools?location=default"); len(got) != 1 || got[0].ID != home.ID {
		t.Errorf("pools of default: got %+v; want home alone", got)
	}

	// From the plan of Berlin: made there, on a node of Berlin, with Berlin's address.
	r = s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "b-1", "template_id": tplB, "plan_id": planB.ID}})
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	m := p.Machine
	if string(m.Location) != b.ID || !strings.HasPrefix(m.Node, "pve") || len(m.Addresses) != 1 || m.Addresses[0].Pool != away.ID || m.Addresses[0].Address != "198.51.100.2" {
		t.Fatalf("made from S-B: got location %q, node %q, addresses %+v; want %s, a node of it, 198.51.100.2", m.Location, m.Node, m.Addresses, b.ID)
	}
	drv, err := s.app.sys.Locations.Driver(b.ID)
	if err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the machine made in Berlin's cluster", func() bool {
		inv, err := drv.Inventory(context.Background())
		if err != nil {
			return false
		}
		for _, hm := range inv.Machines {
			if hm.Name == "b-1" && hm.Node == m.Node {
				return true
			}
		}
		return false
	})
	// Its allocation counts on its node of Berlin, not on the default pve of that name.
	c := s.capacity(a.Token, planB.ID)
	var mine, other capacity.NodeRoom
	for _, n := range c.Nodes {
		if string(n.Location) != b.ID {
			t.Errorf("capacity of S-B: node %+v of another location", n)
		}
		if n.Node == capacity.NodeID(b.ID, m.Node) {
			mine = n
		} else {
			other = n
		}
	}
	if string(c.Location) != b.ID || len(c.Nodes) != s.cfg.SimNodes || mine.Name != m.Node || mine.FreeMemoryMB != other.FreeMemoryMB-1024 {
		t.Errorf("capacity of S-B: got %+v; want %s's %d nodes, 1024 MB given out on %s", c, b.ID, s.cfg.SimNodes, m.Node)
	}
	if c := s.capacity(a.Token, planHome.ID); c.Location != "" || c.Total != 16 || fits(c)[m.Node] != 8 {
		t.Errorf("capacity of S: got %+v; want the default nodes, untouched", c)
	}
	r = s.do(req{method: "GET", path: "/api/resources/plans/" + planB.ID + "/capacity?location=" + b.ID, token: a.Token})
	expect(t, r, 200, "")
	expectField(t, s.do(req{method: "GET", path: "/api/resources/plans/" + planB.ID + "/capacity?location=default", token: a.Token}), "location")

	// What is refused: another location than the plan's, an unknown one, a node of
	// another location.
	expectField(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "b-2", "template_id": "tpl-debian-12", "plan_id": planB.ID, "location_id": "default"}}), "location_id")
	expectField(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "b-2", "template_id": "tpl-debian-12", "plan_id": planHome.ID, "location_id": b.ID}}), "location_id")
	expectField(t, s.do(req{method: "POST", path: "/api/resources/machines", token: admin, body: map[string]any{
		"name": "b-2", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "tenant_id": a.ID, "location_id": "nowhere"}}), "location_id")
	expectField(t, s.do(req{method: "POST", path: "/api/resources/machines", token: admin, body: map[string]any{
		"name": "b-2", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "tenant_id": a.ID, "node": capacity.NodeID(b.ID, "pve1")}}), "node")
	// A template of another location than the create's: its cluster has not its disks.
	// (In Berlin, the id alone names Berlin's own.)
	expectField(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "b-2", "template_id": tplB, "plan_id": planHome.ID}}), "template_id")
	expectField(t, s.do(req{method: "POST", path: "/api/resources/machines", token: admin, body: map[string]any{
		"name": "b-2", "template_id": tplB, "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "tenant_id": a.ID}}), "template_id")
	// Nor is a machine reinstalled from another location's template; from its own
	// (by its id there, or its id@location), it is.
	s.waitTask(a.Token, p.Task.ID)
	r = s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "h-1", "template_id": "tpl-debian-12", "plan_id": planHome.ID}})
	expect(t, r, 202, "")
	var ph tenants.Provisioned
	r.decode(t, &ph)
	s.waitTask(a.Token, ph.Task.ID)
	expectField(t, s.do(req{method: "POST", path: "/api/client/machines/" + ph.Machine.ID + "/reinstall", token: a.Token,
		body: map[string]any{"template_id": tplB}}), "template_id")
	for _, tpl := range []string{"tpl-debian-12", tplB} {
		re := s.startTask(req{method: "POST", path: "/api/client/machines/" + m.ID + "/reinstall", token: a.Token, body: map[string]any{"template_id": tpl}})
		if done := s.waitTask(a.Token, re.ID); done.Status != tasks.TaskSucceeded {
			t.Errorf("reinstall of %s from %s: %+v; want it done", m.ID, tpl, done)
		}
	}

	// An operator's machine of explicit sizes in Berlin, on a node named by its name
	// there, or by its id, with Berlin's addresses.
	for i, node := range []string{"pve2", capacity.NodeID(b.ID, "pve2")} {
		r = s.do(req{method: "POST", path: "/api/resources/machines", token: admin, body: map[string]any{
			"name": "b-op-" + string(rune('a'+i)), "template_id": []string{"tpl-debian-12", tplB}[i], "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "tenant_id": a.ID,
			"location_id": b.ID, "node": node, "ipv4": 1}})
		expect(t, r, 202, "")
		r.decode(t, &p)
		if string(p.Machine.Location) != b.ID || p.Machine.Node != "pve2" || len(p.Machine.Addresses) != 1 || p.Machine.Addresses[0].Pool != away.ID {
			t.Errorf("operator's create on %s: got location %q, node %q, addresses %+v", node, p.Machine.Location, p.Machine.Node, p.Machine.Addresses)
		}
	}

	// Berlin holds plans, a pool and machines: not deleted, and the answer says what
	// (its nodes are its cluster's, which the sync drops once it is deleted).
	r = s.do(req{method: "DELETE", path: "/api/resources/locations/" + b.ID, token: admin})
	expect(t, r, 409, "conflict")
	if bytes.Contains(r.Body, []byte("node(s)")) {
		t.Errorf("delete of Berlin: got %s; want its nodes not named: they do not hold it", r.Body)
	}
	for _, what := range []string{"1 plan(s)", "1 IP pool(s)", "3 machine(s)"} {
		if !bytes.Contains(r.Body, []byte(what)) {
			t.Errorf("delete of Berlin: got %s; want it to name %s", r.Body, what)
		}
	}
}

// TestDeleteLocationClearsItsAlert: an empty location is deleted (204), and its
// hypervisor_unavailable alert, open when it went, is resolved with it.
func TestDeleteLocationClearsItsAlert(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	r := s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{"name": "Gone", "driver": "sim"}})
	expect(t, r, 201, "")
	var loc locations.Location
	r.decode(t, &loc)
	target := monitoring.LocationTarget(loc.ID)
	ctx := context.Background()
	if _, err := s.app.sys.Alerts.Raise(ctx, alerts.AlertRaise{Kind: alerts.AlertHypervisorUnavailable, Severity: alerts.SeverityCritical,
		TargetType: "hypervisor", TargetID: target, Message: "the " + target + " hypervisor does not answer"}); err != nil {
		t.Fatal(err)
	}
	if !s.app.sys.Alerts.IsOpen(ctx, alerts.AlertHypervisorUnavailable, target) {
		t.Fatal("the alert raised is not open")
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/locations/" + loc.ID, token: admin}), 204, "")
	testwait.Eventually(t, "the deleted location's alert resolved", func() bool {
		return !s.app.sys.Alerts.IsOpen(ctx, alerts.AlertHypervisorUnavailable, target)
	})
}

// expectField checks a 400 invalid_request naming field.
func expectField(t *testing.T, r *response, field string) {
	t.Helper()
	expect(t, r, 400, "invalid_request")
	var p struct {
		Errors []struct{ Field string } `json:"errors"`
	}
	r.decode(t, &p)
	if len(p.Errors) == 0 || !strings.EqualFold(p.Errors[0].Field, field) {
		t.Errorf("got %s; want the field %s named", r.Body, field)
	}
}

// TestRestoreNewInItsLocation: a backup of a machine of a location other than the
// default one, restored into a new machine, makes it in that location (where the
// archive is), with an address of that location's pool, not the default one's.
func TestRestoreNewInItsLocation(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Copier", nil)
	b := s.simLocation(admin, "Berlin")
	home := s.createPool(admin, map[string]any{"name": "home", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1"})
	away := s.createPool(admin, map[string]any{"name": "berlin", "cidr": "198.51.100.0/24", "gateway": "198.51.100.1", "location_id": b.ID})
	plan := s.createPlan(admin, map[string]any{"name": "S-B", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20, "ipv4": 1, "location_id": b.ID})
	r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "orig", "template_id": inventory.TemplateID(b.ID, "tpl-debian-12"), "plan_id": plan.ID}})
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	if done := s.waitTask(a.Token, p.Task.ID); done.Status != tasks.TaskSucceeded {
		t.Fatalf("create in %s: %+v", b.ID, done)
	}
	bk := s.backupNow(a.Token, p.Machine.ID)
	if string(bk.Location) != b.ID {
		t.Fatalf("backup of a machine of %s: location %q", b.ID, bk.Location)
	}

	r = s.restoreNew(admin, bk.ID, "copy")
	expect(t, r, 202, "")
	r.decode(t, &p)
	m := p.Machine
	if string(m.Location) != b.ID || len(m.Addresses) != 1 || m.Addresses[0].Pool != away.ID || m.Addresses[0].Address != "198.51.100.3" {
		t.Fatalf("restored into a new machine: location %q, addresses %+v; want %s and 198.51.100.3 of its pool", m.Location, m.Addresses, b.ID)
	}
	if done := s.waitTask(admin, p.Task.ID); done.Status != tasks.TaskSucceeded {
		t.Fatalf("restore in %s: %+v", b.ID, done)
	}
	if got := s.machine(admin, m.ID); string(got.Location) != b.ID || got.Addresses[0].Address != "198.51.100.3" {
		t.Errorf("restored machine after its task: location %q, addresses %+v", got.Location, got.Addresses)
	}
	for _, pool := range listOf[addresses.Pool](s, admin, "/api/resources/ip-pools") {
		if pool.ID == home.ID && pool.Allocated != 0 {
			t.Errorf("the default location's pool: %d allocated; want none", pool.Allocated)
		}
	}
}
