package app

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
	"github.com/vmplane/vmplane/internal/testwait"
)

// proxmoxServer is a real vmplane server whose driver talks to a fake Proxmox VE API
// over HTTPS, with two machines of the operator's and the fake's templates.
func proxmoxServer(t *testing.T) (*testServer, *pvefake.Server, string) {
	t.Helper()
	return proxmoxServerWith(t, pvefake.Config{})
}

// proxmoxServerWith is proxmoxServer over a fake set up with fc.
func proxmoxServerWith(t *testing.T, fc pvefake.Config) (*testServer, *pvefake.Server, string) {
	t.Helper()
	f := pvefake.New(fc)
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
	onProxmox(f)(&cfg)
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

// onProxmox configures a server's driver to speak to the fake Proxmox f.
func onProxmox(f *pvefake.Server) func(*Config) {
	return func(cfg *Config) {
		cfg.Driver = "proxmox"
		user, pass := f.ConsoleUser()
		// RequestTimeout is the default's: on a busy test machine (the whole -race suite
		// beside other work) the fake answered a request in over 5 s.
		cfg.Proxmox = ProxmoxConfig{URL: f.URL(), TokenID: f.TokenID(), TokenSecret: f.TokenSecret(), Fingerprint: f.Fingerprint(),
			RequestTimeout: 15 * time.Second, PollEvery: 5 * time.Millisecond, Storage: "local-lvm", Bridge: "vmbr0", BackupPool: "local",
			ConsoleUser: user, ConsolePass: pass}
	}
}

func TestProxmoxMachineOperations(t *testing.T) {
	t.Parallel()
	s, f, tok := proxmoxServer(t)
	res := s.sync(tok)
	if res.Nodes != 3 || res.Machines.Added != 2 {
		t.Fatalf("got %+v; want 3 nodes and the 2 machines (templates are not machines)", res)
	}
	web := s.machine(tok, "100")
	if web.Name != "web-1" || web.Node != "pve1" || web.Status != machines.StatusRunning || web.CPUCores != 2 {
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
	if got := s.machine(tok, web.ID); got.VMID != 100 || got.Node != "pve3" || got.Status != machines.StatusRunning {
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
	t.Parallel()
	s, f, tok := proxmoxServer(t)
	s.sync(tok)
	web := s.machine(tok, "100")
	// The console goes through our ticket and websocket to Proxmox's termproxy.
	ws := s.dialConsole(tok, web.ID)
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
	testwait.Until(t, func() error {
		rules := f.FirewallRules(100)
		if len(rules) == 1 && rules[0]["dport"] == "22" && strings.EqualFold(rules[0]["action"], "ACCEPT") {
			return nil
		}
		return fmt.Errorf("got rules %v on Proxmox; want the ssh rule", rules)
	})
}

func TestProxmoxFailures(t *testing.T) {
	t.Parallel()
	s, f, tok := proxmoxServer(t)
	s.sync(tok)
	web := s.machine(tok, "100")
	// A task that ends in error carries Proxmox's exit status.
	remove := f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/status/{action}", TaskExit: "VM 100 qmp command failed - got timeout", Times: 1})
	task := s.waitTask(tok, s.startTask(req{method: "POST", path: "/api/virt/vms/" + web.ID + "/actions/reboot", token: tok}).ID)
	remove()
	if task.Status != tasks.TaskFailed || task.Error == nil || !strings.Contains(*task.Error, "qmp command failed") {
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
		if task.Status != tasks.TaskFailed || task.Error == nil {
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

// TestProxmoxRefusedRuleIsVisible: a rule Proxmox would refuse is refused by the API
// with 400 naming the field; a push Proxmox refuses anyway marks the machine's firewall
// failed with Proxmox's reason and raises an alert, is not retried, and the next good
// push clears both.
func TestProxmoxRefusedRuleIsVisible(t *testing.T) {
	t.Parallel()
	s, f, tok := proxmoxServer(t)
	s.sync(tok)
	web := s.machine(tok, "100")
	a := s.tenant(tok, "Fw", nil)
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/machines/" + web.ID, token: tok, body: map[string]any{"tenant_id": a.ID}}), 200, "")
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"direction": "in", "action": "accept", "protocol": "icmp", "source": "2001:db8::/32"}, "source"},
		{map[string]any{"direction": "in", "action": "accept", "protocol": "ipv6-icmp", "destination": "192.0.2.1"}, "destination"},
		{map[string]any{"direction": "in", "action": "accept", "protocol": "tcp", "source": "10.0.0.0/8", "destination": "2001:db8::1"}, "destination"},
		{map[string]any{"direction": "in", "action": "accept", "protocol": "tcp", "source": "+blocklist"}, "source"},
	} {
		r := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: c.body})
		expect(t, r, 400, "invalid_request")
		if !strings.Contains(string(r.Body), `"field":"`+c.field+`"`) {
			t.Errorf("%v: got %s; want the error on %s", c.body, r.Body, c.field)
		}
	}
	// IPv6 ICMP is written as ipv6-icmp.
	expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "ipv6-icmp", "source": "2001:db8::/32"}}), 201, "")
	testwait.Eventually(t, "the first push", func() bool {
		fw := s.machine(tok, web.ID).Firewall
		return fw != nil && fw.State == machines.FirewallApplied
	})
	firewallOnEveryInterface(t, s.machine(tok, web.ID))

	// Proxmox refuses the next push (once): visible, alerted, and not retried.
	const rules = "/nodes/{node}/qemu/{vmid}/firewall/rules"
	f.Inject(pvefake.Fault{Method: "POST", Path: rules, Status: 400, Message: "detected mixed ipv4/ipv6 addresses in rule", Times: 1})
	expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "tcp", "port": "22"}}), 201, "")
	testwait.Eventually(t, "the firewall state to fail", func() bool {
		fw := s.machine(tok, web.ID).Firewall
		return fw != nil && fw.State == machines.FirewallFailed
	})
	m := s.machine(tok, web.ID)
	if !strings.Contains(m.Firewall.Reason, "detected mixed ipv4/ipv6 addresses") {
		t.Errorf("got reason %q; want Proxmox's", m.Firewall.Reason)
	}
	if seen := s.clientList(a.Token, ""); len(seen) != 1 || seen[0].Firewall == nil || seen[0].Firewall.State != machines.FirewallFailed {
		t.Errorf("the tenant sees %+v; want its machine with firewall failed", seen)
	}
	testwait.Eventually(t, "the firewall_failed alert", func() bool {
		return len(s.alertsOf(tok, "/api/monitoring/alerts/events?kind=firewall_failed&status=firing", web.ID)) == 1
	})
	// A refusal is not retried: had it been, the fault (once only) would let the retry
	// through and the state turn applied. The first retry of a failed push would come
	// after one second. A witness shows when that second has passed: another tenant's
	// push, started after the refusal, that fails for a passing reason and is retried
	// with the same delay.
	const webRules, dbRules = "/nodes/pve1/qemu/100/firewall/rules", "/nodes/pve2/qemu/101/firewall/rules"
	writes := f.Count("POST", webRules)
	w := s.tenant(tok, "Witness", nil)
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/machines/" + s.machine(tok, "101").ID, token: tok, body: map[string]any{"tenant_id": w.ID}}), 200, "")
	f.Inject(pvefake.Fault{Method: "POST", Path: dbRules, Status: 500, Times: 1})
	expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: w.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "tcp", "port": "5432"}}), 201, "")
	testwait.Eventually(t, "the witness's failed push retried", func() bool { return len(f.FirewallRules(101)) == 1 })
	if n := f.Count("POST", dbRules); n < 2 {
		t.Fatalf("got %d rule writes of the witness; want the failed one and its retry", n)
	}
	testwait.Never(t, 300*time.Millisecond, "a retry of the push Proxmox refused", func() bool {
		return f.Count("POST", webRules) != writes
	})
	if fw := s.machine(tok, web.ID).Firewall; fw.State != machines.FirewallFailed {
		t.Errorf("got firewall %+v without a change of the rules; want still failed", fw)
	}

	// The next change pushes again; success clears the state and the alert.
	expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "drop", "protocol": "any"}}), 201, "")
	testwait.Eventually(t, "the firewall state to recover", func() bool {
		fw := s.machine(tok, web.ID).Firewall
		return fw != nil && fw.State == machines.FirewallApplied && fw.Reason == ""
	})
	if got := f.FirewallRules(100); len(got) != 3 || got[0]["proto"] != "ipv6-icmp" || got[1]["dport"] != "22" || got[2]["action"] != "DROP" {
		t.Errorf("got rules %v on Proxmox; want the tenant's three, in order", got)
	}
	testwait.Eventually(t, "the alert to resolve", func() bool {
		return len(s.alertsOf(tok, "/api/monitoring/alerts/events?kind=firewall_failed&status=resolved", web.ID)) == 1
	})
}

