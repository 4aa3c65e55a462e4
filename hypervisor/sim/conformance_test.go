package sim

import (
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
)

// TestConformance runs the behaviours every driver shares against the sim.
func TestConformance(t *testing.T) {
	hypervisortest.Conformance(t, func(t *testing.T) hypervisortest.Subject {
		d, clk := newTest(t, Config{})
		return hypervisortest.Subject{
			Driver: d,
			Clock:  clk,
			SetNodeOnline: func(node string, online bool) error {
				status := hypervisor.NodeOffline
				if online {
					status = hypervisor.NodeOnline
				}
				return d.SetNodeStatus(node, status)
			},
			Rules: d.Firewall,
		}
	}, hypervisortest.Options{
		Template:       "tpl-debian-12",
		OtherTemplate:  "tpl-rocky-9",
		DefaultStorage: DefaultStorage,
		OtherStorage:   "ceph",
	})
}
