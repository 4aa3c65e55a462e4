package locations

import (
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// t0 pins the simulated clusters' clocks.
var t0 = time.Date(2025, 3, 12, 10, 30, 15, 0, time.UTC)

// newSim is a fast simulated cluster on clk.
func newSim(clk *hypervisortest.Clock, cfg sim.Config) *sim.Driver {
	cfg.OpDelay = time.Millisecond
	cfg.Now = clk.Now
	return sim.New(cfg)
}

// TestConformance runs the drivers' shared behaviours through a dispatcher whose
// default location is a simulated cluster, beside another location with a cluster of
// its own: every call a caller makes with a ref that names no location reaches the
// default one, and nothing of the other location leaks into its answers.
func TestConformance(t *testing.T) {
	hypervisortest.Conformance(t, func(t *testing.T) hypervisortest.Subject {
		clk := hypervisortest.NewClock(t0)
		def := newSim(clk, sim.Config{})
		d := New(def)
		d.Set("fra", newSim(clk, sim.Config{Seed: 2, Nodes: 1}))
		return hypervisortest.Subject{
			Driver: d.Driver(),
			Clock:  clk,
			SetNodeOnline: func(node string, online bool) error {
				status := hypervisor.NodeOffline
				if online {
					status = hypervisor.NodeOnline
				}
				return def.SetNodeStatus(node, status)
			},
			Rules: def.Firewall,
			AddHeadless: func() (int, error) {
				hm, err := def.AddMachine(hypervisor.Machine{State: hypervisor.StateRunning, Headless: true}, time.Time{})
				return hm.VMID, err
			},
		}
	}, hypervisortest.Options{
		Template:       "tpl-debian-12",
		OtherTemplate:  "tpl-rocky-9",
		DefaultStorage: sim.DefaultStorage,
		OtherStorage:   "ceph",
	})
}
