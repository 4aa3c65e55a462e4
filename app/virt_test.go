package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/consoles"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/internal/testwait"
)

type syncResult struct {
	Nodes    int `json:"nodes"`
	Machines struct {
		Added, Updated, Removed int
	} `json:"machines"`
	DurationMS *int64 `json:"duration_ms"`
	// Unavailable names the locations that did not answer.
	Unavailable []string `json:"locations_unavailable"`
}

func (s *testServer) sync(tok string) syncResult {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/virt/sync", token: tok})
	expect(s.t, r, 200, "")
	var res syncResult
	r.decode(s.t, &res)
	return res
}

func (s *testServer) machines(tok string) []machines.Machine {
	s.t.Helper()
	return listOf[machines.Machine](s, tok, "/api/virt/vms?limit=500")
}

func (s *testServer) machine(tok, id string) machines.Machine {
	s.t.Helper()
	r := s.do(req{method: "GET", path: "/api/virt/vms/" + id, token: tok})
	expect(s.t, r, 200, "")
	var m machines.Machine
	r.decode(s.t, &m)
	return m
}

// startTask posts an operation, expects 202 with a Location, and returns the task.
func (s *testServer) startTask(r req) tasks.Task {
	s.t.Helper()
	res := s.do(r)
	expect(s.t, res, 202, "")
	var body struct{ Task tasks.Task }
	res.decode(s.t, &body)
	if loc := res.Header.Get("Location"); loc != "/api/tasks/"+body.Task.ID {
		s.t.Fatalf("got Location %q; want /api/tasks/%s", loc, body.Task.ID)
	}
	if body.Task.Status != tasks.TaskRunning && body.Task.Status != tasks.TaskQueued {
		s.t.Fatalf("got task status %q; want queued or running", body.Task.Status)
	}
	return body.Task
}

// waitTask polls a task until it ends.
func (s *testServer) waitTask(tok, id string) tasks.Task {
	s.t.Helper()
	var t tasks.Task
	testwait.Until(s.t, func() error {
		r := s.do(req{method: "GET", path: "/api/tasks/" + id, token: tok})
		expect(s.t, r, 200, "")
		r.decode(s.t, &t)
		if !t.Finished() {
			return fmt.Errorf("task %s still %s", id, t.Status)
		}
		return nil
	})
	if t.FinishedAt == nil || t.StartedAt == nil {
		s.t.Fatalf("got finished task %+v without start and finish times", t)
	}
	return t
}

// run starts an operation and waits for its task to succeed.
func (s *testServer) run(r req) tasks.Task {
	s.t.Helper()
	t := s.waitTask(r.token, s.startTask(r).ID)
	if t.Status != tasks.TaskSucceeded {
		msg := ""
		if t.Error != nil {
			msg = *t.Error
		}
		s.t.Fatalf("got task %+v (error %q); want succeeded", t, msg)
	}
	return t
}

// synced starts a server, syncs it, and returns it with an admin token.
func synced(t *testing.T, mutate ...func(*Config)) (*testServer, string) {
	t.Helper()
	s := startServer(t, mutate...)
	tok := s.adminToken()
	s.sync(tok)
	return s, tok
}

func byStatus(t *testing.T, ms []machines.Machine, status string) machines.Machine {
	t.Helper()
	for _, m := range ms {
		if m.Status == status && m.TaskID == nil {
			return m
		}
	}
	t.Fatalf("no %s machine among %d", status, len(ms))
	return machines.Machine{}
}

