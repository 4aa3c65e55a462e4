package sim

import (
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
)

// TestConformance runs the behaviours every driver shares against the sim.
func TestConformance(t *testing.T) {
	hypervisortest.Conformance(t, func(t *testing.T) hypervisortest.Subject {
		return subject(newTest(t, Config{}))
	}, conformanceOptions)
}

// subject is a sim driver with the hooks the conformance suite reaches behind it with.
func subject(d *Driver, clk *hypervisortest.Clock) hypervisortest.Subject {
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
		AddHeadless: func() (int, error) {
			hm, err := d.AddMachine(hypervisor.Machine{State: hypervisor.StateRunning, Headless: true}, time.Time{})
			return hm.VMID, err
		},
	}
}

// conformanceOptions name the sim's templates and storages.
var conformanceOptions = hypervisortest.Options{
	Template:       "tpl-debian-12",
	OtherTemplate:  "tpl-rocky-9",
	DefaultStorage: DefaultStorage,
	OtherStorage:   "ceph",
}