// TestProxmoxSyncAfterStop: /cluster/resources lags by a pvestatd cycle, so right
// after a stop it still says running. A sync must not move the machine back; it asks
// status/current when the list and the record disagree, and still sees changes made
// behind vmplane's back.
func TestProxmoxSyncAfterStop(t *testing.T) {
	t.Parallel()
	clock := hypervisortest.NewClock(time.Now())
	s, f, tok := proxmoxServerWith(t, pvefake.Config{StatusLag: 10 * time.Second, Now: clock.Now})
	s.sync(tok)
	web := s.machine(tok, "100")
	if web.Status != machines.StatusRunning {
		t.Fatalf("got %s; want running", web.Status)
	}
	s.run(req{method: "POST", path: "/api/virt/vms/" + web.ID + "/actions/stop", token: tok})
	if st := fakeStatusOf(t, f, 100); st != "stopped" {
		t.Fatalf("got %s on Proxmox; want stopped", st)
	}
	s.sync(tok) // pvestatd has not run since: the list still says running
	if got := s.machine(tok, web.ID).Status; got != machines.StatusStopped {
		t.Fatalf("a sync within pvestatd's cycle after a stop moved the machine to %s; want stopped", got)
	}
	// A start behind vmplane's back is still seen once pvestatd reports it.
	if err := f.SetVMStatus(100, "running"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(11 * time.Second)
	s.sync(tok)
	if got := s.machine(tok, web.ID).Status; got != machines.StatusRunning {
		t.Fatalf("a start behind vmplane's back: got %s after pvestatd's refresh; want running", got)
	}
}

// fakeStatusOf reads a VM's status at the fake.
func fakeStatusOf(t *testing.T, f *pvefake.Server, vmid int) string {
	t.Helper()
	_, st, _, ok := f.VM(vmid)
	if !ok {
		t.Fatalf("no vm %d at the fake", vmid)
	}
	return st
}

// TestProxmoxPVE8AndOfflineNode: on a PVE 8 cluster (70 RRD points 30 minutes to a
// week apart) usage answers carry the data's own spacing and the usage trends count
// with it; with one node offline the cluster graph, the overview and the trends answer
// with what the other nodes have and name what is missing.
func TestProxmoxPVE8AndOfflineNode(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC()
	s, f, tok := proxmoxServerWith(t, pvefake.Config{RRDLayout: "pve8", Now: func() time.Time { return now }})
	s.sync(tok)
	web, db := s.machine(tok, "100"), s.machine(tok, "101")
	a := s.tenant(tok, "Pve8", nil)
	for _, m := range []machines.Machine{web, db} {
		expect(t, s.do(req{method: "PATCH", path: "/api/resources/machines/" + m.ID, token: tok, body: map[string]any{"tenant_id": a.ID}}), 200, "")
	}
	for tf, want := range map[string]int{"hour": 60, "day": 1800, "week": 10800, "month": 43200, "year": 604800} {
		g := s.usage(tok, "/api/virt/vms/"+web.ID+"/usage-graphs?timeframe="+tf)
		if g.ResolutionSeconds != want || len(g.Points) < 2 || int(g.Points[1].Time.Sub(g.Points[0].Time).Seconds()) != want {
			t.Errorf("%s: got resolution %d over %d points; want %d s, the data's spacing", tf, g.ResolutionSeconds, len(g.Points), want)
		}
	}
	if c := s.usage(tok, "/api/virt/cluster/usage-graphs?timeframe=day"); c.ResolutionSeconds != 1800 || len(c.Points) != 70 {
		t.Errorf("cluster day: got %d points at %d s; want 70 at 1800", len(c.Points), c.ResolutionSeconds)
	}

	// pve2 (db-1's node) goes offline.
	if err := f.SetNodeOnline("pve2", false); err != nil {
		t.Fatal(err)
	}
	s.sync(tok)
	// db-1's record keeps what was known of it: Proxmox has only a summary now.
	if got := s.machine(tok, db.ID); got.Status != db.Status || len(got.Interfaces) != len(db.Interfaces) || len(db.Interfaces) == 0 {
		t.Errorf("db-1 on the offline node: got %s with %d interfaces; want %s with its %d", got.Status, len(got.Interfaces), db.Status, len(db.Interfaces))
	}
	var c struct {
		ResolutionSeconds int        `json:"resolution_seconds"`
		Points            []struct{} `json:"points"`
		MissingNodes      []string   `json:"missing_nodes"`
	}
	r := s.do(req{method: "GET", path: "/api/virt/cluster/usage-graphs?timeframe=week", token: tok})
	expect(t, r, 200, "")
	r.decode(t, &c)
	if len(c.MissingNodes) != 1 || c.MissingNodes[0] != "pve2" || len(c.Points) != 70 || c.ResolutionSeconds != 10800 {
		t.Errorf("cluster graph with pve2 offline: got %d points at %d s, missing %v; want 70 at 10800, missing [pve2]", len(c.Points), c.ResolutionSeconds, c.MissingNodes)
	}
	var o tenants.Overview
	r = s.do(req{method: "GET", path: "/api/client/overview", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &o)
	if o.Machines.Total != 2 || len(o.MissingNodes) != 1 || o.MissingNodes[0] != "pve2" {
		t.Errorf("overview with pve2 offline: got %+v; want 2 machines and missing_nodes [pve2]", o)
	}
	var tr tenants.Trends
	r = s.do(req{method: "GET", path: "/api/client/usage-trends?days=30", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &tr)
	if len(tr.MissingMachines) != 1 || tr.MissingMachines[0] != db.ID || len(tr.MissingNodes) != 1 || tr.MissingNodes[0] != "pve2" {
		t.Errorf("trends with pve2 offline: got missing machines %v nodes %v; want [%s] and [pve2]", tr.MissingMachines, tr.MissingNodes, db.ID)
	}
	// The trends are web-1's month graph counted with the data's spacing (12 h), not
	// PVE 9's 30 minutes.
	days := map[string]bool{}
	for _, p := range tr.Points {
		days[p.Date] = true
	}
	g := s.usage(tok, "/api/virt/vms/"+web.ID+"/usage-graphs?timeframe=month")
	spacing := g.Points[1].Time.Sub(g.Points[0].Time).Seconds()
	var want, got float64
	for _, p := range g.Points {
		if p.NetInBps != nil && days[p.Time.UTC().Format("2006-01-02")] {
			want += *p.NetInBps * spacing
		}
	}
	for _, p := range tr.Points {
		got += p.NetInBytes
	}
	if want == 0 || math.Abs(got-want) > want*1e-9 {
		t.Errorf("trend net in: got %.0f bytes; want %.0f (the rates times the data's 12 h spacing)", got, want)
	}
}

// TestFirewallRulesSameOnSim: the rule checks are the driver-independent ones: the sim
// refuses what Proxmox would refuse, and takes an IPv6 ICMP rule as ipv6-icmp.
func TestFirewallRulesSameOnSim(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	a := s.tenant(tok, "SimFw", nil)
	m := s.provision(a.Token, smallMachine)
	r := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "icmp", "source": "2001:db8::/32"}})
	expect(t, r, 400, "invalid_request")
	if !strings.Contains(string(r.Body), `"field":"source"`) {
		t.Errorf("got %s; want the error on source", r.Body)
	}
	// A value outside the document's enum is refused by the schema check, before the
	// rule checks run.
	r = s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "sideways", "action": "accept", "protocol": "tcp"}})
	expect(t, r, 400, "invalid_request")
	if !strings.Contains(string(r.Body), `"field":"direction"`) {
		t.Errorf("got %s; want the error on direction", r.Body)
	}
	// Every fault of the rule checks is named at once, an unreadable address among
	// them; an empty port is not "no port".
	r = s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "tcp", "port": "", "source": "bogus"}})
	expect(t, r, 400, "invalid_request")
	for _, field := range []string{"port", "source"} {
		if !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
			t.Errorf("got %s; want an error on %s", r.Body, field)
		}
	}
	expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "ipv6-icmp", "source": "2001:db8::/32"}}), 201, "")
	testwait.Eventually(t, "the push to the sim", func() bool {
		fw := s.machine(tok, m.ID).Firewall
		return fw != nil && fw.State == machines.FirewallApplied
	})
	firewallOnEveryInterface(t, s.machine(tok, m.ID))
}