func TestSyncReconciles(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tok := s.adminToken()
	first := s.sync(tok)
	if first.Nodes != 3 || first.Machines.Added != 4 || first.Machines.Updated != 0 || first.Machines.Removed != 0 || first.DurationMS == nil {
		t.Fatalf("got %+v; want 3 nodes and 4 machines added", first)
	}
	if again := s.sync(tok); again.Machines.Added+again.Machines.Updated+again.Machines.Removed != 0 {
		t.Fatalf("got %+v on the second sync; want nothing changed", again)
	}
	ms := s.machines(tok)
	if len(ms) != 4 {
		t.Fatalf("got %d machines; want 4", len(ms))
	}
	// Behind our back: one machine deleted, one created, one crashed.
	if err := s.sim.RemoveMachine(ms[0].VMID); err != nil {
		t.Fatal(err)
	}
	// vmid is a machine's identity, as on Proxmox: the new machine takes a fresh one.
	added, err := s.sim.AddMachine(hypervisor.Machine{VMID: 500, Name: "rogue", Node: "pve2", State: hypervisor.StateRunning}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	crashed := byStatus(t, ms[1:], machines.StatusRunning)
	if err := s.sim.CrashMachine(crashed.VMID); err != nil {
		t.Fatal(err)
	}
	res := s.sync(tok)
	if res.Machines.Added != 1 || res.Machines.Removed != 1 || res.Machines.Updated != 1 {
		t.Fatalf("got %+v; want one added, one updated, one removed", res)
	}
	expect(t, s.do(req{method: "GET", path: "/api/virt/vms/" + ms[0].ID, token: tok}), 404, "not_found")
	if m := s.machine(tok, strconv.Itoa(added.VMID)); m.Name != "rogue" || m.TenantID != nil {
		t.Fatalf("got %+v; want the adopted machine, without tenant", m)
	}
	if m := s.machine(tok, crashed.ID); m.Status != machines.StatusStopped {
		t.Fatalf("got status %q; want the crash seen as stopped", m.Status)
	}
}

func TestPowerActions(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	path := "/api/virt/vms/" + m.ID + "/actions/"
	task := s.run(req{method: "POST", path: path + "stop", token: tok})
	if task.Type != "vm.stop" || task.TargetType != "machine" || task.TargetID != m.ID {
		t.Fatalf("got task %+v; want a vm.stop of %s", task, m.ID)
	}
	if got := s.machine(tok, m.ID); got.Status != machines.StatusStopped || got.TaskID != nil {
		t.Fatalf("got %s with task %v; want stopped and unlocked", got.Status, got.TaskID)
	}
	// What the state forbids is refused before any task exists.
	for _, a := range []string{"stop", "shutdown", "reboot", "reset", "suspend", "resume"} {
		expect(t, s.do(req{method: "POST", path: path + a, token: tok}), 409, "invalid_state")
	}
	s.run(req{method: "POST", path: path + "start", token: tok})
	s.run(req{method: "POST", path: path + "restart", token: tok}) // alias of reboot
	s.run(req{method: "POST", path: path + "suspend", token: tok})
	if got := s.machine(tok, m.ID); got.Status != machines.StatusSuspended {
		t.Fatalf("got %s; want suspended", got.Status)
	}
	s.run(req{method: "POST", path: path + "resume", token: tok})
	// By vmid, and under the driver's own prefix.
	s.run(req{method: "POST", path: "/api/sim/vms/" + strconv.Itoa(m.VMID) + "/actions/reset", token: tok})

	r := s.do(req{method: "POST", path: path + "explode", token: tok})
	expect(t, r, 400, "invalid_request")
	var p problemBody
	r.decode(t, &p)
	if strings.Join(p.Allowed, ",") != "start,stop,shutdown,reboot,reset,suspend,resume" {
		t.Fatalf("got allowed %v; want the seven actions", p.Allowed)
	}
	expect(t, s.do(req{method: "POST", path: "/api/virt/vms/01NOSUCHMACHINE0000000000/actions/start", token: tok}), 404, "not_found")
	expect(t, s.do(req{method: "POST", path: "/api/virt/vms/99999/actions/start", token: tok}), 404, "not_found")
}

func TestConcurrentOperationsConflict(t *testing.T) {
	t.Parallel()
	s, tok := synced(t, func(c *Config) { c.SimOpDelay = 300 * time.Millisecond })
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	task := s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: tok})
	if got := s.machine(tok, m.ID); got.TaskID == nil || *got.TaskID != task.ID {
		t.Fatalf("got task_id %v; want %s while it runs", got.TaskID, task.ID)
	}
	for _, r := range []req{
		{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: tok},
		{method: "PATCH", path: "/api/virt/vms/" + m.ID + "/config", token: tok, body: map[string]any{"cpu_cores": 2}},
		{method: "POST", path: "/api/virt/vms/" + m.ID + "/disks", token: tok, body: map[string]any{"size_gb": 10}},
	} {
		expect(t, s.do(r), 409, "operation_in_progress")
	}
	s.waitTask(tok, task.ID)
	s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: tok})
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	path := "/api/virt/vms/" + m.ID + "/migrate"
	expect(t, s.do(req{method: "POST", path: path, token: tok, body: map[string]any{"target_node": m.Node}}), 400, "invalid_request")
	expect(t, s.do(req{method: "POST", path: path, token: tok, body: map[string]any{"target_node": "pve99"}}), 400, "invalid_request")
	expect(t, s.do(req{method: "POST", path: path, token: tok, body: map[string]any{}}), 400, "invalid_request")
	other := "pve1"
	if m.Node == other {
		other = "pve2"
	}
	if err := s.sim.SetNodeStatus(other, hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	s.sync(tok)
	expect(t, s.do(req{method: "POST", path: path, token: tok, body: map[string]any{"target_node": other}}), 409, "invalid_state")
	if err := s.sim.SetNodeStatus(other, hypervisor.NodeOnline); err != nil {
		t.Fatal(err)
	}
	s.sync(tok)
	// A running machine must move online; asked offline it is refused.
	expect(t, s.do(req{method: "POST", path: path, token: tok, body: map[string]any{"target_node": other, "online": false}}), 409, "invalid_state")
	task := s.run(req{method: "POST", path: path, token: tok, body: map[string]any{"target_node": other}})
	if string(task.Result) == "" || !strings.Contains(string(task.Result), other) {
		t.Fatalf("got result %s; want it to name %s", task.Result, other)
	}
	if got := s.machine(tok, m.ID); got.Node != other || got.Status != machines.StatusRunning {
		t.Fatalf("got node %s status %s; want %s running", got.Node, got.Status, other)
	}
}

