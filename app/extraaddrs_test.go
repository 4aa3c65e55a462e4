package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// simIPs are the addresses the sim's net0 of machine m holds.
func (s *testServer) simIPs(m machines.Machine) []string {
	s.t.Helper()
	hm, err := s.sim.Machine(context.Background(), hypervisor.Ref{VMID: m.VMID})
	if err != nil {
		s.t.Fatal(err)
	}
	if len(hm.Interfaces) == 0 {
		return nil
	}
	return hm.Interfaces[0].IPAddresses
}

// hosts are the addresses of m as the hypervisor is given them.
func hosts(m machines.Machine) []string { return hypervisor.Hosts(m.Addresses) }

// TestExtraAddresses: a tenant adds addresses to its machine up to its plan's
// counts (ipv4, one IPv6 prefix), each from the pools and on the sim's net0; one past
// the plan is 409 naming the plan's count, a removal frees room for another, the
// primary address is refused, an address the machine lacks is 404, another tenant's
// machine is 404 for both, and a machine of no plan takes more from operators only.
func TestExtraAddresses(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Extra", nil)
	b := s.tenant(admin, "Other", nil)
	v4 := s.createPool(admin, map[string]any{"name": "v4", "cidr": "198.51.100.0/24", "gateway": "198.51.100.1"})
	s.createPool(admin, map[string]any{"name": "v6", "cidr": "2001:db8:100::/48", "gateway": "fe80::1"})
	plan := s.createPlan(admin, map[string]any{"name": "three", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 3, "ipv6_prefix": 64})
	small := s.createPlan(admin, map[string]any{"name": "one", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1})
	m := s.provision(a.Token, map[string]any{"name": "extra-1", "template_id": "tpl-debian-12", "plan_id": small.ID})
	// The plan gives one: a second is past it.
	r := s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/addresses", token: a.Token, body: map[string]any{"version": 4}})
	expect(t, r, 409, "conflict")
	if !strings.Contains(string(r.Body), "allows each machine 1 IPv4") {
		t.Fatalf("refusal past the plan: %s; want the plan's count named", r.Body)
	}
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/addresses", token: a.Token, body: map[string]any{"version": 6}}), 409, "conflict")
	s.run(req{method: "POST", path: "/api/client/machines/" + m.ID + "/plan", token: a.Token, body: map[string]any{"plan_id": plan.ID}})

	add := func(tok string, body map[string]any) machines.Machine {
		t.Helper()
		r := s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/addresses", token: tok, body: body})
		expect(t, r, 201, "")
		var got machines.Machine
		r.decode(t, &got)
		return got
	}
	if got := add(a.Token, map[string]any{"version": 4}); len(got.Addresses) != 2 {
		t.Fatalf("after one add: %v; want two addresses", hosts(got))
	}
	if got := add(a.Token, map[string]any{"version": 4, "address": "198.51.100.77"}); got.Addresses[2].Address != "198.51.100.77" {
		t.Fatalf("after an add asking for 198.51.100.77: %v", hosts(got))
	}
	got := add(a.Token, map[string]any{"version": 6})
	want := []string{"198.51.100.2", "198.51.100.3", "198.51.100.77", "2001:db8:100::1"}
	if !slices.Equal(hosts(got), want) {
		t.Fatalf("addresses after three adds: got %v; want %v", hosts(got), want)
	}
	if ips := s.simIPs(got); !slices.Equal(ips, want) {
		t.Fatalf("the sim's net0: got %v; want %v", ips, want)
	}
	if n := s.pool(admin, v4.ID).Allocated; n != 3 {
		t.Fatalf("the v4 pool's allocated: %d; want 3", n)
	}
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/addresses", token: a.Token, body: map[string]any{"version": 4}}), 409, "conflict")
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/addresses", token: a.Token, body: map[string]any{"version": 6}}), 409, "conflict")
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/addresses", token: a.Token, body: map[string]any{"version": 5}}), 400, "invalid_request")
	// Another tenant sees no machine, whatever it asks.
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/addresses", token: b.Token, body: map[string]any{"version": 4}}), 404, "not_found")
	expect(t, s.do(req{method: "DELETE", path: "/api/client/machines/" + m.ID + "/addresses/198.51.100.3", token: b.Token}), 404, "not_found")
	// The primary stays; an address the machine lacks is 404.
	expect(t, s.do(req{method: "DELETE", path: "/api/client/machines/" + m.ID + "/addresses/198.51.100.2", token: a.Token}), 409, "conflict")
	expect(t, s.do(req{method: "DELETE", path: "/api/client/machines/" + m.ID + "/addresses/198.51.100.99", token: a.Token}), 404, "not_found")

	r = s.do(req{method: "DELETE", path: "/api/client/machines/" + m.ID + "/addresses/198.51.100.3", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &got)
	r = s.do(req{method: "DELETE", path: "/api/client/machines/" + m.ID + "/addresses/2001:db8:100::1", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &got)
	want = []string{"198.51.100.2", "198.51.100.77"}
	if !slices.Equal(hosts(got), want) || !slices.Equal(s.simIPs(got), want) {
		t.Fatalf("after two removals: record %v, sim %v; want %v", hosts(got), s.simIPs(got), want)
	}
	// Released with the cool-down: still counted, not given again.
	if n := s.pool(admin, v4.ID).Allocated; n != 3 {
		t.Fatalf("the v4 pool's allocated after a removal: %d; want 3 (one cooling down)", n)
	}
	got = add(a.Token, map[string]any{"version": 4})
	if last := got.Addresses[len(got.Addresses)-1].Address; last != "198.51.100.4" {
		t.Fatalf("the address after a removal: got %s; want 198.51.100.4 (198.51.100.3 cools down)", last)
	}
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/addresses", token: a.Token,
		body: map[string]any{"version": 4, "address": "198.51.100.3"}}), 409, "conflict")

	// A machine of no plan: the tenant may not, the operator may.
	bare := s.operatorCreate(admin, map[string]any{"tenant_id": a.ID, "name": "bare", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1})
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + bare.ID + "/addresses", token: a.Token, body: map[string]any{"version": 4}}), 409, "conflict")
	// In the client area an operator acts as the tenant; under /api/virt as the operator.
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + bare.ID + "/addresses?tenant_id=" + a.ID, token: admin,
		body: map[string]any{"version": 4}}), 409, "conflict")
	for range 2 {
		r = s.do(req{method: "POST", path: "/api/virt/vms/" + bare.ID + "/addresses", token: admin, body: map[string]any{"version": 4}})
		expect(t, r, 201, "")
	}
	r.decode(t, &got)
	if len(got.Addresses) != 3 {
		t.Fatalf("the operator's machine of no plan: %+v; want three addresses", got.Addresses)
	}
	r = s.do(req{method: "DELETE", path: "/api/virt/vms/" + bare.ID + "/addresses/" + got.Addresses[2].Address, token: admin})
	expect(t, r, 200, "")
}

