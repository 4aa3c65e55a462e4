package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/internal/testwait"
)

// tenantFixture is a tenant with one user, signed in.
type tenantFixture struct {
	ID    string
	Token string
}

func (s *testServer) tenant(admin, name string, quota map[string]int) tenantFixture {
	s.t.Helper()
	body := map[string]any{"name": name}
	if quota != nil {
		body["quota"] = quota
	}
	r := s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: body})
	expect(s.t, r, 201, "")
	var ten tenants.Tenant
	r.decode(s.t, &ten)
	email := strings.ToLower(name) + "@example.test"
	r = s.do(req{method: "POST", path: "/api/resources/users", token: admin, body: map[string]any{
		"email": email, "name": name + " user", "role": "user", "password": "tenant-password", "tenant_id": ten.ID}})
	expect(s.t, r, 201, "")
	return tenantFixture{ID: ten.ID, Token: s.login(email, "tenant-password").Token}
}

var smallMachine = map[string]any{"name": "app-1", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}

// provision creates a machine as the tenant and waits for it to run.
func (s *testServer) provision(tok string, spec map[string]any) machines.Machine {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/client/machines", token: tok, body: spec})
	expect(s.t, r, 202, "")
	var p tenants.Provisioned
	r.decode(s.t, &p)
	if t := s.waitTask(tok, p.Task.ID); t.Status != tasks.TaskSucceeded {
		s.t.Fatalf("got provisioning task %+v; want succeeded", t)
	}
	r = s.do(req{method: "GET", path: "/api/resources/machines/" + p.Machine.ID, token: tok})
	expect(s.t, r, 200, "")
	var m machines.Machine
	r.decode(s.t, &m)
	return m
}

func TestClientCreatesMachine(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Acme", nil)
	r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{
		"name": "web-1", "template_id": "tpl-ubuntu-24.04", "cpu_cores": 2, "memory_mb": 2048, "disk_gb": 30,
		"password": "initial-root-pw", "ssh_keys": []string{"ssh-ed25519 AAAA me@laptop"}}})
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	if p.Machine.Status != machines.StatusProvisioning || p.Machine.TenantID == nil || *p.Machine.TenantID != a.ID || p.Task.Type != "vm.create" {
		t.Fatalf("got %+v; want a provisioning machine of the tenant and a vm.create task", p)
	}
	if loc := r.Header.Get("Location"); loc != "/api/tasks/"+p.Task.ID {
		t.Fatalf("got Location %q; want the task", loc)
	}
	task := s.waitTask(a.Token, p.Task.ID)
	if task.Status != tasks.TaskSucceeded {
		t.Fatalf("got %+v; want succeeded", task)
	}
	r = s.do(req{method: "GET", path: "/api/client/machines", token: a.Token})
	expect(t, r, 200, "")
	var list struct{ Items []machines.Machine }
	r.decode(t, &list)
	if len(list.Items) != 1 {
		t.Fatalf("got %d machines; want 1", len(list.Items))
	}
	m := list.Items[0]
	if m.Status != machines.StatusRunning || m.VMID == 0 || m.Node == "" || m.DiskGB != 30 || m.CPUCores != 2 || len(m.Interfaces) == 0 {
		t.Fatalf("got %+v; want a running machine with a vmid, node, 30 GB and an interface", m)
	}
	// The password went to the hypervisor and nowhere else.
	err := s.app.System().Store().Scan(context.Background(), nil, nil, 0, func(k, v []byte) error {
		if strings.Contains(string(v), "initial-root-pw") {
			return fmt.Errorf("the password is stored under %s", k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var o tenants.Overview
	r = s.do(req{method: "GET", path: "/api/client/overview", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &o)
	if o.Machines.Total != 1 || o.Machines.Running != 1 || o.Usage.CPUCores != 2 || o.Usage.DiskGB != 30 || o.Quota != tenants.DefaultQuota {
		t.Fatalf("got %+v; want one running machine using 2 cores and 30 GB of the default quota", o)
	}
	// Validation before any quota is taken.
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "x", "template_id": "tpl-nope", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}, "template_id"},
		{map[string]any{"name": "bad name", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}, "name"},
		{map[string]any{"name": "x", "template_id": "tpl-debian-12", "cpu_cores": 0, "memory_mb": 1024, "disk_gb": 10}, "cpu_cores"},
		{map[string]any{"name": "x", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10, "node": "pve7"}, "node"},
	} {
		r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: c.body})
		expect(t, r, 400, "invalid_request")
		var pb problemBody
		r.decode(t, &pb)
		if len(pb.Errors) == 0 || pb.Errors[0].Field != c.field {
			t.Fatalf("got %+v; want an error on %s", pb.Errors, c.field)
		}
	}
}