// firewallOnEveryInterface: a machine whose rules were applied shows the firewall on
// on each of its interfaces, as the push left them on the hypervisor.
func firewallOnEveryInterface(t *testing.T, m machines.Machine) {
	t.Helper()
	if len(m.Interfaces) == 0 {
		t.Fatalf("machine %s has no interfaces", m.ID)
	}
	for _, ic := range m.Interfaces {
		if !ic.Firewall {
			t.Fatalf("machine %s with firewall %+v shows interfaces %+v; want the firewall on on each", m.ID, m.Firewall, m.Interfaces)
		}
	}
}

// TestProxmoxConcurrentEditConflict: someone edits the VM on Proxmox between
// vmplane's read and its write on every attempt; the config task fails with conflict
// (not unavailable or internal), after a bounded number of attempts. One edit alone is
// absorbed by a retry.
func TestProxmoxConcurrentEditConflict(t *testing.T) {
	t.Parallel()
	s, f, tok := proxmoxServer(t)
	s.sync(tok)
	web := s.machine(tok, "100")
	const post = "/nodes/{node}/qemu/{vmid}/config"
	f.Inject(pvefake.Fault{Method: "POST", Path: post, Hook: func() { f.TouchConfig(100) }, Times: 1})
	s.run(req{method: "PATCH", path: "/api/virt/vms/" + web.ID + "/config", token: tok, body: map[string]any{"cpu_cores": 3}})
	if got := s.machine(tok, web.ID); got.CPUCores != 3 {
		t.Errorf("after one concurrent edit: got %d cores; want 3", got.CPUCores)
	}
	remove := f.Inject(pvefake.Fault{Method: "POST", Path: post, Hook: func() { f.TouchConfig(100) }})
	defer remove()
	f.ResetRequests()
	task := s.waitTask(tok, s.startTask(req{method: "PATCH", path: "/api/virt/vms/" + web.ID + "/config", token: tok, body: map[string]any{"cpu_cores": 5}}).ID)
	if task.Status != tasks.TaskFailed || task.Error == nil || !strings.HasPrefix(*task.Error, "conflict:") {
		t.Fatalf("got %+v; want a task failed with conflict", task)
	}
	if n := f.Count("POST", post); n != 3 {
		t.Errorf("got %d config writes; want 3 attempts", n)
	}
}
