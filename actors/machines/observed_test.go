package machines

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// Adoptions that overlap (two members' syncs, which the sync entity keeps from
// happening, or a sync and a create) record each vmid once: every adoption requires
// its vm-vmid key to be absent, and a batch refused for that is written again without
// the machines recorded meanwhile.
func TestAdoptRecordsEachVMIDOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 2, Machines: 40})
	})
	inv, err := s.driver.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const syncs = 4
	added, total := atOnce(syncs, func(i int) int {
		// Each overlapping sync adopts what it found, in another order.
		found := inv.Machines
		if i%2 == 1 {
			found = reversed(found)
		}
		n, err := s.Machines.Adopt(context.Background(), found)
		if err != nil {
			t.Error(err)
		}
		return n
	})
	records, indexed := countKeys(t, s.store, persistence.Prefix("vm")), countKeys(t, s.store, persistence.Prefix("vm-vmid"))
	if total != len(inv.Machines) || records != len(inv.Machines) || indexed != len(inv.Machines) {
		t.Fatalf("%d overlapping adoptions of %d machines added %v: %d records, %d vmids indexed; want each machine once",
			syncs, len(inv.Machines), added, records, indexed)
	}
}

// atOnce runs fn(0..n-1) on n goroutines at once and returns what each added, and
// their sum.
func atOnce(n int, fn func(i int) int) ([]int, int) {
	added := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			added[i] = fn(i)
		}()
	}
	wg.Wait()
	total := 0
	for _, a := range added {
		total += a
	}
	return added, total
}

func reversed[T any](s []T) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

// countKeys counts the keys under prefix.
func countKeys(t *testing.T, store persistence.Store, prefix []byte) int {
	t.Helper()
	n := 0
	if err := store.Scan(context.Background(), prefix, nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