func TestQuotaRace(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Racer", map[string]int{"machines": 10, "cpu_cores": 1000, "memory_mb": 1 << 20, "disk_gb": 100000})
	var (
		wg               sync.WaitGroup
		mu               sync.Mutex
		accepted, refuse int
		other            []string
	)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec := map[string]any{"name": fmt.Sprintf("vm-%d", i), "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10}
			r := doWith(t, s.client, s.base, req{method: "POST", path: "/api/client/machines", token: a.Token, body: spec})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case r.Status == 202:
				accepted++
			case r.Status == 409 && strings.Contains(string(r.Body), "quota_exceeded"):
				refuse++
			default:
				other = append(other, fmt.Sprintf("%d %s", r.Status, r.Body))
			}
		}()
	}
	wg.Wait()
	if accepted != 10 || refuse != 40 || len(other) > 0 {
		t.Fatalf("got %d accepted, %d refused, others %v; want exactly 10 and 40", accepted, refuse, other)
	}
	r := s.do(req{method: "GET", path: "/api/client/machines?limit=500", token: a.Token})
	var list struct{ Items []machines.Machine }
	r.decode(t, &list)
	if len(list.Items) != 10 {
		t.Fatalf("got %d machines; want 10", len(list.Items))
	}
}

func TestResizeWithinQuota(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Grower", map[string]int{"machines": 3, "cpu_cores": 4, "memory_mb": 8192, "disk_gb": 50})
	m := s.provision(a.Token, smallMachine)
	path := "/api/client/machines/" + m.ID + "/resources"
	task := s.run(req{method: "PATCH", path: path, token: a.Token, body: map[string]any{"cpu_cores": 3, "memory_mb": 4096, "disk_gb": 20}})
	if task.Type != "vm.resize" {
		t.Fatalf("got task type %q; want vm.resize", task.Type)
	}
	r := s.do(req{method: "GET", path: "/api/resources/machines/" + m.ID, token: a.Token})
	var got machines.Machine
	r.decode(t, &got)
	if got.CPUCores != 3 || got.MemoryMB != 4096 || got.DiskGB != 20 {
		t.Fatalf("got %d cores, %d MB, %d GB; want 3, 4096, 20", got.CPUCores, got.MemoryMB, got.DiskGB)
	}
	expect(t, s.do(req{method: "PATCH", path: path, token: a.Token, body: map[string]any{"disk_gb": 15}}), 400, "invalid_request")
	expect(t, s.do(req{method: "PATCH", path: path, token: a.Token, body: map[string]any{"cpu_cores": 5}}), 409, "quota_exceeded")
	expect(t, s.do(req{method: "PATCH", path: path, token: a.Token, body: map[string]any{"disk_gb": 51}}), 409, "quota_exceeded")
	expect(t, s.do(req{method: "PATCH", path: path, token: a.Token, body: map[string]any{}}), 400, "invalid_request")
	// By vmid too; shrinking cores is fine.
	s.run(req{method: "PATCH", path: fmt.Sprintf("/api/client/machines/%d/resources", got.VMID), token: a.Token, body: map[string]any{"cpu_cores": 1}})
}

func TestDestroyFreesQuota(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Shrinker", map[string]int{"machines": 1, "cpu_cores": 4, "memory_mb": 8192, "disk_gb": 50})
	m := s.provision(a.Token, smallMachine)
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine}), 409, "quota_exceeded")
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + m.ID, token: a.Token})
	expect(t, s.do(req{method: "GET", path: "/api/resources/machines/" + m.ID, token: a.Token}), 404, "not_found")
	if _, err := s.sim.Machine(t.Context(), hypervisorRef(m)); err == nil {
		t.Fatal("the machine is still on the hypervisor; want it destroyed")
	}
	s.provision(a.Token, smallMachine)
}

type rule = tenants.FirewallRule

func (s *testServer) rules(tok string) []rule {
	s.t.Helper()
	return listOf[rule](s, tok, "/api/client/firewall/rules")
}