func TestConfigNetworkDisksReinstall(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	base := "/api/virt/vms/" + m.ID
	s.run(req{method: "PATCH", path: base + "/config", token: tok, body: map[string]any{"cpu_cores": 6, "memory_mb": 12288, "name": "web-1"}})
	got := s.machine(tok, m.ID)
	if got.CPUCores != 6 || got.MemoryMB != 12288 || got.Name != "web-1" {
		t.Fatalf("got %d cores %d MB %q; want 6, 12288, web-1", got.CPUCores, got.MemoryMB, got.Name)
	}
	s.run(req{method: "PATCH", path: base + "/network", token: tok, body: map[string]any{
		"interfaces": []map[string]any{{"id": "net0", "vlan": 42, "rate_mbps": 100, "firewall": true}}}})
	got = s.machine(tok, m.ID)
	if ifc := got.Interfaces[0]; ifc.VLAN != 42 || ifc.RateMbps != 100 || !ifc.Firewall {
		t.Fatalf("got interface %+v; want vlan 42, 100 Mbps, firewall on", ifc)
	}
	task := s.run(req{method: "POST", path: base + "/disks", token: tok, body: map[string]any{"size_gb": 25}})
	if !strings.Contains(string(task.Result), `"size_gb":25`) || !strings.Contains(string(task.Result), `"id":"scsi1"`) {
		t.Fatalf("got result %s; want the new disk scsi1 of 25 GB", task.Result)
	}
	got = s.machine(tok, m.ID)
	if len(got.Disks) != 2 || got.DiskGB != m.DiskGB+25 {
		t.Fatalf("got disks %+v (%d GB); want two, %d GB", got.Disks, got.DiskGB, m.DiskGB+25)
	}
	tpl := "tpl-debian-12"
	if m.TemplateID == tpl {
		tpl = "tpl-rocky-9"
	}
	rt := s.run(req{method: "POST", path: base + "/reinstall", token: tok, body: map[string]any{
		"template_id": tpl, "password": "new-secret-pw", "ssh_keys": []string{"ssh-ed25519 AAAAC3 user@host"}}})
	got = s.machine(tok, m.ID)
	if got.TemplateID != tpl || got.Status != machines.StatusRunning || got.CPUCores != 6 {
		t.Fatalf("got template %s status %s cores %d; want %s, running, resources kept", got.TemplateID, got.Status, got.CPUCores, tpl)
	}
	// The password is handed to the hypervisor and nowhere else: not in an answer, not
	// in any stored record.
	for _, p := range []string{"/api/virt/vms/" + m.ID, "/api/tasks/" + rt.ID} {
		if r := s.do(req{method: "GET", path: p, token: tok}); strings.Contains(string(r.Body), "new-secret-pw") {
			t.Fatalf("got the password in %s", p)
		}
	}
	err := s.app.System().Store().Scan(context.Background(), nil, nil, 0, func(k, v []byte) error {
		if strings.Contains(string(v), "new-secret-pw") {
			return fmt.Errorf("the password is stored under %s", k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOperationValidation(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	base := "/api/virt/vms/" + m.ID
	cases := []struct {
		name  string
		r     req
		field string
	}{
		{"zero cores", req{method: "PATCH", path: base + "/config", body: map[string]any{"cpu_cores": 0}}, "cpu_cores"},
		{"memory in bytes", req{method: "PATCH", path: base + "/config", body: map[string]any{"memory_mb": 8 << 30}}, "memory_mb"},
		{"bad name", req{method: "PATCH", path: base + "/config", body: map[string]any{"name": "no spaces allowed"}}, "name"},
		{"empty config", req{method: "PATCH", path: base + "/config", body: map[string]any{}}, "body"},
		{"vlan out of range", req{method: "PATCH", path: base + "/network", body: map[string]any{"interfaces": []map[string]any{{"id": "net0", "vlan": 5000}}}}, "interfaces[0].vlan"},
		{"bad interface", req{method: "PATCH", path: base + "/network", body: map[string]any{"interfaces": []map[string]any{{"id": "eth0"}}}}, "interfaces[0].id"},
		{"disk of 0 GB", req{method: "POST", path: base + "/disks", body: map[string]any{"size_gb": 0}}, "size_gb"},
		{"unknown template", req{method: "POST", path: base + "/reinstall", body: map[string]any{"template_id": "tpl-windows-95"}}, "template_id"},
		{"short password", req{method: "POST", path: base + "/reinstall", body: map[string]any{"template_id": "tpl-debian-12", "password": "x"}}, "password"},
		{"unknown field", req{method: "POST", path: base + "/disks", body: map[string]any{"size_gb": 5, "thin": true}}, "thin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.r.token = tok
			r := s.do(c.r)
			expect(t, r, 400, "invalid_request")
			var p problemBody
			r.decode(t, &p)
			if len(p.Errors) == 0 || p.Errors[0].Field != c.field {
				t.Fatalf("got errors %+v; want one on %s", p.Errors, c.field)
			}
		})
	}
	if got := s.machine(tok, m.ID); got.TaskID != nil || got.CPUCores != m.CPUCores {
		t.Fatalf("got %+v; want the machine untouched by refused requests", got)
	}
}

func TestInjectedFailureEndsAsFailedTask(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	s.sim.FailNext(m.VMID, "reboot", errors.New("qmp command 'system_reset' failed"))
	task := s.waitTask(tok, s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: tok}).ID)
	if task.Status != tasks.TaskFailed || task.Error == nil || !strings.Contains(*task.Error, "system_reset") {
		t.Fatalf("got %+v; want failed with the driver's error", task)
	}
	got := s.machine(tok, m.ID)
	if got.TaskID != nil || got.Status != machines.StatusRunning {
		t.Fatalf("got %+v; want unlocked and still running", got)
	}
	// A driver that is down fails the task cleanly too.
	s.sim.SetAvailable(false)
	task = s.waitTask(tok, s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: tok}).ID)
	if task.Status != tasks.TaskFailed || task.Error == nil {
		t.Fatalf("got %+v; want failed", task)
	}
	r := s.do(req{method: "POST", path: "/api/virt/sync", token: tok})
	expect(t, r, 503, "unavailable")
	s.sim.SetAvailable(true)
	s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: tok})
}

