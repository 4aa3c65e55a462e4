package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// createPool creates an IP pool as the operator.
func (s *testServer) createPool(admin string, body map[string]any) addresses.Pool {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/resources/ip-pools", token: admin, body: body})
	expect(s.t, r, 201, "")
	var p addresses.Pool
	r.decode(s.t, &p)
	return p
}

// pool reads an IP pool.
func (s *testServer) pool(admin, id string) addresses.Pool {
	s.t.Helper()
	r := s.do(req{method: "GET", path: "/api/resources/ip-pools/" + id, token: admin})
	expect(s.t, r, 200, "")
	var p addresses.Pool
	r.decode(s.t, &p)
	return p
}

// TestIPPoolAllocationOnCreate: a machine made from a plan of one IPv4 address and
// an IPv6 prefix gets them from the pools (a link-local gateway leaves the first /64
// to machines): its record and the sim's machine show them, the guest is given the
// pools' resolvers, the pools count them; deleted, it keeps them for the cool-down,
// after which the next machine gets the same address.
func TestIPPoolAllocationOnCreate(t *testing.T) {
	t.Parallel()
	const cooldown = 2 * time.Second
	s, admin := planServer(t, func(c *Config) { c.IPReleaseCooldown = cooldown })
	a := s.tenant(admin, "Addressed", nil)
	v4 := s.createPool(admin, map[string]any{"name": "v4", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1", "dns": []string{"192.0.2.53", "192.0.2.54"}})
	v6 := s.createPool(admin, map[string]any{"name": "v6", "cidr": "2001:db8::/48", "gateway": "fe80::1", "dns": []string{"2001:db8::53", "192.0.2.53"}})
	plan := s.createPlan(admin, map[string]any{"name": "dual", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1, "ipv6_prefix": 64})

	m := s.provision(a.Token, map[string]any{"name": "dual-1", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	want := []hypervisor.Address{
		{Address: "192.0.2.2", Prefix: 24, Gateway: "192.0.2.1", Version: 4, Pool: v4.ID},
		{Address: "2001:db8::", Prefix: 64, Gateway: "fe80::1", Version: 6, Pool: v6.ID},
	}
	if !slices.Equal(m.Addresses, want) {
		t.Fatalf("machine's addresses: got %+v; want %+v", m.Addresses, want)
	}
	hm, err := s.sim.Machine(context.Background(), hypervisor.Ref{VMID: m.VMID})
	if err != nil {
		t.Fatal(err)
	}
	if ips := hm.Interfaces[0].IPAddresses; !slices.Equal(ips, []string{"192.0.2.2", "2001:db8::1"}) {
		t.Fatalf("the sim's net0: got %v; want the machine's addresses", ips)
	}
	// The pools' resolvers are the guest's, each once.
	if ns := hm.Nameservers; !slices.Equal(ns, []string{"192.0.2.53", "192.0.2.54", "2001:db8::53"}) {
		t.Fatalf("the sim's nameservers: got %v; want the pools' dns", ns)
	}
	if n4, n6 := s.pool(admin, v4.ID).Allocated, s.pool(admin, v6.ID).Allocated; n4 != 1 || n6 != 1 {
		t.Fatalf("pools' allocated: got %d and %d; want 1 and 1", n4, n6)
	}
	// A pool that hands out addresses is not deleted.
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/ip-pools/" + v4.ID, token: admin}), 409, "conflict")

	// A machine moved to another tenant takes its addresses along.
	other := s.tenant(admin, "Moved to", nil)
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/machines/" + m.ID, token: admin, body: map[string]any{"tenant_id": other.ID}}), 200, "")
	held := 0
	if err := s.app.System().Store().Scan(context.Background(), []byte("ip-alloc/"), nil, 0, func(_, v []byte) error {
		var al struct {
			MachineID string  `json:"machine_id"`
			TenantID  *string `json:"tenant_id"`
		}
		if _, err := persistence.Decode(v, &al); err != nil {
			return err
		}
		if al.MachineID == m.ID {
			held++
			if al.TenantID == nil || *al.TenantID != other.ID {
				t.Errorf("allocation of the moved machine names tenant %v; want %s", al.TenantID, other.ID)
			}
		}
		return nil
	}); err != nil || held != 2 {
		t.Fatalf("allocations of the moved machine: %d, %v; want 2", held, err)
	}

	deleted := time.Now()
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + m.ID, token: admin})
	if n := s.pool(admin, v4.ID).Allocated; n != 1 && time.Since(deleted) < cooldown {
		t.Fatalf("pool right after the delete: allocated %d; want 1 (cooling down)", n)
	}
	testwait.Eventually(t, "the released addresses free after the cool-down", func() bool {
		return s.pool(admin, v4.ID).Allocated == 0 && s.pool(admin, v6.ID).Allocated == 0
	})
	m2 := s.provision(a.Token, map[string]any{"name": "dual-2", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	if !slices.Equal(m2.Addresses, want) {
		t.Fatalf("next machine's addresses: got %+v; want the released ones %+v", m2.Addresses, want)
	}
}

// TestIPPoolExhausted: a create the pools have no address for is 409 pool_exhausted
// and makes nothing: no machine, no quota used (a tenant of one machine creates it
// once the pool has room), the pool's count unchanged. A tenant cannot ask for
// addresses itself; an operator's create of explicit sizes can.
func TestIPPoolExhausted(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Crowded", map[string]int{"machines": 1})
	// A /30 has two host addresses, one of them the gateway.
	tiny := s.createPool(admin, map[string]any{"name": "tiny", "cidr": "198.51.100.0/30", "gateway": "198.51.100.1"})
	plan := s.createPlan(admin, map[string]any{"name": "two", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 2})
	before := len(s.machines(admin))
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "too-many", "template_id": "tpl-debian-12", "plan_id": plan.ID}}), 409, "pool_exhausted")
	if after := len(s.machines(admin)); after != before {
		t.Fatalf("machines after a refused create: %d; want %d", after, before)
	}
	if n := s.pool(admin, tiny.ID).Allocated; n != 0 {
		t.Fatalf("pool after a refused create: allocated %d; want 0", n)
	}
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "asks", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1}}), 400, "invalid_request")
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "both", "template_id": "tpl-debian-12", "plan_id": plan.ID, "ipv6": true}}), 400, "invalid_request")

	s.createPool(admin, map[string]any{"name": "more", "cidr": "198.51.100.8/29", "gateway": "198.51.100.9"})
	m := s.provision(a.Token, map[string]any{"name": "fits", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	if len(m.Addresses) != 2 || m.Addresses[0].Address != "198.51.100.2" || m.Addresses[1].Address != "198.51.100.10" {
		t.Fatalf("addresses: got %+v; want the tiny pool's one, then the next pool's first", m.Addresses)
	}
	// The operator's create of explicit sizes asks for its own.
	r := s.do(req{method: "POST", path: "/api/resources/machines", token: admin, body: map[string]any{
		"name": "ops-1", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1,
		"tenant_id": s.tenant(admin, "Ops", nil).ID}})
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	if len(p.Machine.Addresses) != 1 || p.Machine.Addresses[0].Address != "198.51.100.11" {
		t.Fatalf("operator's create: got %+v; want 198.51.100.11", p.Machine.Addresses)
	}
}

// TestFailedProvisioningKeepsItsAddresses: a create whose provisioning fails keeps its
// record (status error) and with it its addresses, which no other machine is given: a
// half-made machine on the hypervisor may still hold them (Proxmox may have written
// its ipconfig before the failure). Deleting the record releases them, after the
// cool-down as any other.
func TestFailedProvisioningKeepsItsAddresses(t *testing.T) {
	t.Parallel()
	const cooldown = time.Second
	s, admin := planServer(t, func(c *Config) { c.IPReleaseCooldown = cooldown })
	a := s.tenant(admin, "Unlucky", nil)
	v4 := s.createPool(admin, map[string]any{"name": "v4", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1"})
	plan := s.createPlan(admin, map[string]any{"name": "one", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1})

	s.sim.FailNext(0, "create", errors.New("storage local-lvm is full"))
	r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "failed-1", "template_id": "tpl-debian-12", "plan_id": plan.ID}})
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	if task := s.waitTask(a.Token, p.Task.ID); task.Status != tasks.TaskFailed {
		t.Fatalf("provisioning task: got %+v; want failed", task)
	}
	failed := s.machine(admin, p.Machine.ID)
	if failed.Status != machines.StatusError || len(failed.Addresses) != 1 || failed.Addresses[0].Address != "192.0.2.2" {
		t.Fatalf("the failed machine: status %q, addresses %+v; want error, holding 192.0.2.2", failed.Status, failed.Addresses)
	}
	if n := s.pool(admin, v4.ID).Allocated; n != 1 {
		t.Fatalf("pool after the failed create: allocated %d; want 1", n)
	}
	next := s.provision(a.Token, map[string]any{"name": "next-1", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	if len(next.Addresses) != 1 || next.Addresses[0].Address != "192.0.2.3" {
		t.Fatalf("the next machine's addresses: got %+v; want 192.0.2.3, not the failed one's", next.Addresses)
	}

	s.run(req{method: "DELETE", path: "/api/client/machines/" + failed.ID, token: a.Token})
	testwait.Eventually(t, "the failed machine gone and its address free after the cool-down", func() bool {
		return s.pool(admin, v4.ID).Allocated == 1
	})
	again := s.provision(a.Token, map[string]any{"name": "again-1", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	if len(again.Addresses) != 1 || again.Addresses[0].Address != "192.0.2.2" {
		t.Fatalf("a machine after the release: got %+v; want the released 192.0.2.2", again.Addresses)
	}
}

// TestIPPoolConcurrentCreates: twenty creates at once on a pool with ten free
// addresses make ten machines, each with its own address, and refuse ten with 409
// pool_exhausted.
func TestIPPoolConcurrentCreates(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Rush", map[string]int{"machines": 40, "cpu_cores": 40, "memory_mb": 40 * 256, "disk_gb": 400})
	// A /28 has 14 host addresses; one is the gateway and three go to machines first.
	pool := s.createPool(admin, map[string]any{"name": "rush", "cidr": "203.0.113.0/28", "gateway": "203.0.113.1"})
	plan := s.createPlan(admin, map[string]any{"name": "tiny", "cpu_cores": 1, "memory_mb": 256, "disk_gb": 10, "ipv4": 1})
	for i := range 3 {
		s.provision(a.Token, map[string]any{"name": fmt.Sprint("first-", i), "template_id": "tpl-debian-12", "plan_id": plan.ID})
	}
	if n := s.pool(admin, pool.ID).Allocated; n != 3 {
		t.Fatalf("allocated after three machines: %d; want 3", n)
	}
	const creates = 20
	made, refused := provisionAtOnce(creates, func(i int) *response {
		return s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
			"name": fmt.Sprint("rush-", i), "template_id": "tpl-debian-12", "plan_id": plan.ID}})
	})
	if len(made) != 10 || len(refused) != 10 {
		t.Fatalf("got %d made and %d refused (%v); want 10 and 10", len(made), len(refused), refused)
	}
	for _, why := range refused {
		if !strings.HasPrefix(why, "409 ") || !strings.Contains(why, "pool_exhausted") {
			t.Fatalf("refusal %q; want 409 pool_exhausted", why)
		}
	}
	seen := map[string]bool{}
	for _, p := range made {
		if len(p.Machine.Addresses) != 1 || seen[p.Machine.Addresses[0].Address] {
			t.Fatalf("machine %s has %+v: given twice or not one address", p.Machine.ID, p.Machine.Addresses)
		}
		seen[p.Machine.Addresses[0].Address] = true
		if task := s.waitTask(a.Token, p.Task.ID); task.Status != tasks.TaskSucceeded {
			t.Fatalf("create task %+v; want succeeded", task)
		}
	}
	if n := s.pool(admin, pool.ID).Allocated; n != 13 {
		t.Fatalf("allocated after the rush: %d; want 13", n)
	}
}

// TestProxmoxIPConfigFromPools: on Proxmox, a machine's addresses go into its
// cloud-init ipconfig0, which the fake checks as Proxmox does, and the pools'
// resolvers into its nameserver.
func TestProxmoxIPConfigFromPools(t *testing.T) {
	t.Parallel()
	s, f, admin := proxmoxServer(t)
	s.sync(admin)
	a := s.tenant(admin, "OnPVE", nil)
	s.createPool(admin, map[string]any{"name": "v4", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1", "dns": []string{"192.0.2.53"}})
	s.createPool(admin, map[string]any{"name": "v6", "cidr": "2001:db8::/48", "gateway": "fe80::1", "dns": []string{"2001:db8::53"}})
	r := s.do(req{method: "GET", path: "/api/virt/templates", token: admin})
	var tpls struct{ Items []struct{ ID string } }
	r.decode(t, &tpls)
	if len(tpls.Items) == 0 {
		t.Fatal("no templates on the fake")
	}
	plan := s.createPlan(admin, map[string]any{"name": "pve", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1, "ipv6_prefix": 64})
	m := s.provision(a.Token, map[string]any{"name": "pve-1", "template_id": tpls.Items[0].ID, "plan_id": plan.ID})
	_, _, cfg, ok := f.VM(m.VMID)
	if want := "ip=192.0.2.2/24,gw=192.0.2.1,ip6=2001:db8::1/64,gw6=fe80::1"; !ok || cfg["ipconfig0"] != want {
		t.Fatalf("ipconfig0 on Proxmox: got %q; want %q", cfg["ipconfig0"], want)
	}
	if want := "192.0.2.53 2001:db8::53"; cfg["nameserver"] != want {
		t.Fatalf("nameserver on Proxmox: got %q; want %q (the pools' dns)", cfg["nameserver"], want)
	}
	if got := s.machine(admin, m.ID); len(got.Interfaces) == 0 || !slices.Contains(got.Interfaces[0].IPAddresses, "192.0.2.2") {
		t.Fatalf("machine's interfaces: %+v; want 192.0.2.2 on net0", got.Interfaces)
	}
}
