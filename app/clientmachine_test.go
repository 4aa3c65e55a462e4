package app

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor"
)

// clientDetail is GET /api/client/machines/{vmId} as the tests read it.
type clientDetail struct {
	machines.Machine
	PowerSchedules  []struct{ ID string } `json:"power_schedules"`
	BackupSchedules []struct{ ID string } `json:"backup_schedules"`
	LastTask        *tasks.Task           `json:"last_task"`
}

// The customer's own machine from the client area: show it (by id and by vmid) with its
// schedules, its graphs, its console (through the client area's own websocket), a
// reinstall; another tenant's machine is a 404 on each.
func TestClientMachineOwnRoutes(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a, b := s.tenant(admin, "Own", nil), s.tenant(admin, "Other", nil)
	m := s.provision(a.Token, smallMachine)
	other := s.provision(b.Token, smallMachine)
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/power-schedules", token: a.Token,
		body: map[string]any{"action": "stop", "cron": "0 3 * * *"}}), 201, "")

	for _, id := range []string{m.ID, fmt.Sprint(m.VMID)} {
		var d clientDetail
		r := s.do(req{method: "GET", path: "/api/client/machines/" + id, token: a.Token})
		expect(t, r, 200, "")
		r.decode(t, &d)
		if d.ID != m.ID || len(d.Disks) == 0 || len(d.Interfaces) == 0 || len(d.Interfaces[0].IPAddresses) == 0 || len(d.PowerSchedules) != 1 || d.BackupSchedules == nil {
			t.Fatalf("detail by %s: %+v; want the machine with its disks, addresses and one power schedule", id, d)
		}
	}
	var g hypervisor.UsageGraph
	r := s.do(req{method: "GET", path: "/api/client/machines/" + m.ID + "/usage-graphs?timeframe=day", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &g)
	if len(g.Points) == 0 {
		t.Fatalf("usage graph: %s", r.Body)
	}
	expect(t, s.do(req{method: "GET", path: "/api/client/machines/" + m.ID + "/usage-graphs?timeframe=decade", token: a.Token}), 400, "invalid_request")

	// The console, through the client area's websocket.
	var c struct{ Path, Ticket string }
	r = s.do(req{method: "GET", path: "/api/client/machines/" + m.ID + "/console", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &c)
	if !strings.HasPrefix(c.Path, "/api/client/machines/"+m.ID+"/console/ws?ticket=") {
		t.Fatalf("console path %q", c.Path)
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+s.app.Addr()+c.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var got strings.Builder
	for !strings.Contains(got.String(), "# ") {
		_, data, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("console: %v (got %q)", err, got.String())
		}
		got.Write(data)
	}
	ws.Close()

	// A reinstall with a new password, as a task.
	task := s.startTask(req{method: "POST", path: "/api/client/machines/" + m.ID + "/reinstall", token: a.Token,
		body: map[string]any{"template_id": "tpl-debian-12", "password": "a-new-root-password"}})
	if done := s.waitTask(a.Token, task.ID); done.Status != tasks.TaskSucceeded || done.Type != "vm.reinstall" {
		t.Fatalf("reinstall: %+v", done)
	}
	// The machine's tasks, newest first, and the last one in its details.
	var tasks struct{ Items []tasks.Task }
	r = s.do(req{method: "GET", path: "/api/client/machines/" + fmt.Sprint(m.VMID) + "/tasks", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &tasks)
	if len(tasks.Items) != 2 || tasks.Items[0].ID != task.ID || tasks.Items[1].Type != "vm.create" {
		t.Fatalf("the machine's tasks: %+v; want the reinstall, then the create", tasks.Items)
	}
	var d clientDetail
	r = s.do(req{method: "GET", path: "/api/client/machines/" + m.ID, token: a.Token})
	r.decode(t, &d)
	if d.LastTask == nil || d.LastTask.ID != task.ID {
		t.Fatalf("last task: %+v", d.LastTask)
	}

	// Another tenant's machine, on every route.
	for _, rq := range []req{
		{method: "GET", path: "/api/client/machines/" + other.ID},
		{method: "GET", path: "/api/client/machines/" + fmt.Sprint(other.VMID)},
		{method: "GET", path: "/api/client/machines/" + other.ID + "/usage-graphs"},
		{method: "GET", path: "/api/client/machines/" + other.ID + "/tasks"},
		{method: "GET", path: "/api/client/machines/" + other.ID + "/console"},
		{method: "POST", path: "/api/client/machines/" + other.ID + "/reinstall", body: map[string]any{"template_id": "tpl-debian-12"}},
		{method: "DELETE", path: "/api/client/machines/" + other.ID},
		{method: "GET", path: "/api/client/machines/" + other.ID + "/backups"},
		{method: "POST", path: "/api/client/machines/" + other.ID + "/backups", body: map[string]any{}},
		{method: "GET", path: "/api/client/machines/" + other.ID + "/snapshots"},
		{method: "POST", path: "/api/client/machines/" + other.ID + "/snapshots", body: map[string]any{"name": "stolen"}},
	} {
		rq.token = a.Token
		expect(t, s.do(rq), 404, "not_found")
	}
}

// Deleting a machine from the client area: refused to tenant users unless the operator
// allows it (VMPLANE_TENANT_DELETE, off by default), on the client area's route and on
// /api/resources alike; an operator may always.
func TestTenantDeleteSetting(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.TenantDelete = Defaults().TenantDelete })
	a := s.tenant(admin, "Keeper", nil)
	m := s.provision(a.Token, smallMachine)
	expect(t, s.do(req{method: "DELETE", path: "/api/client/machines/" + m.ID, token: a.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/machines/" + m.ID, token: a.Token}), 403, "forbidden")
	task := s.startTask(req{method: "DELETE", path: "/api/client/machines/" + m.ID + "?tenant_id=" + a.ID, token: admin})
	if done := s.waitTask(admin, task.ID); done.Status != tasks.TaskSucceeded {
		t.Fatalf("operator's delete: %+v", done)
	}
	expect(t, s.do(req{method: "GET", path: "/api/client/machines/" + m.ID, token: a.Token}), 404, "not_found")

	allowed := startServer(t)
	admin = allowed.adminToken()
	allowed.sync(admin)
	a = allowed.tenant(admin, "Deleter", nil)
	m = allowed.provision(a.Token, smallMachine)
	task = allowed.startTask(req{method: "DELETE", path: "/api/client/machines/" + m.ID, token: a.Token})
	if done := allowed.waitTask(a.Token, task.ID); done.Status != tasks.TaskSucceeded || done.Type != "vm.destroy" {
		t.Fatalf("tenant's delete: %+v", done)
	}
}

// sizesOf reads a machine's cores and memory from the client area.
func (s *testServer) sizesOf(tok, id string) (int, int) {
	s.t.Helper()
	var d clientDetail
	r := s.do(req{method: "GET", path: "/api/client/machines/" + id, token: tok})
	expect(s.t, r, 200, "")
	r.decode(s.t, &d)
	return d.CPUCores, d.MemoryMB
}

// Backups and snapshots from the client area, round trips: the machine's sizes are the
// marker. A backup on demand (with its note), a change, a restore over the machine:
// the sizes are back, and it runs again when asked. A snapshot, a change, a rollback:
// the sizes are back. A suspended machine refuses a snapshot with the reason.
func TestClientBackupAndSnapshotRoundTrips(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Careful", nil)
	m := s.provision(a.Token, smallMachine)
	vm := "/api/client/machines/" + m.ID
	resize := func(cores, mem int) {
		t.Helper()
		task := s.startTask(req{method: "PATCH", path: vm + "/resources", token: a.Token, body: map[string]any{"cpu_cores": cores, "memory_mb": mem}})
		if done := s.waitTask(a.Token, task.ID); done.Status != tasks.TaskSucceeded {
			t.Fatalf("resize: %+v", done)
		}
	}
	run := func(r req) tasks.Task {
		t.Helper()
		r.token = a.Token
		done := s.waitTask(a.Token, s.startTask(r).ID)
		if done.Status != tasks.TaskSucceeded {
			t.Fatalf("%s %s: %+v", r.method, r.path, done)
		}
		return done
	}

	run(req{method: "POST", path: vm + "/backups", body: map[string]any{"note": "before the upgrade"}})
	run(req{method: "POST", path: vm + "/backups", body: map[string]any{"mode": "stop"}})
	var page struct{ Items []backups.Backup }
	r := s.do(req{method: "GET", path: vm + "/backups", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &page)
	if len(page.Items) != 2 || page.Items[1].Note != "before the upgrade" || page.Items[0].Origin != backups.OriginOnDemand || page.Items[0].Mode != "stop" {
		t.Fatalf("backups, newest first: %+v", page.Items)
	}
	first := page.Items[1]
	cores, mem := s.sizesOf(a.Token, m.ID)
	resize(cores+1, mem*2)
	run(req{method: "POST", path: vm + "/backups/" + first.ID + "/restore", body: map[string]any{"start_after": true}})
	if c, mm := s.sizesOf(a.Token, m.ID); c != cores || mm != mem {
		t.Fatalf("after the restore: %d cores, %d MB; want %d, %d", c, mm, cores, mem)
	}
	var d clientDetail
	r = s.do(req{method: "GET", path: vm, token: a.Token})
	r.decode(t, &d)
	if d.Status != machines.StatusRunning {
		t.Fatalf("after a restore with start_after: %s", d.Status)
	}
	expect(t, s.do(req{method: "POST", path: vm + "/backups/" + "01ARZ3NDEKTSV4RRFFQ69G5FAV" + "/restore", token: a.Token, body: map[string]any{}}), 404, "not_found")

	// Snapshots.
	run(req{method: "POST", path: vm + "/snapshots", body: map[string]any{"name": "clean", "description": "fresh"}})
	expect(t, s.do(req{method: "POST", path: vm + "/snapshots", token: a.Token, body: map[string]any{"name": "clean"}}), 409, "conflict")
	expect(t, s.do(req{method: "POST", path: vm + "/snapshots", token: a.Token, body: map[string]any{"name": "9bad"}}), 400, "invalid_request")
	resize(cores+2, mem*2)
	run(req{method: "POST", path: vm + "/snapshots/clean/rollback"})
	if c, mm := s.sizesOf(a.Token, m.ID); c != cores || mm != mem {
		t.Fatalf("after the rollback: %d cores, %d MB; want %d, %d", c, mm, cores, mem)
	}
	var snaps struct{ Items []hypervisor.Snapshot }
	r = s.do(req{method: "GET", path: vm + "/snapshots", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &snaps)
	if len(snaps.Items) != 1 || snaps.Items[0].Name != "clean" || snaps.Items[0].Description != "fresh" {
		t.Fatalf("snapshots: %+v", snaps.Items)
	}
	expect(t, s.do(req{method: "POST", path: vm + "/snapshots/missing/rollback", token: a.Token}), 404, "not_found")

	// A suspended machine: 409 with the reason.
	run(req{method: "POST", path: vm + "/actions/start"})
	run(req{method: "POST", path: vm + "/actions/suspend"})
	r = s.do(req{method: "POST", path: vm + "/snapshots", token: a.Token, body: map[string]any{"name": "later"}})
	expect(t, r, 409, "invalid_state")
	if !strings.Contains(string(r.Body), "suspended") {
		t.Fatalf("a snapshot of a suspended machine: %s; want the reason", r.Body)
	}
	run(req{method: "POST", path: vm + "/actions/resume"})
	run(req{method: "DELETE", path: vm + "/snapshots/clean"})
	r = s.do(req{method: "GET", path: vm + "/snapshots", token: a.Token})
	r.decode(t, &snaps)
	if len(snaps.Items) != 0 {
		t.Fatalf("after the delete: %+v", snaps.Items)
	}
}

// The restore and rollback round trips of TestClientBackupAndSnapshotRoundTrips on the
// Proxmox fake, through the server: the machine's cores and memory are the marker. A
// backup on demand, a change, a restore over the machine (started again): the marker
// is back; a snapshot, a change, a rollback: back again.
func TestProxmoxClientBackupAndSnapshotRoundTrips(t *testing.T) {
	t.Parallel()
	s, _, admin := proxmoxServer(t)
	s.sync(admin)
	a := s.tenant(admin, "CarefulPVE", nil)
	var tpls struct{ Items []struct{ ID string } }
	get(t, s, admin, "/api/virt/templates", &tpls)
	if len(tpls.Items) == 0 {
		t.Fatal("no templates on the fake")
	}
	m := s.provision(a.Token, map[string]any{"name": "careful", "template_id": tpls.Items[0].ID, "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10})
	vm := "/api/client/machines/" + m.ID
	run := func(r req) {
		t.Helper()
		r.token = a.Token
		if done := s.waitTask(a.Token, s.startTask(r).ID); done.Status != tasks.TaskSucceeded {
			t.Fatalf("%s %s: %+v", r.method, r.path, done)
		}
	}
	cores, mem := s.sizesOf(a.Token, m.ID)
	b := s.backupNow(a.Token, m.ID)
	run(req{method: "PATCH", path: vm + "/resources", body: map[string]any{"cpu_cores": cores + 1, "memory_mb": mem * 2}})
	if c, _ := s.sizesOf(a.Token, m.ID); c != cores+1 {
		t.Fatalf("after the change: %d cores; want %d", c, cores+1)
	}
	run(req{method: "POST", path: vm + "/backups/" + b.ID + "/restore", body: map[string]any{"start_after": true}})
	if c, mm := s.sizesOf(a.Token, m.ID); c != cores || mm != mem {
		t.Fatalf("after the restore: %d cores, %d MB; want %d, %d", c, mm, cores, mem)
	}
	run(req{method: "POST", path: vm + "/snapshots", body: map[string]any{"name": "clean"}})
	run(req{method: "PATCH", path: vm + "/resources", body: map[string]any{"cpu_cores": cores + 2, "memory_mb": mem * 2}})
	run(req{method: "POST", path: vm + "/snapshots/clean/rollback"})
	if c, mm := s.sizesOf(a.Token, m.ID); c != cores || mm != mem {
		t.Fatalf("after the rollback: %d cores, %d MB; want %d, %d", c, mm, cores, mem)
	}
}

// A busy machine refuses the client area's backups and snapshots with 409
// operation_in_progress and the reason (the task in the way), as the operator's routes do.
func TestClientBusyMachineRefuses(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.SimOpDelay = 300 * time.Millisecond })
	a := s.tenant(admin, "Busy", nil)
	m := s.provision(a.Token, smallMachine)
	vm := "/api/client/machines/" + m.ID
	busy := s.startTask(req{method: "POST", path: vm + "/actions/reboot", token: a.Token})
	if got := s.machine(admin, m.ID); got.TaskID == nil || *got.TaskID != busy.ID {
		t.Fatalf("got task_id %v; want %s while it runs", got.TaskID, busy.ID)
	}
	for _, r := range []req{
		{method: "POST", path: vm + "/snapshots", token: a.Token, body: map[string]any{"name": "later"}},
		{method: "POST", path: vm + "/backups", token: a.Token, body: map[string]any{}},
	} {
		res := s.do(r)
		expect(t, res, 409, "operation_in_progress")
		if !strings.Contains(string(res.Body), busy.ID) && !strings.Contains(string(res.Body), "reboot") {
			t.Errorf("%s %s on a busy machine: %s; want the reason (the task in the way)", r.method, r.path, res.Body)
		}
	}
	s.waitTask(a.Token, busy.ID)
}
