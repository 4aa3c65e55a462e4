package machines

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// onSim is a simulated cluster of one node and two machines whose operations are
// instant.
func onSim(*testing.T) hypervisor.Driver {
	return sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 2})
}

// onProxmox is the Proxmox driver on a fake Proxmox with two machines, polling its
// tasks every 2 ms.
func onProxmox(t *testing.T) hypervisor.Driver {
	f := pvefake.New(pvefake.Config{})
	t.Cleanup(f.Close)
	for _, spec := range []pvefake.VMSpec{
		{VMID: 100, Node: "pve1", Name: "web-1", Status: "running", Cores: 2, MemoryMB: 2048, DiskGB: 20},
		{VMID: 101, Node: "pve1", Name: "db-1", Status: "stopped", Cores: 1, MemoryMB: 1024, DiskGB: 10},
	} {
		if _, err := f.AddVM(spec); err != nil {
			t.Fatal(err)
		}
	}
	d, err := proxmox.New(proxmox.Config{URL: f.URL(), TokenID: f.TokenID(), TokenSecret: f.TokenSecret(),
		Fingerprint: f.Fingerprint(), RequestTimeout: 10 * time.Second, TaskPollInterval: 2 * time.Millisecond,
		DefaultStorage: "local-lvm", DefaultBridge: "vmbr0", BackupStorage: "local"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// drivers are the hypervisors the machine operations' round trips run on.
var drivers = []struct {
	name string
	new  func(*testing.T) hypervisor.Driver
}{{"sim", onSim}, {"proxmox", onProxmox}}

// tenantMachine is a synced machine of tenant "T1", on a sim whose operations are
// instant, with the given quotas (nil: unlimited) and driver around the sim (nil: none).
func tenantMachine(t *testing.T, ctx context.Context, lim *Limits, wrap func(hypervisor.Driver) hypervisor.Driver) (*testSystem, Machine) {
	t.Helper()
	return tenantMachineOn(t, ctx, onSim(t), lim, wrap)
}

// tenantMachineOn is tenantMachine on driver d.
func tenantMachineOn(t *testing.T, ctx context.Context, d hypervisor.Driver, lim *Limits, wrap func(hypervisor.Driver) hypervisor.Driver, more ...func(*testOptions)) (*testSystem, Machine) {
	t.Helper()
	s := newTestSystem(t, append(more, func(o *testOptions) {
		o.Driver = d
		if wrap != nil {
			o.Driver = wrap(o.Driver)
		}
		if lim != nil {
			o.Limits = func(context.Context, string) (Limits, error) { return *lim, nil }
		}
	})...)
	res, err := s.adopt(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 2 {
		t.Fatalf("got %d machines (sync %+v), %v; want 2", len(ms), res, err)
	}
	for _, m := range ms {
		if _, err := s.Machines.Assign(ctx, m.ID, kit.Ptr("T1")); err != nil {
			t.Fatal(err)
		}
	}
	m, err := s.Machines.Get(ctx, ms[0].ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

// ended waits for a task started with err and wants it to end as want.
func ended(t *testing.T, ctx context.Context, s *testSystem, task tasks.Task, err error, want string) tasks.Task {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Tasks.Wait(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != want {
		t.Fatalf("task %s: got %s (%v); want %s", got.Type, got.Status, got.Error, want)
	}
	return *got
}

// setPower brings a machine to a state through its tasks.
func setPower(t *testing.T, ctx context.Context, s *testSystem, id string, a hypervisor.PowerAction) {
	t.Helper()
	task, err := s.Machines.Start(ctx, id, Operation{Type: OpPower, Action: a}, nil)
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
}

// A snapshot is taken, listed, rolled back to and deleted as tasks of the machine,
// each of its type; the rollback brings back the sizes the snapshot saw and the
// record follows the hypervisor's answer (a disk-only snapshot leaves the machine
// stopped); the tenant's snapshot count follows every step.
func TestSnapshotLifecycle(t *testing.T) {
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) { snapshotLifecycle(t, d.new(t)) })
	}
}

func snapshotLifecycle(t *testing.T, d hypervisor.Driver) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, m := tenantMachineOn(t, ctx, d, nil, nil)
	if m.Status != StatusRunning {
		setPower(t, ctx, s, m.ID, hypervisor.ActionStart)
	}
	task, err := s.Machines.CreateSnapshot(ctx, m.ID, kit.Ptr("T1"), SnapshotRequest{Name: "before", Description: "as it was"})
	if task.Type != "vm.snapshot" {
		t.Fatalf("got task type %q; want vm.snapshot", task.Type)
	}
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	list, err := s.Machines.Snapshots(ctx, m.ID, kit.Ptr("T1"))
	if err != nil || len(list) != 1 || list[0].Name != "before" || list[0].Description != "as it was" {
		t.Fatalf("got %+v, %v; want the snapshot before", list, err)
	}
	if n, err := s.Machines.TenantSnapshots(ctx, "T1"); err != nil || n != 1 {
		t.Fatalf("tenant holds %d snapshots (%v); want 1", n, err)
	}
	cores := m.CPUCores + 1
	task, err = s.Machines.Start(ctx, m.ID, Operation{Type: OpConfig, Config: &hypervisor.ConfigChange{CPUCores: &cores}}, nil)
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)

	task, err = s.Machines.RollbackSnapshot(ctx, m.ID, kit.Ptr("T1"), "before")
	if task.Type != "vm.snapshot_rollback" {
		t.Fatalf("got task type %q; want vm.snapshot_rollback", task.Type)
	}
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	got, err := s.Machines.Get(ctx, m.ID, nil)
	if err != nil || got.CPUCores != m.CPUCores || got.Status != StatusStopped {
		t.Fatalf("after the rollback: got %d cores, %s (%v); want %d cores, stopped", got.CPUCores, got.Status, err, m.CPUCores)
	}

	task, err = s.Machines.DeleteSnapshot(ctx, m.ID, kit.Ptr("T1"), "before")
	if task.Type != "vm.snapshot_delete" {
		t.Fatalf("got task type %q; want vm.snapshot_delete", task.Type)
	}
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	if list, err := s.Machines.Snapshots(ctx, m.ID, nil); err != nil || len(list) != 0 {
		t.Fatalf("got %+v, %v; want no snapshot left", list, err)
	}
	if n, err := s.Machines.TenantSnapshots(ctx, "T1"); err != nil || n != 0 {
		t.Fatalf("tenant holds %d snapshots (%v); want 0", n, err)
	}
}

// heldDriver holds every snapshot on the hypervisor until release is closed, so that
// the machine has a task in flight.
type heldDriver struct {
	hypervisor.Driver
	release chan struct{}
}

func (d *heldDriver) CreateSnapshot(ctx context.Context, ref hypervisor.Ref, spec hypervisor.SnapshotSpec) (hypervisor.Snapshot, error) {
	select {
	case <-d.release:
	case <-ctx.Done():
		return hypervisor.Snapshot{}, ctx.Err()
	}
	return d.Driver.CreateSnapshot(ctx, ref, spec)
}

// What a snapshot request is refused for, each before a task starts: another
// tenant's machine (404), a name no snapshot can have (400, or 404 for one to roll
// back to), memory of a stopped machine (400, the driver's check), a suspended
// machine (409 invalid_state naming the state), a snapshot the machine lacks (404)
// or a name it has already (409), a busy machine (409 naming its task).
func TestSnapshotRefusals(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	held := &heldDriver{release: make(chan struct{})}
	s, m := tenantMachine(t, ctx, nil, func(d hypervisor.Driver) hypervisor.Driver { held.Driver = d; return held })
	defer close(held.release)
	f := func(what string, err error, want error, wantIn string) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Fatalf("%s: got %v; want %v", what, err, want)
		}
		if wantIn != "" && !strings.Contains(err.Error(), wantIn) {
			t.Fatalf("%s: got %q; want it to say %q", what, err.Error(), wantIn)
		}
	}
	_, err := s.Machines.Snapshots(ctx, m.ID, kit.Ptr("T2"))
	f("list as another tenant", err, apierr.ErrNotFound, "")
	_, err = s.Machines.CreateSnapshot(ctx, m.ID, kit.Ptr("T2"), SnapshotRequest{Name: "x"})
	f("create as another tenant", err, apierr.ErrNotFound, "")
	_, err = s.Machines.CreateSnapshot(ctx, m.ID, nil, SnapshotRequest{Name: "1bad name"})
	f("bad name", err, apierr.ErrInvalidRequest, "name")
	_, err = s.Machines.RollbackSnapshot(ctx, m.ID, nil, "no such/name")
	f("rollback to an impossible name", err, apierr.ErrNotFound, "")

	if m.Status != StatusStopped {
		setPower(t, ctx, s, m.ID, hypervisor.ActionStop)
	}
	_, err = s.Machines.CreateSnapshot(ctx, m.ID, nil, SnapshotRequest{Name: "mem", IncludeMemory: true})
	f("memory of a stopped machine", err, hypervisor.ErrMemoryNotRunning, "stopped")

	setPower(t, ctx, s, m.ID, hypervisor.ActionStart)
	setPower(t, ctx, s, m.ID, hypervisor.ActionSuspend)
	_, err = s.Machines.CreateSnapshot(ctx, m.ID, nil, SnapshotRequest{Name: "s1"})
	f("suspended", err, apierr.ErrInvalidState, "suspended")
	_, err = s.Machines.Restore(ctx, m.ID, nil, RestoreRequest{BackupID: "nope"})
	f("restore of an unknown backup", err, apierr.ErrNotFound, "")
	setPower(t, ctx, s, m.ID, hypervisor.ActionResume)

	_, err = s.Machines.RollbackSnapshot(ctx, m.ID, nil, "never")
	f("rollback to a snapshot the machine lacks", err, hypervisor.ErrSnapshotNotFound, "never")
	_, err = s.Machines.DeleteSnapshot(ctx, m.ID, nil, "never")
	f("delete of a snapshot the machine lacks", err, hypervisor.ErrSnapshotNotFound, "never")
	if _, err := held.Driver.CreateSnapshot(ctx, hypervisor.Ref{VMID: m.VMID, Node: m.Node}, hypervisor.SnapshotSpec{Name: "taken"}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Machines.CreateSnapshot(ctx, m.ID, nil, SnapshotRequest{Name: "taken"})
	f("a name taken already", err, hypervisor.ErrSnapshotExists, "taken")
	if got, err := s.Machines.Get(ctx, m.ID, nil); err != nil || got.TaskID != nil {
		t.Fatalf("got task %v, %v; want no task started by the refusals", got.TaskID, err)
	}

	holder, err := s.Machines.CreateSnapshot(ctx, m.ID, nil, SnapshotRequest{Name: "held"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Machines.CreateSnapshot(ctx, m.ID, nil, SnapshotRequest{Name: "other"})
	f("busy", err, apierr.ErrOperationInProgress, holder.ID)
	if got, err := s.Machines.Get(ctx, m.ID, nil); err != nil || got.TaskID == nil || *got.TaskID != holder.ID {
		t.Fatalf("got %+v, %v; want the machine held by %s only", got.TaskID, err, holder.ID)
	}
}

// A backup taken on demand is recorded by its task's end (origin on_demand, its
// note), and restoring it over the machine brings back what the machine was when it
// was taken: the running machine is stopped, restored, and started again when asked.
// Another machine's backup, or another tenant's, is not found under this machine.
func TestBackupOnDemandAndRestore(t *testing.T) {
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) { backupOnDemandAndRestore(t, d.new(t)) })
	}
}