func TestUserCannotUseOperatorRoutes(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := s.machines(tok)[0]
	tenant := "01TENANTA0000000000000000"
	if _, err := s.app.System().Users.Create(context.Background(), "user@example.test", "User", auth.RoleUser, "user-password-1", &tenant); err != nil {
		t.Fatal(err)
	}
	user := s.login("user@example.test", "user-password-1").Token
	for _, r := range []req{
		{method: "POST", path: "/api/virt/sync"},
		{method: "GET", path: "/api/virt/vms"},
		{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop"},
		{method: "POST", path: "/api/virt/vms/" + m.ID + "/migrate", body: map[string]any{"target_node": "pve1"}},
		{method: "PATCH", path: "/api/virt/vms/" + m.ID + "/config", body: map[string]any{"cpu_cores": 1}},
		{method: "GET", path: "/api/virt/vms/" + m.ID + "/console"},
		{method: "GET", path: "/api/virt/cluster/usage-graphs"},
		{method: "GET", path: "/api/sim/nodes"},
	} {
		r.token = user
		expect(t, s.do(r), 403, "forbidden")
	}
	// Another tenant's (here: the operator's) task is not found, not forbidden.
	task := s.run(req{method: "POST", path: "/api/virt/vms/" + byStatus(t, s.machines(tok), machines.StatusRunning).ID + "/actions/reboot", token: tok})
	expect(t, s.do(req{method: "GET", path: "/api/tasks/" + task.ID, token: user}), 404, "not_found")
	expect(t, s.do(req{method: "GET", path: "/api/tasks/" + task.ID}), 401, "unauthorized")
}

type usageGraph struct {
	Timeframe         string `json:"timeframe"`
	ResolutionSeconds int    `json:"resolution_seconds"`
	Points            []struct {
		Time          time.Time `json:"time"`
		CPU           *float64  `json:"cpu"`
		CPUCores      *float64  `json:"cpu_cores"`
		MemBytes      *float64  `json:"mem_bytes"`
		MemTotalBytes *float64  `json:"mem_total_bytes"`
		NetInBps      *float64  `json:"net_in_bps"`
		NetOutBps     *float64  `json:"net_out_bps"`
		DiskReadBps   *float64  `json:"disk_read_bps"`
		DiskWriteBps  *float64  `json:"disk_write_bps"`
	} `json:"points"`
}

func (s *testServer) usage(tok, path string) usageGraph {
	s.t.Helper()
	r := s.do(req{method: "GET", path: path, token: tok})
	expect(s.t, r, 200, "")
	var g usageGraph
	r.decode(s.t, &g)
	return g
}

func TestUsageGraphs(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := s.machines(tok)[0]
	want := map[string]struct{ step, points int }{
		"hour": {60, 60}, "day": {60, 1440}, "week": {1800, 336}, "month": {1800, 1440}, "year": {21600, 1440},
	}
	for tf, w := range want {
		for _, path := range []string{"/api/virt/vms/" + m.ID, "/api/virt/nodes/pve1", "/api/virt/cluster"} {
			g := s.usage(tok, path+"/usage-graphs?timeframe="+tf)
			if g.Timeframe != tf || g.ResolutionSeconds != w.step || len(g.Points) != w.points {
				t.Fatalf("%s %s: got %s, %d s, %d points; want %d s × %d", path, tf, g.Timeframe, g.ResolutionSeconds, len(g.Points), w.step, w.points)
			}
			for i := 1; i < len(g.Points); i++ {
				if d := g.Points[i].Time.Sub(g.Points[i-1].Time); d != time.Duration(w.step)*time.Second {
					t.Fatalf("%s %s: points %d and %d are %v apart; want %d s", path, tf, i-1, i, d, w.step)
				}
			}
		}
	}
	if g := s.usage(tok, "/api/virt/vms/"+m.ID+"/usage-graphs"); g.Timeframe != "hour" {
		t.Fatalf("got timeframe %q by default; want hour", g.Timeframe)
	}
	expect(t, s.do(req{method: "GET", path: "/api/virt/vms/" + m.ID + "/usage-graphs?timeframe=decade", token: tok}), 400, "invalid_request")
	expect(t, s.do(req{method: "GET", path: "/api/virt/nodes/pve9/usage-graphs", token: tok}), 404, "not_found")
}

func TestClusterUsageIsTheSumOfNodes(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	for _, tf := range []string{"hour", "week"} {
		cluster := s.usage(tok, "/api/virt/cluster/usage-graphs?timeframe="+tf)
		nodes := map[string]usageGraph{}
		for _, n := range []string{"pve1", "pve2", "pve3"} {
			nodes[n] = s.usage(tok, "/api/virt/nodes/"+n+"/usage-graphs?timeframe="+tf)
		}
		compared := 0
		// The newest bucket is still filling; compare the finished ones, by time.
		for i, cp := range cluster.Points[:len(cluster.Points)-1] {
			var cores, mem, netIn, cpuCores float64
			found := 0
			for _, g := range nodes {
				for _, np := range g.Points {
					if np.Time.Equal(cp.Time) && np.CPUCores != nil {
						cores += *np.CPU * *np.CPUCores
						cpuCores += *np.CPUCores
						mem += *np.MemBytes
						netIn += *np.NetInBps
						found++
					}
				}
			}
			if found != 3 {
				continue
			}
			compared++
			near := func(a, b float64) bool { return a-b < 1e-6*(1+b) && b-a < 1e-6*(1+b) }
			if !near(*cp.CPUCores, cpuCores) || !near(*cp.MemBytes, mem) || !near(*cp.NetInBps, netIn) || !near(*cp.CPU**cp.CPUCores, cores) {
				t.Fatalf("%s point %d: got cores %v mem %v net %v; want the sums %v, %v, %v", tf, i, *cp.CPUCores, *cp.MemBytes, *cp.NetInBps, cpuCores, mem, netIn)
			}
		}
		if compared < len(cluster.Points)/2 {
			t.Fatalf("%s: compared %d of %d points; want most", tf, compared, len(cluster.Points))
		}
	}
}

func TestConsole(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	r := s.do(req{method: "GET", path: "/api/virt/vms/" + m.ID + "/console", token: tok})
	expect(t, r, 200, "")
	var c struct {
		Type, URL, Path, Ticket string
		ExpiresAt               time.Time `json:"expires_at"`
	}
	r.decode(t, &c)
	if c.Type != "serial" || c.Ticket == "" || c.URL != c.Path || !strings.HasPrefix(c.Path, "/api/virt/vms/"+m.ID+"/console/ws?ticket=") ||
		!strings.Contains(c.Path, c.Ticket) || time.Until(c.ExpiresAt) <= 0 {
		t.Fatalf("got %+v; want a serial console with a path (and, without a public URL, the same url) carrying a fresh ticket", c)
	}
	// The client joins the path to the origin it uses.
	c.URL = "ws://" + s.app.Addr() + c.Path
	// A malformed upgrade is refused without spending the ticket.
	raw := strings.Replace(c.URL, "ws://", "http://", 1)
	hr, _ := http.NewRequest("GET", raw, nil)
	hr.Header.Set("Connection", "Upgrade")
	hr.Header.Set("Upgrade", "websocket")
	res, err := http.DefaultClient.Do(hr)
	if err != nil || res.StatusCode != 400 {
		t.Fatalf("got %v, %v for an upgrade without a key; want 400", res, err)
	}
	// Unclosed, the body would keep the client's connection reading for good.
	res.Body.Close()
	ws, _, err := websocket.DefaultDialer.Dial(c.URL, nil)
	if err != nil {
		t.Fatalf("the ticket no longer works after a malformed upgrade: %v", err)
	}
	readUntil := func(want string) {
		t.Helper()
		ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		var got strings.Builder
		for !strings.Contains(got.String(), want) {
			_, data, err := ws.ReadMessage()
			if err != nil {
				t.Fatalf("reading for %q: %v (got %q)", want, err, got.String())
			}
			got.Write(data)
		}
	}
	readUntil("# ")
	if err := ws.WriteMessage(websocket.TextMessage, []byte("hostname\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(m.Name)
	ws.Close()

	// The ticket worked once.
	_, res, err = websocket.DefaultDialer.Dial(c.URL, nil)
	if err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("got %v, %v; want the used ticket refused with 401", err, res)
	}
	noTicket := strings.Split(c.URL, "?")[0]
	if _, res, err := websocket.DefaultDialer.Dial(noTicket, nil); err == nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("got %v; want a missing ticket refused with 401", err)
	}
	// The Host header never makes it into the URL (TestConsoleURLIgnoresHost).
	// A stopped machine has no console to offer.
	s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: tok})
	expect(t, s.do(req{method: "GET", path: "/api/virt/vms/" + m.ID + "/console", token: tok}), 409, "invalid_state")
}