func TestFirewallRules(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Walls", nil)
	m := s.provision(a.Token, smallMachine)
	create := func(body map[string]any) rule {
		t.Helper()
		r := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: body})
		expect(t, r, 201, "")
		var out rule
		r.decode(t, &out)
		return out
	}
	ssh := create(map[string]any{"direction": "in", "action": "accept", "protocol": "tcp", "port": "22", "source": "203.0.113.0/24", "comment": "ssh"})
	web := create(map[string]any{"direction": "in", "action": "accept", "protocol": "tcp", "port": "80,443", "machine_id": m.ID})
	drop := create(map[string]any{"direction": "in", "action": "drop", "protocol": "any"})
	if ssh.Position != 1 || web.Position != 2 || drop.Position != 3 || !ssh.Enabled || ssh.MachineID != nil {
		t.Fatalf("got positions %d %d %d; want 1 2 3, enabled, ssh for all machines", ssh.Position, web.Position, drop.Position)
	}
	// Insert at the top.
	ping := create(map[string]any{"direction": "in", "action": "accept", "protocol": "icmp", "position": 1, "source": "198.51.100.7"})
	if ping.Source == nil || *ping.Source != "198.51.100.7/32" {
		t.Fatalf("got source %v; want the address as a /32", ping.Source)
	}
	order := func() string {
		var ids []string
		for _, r := range s.rules(a.Token) {
			ids = append(ids, fmt.Sprintf("%s@%d", r.Comment+r.Protocol, r.Position))
		}
		return strings.Join(ids, " ")
	}
	if got := order(); got != "icmp@1 sshtcp@2 tcp@3 any@4" {
		t.Fatalf("got %s; want ping, ssh, web, drop", got)
	}
	// Move the drop rule to position 2, and clear the ssh source.
	r := s.do(req{method: "PATCH", path: "/api/client/firewall/rules/" + drop.ID, token: a.Token, body: map[string]any{"position": 2}})
	expect(t, r, 200, "")
	r = s.do(req{method: "PATCH", path: "/api/client/firewall/rules/" + ssh.ID, token: a.Token, body: map[string]any{"source": nil, "enabled": false}})
	expect(t, r, 200, "")
	var ssh2 rule
	r.decode(t, &ssh2)
	if ssh2.Source != nil || ssh2.Enabled {
		t.Fatalf("got %+v; want source cleared and disabled", ssh2)
	}
	if got := order(); got != "icmp@1 any@2 sshtcp@3 tcp@4" {
		t.Fatalf("got %s after the move; want ping, drop, ssh, web", got)
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/client/firewall/rules/" + ping.ID, token: a.Token}), 204, "")
	if got := order(); got != "any@1 sshtcp@2 tcp@3" {
		t.Fatalf("got %s after the delete; want drop, ssh, web renumbered", got)
	}
	// Pushed to the hypervisor, in order.
	testwait.Until(t, func() error {
		pushed := s.sim.Firewall(m.VMID)
		if len(pushed) == 3 && pushed[0].Action == "drop" && pushed[1].Port == "22" && !pushed[1].Enabled && pushed[2].Port == "80,443" {
			return nil
		}
		return fmt.Errorf("got %+v on the hypervisor; want drop, ssh (disabled), web", pushed)
	})
	// Rules survive a restart.
	s.restart()
	tok := s.login("walls@example.test", "tenant-password").Token
	if got := len(s.rules(tok)); got != 3 {
		t.Fatalf("got %d rules after restart; want 3", got)
	}
}

func TestFirewallRuleValidation(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Strict", nil)
	b := s.tenant(admin, "Other", nil)
	bm := s.provision(b.Token, smallMachine)
	base := map[string]any{"direction": "in", "action": "accept", "protocol": "tcp"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range base {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"bad CIDR", with("source", "10.0.0.0/33"), "source"},
		{"not an address", with("destination", "example.com"), "destination"},
		{"port 0", with("port", "0"), "port"},
		{"port too high", with("port", "65536"), "port"},
		{"range backwards", with("port", "90:80"), "port"},
		{"port words", with("port", "ssh"), "port"},
		{"port with icmp", map[string]any{"direction": "in", "action": "accept", "protocol": "icmp", "port": "22"}, "port"},
		{"unknown protocol", with("protocol", "sctp"), "protocol"},
		{"bad direction", with("direction", "sideways"), "direction"},
		{"bad action", with("action", "allow"), "action"},
		{"missing protocol", map[string]any{"direction": "in", "action": "accept"}, "protocol"},
		{"position past the end", with("position", 5), "position"},
		{"another tenant's machine", with("machine_id", bm.ID), "machine_id"},
		{"unknown field", with("priority", 1), "priority"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: c.body})
			expect(t, r, 400, "invalid_request")
			var p problemBody
			r.decode(t, &p)
			if len(p.Errors) == 0 || p.Errors[0].Field != c.field {
				t.Fatalf("got %+v; want an error on %s", p.Errors, c.field)
			}
		})
	}
	if n := len(s.rules(a.Token)); n != 0 {
		t.Fatalf("got %d rules; want none stored by refused requests", n)
	}
}