func backupOnDemandAndRestore(t *testing.T, d hypervisor.Driver) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, m := tenantMachineOn(t, ctx, d, nil, nil)
	task, err := s.Machines.BackupNow(ctx, m.ID, kit.Ptr("T1"), BackupRequest{Note: "before the upgrade"})
	if task.Type != "vm.backup" {
		t.Fatalf("got task type %q; want vm.backup", task.Type)
	}
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	list, _, err := s.Backups.OfMachineNewest(ctx, m.ID, kit.Ptr("T1"), "", 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("got %+v, %v; want one backup", list, err)
	}
	b := list[0]
	if b.ID != task.ID || b.Origin != backups.OriginOnDemand || b.Note != "before the upgrade" || b.ScheduleID != nil || b.Mode != "snapshot" {
		t.Fatalf("got %+v; want the task's on-demand backup with its note, mode snapshot", b)
	}
	if _, _, err := s.Backups.OfMachineNewest(ctx, m.ID, kit.Ptr("T2"), "", 0); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("another tenant's list: got %v; want not found", err)
	}

	if m.Status != StatusRunning {
		setPower(t, ctx, s, m.ID, hypervisor.ActionStart)
	}
	cores := m.CPUCores + 1
	task, err = s.Machines.Start(ctx, m.ID, Operation{Type: OpConfig, Config: &hypervisor.ConfigChange{CPUCores: &cores}}, nil)
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)

	ms, _, _ := s.Machines.List(ctx, "", 0, func(x *Machine) bool { return x.ID != m.ID })
	if _, err := s.Machines.Restore(ctx, ms[0].ID, kit.Ptr("T1"), RestoreRequest{BackupID: b.ID}); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("another machine's backup: got %v; want not found", err)
	}
	if _, err := s.Machines.Restore(ctx, m.ID, kit.Ptr("T2"), RestoreRequest{BackupID: b.ID}); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("as another tenant: got %v; want not found", err)
	}

	if _, err := s.Machines.Start(ctx, m.ID, Operation{Type: OpRestore, BackupID: b.ID, Archive: b.BackupID}, nil); err == nil {
		t.Fatal("a restore started as a bare operation, without the check of its backup")
	}
	task, err = s.Machines.Restore(ctx, m.ID, kit.Ptr("T1"), RestoreRequest{BackupID: b.ID, StartAfter: true})
	if task.Type != "vm.restore" {
		t.Fatalf("got task type %q; want vm.restore", task.Type)
	}
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	got, err := s.Machines.Get(ctx, m.ID, nil)
	if err != nil || got.CPUCores != m.CPUCores || got.Status != StatusRunning {
		t.Fatalf("after the restore: got %d cores, %s (%v); want %d cores, running", got.CPUCores, got.Status, err, m.CPUCores)
	}
	hm, err := s.driver.Machine(ctx, hypervisor.Ref{VMID: got.VMID, Node: got.Node})
	if err != nil || hm.CPUCores != m.CPUCores || hm.State != hypervisor.StateRunning {
		t.Fatalf("the hypervisor has %d cores, %s (%v); want %d, running", hm.CPUCores, hm.State, err, m.CPUCores)
	}

	task, err = s.Machines.Restore(ctx, m.ID, kit.Ptr("T1"), RestoreRequest{BackupID: b.ID})
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	if got, err := s.Machines.Get(ctx, m.ID, nil); err != nil || got.Status != StatusStopped {
		t.Fatalf("after a restore without start_after: got %s (%v); want stopped", got.Status, err)
	}
}