// TestExtraAddressHypervisorFailure: an address the hypervisor does not take is
// undone (the pool frees it at once, the record and the sim keep the previous set),
// and the answer is the hypervisor's error; a removal the hypervisor refuses changes
// nothing.
func TestExtraAddressHypervisorFailure(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Refused", nil)
	v4 := s.createPool(admin, map[string]any{"name": "v4", "cidr": "198.51.100.0/24", "gateway": "198.51.100.1"})
	plan := s.createPlan(admin, map[string]any{"name": "two", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 2})
	bigger := s.createPlan(admin, map[string]any{"name": "three", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 3})
	m := s.provision(a.Token, map[string]any{"name": "refused-1", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	// A move to a plan of more addresses gives none: the machine asks for them.
	s.run(req{method: "POST", path: "/api/client/machines/" + m.ID + "/plan", token: a.Token, body: map[string]any{"plan_id": bigger.ID}})
	s.sim.FailNext(m.VMID, sim.OpSetAddresses, hypervisor.NewError(hypervisor.ErrUnavailable, "the IP set is locked"))
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/addresses", token: a.Token, body: map[string]any{"version": 4}}), 503, "unavailable")
	got := s.machine(admin, m.ID)
	if len(got.Addresses) != 2 || !slices.Equal(s.simIPs(got), hosts(got)) {
		t.Fatalf("after a refused add: record %v, sim %v; want the two of the create on both", hosts(got), s.simIPs(got))
	}
	if n := s.pool(admin, v4.ID).Allocated; n != 2 {
		t.Fatalf("the pool after a refused add: %d allocated; want 2 (the third undone)", n)
	}
	s.sim.FailNext(m.VMID, sim.OpSetAddresses, hypervisor.NewError(hypervisor.ErrUnavailable, "the IP set is locked"))
	expect(t, s.do(req{method: "DELETE", path: "/api/client/machines/" + m.ID + "/addresses/" + got.Addresses[1].Address, token: a.Token}), 503, "unavailable")
	if again := s.machine(admin, m.ID); len(again.Addresses) != 2 || len(s.simIPs(again)) != 2 {
		t.Fatalf("after a refused removal: record %v, sim %v; want both kept", hosts(again), s.simIPs(again))
	}
}

// TestRequestedAddressOnCreate: a create may ask for its first IPv4 address: it gets
// it; a held one is 409 address_taken, one in no pool 422 address_unusable, one on a
// machine that gets no IPv4 address 400; two creates asking for the same address at
// once make one machine, and the other is 409 address_taken.
func TestRequestedAddressOnCreate(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Asks", nil)
	s.createPool(admin, map[string]any{"name": "v4", "cidr": "198.51.100.0/24", "gateway": "198.51.100.1"})
	plan := s.createPlan(admin, map[string]any{"name": "two", "cpu_cores": 1, "memory_mb": 256, "disk_gb": 10, "ipv4": 2})
	none := s.createPlan(admin, map[string]any{"name": "none", "cpu_cores": 1, "memory_mb": 256, "disk_gb": 10, "ipv4": 0})
	spec := func(name, address string, p string) map[string]any {
		return map[string]any{"name": name, "template_id": "tpl-debian-12", "plan_id": p, "address": address}
	}
	m := s.provision(a.Token, spec("asks-1", "198.51.100.50", plan.ID))
	if want := []string{"198.51.100.50", "198.51.100.2"}; !slices.Equal(hosts(m), want) || !slices.Equal(s.simIPs(m), want) {
		t.Fatalf("the machine that asked: record %v, sim %v; want %v", hosts(m), s.simIPs(m), want)
	}
	create := func(body map[string]any) *response {
		return s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: body})
	}
	expect(t, create(spec("asks-2", "198.51.100.50", plan.ID)), 409, "address_taken")
	expect(t, create(spec("asks-3", "203.0.113.9", plan.ID)), 422, "address_unusable")
	expect(t, create(spec("asks-4", "198.51.100.1", plan.ID)), 422, "address_unusable")
	expect(t, create(spec("asks-5", "198.51.100.60", none.ID)), 400, "invalid_request")
	expect(t, create(spec("asks-6", "2001:db8::5", plan.ID)), 400, "invalid_request")
	// An address of a pool bound to a node takes the machine there.
	inv, err := s.sim.Inventory(context.Background())
	if err != nil || len(inv.Nodes) < 2 {
		t.Fatalf("inventory: %d nodes, %v", len(inv.Nodes), err)
	}
	node := inv.Nodes[len(inv.Nodes)-1].ID
	s.createPool(admin, map[string]any{"name": "bound", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1", "node": node})
	if bound := s.provision(a.Token, spec("asks-bound", "192.0.2.33", plan.ID)); bound.Node != node || hosts(bound)[0] != "192.0.2.33" {
		t.Fatalf("a create asking for an address of a pool of node %s: on %s with %v", node, bound.Node, hosts(bound))
	}
	// The operator's create of explicit sizes asks the same way.
	op := s.operatorCreate(admin, map[string]any{"tenant_id": a.ID, "name": "asks-op", "template_id": "tpl-debian-12",
		"cpu_cores": 1, "memory_mb": 256, "disk_gb": 10, "ipv4": 1, "address": "198.51.100.51"})
	if !slices.Equal(hosts(op), []string{"198.51.100.51"}) {
		t.Fatalf("the operator's create: %v; want 198.51.100.51", hosts(op))
	}

	const creates = 6
	made, refused := provisionAtOnce(creates, func(i int) *response { return create(spec(fmt.Sprint("race-", i), "198.51.100.90", plan.ID)) })
	if len(made) != 1 || len(refused) != creates-1 {
		t.Fatalf("creates asking one address at once: %d made, refused %v; want 1 made", len(made), refused)
	}
	for _, why := range refused {
		if !strings.HasPrefix(why, "409 ") || !strings.Contains(why, "address_taken") {
			t.Fatalf("refusal %q; want 409 address_taken", why)
		}
	}
	if got := made[0].Machine.Addresses; len(got) == 0 || got[0].Address != "198.51.100.90" {
		t.Fatalf("the machine that won: %+v; want 198.51.100.90 first", got)
	}
	if task := s.waitTask(a.Token, made[0].Task.ID); task.Status != "succeeded" {
		t.Fatalf("its create: %+v; want succeeded", task)
	}
}

// operatorCreate makes a machine as the operator (/api/resources/machines, the
// body naming its tenant) and returns it once provisioned.
func (s *testServer) operatorCreate(admin string, body map[string]any) machines.Machine {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/resources/machines", token: admin, body: body})
	expect(s.t, r, 202, "")
	var p tenants.Provisioned
	r.decode(s.t, &p)
	if task := s.waitTask(admin, p.Task.ID); task.Status != "succeeded" {
		s.t.Fatalf("operator's create: %+v; want succeeded", task)
	}
	return s.machine(admin, p.Machine.ID)
}
