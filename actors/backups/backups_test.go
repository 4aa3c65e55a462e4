package backups

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// TestMain fails the tests if they leave a goroutine running.
func TestMain(m *testing.M) { kittest.Main(m) }

// newBackups returns the service over a store in t.TempDir(), stopped at cleanup.
func newBackups(t *testing.T) *Backups {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(func() {
		rt.Shutdown()
		store.Close()
	})
	return New(rt, sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 1}))
}

// Records written by their takers (Put) are read by id in their tenant's scope, listed
// by tenant, machine and schedule, counted, and removed (Del, Delete); a record of a
// schedule's from before origins were kept reads as a schedule's.
func TestBackupRecords(t *testing.T) {
	ctx := context.Background()
	b := newBackups(t)
	sched := "s1"
	recs := []*Backup{
		{ID: persistence.NewID(), BackupID: "local:backup/1", MachineID: "m1", TenantID: "T1", ScheduleID: &sched, CreatedAt: time.Now().UTC()},
		{ID: persistence.NewID(), BackupID: "local:backup/2", MachineID: "m2", TenantID: "T1", Origin: OriginOnDemand, CreatedAt: time.Now().UTC()},
		{ID: persistence.NewID(), BackupID: "local:backup/3", MachineID: "m3", TenantID: "T2", Origin: OriginOnDemand, CreatedAt: time.Now().UTC()},
	}
	batch := new(persistence.Batch)
	for _, r := range recs {
		if err := Put(batch, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.rt.Commit(batch); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ctx, recs[0].ID, kit.Ptr("T1")); err != nil || got.Origin != OriginSchedule || got.MachineID != "m1" {
		t.Fatalf("get: %+v, %v; want m1's backup, a schedule's", got, err)
	}
	if _, err := b.Get(ctx, recs[0].ID, kit.Ptr("T2")); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("another tenant's get: %v; want not found", err)
	}
	if l, _, err := b.List(ctx, kit.Ptr("T1"), "m2", "", 0); err != nil || len(l) != 1 || l[0].ID != recs[1].ID {
		t.Fatalf("list of m2: %+v, %v; want its one backup", l, err)
	}
	if n, err := b.Count(ctx, "T1", 0); err != nil || n != 2 {
		t.Fatalf("count: %d, %v; want 2", n, err)
	}
	if mine, err := b.OfSchedule(ctx, "T1", sched); err != nil || len(mine) != 1 || mine[0].ID != recs[0].ID {
		t.Fatalf("of the schedule: %+v, %v; want its one backup", mine, err)
	}
	del := new(persistence.Batch)
	Del(del, recs[0])
	if err := b.rt.Commit(del); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, recs[2].ID, nil); err != nil {
		t.Fatalf("delete of a backup the hypervisor lacks: %v; want its record gone", err)
	}
	for _, r := range []*Backup{recs[0], recs[2]} {
		if _, err := b.Get(ctx, r.ID, nil); !errors.Is(err, apierr.ErrNotFound) {
			t.Fatalf("backup %s: %v; want it gone", r.ID, err)
		}
	}
}