// A machine's backups list newest first, and pages so.
func TestBackupsNewestFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, m := tenantMachine(t, ctx, nil, nil)
	var ids []string
	for range 3 {
		task, err := s.Machines.BackupNow(ctx, m.ID, nil, BackupRequest{Mode: "stop"})
		ids = append(ids, ended(t, ctx, s, task, err, tasks.TaskSucceeded).ID)
	}
	page, next, err := s.Backups.OfMachineNewest(ctx, m.ID, nil, "", 2)
	if err != nil || len(page) != 2 || page[0].ID != ids[2] || page[1].ID != ids[1] || next != ids[1] {
		t.Fatalf("got %+v, %q, %v; want %s, %s then a cursor", page, next, err, ids[2], ids[1])
	}
	page, next, err = s.Backups.OfMachineNewest(ctx, m.ID, nil, next, 2)
	if err != nil || len(page) != 1 || page[0].ID != ids[0] || next != "" {
		t.Fatalf("got %+v, %q, %v; want %s and no cursor", page, next, err, ids[0])
	}
}

// A tenant's backups and snapshots are bounded by its quota, counted over all its
// machines: one past it is 409 quota_exceeded naming the field; unlimited is no bound.
func TestBackupAndSnapshotQuotas(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lim := &Limits{Backups: 1, Snapshots: 1, BackupGB: Unlimited}
	s, m := tenantMachine(t, ctx, lim, nil)
	ms, _, _ := s.Machines.List(ctx, "", 0, func(x *Machine) bool { return x.ID != m.ID })
	other := ms[0].ID
	task, err := s.Machines.BackupNow(ctx, m.ID, kit.Ptr("T1"), BackupRequest{})
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	if _, err := s.Machines.BackupNow(ctx, other, kit.Ptr("T1"), BackupRequest{}); !errors.Is(err, apierr.ErrQuotaExceeded) || !strings.Contains(err.Error(), "backups") {
		t.Fatalf("a second backup: got %v; want quota_exceeded for backups", err)
	}
	task, err = s.Machines.CreateSnapshot(ctx, m.ID, kit.Ptr("T1"), SnapshotRequest{Name: "one"})
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	if _, err := s.Machines.CreateSnapshot(ctx, other, nil, SnapshotRequest{Name: "two"}); !errors.Is(err, apierr.ErrQuotaExceeded) || !strings.Contains(err.Error(), "snapshots") {
		t.Fatalf("a second snapshot: got %v; want quota_exceeded for snapshots", err)
	}
	*lim = Limits{Backups: Unlimited, Snapshots: Unlimited, BackupGB: Unlimited}
	task, err = s.Machines.CreateSnapshot(ctx, other, nil, SnapshotRequest{Name: "two"})
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
	task, err = s.Machines.BackupNow(ctx, other, nil, BackupRequest{})
	ended(t, ctx, s, task, err, tasks.TaskSucceeded)
}

