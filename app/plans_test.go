package app

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// planServer starts a server on a sim of two empty nodes of 8 cores, 8192 MB and 200 GB
// each, synced, and returns it with an admin token.
func planServer(t *testing.T, mutate ...func(*Config)) (*testServer, string) {
	t.Helper()
	cfg := testConfig(t)
	for _, m := range mutate {
		m(&cfg)
	}
	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second},
		sim: sim.New(sim.Config{Seed: 1, Nodes: 2, NodeCores: 8, NodeMemoryMB: 8192, NodeDiskGB: 200, OpDelay: cfg.SimOpDelay})}
	s.start()
	t.Cleanup(s.stop)
	tok := s.adminToken()
	s.sync(tok)
	return s, tok
}

// createPlan creates a plan as the operator.
func (s *testServer) createPlan(admin string, body map[string]any) plans.Plan {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/resources/plans", token: admin, body: body})
	expect(s.t, r, 201, "")
	var p plans.Plan
	r.decode(s.t, &p)
	return p
}

// capacity reads a plan's capacity.
func (s *testServer) capacity(tok, plan string) plans.PlanCapacity {
	s.t.Helper()
	r := s.do(req{method: "GET", path: "/api/resources/plans/" + plan + "/capacity", token: tok})
	expect(s.t, r, 200, "")
	var c plans.PlanCapacity
	r.decode(s.t, &c)
	return c
}

// fits is each node's fits of a capacity, by node.
func fits(c plans.PlanCapacity) map[string]int {
	out := map[string]int{}
	for _, n := range c.Nodes {
		out[n.Node] = n.Fits
	}
	return out
}

