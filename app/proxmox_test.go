package app

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// proxmoxServer is a real vmplane server whose driver talks to a fake Proxmox VE API
// over HTTPS, with two machines of the operator's and the fake's templates.
func proxmoxServer(t *testing.T) (*testServer, *pvefake.Server, string) {
	t.Helper()
	f := pvefake.New(pvefake.Config{})
	t.Cleanup(f.Close)
	for _, spec := range []pvefake.VMSpec{
		{VMID: 100, Node: "pve1", Name: "web-1", Status: "running", Cores: 2, MemoryMB: 2048, DiskGB: 20},
		{VMID: 101, Node: "pve2", Name: "db-1", Status: "stopped"},
	} {
		if _, err := f.AddVM(spec); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig(t)
	cfg.Driver = "proxmox"
	user, pass := f.ConsoleUser()
	cfg.Proxmox = ProxmoxConfig{URL: f.URL(), TokenID: f.TokenID(), TokenSecret: f.TokenSecret(), Fingerprint: f.Fingerprint(),
		RequestTimeout: 5 * time.Second, PollEvery: 5 * time.Millisecond, Storage: "local-lvm", Bridge: "vmbr0", BackupPool: "local",
		ConsoleUser: user, ConsolePass: pass}
	d, err := NewDriver(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{t: t, cfg: cfg, driver: d, client: &http.Client{Timeout: 30 * time.Second}}
	s.start()
	t.Cleanup(s.stop)
	tok := s.adminToken()
	return s, f, tok
}

func TestProxmoxMachineOperations(t *testing.T) {
	s, f, tok := proxmoxServer(t)
	res := s.sync(tok)
	if res.Nodes != 3 || res.Machines.Added != 2 {
		t.Fatalf("got %+v; want 3 nodes and the 2 machines (templates are not machines)", res)
	}
	web := s.machine(tok, "100")
	if web.Name != "web-1" || web.Node != "pve1" || web.Status != actors.StatusRunning || web.CPUCores != 2 {
		t.Fatalf("got %+v; want web-1 running on pve1 with 2 cores", web)
	}
	base := "/api/proxmox/vms/" + web.ID // the driver's own prefix answers too
	s.run(req{method: "POST", path: base + "/actions/stop", token: tok})
	if _, status, _, _ := f.VM(100); status != "stopped" {
		t.Fatalf("got %s on Proxmox; want stopped", status)
	}
	s.run(req{method: "POST", path: base + "/actions/start", token: tok})
	s.run(req{method: "POST", path: base + "/migrate", token: tok, body: map[string]any{"target_node": "pve3"}})
	if node, _, _, _ := f.VM(100); node != "pve3" || s.machine(tok, web.ID).Node != "pve3" {
		t.Fatalf("got node %s on Proxmox; want pve3 there and in the record", node)
	}
	s.run(req{method: "PATCH", path: base + "/config", token: tok, body: map[string]any{"cpu_cores": 4, "memory_mb": 4096}})
	s.run(req{method: "PATCH", path: base + "/network", token: tok, body: map[string]any{"interfaces": []map[string]any{{"id": "net0", "vlan": 42}}}})
	task := s.run(req{method: "POST", path: base + "/disks", token: tok, body: map[string]any{"size_gb": 8}})
	if !strings.Contains(string(task.Result), `"scsi1"`) {
		t.Fatalf("got result %s; want the new disk scsi1", task.Result)
	}
	got := s.machine(tok, web.ID)
	if got.CPUCores != 4 || got.MemoryMB != 4096 || got.Interfaces[0].VLAN != 42 || len(got.Disks) != 2 {
		t.Fatalf("got %+v; want 4 cores, 4096 MB, vlan 42 and two disks", got)
	}
	if _, _, cfg, _ := f.VM(100); !strings.Contains(cfg["net0"], "tag=42") || cfg["cores"] != "4" {
		t.Fatalf("got config %v on Proxmox; want cores 4 and tag=42", cfg)
	}
	r := s.do(req{method: "GET", path: "/api/virt/templates", token: tok})
	var tpls struct{ Items []struct{ ID string } }
	r.decode(t, &tpls)
	if len(tpls.Items) == 0 {
		t.Fatal("got no templates from Proxmox")
	}
	s.run(req{method: "POST", path: base + "/reinstall", token: tok, body: map[string]any{"template_id": tpls.Items[0].ID, "password": "fresh-root-pw"}})
	if got := s.machine(tok, web.ID); got.VMID != 100 || got.Node != "pve3" || got.Status != actors.StatusRunning {
		t.Fatalf("got %+v after reinstall; want vmid 100 running on pve3", got)
	}
	g := s.usage(tok, base+"/usage-graphs?timeframe=day")
	if len(g.Points) != 1440 || g.ResolutionSeconds != 60 {
		t.Fatalf("got %d points at %d s; want 1440 at 60 s", len(g.Points), g.ResolutionSeconds)
	}
	if c := s.usage(tok, "/api/proxmox/cluster/usage-graphs?timeframe=week"); len(c.Points) != 336 {
		t.Fatalf("got %d cluster points; want 336", len(c.Points))
	}
}

func TestProxmoxConsoleAndFirewall(t *testing.T) {
	s, f, tok := proxmoxServer(t)
	s.sync(tok)
	web := s.machine(tok, "100")
	// The console goes through our ticket and websocket to Proxmox's termproxy.
	var c struct{ Path string }
	r := s.do(req{method: "GET", path: "/api/virt/vms/" + web.ID + "/console", token: tok})
	expect(t, r, 200, "")
	r.decode(t, &c)
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+s.app.Addr()+c.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.WriteMessage(websocket.TextMessage, []byte("hostname\n")); err != nil {
		t.Fatal(err)
	}
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var out strings.Builder
	for !strings.Contains(out.String(), "web-1") {
		_, data, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("reading the console: %v (got %q)", err, out.String())
		}
		out.Write(data)
	}
	// A tenant's rule lands on Proxmox, by position, with the firewall switched on.
	a := s.tenant(tok, "Pve", nil)
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/machines/" + web.ID, token: tok, body: map[string]any{"tenant_id": a.ID}}), 200, "")
	expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "tcp", "port": "22", "source": "203.0.113.0/24"}}), 201, "")
	deadline := time.Now().Add(10 * time.Second)
	for {
		rules := f.FirewallRules(100)
		if len(rules) == 1 && rules[0]["dport"] == "22" && strings.EqualFold(rules[0]["action"], "ACCEPT") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("got rules %v on Proxmox; want the ssh rule", rules)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestProxmoxFailures(t *testing.T) {
	s, f, tok := proxmoxServer(t)
	s.sync(tok)
	web := s.machine(tok, "100")
	// A task that ends in error carries Proxmox's exit status.
	remove := f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/status/{action}", TaskExit: "VM 100 qmp command failed - got timeout", Times: 1})
	task := s.waitTask(tok, s.startTask(req{method: "POST", path: "/api/virt/vms/" + web.ID + "/actions/reboot", token: tok}).ID)
	remove()
	if task.Status != actors.TaskFailed || task.Error == nil || !strings.Contains(*task.Error, "qmp command failed") {
		t.Fatalf("got %+v; want failed with Proxmox's exit status", task)
	}
	if m := s.machine(tok, web.ID); m.TaskID != nil {
		t.Fatal("the machine is still locked after the failed task")
	}
	// Proxmox answering 500 fails the task cleanly; a token without a privilege too.
	for _, fault := range []pvefake.Fault{
		{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/status/{action}", Status: 500, Times: 1},
		{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/status/{action}", Status: 403, Message: "Permission check failed (/vms/100, VM.PowerMgmt)", Times: 1},
	} {
		remove := f.Inject(fault)
		task := s.waitTask(tok, s.startTask(req{method: "POST", path: "/api/virt/vms/" + web.ID + "/actions/reboot", token: tok}).ID)
		remove()
		if task.Status != actors.TaskFailed || task.Error == nil {
			t.Fatalf("got %+v for a Proxmox %d; want a failed task", task, fault.Status)
		}
	}
	// An outage shows in health and heals by itself.
	remove = f.Inject(pvefake.Fault{Path: "/version", Status: 503})
	r := s.do(req{method: "GET", path: "/api/health"})
	if r.Status != 503 || !strings.Contains(string(r.Body), `"hypervisor":"unavailable"`) {
		t.Fatalf("got %d %s; want 503 with the hypervisor unavailable", r.Status, r.Body)
	}
	remove()
	expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")
	// A VM deleted behind our back leaves with the next sync.
	f.RemoveVM(101)
	if res := s.sync(tok); res.Machines.Removed != 1 {
		t.Fatalf("got %+v; want one machine removed", res)
	}
}
