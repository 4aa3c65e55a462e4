package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
)

// An operator restores a tenant's backup into a new machine on the sim: refused while
// the tenant's quota has no room (409), to a tenant's user (403), for an unknown backup
// (404); then made, running, with the backup's disks, and counted in the tenant's
// usage; the restore's end is in the audit log under the request that asked for it.
func TestRestoreNewMachine(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Restorer", map[string]int{"machines": 1})
	src := s.provision(a.Token, smallMachine)
	r := s.do(req{method: "POST", path: "/api/client/machines/" + src.ID + "/backups", token: a.Token, body: map[string]any{"note": "n"}})
	expect(t, r, 202, "")
	var started struct{ Task tasks.Task }
	r.decode(t, &started)
	if done := s.waitTask(a.Token, started.Task.ID); done.Status != tasks.TaskSucceeded {
		t.Fatalf("backup: %+v", done)
	}
	var bk struct{ Items []backups.Backup }
	get(t, s, a.Token, "/api/client/machines/"+src.ID+"/backups", &bk)
	path := "/api/virt/backups/" + bk.Items[0].ID + "/restore"

	expect(t, s.do(req{method: "POST", path: path, token: admin, body: map[string]any{"name": "copy"}}), 409, "quota_exceeded")
	expect(t, s.do(req{method: "POST", path: path, token: a.Token, body: map[string]any{}}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/virt/backups/01NOSUCHBACKUP/restore", token: admin, body: map[string]any{}}), 404, "not_found")
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/tenants/" + a.ID, token: admin, body: map[string]any{"quota": map[string]int{"machines": 2}}}), 200, "")

	r = s.do(audited(req{method: "POST", path: path, token: admin, body: map[string]any{"name": "copy", "start_after": true}}, "restore-new-1"))
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	if done := s.waitTask(admin, p.Task.ID); done.Status != tasks.TaskSucceeded || done.Type != "vm.restore_new" {
		t.Fatalf("restore: %+v", done)
	}
	if ends := s.taskEnds(admin, "restore-new-1"); len(ends) != 1 || ends[0].Action != "task vm.restore_new" || ends[0].Result != "ok" {
		t.Fatalf("the restore's end in the audit log: %+v; want one entry, ok", ends)
	}
	var got machines.Machine
	get(t, s, a.Token, "/api/client/machines/"+p.Machine.ID, &got)
	if got.Status != machines.StatusRunning || got.Name != "copy" || got.VMID == src.VMID || len(got.Disks) != len(src.Disks) || got.DiskGB != src.DiskGB {
		t.Fatalf("restored machine %+v; want a running copy of %+v", got, src)
	}
	var o tenants.Overview
	get(t, s, a.Token, "/api/client/overview", &o)
	if o.Usage.Machines != 2 || o.Usage.DiskGB != 2*src.DiskGB {
		t.Fatalf("usage %+v; want both machines counted", o.Usage)
	}
}

// get reads path as tok into v, which must answer 200.
func get(t *testing.T, s *testServer, tok, path string, v any) {
	t.Helper()
	r := s.do(req{method: "GET", path: path, token: tok})
	expect(t, r, 200, "")
	r.decode(t, v)
}

// backupNow takes a backup of a tenant's machine from the client area and returns it.
func (s *testServer) backupNow(tok, id string) backups.Backup {
	s.t.Helper()
	vm := "/api/client/machines/" + id
	if done := s.waitTask(tok, s.startTask(req{method: "POST", path: vm + "/backups", token: tok, body: map[string]any{}}).ID); done.Status != tasks.TaskSucceeded {
		s.t.Fatalf("backup: %+v", done)
	}
	var bk struct{ Items []backups.Backup }
	get(s.t, s, tok, vm+"/backups", &bk)
	return bk.Items[0]
}

// restoreNew asks, as the operator, for backup id restored into a new machine named
// name, and returns the answer.
func (s *testServer) restoreNew(admin, id, name string) *response {
	return s.do(req{method: "POST", path: "/api/virt/backups/" + id + "/restore", token: admin, body: map[string]any{"name": name}})
}

// TestRestoreNewGetsPoolAddresses: a backup restored into a new machine gets
// addresses from the pools as a create of its source's plan would (not the
// backup's, which its source holds): the record lists them, the sim's net0 carries
// them, the pool counts them. Two restores at once on a pool with one free address
// make one machine and refuse the other with 409 pool_exhausted.
func TestRestoreNewGetsPoolAddresses(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Copier", nil)
	// A /30 has two host addresses, one of them the gateway.
	first := s.createPool(admin, map[string]any{"name": "first", "cidr": "192.0.2.0/30", "gateway": "192.0.2.1"})
	plan := s.createPlan(admin, map[string]any{"name": "one", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1})
	src := s.provision(a.Token, map[string]any{"name": "orig", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	if len(src.Addresses) != 1 || src.Addresses[0].Address != "192.0.2.2" {
		t.Fatalf("source's addresses: %+v; want 192.0.2.2", src.Addresses)
	}
	b := s.backupNow(a.Token, src.ID)
	second := s.createPool(admin, map[string]any{"name": "second", "cidr": "198.51.100.0/30", "gateway": "198.51.100.1"})

	made, refused := provisionAtOnce(2, func(i int) *response { return s.restoreNew(admin, b.ID, fmt.Sprint("copy-", i)) })
	if len(made) != 1 || len(refused) != 1 || !strings.HasPrefix(refused[0], "409 ") || !strings.Contains(refused[0], "pool_exhausted") {
		t.Fatalf("two restores on one free address: made %+v, refused %v; want one made, one 409 pool_exhausted", made, refused)
	}
	want := []hypervisor.Address{{Address: "198.51.100.2", Prefix: 30, Gateway: "198.51.100.1", Version: 4, Pool: second.ID}}
	if got := made[0].Machine.Addresses; !slices.Equal(got, want) {
		t.Fatalf("restored machine's addresses: got %+v; want %+v", got, want)
	}
	if done := s.waitTask(admin, made[0].Task.ID); done.Status != tasks.TaskSucceeded {
		t.Fatalf("restore: %+v", done)
	}
	m := s.machine(admin, made[0].Machine.ID)
	if !slices.Equal(m.Addresses, want) {
		t.Fatalf("restored record's addresses: got %+v; want %+v", m.Addresses, want)
	}
	hm, err := s.sim.Machine(context.Background(), hypervisor.Ref{VMID: m.VMID})
	if err != nil {
		t.Fatal(err)
	}
	if ips := hm.Interfaces[0].IPAddresses; !slices.Equal(ips, []string{"198.51.100.2"}) {
		t.Fatalf("the sim's net0 of the copy: got %v; want 198.51.100.2", ips)
	}
	if n1, n2 := s.pool(admin, first.ID).Allocated, s.pool(admin, second.ID).Allocated; n1 != 1 || n2 != 1 {
		t.Fatalf("pools' allocated: %d and %d; want 1 and 1", n1, n2)
	}
}

// TestProxmoxRestoreNewIPConfig: on Proxmox, a backup restored into a new machine
// gets its own addresses from the pools in its cloud-init ipconfig0 (checked by the
// fake as Proxmox does), not its source's.
func TestProxmoxRestoreNewIPConfig(t *testing.T) {
	t.Parallel()
	s, f, admin := proxmoxServer(t)
	s.sync(admin)
	a := s.tenant(admin, "PVECopier", nil)
	s.createPool(admin, map[string]any{"name": "v4", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1"})
	s.createPool(admin, map[string]any{"name": "v6", "cidr": "2001:db8::/48", "gateway": "fe80::1"})
	var tpls struct{ Items []struct{ ID string } }
	get(t, s, admin, "/api/virt/templates", &tpls)
	if len(tpls.Items) == 0 {
		t.Fatal("no templates on the fake")
	}
	plan := s.createPlan(admin, map[string]any{"name": "pve", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1, "ipv6_prefix": 64})
	src := s.provision(a.Token, map[string]any{"name": "pve-orig", "template_id": tpls.Items[0].ID, "plan_id": plan.ID})
	b := s.backupNow(a.Token, src.ID)
	r := s.restoreNew(admin, b.ID, "pve-copy")
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	if done := s.waitTask(admin, p.Task.ID); done.Status != tasks.TaskSucceeded {
		t.Fatalf("restore: %+v", done)
	}
	m := s.machine(admin, p.Machine.ID)
	_, _, cfg, ok := f.VM(m.VMID)
	if want := "ip=192.0.2.3/24,gw=192.0.2.1,ip6=2001:db8:0:1::1/64,gw6=fe80::1"; !ok || cfg["ipconfig0"] != want {
		t.Fatalf("the copy's ipconfig0 on Proxmox: got %q; want %q", cfg["ipconfig0"], want)
	}
	if _, _, cfg, _ := f.VM(src.VMID); cfg["ipconfig0"] != "ip=192.0.2.2/24,gw=192.0.2.1,ip6=2001:db8::1/64,gw6=fe80::1" {
		t.Fatalf("the source's ipconfig0 changed: %q", cfg["ipconfig0"])
	}
	if len(m.Addresses) != 2 || m.Addresses[0].Address != "192.0.2.3" {
		t.Fatalf("restored record's addresses: %+v; want 192.0.2.3 and a /64", m.Addresses)
	}
}

// provisionAtOnce sends n creates (or restores into new machines) at once, post(i)
// the i-th, and answers the machines made (202) and the refusals, each as its status
// and body.
func provisionAtOnce(n int, post func(i int) *response) (made []tenants.Provisioned, refused []string) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := post(i)
			mu.Lock()
			defer mu.Unlock()
			if r.Status != 202 {
				refused = append(refused, fmt.Sprint(r.Status, " ", string(r.Body)))
				return
			}
			var p tenants.Provisioned
			if err := json.Unmarshal(r.Body, &p); err != nil {
				refused = append(refused, err.Error())
				return
			}
			made = append(made, p)
		})
	}
	wg.Wait()
	return made, refused
}