// TestPlans walks what a billing system and a tenant do with plans: the operator
// writes them, tenants and read or billing keys read them, a machine is made from one
// (placed on the node with the most room), moved up and (not) down, the capacity
// follows what the machines are given, a create nothing has room for is 409
// insufficient_capacity, and a plan in use is not deleted.
func TestPlans(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Planner", nil)
	small := s.createPlan(admin, map[string]any{"name": "small", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20,
		"snapshots": 1, "allowed_templates": []string{"tpl-debian-12"}, "ipv6_prefix": 64, "traffic_gb": 1000})
	large := s.createPlan(admin, map[string]any{"name": "large", "cpu_cores": 2, "memory_mb": 2048, "disk_gb": 40})
	if small.IPv4 != 1 || small.IPv6Prefix == nil || *small.IPv6Prefix != 64 || large.Snapshots != nil || len(large.AllowedTemplates) != 0 {
		t.Fatalf("plans: got %+v and %+v", small, large)
	}
	expect(t, s.do(req{method: "POST", path: "/api/resources/plans", token: admin, body: map[string]any{
		"name": "SMALL", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20}}), 409, "conflict")

	// Who reads and who writes.
	expect(t, s.do(req{method: "GET", path: "/api/resources/plans", token: a.Token}), 200, "")
	expect(t, s.do(req{method: "GET", path: "/api/resources/plans/" + small.ID + "/capacity", token: a.Token}), 200, "")
	expect(t, s.do(req{method: "POST", path: "/api/resources/plans", token: a.Token, body: map[string]any{
		"name": "mine", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20}}), 403, "forbidden")
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/plans/" + small.ID, token: a.Token, body: map[string]any{"cpu_cores": 2}}), 403, "forbidden")
	billing := s.newKey(admin, map[string]any{"name": "billing", "scopes": []string{"billing"}})
	read := s.newKey(admin, map[string]any{"name": "read", "scopes": []string{"read"}})
	for _, k := range []string{billing.Secret, read.Secret} {
		expect(t, s.do(req{method: "GET", path: "/api/resources/plans/" + small.ID, token: k}), 200, "")
		expect(t, s.do(req{method: "GET", path: "/api/resources/plans/" + small.ID + "/capacity", token: k}), 200, "")
	}
	expect(t, s.do(req{method: "GET", path: "/api/resources/tenants", token: billing.Secret}), 403, "forbidden")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/plans/" + small.ID, token: billing.Secret}), 403, "forbidden")

	// Empty nodes: 8 cores × 4 = 32, 8192 MB, 200 GB each. small fits min(32/1,
	// 8192/1024, 200/20) = 8 on each, large min(32/2, 8192/2048, 200/40) = 4.
	c := s.capacity(admin, small.ID)
	if got := fits(c); c.Total != 16 || got["pve1"] != 8 || got["pve2"] != 8 || c.Overcommit != capacity.DefaultOvercommit {
		t.Fatalf("capacity of small on empty nodes: got %+v; want 8 + 8", c)
	}
	if c.Nodes[0].FreeCPUCores != 32 || c.Nodes[0].FreeMemoryMB != 8192 || c.Nodes[0].FreeDiskGB != 200 {
		t.Fatalf("free on pve1: got %+v; want 32 cores, 8192 MB, 200 GB", c.Nodes[0])
	}

	// Created from small: the plan's sizes, on the node with the most room (both
	// empty: the first), then the next on the other.
	create := func(spec map[string]any) tenants.Provisioned {
		t.Helper()
		r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: spec})
		expect(t, r, 202, "")
		var p tenants.Provisioned
		r.decode(t, &p)
		if done := s.waitTask(a.Token, p.Task.ID); done.Status != tasks.TaskSucceeded {
			t.Fatalf("create: got %+v", done)
		}
		return p
	}
	p1 := create(map[string]any{"name": "one", "template_id": "tpl-debian-12", "plan_id": small.ID})
	m1 := s.machine(admin, p1.Machine.ID)
	if m1.CPUCores != 1 || m1.MemoryMB != 1024 || m1.DiskGB != 20 || m1.PlanID == nil || *m1.PlanID != small.ID || m1.Node != "pve1" {
		t.Fatalf("machine from small: got %+v; want small's sizes and id, on pve1", m1)
	}
	p2 := create(map[string]any{"name": "two", "template_id": "tpl-debian-12", "plan_id": small.ID})
	if m2 := s.machine(admin, p2.Machine.ID); m2.Node != "pve2" {
		t.Fatalf("second machine: got node %s; want pve2, the emptier", m2.Node)
	}
	// Each node gives 1 core, 1024 MB, 20 GB: small fits min(31, 7, 9) = 7 on each.
	if got := fits(s.capacity(admin, small.ID)); got["pve1"] != 7 || got["pve2"] != 7 {
		t.Fatalf("capacity after two machines: got %v; want 7 and 7", got)
	}

	// The plan's rules on a create.
	r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "bad", "template_id": "tpl-ubuntu-24.04", "plan_id": small.ID}})
	expect(t, r, 400, "invalid_request")
	if !strings.Contains(string(r.Body), "template not allowed by plan") {
		t.Fatalf("template outside the plan: got %s", r.Body)
	}
	r = s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "bad", "template_id": "tpl-debian-12", "plan_id": small.ID, "cpu_cores": 4}})
	expect(t, r, 400, "invalid_request")
	if !strings.Contains(string(r.Body), `"field":"cpu_cores"`) {
		t.Fatalf("sizes beside a plan: got %s; want the field named", r.Body)
	}

	// Up to large, through the client area: a resize task, then large's sizes.
	s.run(req{method: "POST", path: "/api/client/machines/" + m1.ID + "/plan", token: a.Token, body: map[string]any{"plan_id": large.ID}})
	m1 = s.machine(admin, m1.ID)
	if m1.CPUCores != 2 || m1.MemoryMB != 2048 || m1.DiskGB != 40 || m1.PlanID == nil || *m1.PlanID != large.ID {
		t.Fatalf("after the move up: got %+v; want large's sizes and id", m1)
	}
	// Down again: the disk would shrink.
	r = s.do(req{method: "POST", path: "/api/client/machines/" + m1.ID + "/plan", token: a.Token, body: map[string]any{"plan_id": small.ID}})
	expect(t, r, 400, "invalid_request")
	if !strings.Contains(string(r.Body), "disk is 40 GB and plan small's 20 GB") {
		t.Fatalf("move down: got %s; want both disk sizes", r.Body)
	}
	// The operator moves the other one.
	s.run(req{method: "POST", path: "/api/virt/vms/" + p2.Machine.ID + "/plan", token: admin, body: map[string]any{"plan_id": large.ID}})
	if m2 := s.machine(admin, p2.Machine.ID); m2.PlanID == nil || *m2.PlanID != large.ID || m2.MemoryMB != 2048 {
		t.Fatalf("operator's move: got %+v", m2)
	}

	// Each node gives 2 cores, 2048 MB, 40 GB now: large fits min(30/2, 6144/2048,
	// 160/40) = 3 on each.
	if c := s.capacity(admin, large.ID); c.Total != 6 || fits(c)["pve1"] != 3 {
		t.Fatalf("capacity of large: got %+v; want 3 + 3", c)
	}
	// 8192 MB fits on neither node now.
	huge := s.createPlan(admin, map[string]any{"name": "huge", "cpu_cores": 4, "memory_mb": 8192, "disk_gb": 50})
	if c := s.capacity(admin, huge.ID); c.Total != 0 {
		t.Fatalf("capacity of huge: got %+v; want none", c)
	}
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "huge", "template_id": "tpl-debian-12", "plan_id": huge.ID}}), 409, "insufficient_capacity")

	// A plan in use stays; one no machine uses goes.
	r = s.do(req{method: "DELETE", path: "/api/resources/plans/" + large.ID, token: admin})
	expect(t, r, 409, "conflict")
	if !strings.Contains(string(r.Body), "2 machine(s)") {
		t.Fatalf("delete of a plan in use: got %s; want the count", r.Body)
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/plans/" + huge.ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "GET", path: "/api/resources/plans/" + huge.ID, token: admin}), 404, "not_found")
}

