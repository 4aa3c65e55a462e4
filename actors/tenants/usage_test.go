package tenants

import (
	"context"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/persistence"
)

// A store written before the tenant index carried each machine's sizes has empty index
// values: the quota read counts those machines from their records, next to the ones
// whose entries carry their sizes.
func TestUsageCountsIndexEntriesWithoutSizes(t *testing.T) {
	s := newTestSystem(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ten, err := s.Tenants.Create(ctx, "Older", nil)
	if err != nil {
		t.Fatal(err)
	}
	put := func(r *machines.Record, index []byte) {
		t.Helper()
		val, err := persistence.Encode(machines.RecordVersion, r)
		if err != nil {
			t.Fatal(err)
		}
		b := new(persistence.Batch).Put(machines.Key(r.ID), val).Put(machines.TenantKey(ten.ID, r.ID), index)
		if err := s.store.Commit(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	old := &machines.Record{Machine: machines.Machine{ID: persistence.NewID(), Name: "old", TenantID: &ten.ID, CPUCores: 2, MemoryMB: 1024, DiskGB: 20}}
	put(old, nil)
	fresh := &machines.Record{Machine: machines.Machine{ID: persistence.NewID(), Name: "new", TenantID: &ten.ID, CPUCores: 3, MemoryMB: 2048, DiskGB: 30}}
	put(fresh, machines.TenantIndexValue(fresh))
	u, err := s.Tenants.Usage(ctx, ten.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Usage{Machines: 2, CPUCores: 5, MemoryMB: 3072, DiskGB: 50}); u != want {
		t.Fatalf("got usage %+v; want %+v", u, want)
	}
}
