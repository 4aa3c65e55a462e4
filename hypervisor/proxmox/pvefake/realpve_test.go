package pvefake

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
)

// TestSchemaChecksParams: like pveproxy, the fake refuses parameters its API schema
// does not declare or whose values do not fit, before the handler runs.
func TestSchemaChecksParams(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	c := newClient(t, s)
	id, _ := s.AddVM(VMSpec{})
	vm := "/nodes/pve1/qemu/" + strconv.Itoa(id)
	for _, tc := range []struct {
		method, path string
		form         url.Values
		param        string
	}{
		{"POST", vm + "/config", url.Values{"cores": {"2"}, "colour": {"blue"}}, "colour"},
		{"POST", vm + "/config", url.Values{"cores": {"two"}}, "cores"},
		{"GET", vm + "/rrddata", url.Values{"timeframe": {"day"}, "cf": {"MEDIAN"}}, "cf"},
		{"GET", vm + "/rrddata", url.Values{"cf": {"AVERAGE"}}, "timeframe"},
		{"POST", vm + "/firewall/rules", url.Values{"type": {"sideways"}, "action": {"ACCEPT"}}, "type"},
		{"PUT", vm + "/firewall/options", url.Values{"enable": {"maybe"}}, "enable"},
		{"POST", vm + "/status/start", url.Values{"online": {"1"}}, "online"},
	} {
		code, _, msg := c.do(tc.method, tc.path, tc.form)
		if code != 400 || !strings.Contains(msg, "Parameter verification failed") {
			t.Errorf("%s %s %v: got %d %q; want 400 on %s", tc.method, tc.path, tc.form, code, msg, tc.param)
		}
	}
	for _, r := range s.Requests() {
		if r.Schema == "" {
			t.Errorf("%s %s was not checked against the schema", r.Method, r.Path)
		}
	}
	if code, _, msg := c.do("POST", vm+"/config", url.Values{"net1": {"virtio,bridge=vmbr0"}, "digest": {""}}); code != 200 {
		t.Errorf("indexed parameter net1: got %d %q; want 200", code, msg)
	}
	if len(SchemaPaths()) < 30 {
		t.Errorf("got %d schema calls; want the subset's", len(SchemaPaths()))
	}
}

// TestRealPVEBehaviour covers what real Proxmox does that the driver once assumed it
// did not: the clone copies the firewall, a stale digest fails the config task, the
// resource list lags by pvestatd's cycle, PVE 8's RRD layout, mixed address families.
func TestRealPVEBehaviour(t *testing.T) {
	clock := hypervisortest.NewClock(time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC))
	s := New(Config{StatusLag: 10 * time.Second, Now: clock.Now, TaskPolls: -1})
	defer s.Close()
	c := newClient(t, s)
	if err := s.SetFirewallRules(9000, []map[string]string{{"type": "in", "action": "DROP", "enable": "1"}}); err != nil {
		t.Fatal(err)
	}
	code, data, msg := c.do("POST", "/nodes/pve1/qemu/9000/clone", url.Values{"newid": {"120"}, "full": {"1"}})
	if code != 200 || c.wait("pve1", data) != "OK" {
		t.Fatalf("clone: %d %s", code, msg)
	}
	if got := s.FirewallRules(120); len(got) != 1 || got[0]["action"] != "DROP" {
		t.Errorf("clone's rules: got %v; want the template's", got)
	}

	_, data, _ = c.do("GET", "/nodes/pve1/qemu/120/config", nil)
	var cfg struct{ Digest string }
	json.Unmarshal(data, &cfg)
	s.TouchConfig(120)
	code, data, _ = c.do("POST", "/nodes/pve1/qemu/120/config", url.Values{"cores": {"4"}, "digest": {cfg.Digest}})
	if exit := c.wait("pve1", data); code != 200 || !strings.Contains(exit, "detected modified configuration") {
		t.Errorf("stale digest on POST config: got %d, task %q; want the task to fail", code, exit)
	}

	// pvestatd: the list shows the state of its last refresh, status/current is live.
	status := func() (list, live string) {
		_, d, _ := c.do("GET", "/cluster/resources", url.Values{"type": {"vm"}})
		var rs []struct {
			VMID   int
			Status string
		}
		json.Unmarshal(d, &rs)
		for _, r := range rs {
			if r.VMID == 120 {
				list = r.Status
			}
		}
		_, d, _ = c.do("GET", "/nodes/pve1/qemu/120/status/current", nil)
		var cur struct{ Status string }
		json.Unmarshal(d, &cur)
		return list, cur.Status
	}
	status()
	_, data, _ = c.do("POST", "/nodes/pve1/qemu/120/status/start", nil)
	c.wait("pve1", data)
	if list, live := status(); list != "stopped" || live != "running" {
		t.Errorf("right after a start: list %s, live %s; want stopped (lagging) and running", list, live)
	}
	clock.Advance(10 * time.Second)
	if list, _ := status(); list != "running" {
		t.Errorf("after pvestatd's cycle: list %s; want running", list)
	}

	// Mixed address families, as pve-firewall refuses them.
	for _, f := range []url.Values{
		{"type": {"in"}, "action": {"ACCEPT"}, "proto": {"icmp"}, "source": {"2001:db8::/32"}},
		{"type": {"in"}, "action": {"ACCEPT"}, "proto": {"ipv6-icmp"}, "dest": {"10.0.0.1"}},
		{"type": {"in"}, "action": {"ACCEPT"}, "source": {"10.0.0.0/8"}, "dest": {"2001:db8::1"}},
	} {
		if code, _, _ := c.do("POST", "/nodes/pve1/qemu/120/firewall/rules", f); code != 400 {
			t.Errorf("%v: got %d; want 400", f, code)
		}
	}

	// PVE 8 keeps 70 points 30 minutes apart for a day, and no decade.
	s8 := New(Config{RRDLayout: "pve8"})
	defer s8.Close()
	c8 := newClient(t, s8)
	_, data, _ = c8.do("GET", "/nodes/pve1/rrddata", url.Values{"timeframe": {"day"}})
	var pts []struct{ Time int64 }
	json.Unmarshal(data, &pts)
	if len(pts) != 70 || pts[1].Time-pts[0].Time != 1800 {
		t.Errorf("PVE 8 day: got %d points", len(pts))
	}
	if code, _, _ := c8.do("GET", "/nodes/pve1/rrddata", url.Values{"timeframe": {"decade"}}); code != 400 {
		t.Errorf("PVE 8 decade: got %d; want 400", code)
	}
}
