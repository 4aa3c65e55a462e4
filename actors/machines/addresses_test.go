package machines

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// TestRemovedMachineReleasesItsAddresses: a machine the hypervisor no longer has hands
// its pool addresses to ReleaseAddresses in the batch that deletes its record (as a
// destroyed one does: app's TestIPPoolAllocationOnCreate); one without addresses asks
// for nothing.
func TestRemovedMachineReleasesItsAddresses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type call struct {
		machine    string
		addrs      []hypervisor.Address
		withDelete bool
	}
	var mu sync.Mutex
	var calls []call
	s := newTestSystem(t, func(o *testOptions) {
		o.ReleaseAddresses = func(_ context.Context, b *persistence.Batch, machine string, addrs []hypervisor.Address) error {
			del := slices.ContainsFunc(b.Ops, func(op persistence.Op) bool { return op.Delete && bytes.Equal(op.Key, machineKey(machine)) })
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, call{machine, addrs, del})
			return nil
		}
	})
	addrs := []hypervisor.Address{{Address: "192.0.2.9", Prefix: 24, Gateway: "192.0.2.1", Version: 4, Pool: "p"}}
	b := new(persistence.Batch)
	if err := Seed(b, Machine{ID: "gone", VMID: 150, Name: "gone", Status: StatusRunning, Addresses: addrs}); err != nil {
		t.Fatal(err)
	}
	if err := Seed(b, Machine{ID: "plain", VMID: 151, Name: "plain", Status: StatusRunning}); err != nil {
		t.Fatal(err)
	}
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"gone", "plain"} {
		r, err := kit.Ask[capacity.Changed](ctx, s.Machines.kind, id, &vanish{At: time.Now().UTC()})
		if err != nil || !r.Changed {
			t.Fatalf("vanish %s: %+v %v; want removed", id, r, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0].machine != "gone" || !slices.Equal(calls[0].addrs, addrs) || !calls[0].withDelete {
		t.Fatalf("releases: got %+v; want one for gone, with its addresses, in the batch deleting its record", calls)
	}
}