func TestUsageTrends(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Trendy", nil)
	// A demo machine with months of history, handed to the tenant by the operator.
	demo := byStatus(t, s.machines(admin), machines.StatusRunning)
	r := s.do(req{method: "PATCH", path: "/api/resources/machines/" + demo.ID, token: admin, body: map[string]any{"tenant_id": a.ID}})
	expect(t, r, 200, "")
	r = s.do(req{method: "GET", path: "/api/client/usage-trends?days=7", token: a.Token})
	expect(t, r, 200, "")
	var tr tenants.Trends
	r.decode(t, &tr)
	if tr.Days != 7 || len(tr.Points) != 7 {
		t.Fatalf("got %d days, %d points; want 7", tr.Days, len(tr.Points))
	}
	for i, p := range tr.Points {
		want := time.Now().UTC().AddDate(0, 0, i-6).Format("2006-01-02")
		if p.Date != want {
			t.Fatalf("point %d: got date %s; want %s", i, p.Date, want)
		}
	}
	full := tr.Points[3] // a whole past day
	if full.CPUCoreHours <= 0 || full.MemoryGBHours <= 0 || full.NetInBytes <= 0 || full.NetOutBytes <= 0 {
		t.Fatalf("got %+v; want consumption on a past day", full)
	}
	if r := s.do(req{method: "GET", path: "/api/client/usage-trends?days=400", token: a.Token}); r.Status != 400 {
		t.Fatalf("got %d for 400 days; want 400", r.Status)
	}
	r = s.do(req{method: "GET", path: "/api/client/usage-trends", token: a.Token})
	r.decode(t, &tr)
	if tr.Days != 30 || len(tr.Points) != 30 {
		t.Fatalf("got %d days by default; want 30", tr.Days)
	}
}

// A machine whose provisioning failed holds quota until it is deleted, and deleting it
// must work although nothing exists on the hypervisor.
func TestDestroyFailedProvisioning(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Unlucky", map[string]int{"machines": 1, "cpu_cores": 4, "memory_mb": 8192, "disk_gb": 50})
	s.sim.FailNext(0, "create", fmt.Errorf("clone failed: storage full"))
	r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine})
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	if task := s.waitTask(a.Token, p.Task.ID); task.Status != tasks.TaskFailed {
		t.Fatalf("got %+v; want the create failed", task)
	}
	r = s.do(req{method: "GET", path: "/api/resources/machines/" + p.Machine.ID, token: a.Token})
	var m machines.Machine
	r.decode(t, &m)
	if m.Status != machines.StatusError || m.TaskID != nil {
		t.Fatalf("got %s with task %v; want error and unlocked", m.Status, m.TaskID)
	}
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine}), 409, "quota_exceeded")
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + m.ID, token: a.Token})
	s.provision(a.Token, smallMachine)
}

// A tenant is deleted only once nothing of it is left that would be orphaned.
func TestDeleteTenantRefusedWhileItOwnsThings(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Leaving", nil)
	m := s.provision(a.Token, smallMachine)
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/tenants/" + a.ID, token: admin}), 409, "conflict")
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + m.ID, token: a.Token})
	// The user is still there.
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/tenants/" + a.ID, token: admin}), 409, "conflict")
	r := s.do(req{method: "GET", path: "/api/resources/users?tenant_id=" + a.ID, token: admin})
	var users struct{ Items []auth.User }
	r.decode(t, &users)
	if len(users.Items) != 1 {
		t.Fatalf("got %d users of the tenant; want 1", len(users.Items))
	}
	// A webhook of the tenant's (an operator's, kept to it) is still there.
	hook := s.createHook(admin, map[string]any{"url": "https://192.0.2.1/hook", "events": []string{"*"}, "tenant_id": a.ID})
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/users/" + users.Items[0].ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/tenants/" + a.ID, token: admin}), 409, "conflict")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/webhooks/" + hook.ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/tenants/" + a.ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "GET", path: "/api/resources/tenants/" + a.ID, token: admin}), 404, "not_found")
}