// TestCapacityOfAnOfflineNode: a node that is offline fits none, and a create goes to
// the one online; the ratios the operator sets are the arithmetic's.
func TestCapacityOfAnOfflineNode(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t, func(c *Config) { c.OvercommitMemory = 2 })
	p := s.createPlan(admin, map[string]any{"name": "p", "cpu_cores": 2, "memory_mb": 2048, "disk_gb": 20})
	// 8192 MB × 2 / 2048 = 8; 32 / 2 = 16; 200 / 20 = 10: memory bounds it at 8.
	if c := s.capacity(admin, p.ID); c.Total != 16 || c.Overcommit.Memory != 2 {
		t.Fatalf("got %+v; want 8 + 8 with memory overcommitted twice", c)
	}
	if err := s.sim.SetNodeStatus("pve1", hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	s.sync(admin)
	c := s.capacity(admin, p.ID)
	if got := fits(c); c.Total != 8 || got["pve1"] != 0 || got["pve2"] != 8 {
		t.Fatalf("with pve1 offline: got %+v; want 0 + 8", c)
	}
	a := s.tenant(admin, "Offline", nil)
	if m := s.provision(a.Token, map[string]any{"name": "x", "template_id": "tpl-debian-12", "plan_id": p.ID}); m.Node != "pve2" {
		t.Fatalf("got node %s; want pve2, the only one online", m.Node)
	}
}

// TestRequirePlans: with VMPLANE_REQUIRE_PLANS a tenant user's create names a plan;
// an operator may still give explicit sizes.
func TestRequirePlans(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t, func(c *Config) { c.RequirePlans = true })
	a := s.tenant(admin, "Bound", nil)
	r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine})
	expect(t, r, 400, "invalid_request")
	if !strings.Contains(string(r.Body), "plan_id is required") {
		t.Fatalf("got %s; want plan_id is required", r.Body)
	}
	expect(t, s.do(req{method: "POST", path: "/api/resources/machines", token: a.Token, body: smallMachine}), 400, "invalid_request")
	body := map[string]any{"tenant_id": a.ID}
	for k, v := range smallMachine {
		body[k] = v
	}
	expect(t, s.do(req{method: "POST", path: "/api/resources/machines", token: admin, body: body}), 202, "")
	expect(t, s.do(req{method: "POST", path: "/api/client/machines?tenant_id=" + a.ID, token: admin, body: smallMachine}), 202, "")
	p := s.createPlan(admin, map[string]any{"name": "p", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 20})
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "planned", "template_id": "tpl-debian-12", "plan_id": p.ID}}), 202, "")
}

// conformPlans walks the plans' routes for the OpenAPI conformance check.
func conformPlans(t *testing.T, s *testServer, admin string, ok func(req, int) *response, fails func(req, int, string)) {
	t.Helper()
	a := s.tenant(admin, "Conform plans", nil)
	var p, q plans.Plan
	ok(req{method: "POST", path: "/api/resources/plans", token: admin, body: map[string]any{"name": "conform", "cpu_cores": 1,
		"memory_mb": 512, "disk_gb": 20, "backups": 2, "rate_mbps": 100, "allowed_templates": []string{"tpl-debian-12"}}}, 201).decode(t, &p)
	ok(req{method: "POST", path: "/api/resources/plans", token: admin, body: map[string]any{"name": "conform-2", "cpu_cores": 2,
		"memory_mb": 1024, "disk_gb": 20}}, 201).decode(t, &q)
	fails(req{method: "POST", path: "/api/resources/plans", token: admin, body: map[string]any{"name": "conform", "cpu_cores": 1,
		"memory_mb": 512, "disk_gb": 20}}, 409, "conflict")
	ok(req{method: "GET", path: "/api/resources/plans?limit=1", token: a.Token}, 200)
	ok(req{method: "GET", path: "/api/resources/plans/" + p.ID, token: a.Token}, 200)
	ok(req{method: "PATCH", path: "/api/resources/plans/" + p.ID, token: admin, body: map[string]any{"backups": nil, "ipv4": 2}}, 200)
	ok(req{method: "GET", path: "/api/resources/plans/" + p.ID + "/capacity", token: a.Token}, 200)
	var made tenants.Provisioned
	ok(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{"name": "planned",
		"template_id": "tpl-debian-12", "plan_id": p.ID}}, 202).decode(t, &made)
	s.waitTask(a.Token, made.Task.ID)
	s.waitTask(a.Token, s.startTask(req{method: "POST", path: "/api/client/machines/" + made.Machine.ID + "/plan", token: a.Token,
		body: map[string]any{"plan_id": q.ID}}).ID)
	s.waitTask(admin, s.startTask(req{method: "POST", path: "/api/virt/vms/" + made.Machine.ID + "/plan", token: admin,
		body: map[string]any{"plan_id": p.ID}}).ID)
	fails(req{method: "DELETE", path: "/api/resources/plans/" + p.ID, token: admin}, 409, "conflict")
	ok(req{method: "DELETE", path: "/api/resources/plans/" + q.ID, token: admin}, 204)
}
