package machines

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// A store written before the tenant index carried each machine's sizes has empty index
// values: holdings reads those machines from their records, next to the ones whose
// entries carry their sizes.
func TestHoldingsReadIndexEntriesWithoutSizes(t *testing.T) {
	s := newTestSystem(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tenant := "T"
	put := func(r *record, index []byte) {
		t.Helper()
		val, err := persistence.Encode(recordVersion, r)
		if err != nil {
			t.Fatal(err)
		}
		b := new(persistence.Batch).Put(machineKey(r.ID), val).Put(tenantKey(tenant, r.ID), index)
		if err := s.store.Commit(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	old := &record{Machine: Machine{ID: persistence.NewID(), Name: "old", TenantID: &tenant, CPUCores: 2, MemoryMB: 1024, DiskGB: 20}}
	put(old, nil)
	fresh := &record{Machine: Machine{ID: persistence.NewID(), Name: "new", TenantID: &tenant, CPUCores: 3, MemoryMB: 2048, DiskGB: 30}}
	put(fresh, tenantIndexValue(fresh))
	got, err := holdings(ctx, s.store, tenant)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Holding{old.ID: {CPUCores: 2, MemoryMB: 1024, DiskGB: 20}, fresh.ID: {CPUCores: 3, MemoryMB: 2048, DiskGB: 30}}
	if len(got) != len(want) || got[old.ID] != want[old.ID] || got[fresh.ID] != want[fresh.ID] {
		t.Fatalf("got holdings %+v; want %+v", got, want)
	}
	if has, err := s.Machines.HasMachines(ctx, tenant); err != nil || !has {
		t.Fatalf("HasMachines(%s) = %v, %v; want true", tenant, has, err)
	}
	if has, err := s.Machines.HasMachines(ctx, "other"); err != nil || has {
		t.Fatalf("HasMachines(other) = %v, %v; want false", has, err)
	}
}

// AddCreate puts a machine's writes into its caller's batch and writes nothing itself:
// until the batch is committed the machine does not exist; after, it is stored
// provisioning, in its tenant's holdings and in the status reads.
func TestAddCreateWritesOnlyThroughTheBatch(t *testing.T) {
	s := newTestSystem(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b := new(persistence.Batch)
	c, err := s.Machines.AddCreate(ctx, b, "T", hypervisor.CreateSpec{Name: "web", TemplateID: "tpl", CPUCores: 2, MemoryMB: 512,
		DiskGB: 10, Password: "secret-pw"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Machines.Stored(ctx, c.Machine.ID); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("before the commit: %v; want not found", err)
	}
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	m, err := s.Machines.Stored(ctx, c.Machine.ID)
	if err != nil || m.Status != StatusProvisioning || m.TaskID == nil || *m.TaskID != c.Task.ID || m.TenantID == nil || *m.TenantID != "T" {
		t.Fatalf("stored %+v, %v; want provisioning in tenant T with task %s", m, err, c.Task.ID)
	}
	rec, err := persistence.Load[record](context.Background(), s.store, machineKey(c.Machine.ID))
	if err != nil || rec.Op == nil || rec.Op.Create == nil || rec.Op.Create.Password != "" {
		t.Fatalf("stored operation %+v, %v; want the create without its password", rec.Op, err)
	}
	h, err := holdings(ctx, s.store, "T")
	if want := (Holding{CPUCores: 2, MemoryMB: 512, DiskGB: 10, TaskID: c.Task.ID}); err != nil || h[c.Machine.ID] != want {
		t.Fatalf("holdings %+v, %v; want %+v", h, err, want)
	}
	in, err := s.Machines.InStatus(ctx, StatusProvisioning)
	if _, ok := in[c.Machine.ID]; err != nil || !ok {
		t.Fatalf("InStatus(provisioning) = %v, %v; want the new machine", in, err)
	}
}
