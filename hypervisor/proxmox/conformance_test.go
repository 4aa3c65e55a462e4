package proxmox

import (
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// TestConformance runs the behaviours every driver shares against the Proxmox driver
// over the fake Proxmox. Its templates 9000 and 9001 are on shared storage (cephpool),
// so they clone to any node, as the suite needs.
func TestConformance(t *testing.T) {
	// The package's longest test: parallel, so that it overlaps the other long one
	// (each on fakes of its own) instead of adding to it.
	t.Parallel()
	fakes := map[hypervisor.Driver]*pvefake.Server{} // each subject's fake, for PowerSpy
	hypervisortest.Conformance(t, func(t *testing.T) hypervisortest.Subject {
		clk := hypervisortest.NewClock(time.Date(2025, 3, 12, 10, 30, 15, 0, time.UTC))
		d, f := newTest(t, pvefake.Config{Now: clk.Now})
		fakes[d] = f
		return hypervisortest.Subject{
			Driver:        d,
			Clock:         clk,
			SetNodeOnline: f.SetNodeOnline,
			Rules:         func(vmid int) []hypervisor.FirewallRule { return ourRules(f.FirewallRules(vmid)) },
			Peer:          newDriver(t, f),
			AddHeadless: func() (int, error) {
				return f.AddVM(pvefake.VMSpec{Status: "running", Config: map[string]string{"vga": "serial0", "serial0": "socket"}})
			},
		}
	}, hypervisortest.Options{
		Template:       "tpl-9000",
		OtherTemplate:  "tpl-9001",
		DefaultStorage: "local-lvm",
		OtherStorage:   "cephpool",
		// A forbidden action never reaches Proxmox: the driver checks the shared
		// state machine first.
		PowerSpy: func(t *testing.T, s hypervisortest.Subject, vmid int) func(hypervisor.State, hypervisor.PowerAction, bool) {
			f := fakes[s.Driver]
			node, _, _, _ := f.VM(vmid)
			f.ResetRequests()
			return func(from hypervisor.State, action hypervisor.PowerAction, allowed bool) {
				n := f.Count("POST", "/nodes/"+node+"/qemu/"+itoa(vmid)+"/status/"+string(action))
				if want := map[bool]int{true: 1, false: 0}[allowed]; n != want {
					t.Errorf("%s from %s: Proxmox saw %d POSTs of it; want %d", action, from, n, want)
				}
			}
		},
	})
}

// ourRules translates the fake's rules (Proxmox's fields) back to the driver's model:
// the inverse of pveconf.SpecOf.
func ourRules(pve []map[string]string) []hypervisor.FirewallRule {
	out := make([]hypervisor.FirewallRule, 0, len(pve))
	for _, r := range pve {
		proto := r["proto"]
		if proto == "" {
			proto = hypervisor.ProtocolAny
		}
		out = append(out, hypervisor.FirewallRule{
			Direction: r["type"], Action: strings.ToLower(r["action"]), Protocol: proto, Port: r["dport"],
			Source: r["source"], Destination: r["dest"], Enabled: r["enable"] == "1", Comment: r["comment"],
		})
	}
	return out
}
