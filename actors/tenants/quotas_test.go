package tenants

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// A tenant's quotas of backups and snapshots bound what its machines take on demand
// (409 quota_exceeded one past them), its usage shows the counts, a new tenant has
// them unlimited, and a tenant record written before they existed reads unlimited.
func TestBackupAndSnapshotQuotasOfATenant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) { o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1}) })
	if _, err := s.Inventory.Sync(ctx); err != nil { // the templates
		t.Fatal(err)
	}
	free, err := s.Tenants.Create(ctx, "free", nil)
	if err != nil || free.Quota.Backups != Unlimited || free.Quota.Snapshots != Unlimited {
		t.Fatalf("got %+v, %v; want backups and snapshots unlimited by default", free.Quota, err)
	}
	ten, err := s.Tenants.Create(ctx, "bounded", &QuotaChange{Backups: kit.Ptr(1), Snapshots: kit.Ptr(0)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "vm", TemplateID: "tpl-debian-12", CPUCores: 1, MemoryMB: 512, DiskGB: 20})
	if err != nil {
		t.Fatal(err)
	}
	if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("create: got %+v, %v", task, err)
	}
	task, err := s.Machines.BackupNow(ctx, p.Machine.ID, &ten.ID, machines.BackupRequest{Note: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("backup: got %+v, %v", got, err)
	}
	if _, err := s.Machines.BackupNow(ctx, p.Machine.ID, &ten.ID, machines.BackupRequest{}); !errors.Is(err, apierr.ErrQuotaExceeded) {
		t.Fatalf("a second backup: got %v; want quota_exceeded", err)
	}
	if _, err := s.Machines.CreateSnapshot(ctx, p.Machine.ID, nil, machines.SnapshotRequest{Name: "s1"}); !errors.Is(err, apierr.ErrQuotaExceeded) {
		t.Fatalf("a snapshot past a quota of 0: got %v; want quota_exceeded", err)
	}
	u, err := s.Tenants.Usage(ctx, ten.ID)
	if err != nil || u.Backups != 1 || u.Snapshots != 0 || u.Machines != 1 {
		t.Fatalf("got usage %+v, %v; want 1 machine, 1 backup, no snapshot", u, err)
	}

	// A record of the release before: no backups or snapshots in its quota.
	old := []byte(`{"id":"OLD","name":"old","quota":{"machines":1,"cpu_cores":1,"memory_mb":512,"disk_gb":10},"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`)
	val := append([]byte{0, 1}, old...)
	if err := s.store.Commit(ctx, new(persistence.Batch).Put(persistence.Key("tenant", "OLD"), val)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Tenants.Get(ctx, "OLD")
	if err != nil || got.Quota.Backups != Unlimited || got.Quota.Snapshots != Unlimited || got.Quota.Machines != 1 {
		t.Fatalf("got %+v, %v; want the old record's limits and backups, snapshots unlimited", got.Quota, err)
	}
}