// consoleURL asks for a console ticket of machine id and answers the websocket URL a
// client forms from it: the answer's path joined to the origin the client used.
func (s *testServer) consoleURL(tok, id string) string {
	s.t.Helper()
	var c struct{ Path string }
	r := s.do(req{method: "GET", path: "/api/virt/vms/" + id + "/console", token: tok})
	expect(s.t, r, 200, "")
	r.decode(s.t, &c)
	return "ws://" + s.app.Addr() + c.Path
}

// dialConsole opens the console of machine id; the test ends it.
func (s *testServer) dialConsole(tok, id string) *websocket.Conn {
	s.t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(s.consoleURL(tok, id), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { ws.Close() })
	return ws
}

func TestConsoleTicketExpires(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	u := s.consoleURL(tok, m.ID)
	s.app.System().Consoles.SetClock(func() time.Time { return time.Now().Add(consoles.ConsoleTicketTTL + time.Second) })
	if _, res, err := websocket.DefaultDialer.Dial(u, nil); err == nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("got %v; want an expired ticket refused with 401", err)
	}
}

func TestRestartKeepsStateAndSettlesTasks(t *testing.T) {
	t.Parallel()
	s, tok := synced(t, func(c *Config) { c.SimOpDelay = 5 * time.Second })
	ms := s.machines(tok)
	m := byStatus(t, ms, machines.StatusRunning)
	task := s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: tok})
	s.restart() // the stop is cancelled mid-flight
	tok = s.adminToken()
	after := s.machines(tok)
	if len(after) != len(ms) {
		t.Fatalf("got %d machines after restart; want %d", len(after), len(ms))
	}
	settled := s.waitTask(tok, task.ID)
	if settled.Status != tasks.TaskFailed || settled.Error == nil || !strings.Contains(*settled.Error, "restarted") {
		t.Fatalf("got %+v; want the interrupted task failed, saying vmplane restarted", settled)
	}
	var got machines.Machine
	testwait.Eventually(t, "the machine is still locked after the restart", func() bool {
		got = s.machine(tok, m.ID)
		return got.TaskID == nil
	})
	if got.Status != machines.StatusRunning {
		t.Fatalf("got status %s; want running, as the hypervisor says", got.Status)
	}
	r := s.do(req{method: "GET", path: "/api/virt/nodes", token: tok})
	expect(t, r, 200, "")
	if !strings.Contains(string(r.Body), `"pve3"`) {
		t.Fatalf("got %s; want the nodes back", r.Body)
	}
}

// A sync that finds nothing changed wakes no machine's actor: with a large fleet,
// every sync would otherwise hold all machines in memory.
func TestSyncWakesOnlyChangedMachines(t *testing.T) {
	t.Parallel()
	s, _ := synced(t, func(c *Config) { c.SimMachines = 12 })
	s.restart()
	tok := s.adminToken()
	if res := s.sync(tok); res.Machines.Updated+res.Machines.Added+res.Machines.Removed != 0 {
		t.Fatalf("got %+v; want nothing changed", res)
	}
	if n := s.app.System().Kinds()["machines"]; n != 0 {
		t.Fatalf("got %d machine actors awake after a sync that changed nothing; want 0", n)
	}
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	if err := s.sim.CrashMachine(m.VMID); err != nil {
		t.Fatal(err)
	}
	if res := s.sync(tok); res.Machines.Updated != 1 {
		t.Fatalf("got %+v; want the crashed machine updated", res)
	}
	if n := s.app.System().Kinds()["machines"]; n != 1 {
		t.Fatalf("got %d machine actors awake; want only the changed one", n)
	}
}