// A sync while a tenant's machine is being created must not adopt that machine a
// second time as an unassigned one. The create is held where the race is: the
// hypervisor has the machine and its record does not know the vmid yet.
func TestSyncDuringProvisioningAdoptsNothingTwice(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Racing", nil)
	held, release := make(chan int, 1), make(chan struct{})
	s.sim.OnCreated(func(vmid int) { held <- vmid; <-release })
	r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine})
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	var vmid int
	select {
	case vmid = <-held:
	case <-time.After(testwait.Timeout):
		t.Fatal("the create never reached the hypervisor")
	}
	s.sim.OnCreated(nil)
	if _, err := s.sim.Machine(context.Background(), hypervisor.Ref{VMID: vmid}); err != nil {
		t.Fatalf("the held create's machine %d: %v; want it on the hypervisor", vmid, err)
	}
	// A sync that adopts the machine may then wait for the held create: it runs aside,
	// so a broken sync fails the test rather than hanging it.
	synced := make(chan *response, 1)
	go func() { synced <- s.do(req{method: "POST", path: "/api/virt/sync", token: admin}) }()
	select {
	case r := <-synced:
		expect(t, r, 200, "")
		var res syncResult
		r.decode(t, &res)
		if res.Machines.Added != 0 {
			t.Errorf("a sync while the create is held added %d machines; want 0", res.Machines.Added)
		}
	case <-time.After(testwait.Timeout):
		t.Errorf("a sync while the create is held did not end in %v", testwait.Timeout)
	}
	close(release)
	s.waitTask(a.Token, p.Task.ID)
	s.sync(admin)
	m := s.machine(admin, p.Machine.ID)
	if m.VMID != vmid {
		t.Fatalf("the created record has vmid %d; want %d", m.VMID, vmid)
	}
	n := 0
	for _, other := range s.machines(admin) {
		if other.VMID == m.VMID {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("got %d records of vmid %d; want 1", n, m.VMID)
	}
}

// A deleted tenant leaves no key under its id but its history (its audit log, its
// tasks' index): the usage counter,
// the record of its counted tasks (a snapshot was taken) and the schedules' count key
// (a schedule was made under a per-tenant bound) go with it.
func TestDeletedTenantLeavesNoKey(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.SchedulesPerTenant = 5 })
	a := s.tenant(admin, "Vanishing", map[string]int{"snapshots": 3})
	m := s.provision(a.Token, smallMachine)
	vm := "/api/client/machines/" + m.ID
	if done := s.waitTask(a.Token, s.startTask(req{method: "POST", path: vm + "/snapshots", token: a.Token, body: map[string]any{"name": "one"}}).ID); done.Status != tasks.TaskSucceeded {
		t.Fatalf("snapshot: %+v", done)
	}
	r := s.do(req{method: "POST", path: vm + "/power-schedules", token: a.Token, body: map[string]any{"action": "stop", "cron": "0 3 * * *"}})
	expect(t, r, 201, "")
	var ps struct{ ID string }
	r.decode(t, &ps)
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/power-schedules/" + ps.ID, token: admin}), 204, "")
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + m.ID, token: admin})
	var users struct{ Items []auth.User }
	get(t, s, admin, "/api/resources/users?tenant_id="+a.ID, &users)
	for _, u := range users.Items {
		expect(t, s.do(req{method: "DELETE", path: "/api/resources/users/" + u.ID, token: admin}), 204, "")
	}
	var left []string
	under := func() []string {
		var keys []string
		for k := range storeDump(t, s.app.store) {
			kind, _, _ := strings.Cut(k, "/")
			if kind != "audit" && kind != "audit-tenant" && kind != "task-tenant" && slices.Contains(strings.Split(k, "/"), a.ID) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		return keys
	}
	for _, want := range []string{"quota-hold/", "sched-count/", "vm-usage/"} {
		if !slices.Contains(under(), want+a.ID) {
			t.Fatalf("keys under the tenant before its delete: %v; want %s%s among them (the test would prove nothing)", under(), want, a.ID)
		}
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/tenants/" + a.ID, token: admin}), 204, "")
	if left = under(); len(left) > 0 {
		t.Fatalf("keys left under the deleted tenant: %v", left)
	}
}
