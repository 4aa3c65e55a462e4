package inventory

import (
	"context"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// TestSyncReadsTheDefaultLocation: over a dispatcher with another location, which has
// machines of the same vmids and then stops answering, the sync reconciles the default
// location's machines alone, and keeps doing so while the other one is down.
func TestSyncReadsTheDefaultLocation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	other := sim.New(sim.Config{OpDelay: -1, Seed: 2, Nodes: 1, Machines: 3})
	disp := hvloc.New(sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 2, Machines: 2}))
	disp.Set("fra", other)
	s := newTestSystem(t, disp.Driver())
	res, err := s.Inventory.Sync(ctx)
	if err != nil || res.Nodes != 2 || res.Machines.Added != 2 {
		t.Fatalf("sync: %+v, %v; want the default location's 2 nodes and 2 machines", res, err)
	}
	other.SetAvailable(false)
	res, err = s.Inventory.Sync(ctx)
	if err != nil || res.Machines.Removed != 0 || res.Machines.Added != 0 {
		t.Fatalf("sync with fra down: %+v, %v; want it to succeed, changing nothing", res, err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 2 {
		t.Fatalf("machines: %d, %v; want the default location's 2", len(ms), err)
	}
	for _, m := range ms {
		if _, err := disp.Machine(ctx, hypervisor.Ref{VMID: m.VMID}); err != nil {
			t.Errorf("machine %s (vmid %d): not the default location's: %v", m.ID, m.VMID, err)
		}
	}
}