// blindDriver fails the first read of a machine after a backup, as a hypervisor that
// stops answering just after it took one.
type blindDriver struct {
	hypervisor.Driver
	blind atomic.Bool
}

func (d *blindDriver) Backup(ctx context.Context, ref hypervisor.Ref, mode hypervisor.BackupMode) (hypervisor.Backup, error) {
	b, err := d.Driver.Backup(ctx, ref, mode)
	d.blind.Store(err == nil)
	return b, err
}

func (d *blindDriver) Machine(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	if d.blind.CompareAndSwap(true, false) {
		return hypervisor.Machine{}, apierr.New(apierr.ErrUnavailable, "the hypervisor did not answer")
	}
	return d.Driver.Machine(ctx, ref)
}

// A backup on demand whose task fails after the backup was taken (the machine could
// not be read afterwards) is still recorded: the backup exists and is the tenant's.
func TestBackupOnDemandKeptWhenItsTaskFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, m := tenantMachine(t, ctx, nil, func(d hypervisor.Driver) hypervisor.Driver { return &blindDriver{Driver: d} })
	task, err := s.Machines.BackupNow(ctx, m.ID, nil, BackupRequest{Note: "kept"})
	ended(t, ctx, s, task, err, tasks.TaskFailed)
	list, _, err := s.Backups.OfMachineNewest(ctx, m.ID, nil, "", 0)
	if err != nil || len(list) != 1 || list[0].Note != "kept" || list[0].ID != task.ID {
		t.Fatalf("got %+v, %v; want the backup the failed task took, on record", list, err)
	}
}
