package inventory

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// Each sync hands the traffic counting the running machines' counters by machine id,
// from the inventory it read anyway; a machine adopted by this very sync is counted
// from the next one.
func TestSyncCountsTraffic(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 4})
	s := newTestSystem(t, d)
	var (
		mu    sync.Mutex
		calls []map[string]hypervisor.TrafficCounters
	)
	s.Inventory.traffic = func(_ context.Context, _ time.Time, cs map[string]hypervisor.TrafficCounters) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, cs)
		return nil
	}
	for range 2 {
		if _, err := s.Inventory.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	inv, err := d.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vmids, err := s.Machines.VMIDs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 {
		t.Fatalf("traffic recorded %d times; want once (the first sync knew no machine)", len(calls))
	}
	running := 0
	for vmid, id := range vmids.All() {
		got, ok := calls[0][id]
		want, running1 := inv.Traffic[vmid]
		if ok != running1 || (ok && (got.In == 0 || got.In > want.In)) {
			t.Errorf("machine %s (vmid %d): got %+v (listed %v); want the sim's counters (%+v, listed %v)", id, vmid, got, ok, want, running1)
		}
		if ok {
			running++
		}
	}
	if running == 0 {
		t.Error("no running machine counted")
	}
}
