package machines

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// What a tenant does to its own machine's state beyond power: snapshots (take, roll
// back, delete), backups on demand and restores over the machine. Each is a machine
// operation like any other (one task at a time, the state table of allowed), so a
// busy machine answers 409 operation_in_progress and a suspended one 409 invalid_state.

// SnapshotRequest asks for a new snapshot of a machine.
type SnapshotRequest struct {
	Name          string `json:"name" openapi:"required,limit=snapshot.name"`
	Description   string `json:"description,omitempty" openapi:"limit=snapshot.description"`
	IncludeMemory bool   `json:"include_memory,omitempty" doc:"save the memory of a running machine with the snapshot"`
}

// BackupRequest asks for a backup now, outside any schedule.
type BackupRequest struct {
	Mode string `json:"mode,omitempty" openapi:"enum=snapshot|suspend|stop" doc:"default snapshot"`
	Note string `json:"note,omitempty" openapi:"limit=backup.note"`
}

// RestoreRequest asks for a machine to be restored over itself from one of its backups.
type RestoreRequest struct {
	BackupID   string `json:"backup_id" openapi:"required,minLength=1,limit=id"`
	StartAfter bool   `json:"start_after,omitempty" doc:"start the machine once it is restored"`
}

// MaxBackupNoteLen bounds the note of a backup taken on demand.
const MaxBackupNoteLen = 256

// Limits are a tenant's quotas of backups and snapshots (counts, and the backups'
// sizes; Unlimited, -1, for none), as the tenants above hand them down through Deps.Limits.
type Limits struct {
	Backups   int `json:"backups"`
	Snapshots int `json:"snapshots"`
	// BackupGB bounds the sizes of the tenant's backups on record, in GB (Unlimited:
	// none). Snapshots have no size bound: Proxmox does not tell a snapshot's size.
	BackupGB int `json:"backup_gb"`
}

// Unlimited as a limit lets a tenant hold as many as it likes.
const Unlimited = -1

// Snapshots lists a machine's snapshots as the hypervisor has them, oldest first.
// With a tenant scope, another tenant's machine is not found.
func (m *Machines) Snapshots(ctx context.Context, id string, tenant *string) ([]hypervisor.Snapshot, error) {
	ref, err := m.Ref(ctx, id, tenant)
	if err != nil {
		return nil, err
	}
	if ref.Ref.VMID == 0 {
		return []hypervisor.Snapshot{}, nil // not provisioned: nothing on the hypervisor
	}
	list, err := m.sys.driver.Snapshots(ctx, ref.Ref)
	if list == nil && err == nil {
		list = []hypervisor.Snapshot{}
	}
	return list, err
}

// CreateSnapshot starts a task (vm.snapshot) that takes a snapshot of the machine. A
// snapshot with memory of a stopped machine is refused (400) before any task starts,
// and one past the tenant's snapshot quota is 409 quota_exceeded.
func (m *Machines) CreateSnapshot(ctx context.Context, id string, tenant *string, in SnapshotRequest) (tasks.Task, error) {
	spec := hypervisor.SnapshotSpec(in)
	return m.Start(ctx, id, Operation{Type: OpSnapshot, Snapshot: &spec}, tenant)
}

// RollbackSnapshot starts a task (vm.snapshot_rollback) that brings the machine back
// to the snapshot name; the record then shows the machine as the hypervisor left it.
func (m *Machines) RollbackSnapshot(ctx context.Context, id string, tenant *string, name string) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpSnapshotRollback, SnapshotName: name}, tenant)
}

// DeleteSnapshot starts a task (vm.snapshot_delete) that deletes the snapshot name.
func (m *Machines) DeleteSnapshot(ctx context.Context, id string, tenant *string, name string) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpSnapshotDelete, SnapshotName: name}, tenant)
}

// BackupNow starts a task (vm.backup) that backs the machine up now; its end writes
// the backup's record (origin on_demand, with the note). Nothing is pruned. A backup
// past the tenant's backup quota is 409 quota_exceeded.
func (m *Machines) BackupNow(ctx context.Context, id string, tenant *string, in BackupRequest) (tasks.Task, error) {
	mode := in.Mode
	if mode == "" {
		mode = string(hypervisor.BackupSnapshot)
	}
	return m.Start(ctx, id, Operation{Type: OpBackup, BackupMode: mode, OnDemand: true, Note: in.Note}, tenant)
}

// Restore starts a task (vm.restore) that restores the machine over itself from one
// of its backups: the machine is stopped first if it runs, restored, and started
// again when in.StartAfter says so. A backup of another machine, or of another
// tenant, is not found.
func (m *Machines) Restore(ctx context.Context, id string, tenant *string, in RestoreRequest) (tasks.Task, error) {
	if t, ok, err := kit.Recorded[tasks.Task](kit.StampOf(ctx)); ok {
		return t, err
	}
	ref, err := m.Ref(ctx, id, tenant)
	if err != nil {
		return tasks.Task{}, err
	}
	b, err := m.sys.Backups.Find(ctx, in.BackupID, tenant)
	if err != nil {
		return tasks.Task{}, err
	}
	if b.MachineID != ref.ID {
		// Under the machine's path, another machine's backup does not exist.
		return tasks.Task{}, apierr.NotFound("backup", in.BackupID)
	}
	return m.start(ctx, id, Operation{Type: OpRestore, BackupID: b.ID, Archive: b.BackupID, StartAfter: in.StartAfter}, tenant)
}

// validateMachineOp checks the parameters of the operations of this file (validate
// calls it for them).
func validateMachineOp(op Operation) error {
	switch op.Type {
	case OpSnapshot:
		if op.Snapshot == nil {
			return apierr.Invalid(apierr.Field("name", "is required"))
		}
		return hypervisor.CheckSnapshot(*op.Snapshot)
	case OpSnapshotRollback, OpSnapshotDelete:
		if !hypervisor.ValidSnapshotName(op.SnapshotName) {
			// No snapshot can have that name: the one asked for does not exist.
			return apierr.NotFound("snapshot", op.SnapshotName)
		}
	case OpRestore:
		if op.BackupID == "" || op.Archive == "" {
			return apierr.Invalid(apierr.Field("backup_id", "is required"))
		}
	case OpBackup:
		if err := validateBackupOp(op); err != nil {
			return err
		}
		if len(op.Note) > MaxBackupNoteLen {
			return apierr.Invalid(apierr.Field("note", "must be at most %d bytes", MaxBackupNoteLen))
		}
	}
	return nil
}

// checkMachineOp checks an operation of this file against the machine as its record
// stands, after the state table: a snapshot with memory needs memory to save, which a
// stopped machine has not (the driver's own check, made before a task starts).
func checkMachineOp(op Operation, m *Machine) error {
	if op.Type == OpSnapshot && op.Snapshot != nil && op.Snapshot.IncludeMemory && m.Status == StatusStopped {
		return hypervisor.NewError(hypervisor.ErrMemoryNotRunning, "machine %s is stopped: a snapshot of it cannot hold memory", m.ID)
	}
	return nil
}

// precheckSnapshot answers, before a task starts, what the hypervisor would refuse
// of a snapshot operation by its list: a name taken already (409 snapshot_exists), a
// rollback or delete of a snapshot the machine lacks (404 snapshot_not_found). A
// snapshot made or deleted between this read and the task fails the task instead.
func (m *Machines) precheckSnapshot(ctx context.Context, ref hypervisor.Ref, op Operation) error {
	if ref.VMID == 0 || !(op.Type == OpSnapshot || op.Type == OpSnapshotRollback || op.Type == OpSnapshotDelete) {
		return nil
	}
	list, err := m.sys.driver.Snapshots(ctx, ref)
	if err != nil {
		return err
	}
	name := op.SnapshotName
	if op.Type == OpSnapshot {
		name = op.Snapshot.Name
	}
	exists := slices.ContainsFunc(list, func(s hypervisor.Snapshot) bool { return s.Name == name })
	switch {
	case op.Type == OpSnapshot && exists:
		return hypervisor.NewError(hypervisor.ErrSnapshotExists, "the machine has a snapshot %q already", name)
	case op.Type != OpSnapshot && !exists:
		return hypervisor.NewError(hypervisor.ErrSnapshotNotFound, "the machine has no snapshot %q", name)
	}
	return nil
}

// touchesSnapshots reports whether an operation may change the machine's snapshots,
// so that its end counts them again (a restore drops them on Proxmox).
func touchesSnapshots(op Operation) bool {
	switch op.Type {
	case OpSnapshot, OpSnapshotDelete, OpSnapshotRollback, OpRestore:
		return true
	}
	return false
}

// executeMachineOp performs the operations of this file on the driver.
func executeMachineOp(ctx context.Context, d hypervisor.Driver, ref hypervisor.Ref, op Operation) (hm hypervisor.Machine, result any, err error) {
	switch op.Type {
	case OpSnapshot:
		var snap hypervisor.Snapshot
		if snap, err = d.CreateSnapshot(ctx, ref, *op.Snapshot); err == nil {
			result = snap
			hm, err = d.Machine(ctx, ref)
		}
	case OpSnapshotRollback:
		hm, err = d.RollbackSnapshot(ctx, ref, op.SnapshotName)
		result = map[string]string{"snapshot": op.SnapshotName}
	case OpSnapshotDelete:
		if err = d.DeleteSnapshot(ctx, ref, op.SnapshotName); err == nil {
			result = map[string]string{"snapshot": op.SnapshotName}
			hm, err = d.Machine(ctx, ref)
		}
	case OpRestore:
		hm, err = restore(ctx, d, ref, op)
		result = map[string]any{"backup_id": op.BackupID, "started": op.StartAfter}
	}
	return hm, result, err
}

// restore stops the machine if it runs (a restore replaces the disks under it, which
// Proxmox refuses on a running VM), restores it from the archive, and starts it again
// when asked.
func restore(ctx context.Context, d hypervisor.Driver, ref hypervisor.Ref, op Operation) (hypervisor.Machine, error) {
	hm, err := d.Machine(ctx, ref)
	if err != nil {
		return hm, err
	}
	if hm.State != hypervisor.StateStopped {
		if err := d.Power(ctx, ref, hypervisor.ActionStop); err != nil {
			return hm, err
		}
	}
	if hm, err = d.RestoreBackup(ctx, ref, op.Archive); err != nil {
		return hm, err
	}
	if op.StartAfter && hm.State != hypervisor.StateRunning {
		if err := d.Power(ctx, ref, hypervisor.ActionStart); err != nil {
			return hm, err
		}
		return d.Machine(ctx, ref)
	}
	return hm, nil
}

// onDemandBackup is the record of a backup a user asked for, from its task's result
// (a task that failed once the backup was taken, reading the machine afterwards, names
// it too); nil when the task took none or the machine has no tenant to keep it under.
func onDemandBackup(rec *record, op *Operation, task *tasks.Task) *backups.Backup {
	if op == nil || op.Type != OpBackup || !op.OnDemand || rec.TenantID == nil || len(task.Result) == 0 {
		return nil
	}
	var res backups.Result
	if err := json.Unmarshal(task.Result, &res); err != nil || res.Backup.ID == "" {
		return nil
	}
	x := res.Backup
	return &backups.Backup{ID: task.ID, BackupID: x.ID, MachineID: rec.ID, TenantID: *rec.TenantID, VMID: x.VMID, Node: x.Node,
		Storage: x.Storage, Mode: string(x.Mode), SizeBytes: x.SizeBytes, CreatedAt: x.CreatedAt.UTC(),
		TaskID: kit.Ptr(task.ID), Origin: backups.OriginOnDemand, Note: op.Note, Location: rec.Location}
}

// Quotas of backups and snapshots are counted from records (and the tasks in flight,
// quotahold.go) when a create is asked for, not kept in the usage counters (usage.go):
// those are trusted only once built from the index by a migration and while every
// cluster member keeps them, and a new dimension would need both again. Backups and
// snapshots are made by tasks that take minutes, not at the rate machines are listed
// or created, and a tenant's count is bounded by its quota: one scan of the tenant's
// backup records, or of its machine index, whose values carry each machine's snapshot
// count (Holding), costs little.

// checkQuota refuses an operation that would make a tenant hold more backups or
// snapshots than its quota, or a machine more than its plan allows: a snapshot, or a
// backup on demand. A machine without a tenant has no quota; one without a plan no
// plan bound. It answers early, before the machine is asked; the start checks the
// tenant's quota again in the batch that starts the task (claimQuota), which holds
// against starts on other machines at the same moment.
func (m *Machines) checkQuota(ctx context.Context, id string, op Operation) error {
	if !quotaCounted(op) {
		return nil
	}
	rid, err := m.Resolve(ctx, id)
	if err != nil {
		return err
	}
	mach, err := m.Stored(ctx, rid)
	if err != nil {
		return NotFoundAs(err, id)
	}
	if err := m.checkPlanBound(ctx, mach, op); err != nil {
		return err
	}
	_, err = m.claimQuota(ctx, &mach, op, "")
	return err
}

// PlanLimits are the per-machine bounds of a plan, as the plans above hand them down
// through Deps.PlanLimits: nil is no bound.
type PlanLimits struct {
	Name      string
	Backups   *int
	Snapshots *int
	// IPv4 is how many IPv4 addresses each machine of the plan holds at most, and
	// IPv6 whether one routed IPv6 prefix.
	IPv4 int
	IPv6 bool
}

// checkPlanBound refuses a snapshot, or a backup on demand, past what the machine's
// plan allows each of its machines: its snapshots as its record last saw them, its
// backups taken on demand as they are on record. A plan deleted since counts as none.
func (m *Machines) checkPlanBound(ctx context.Context, mach Machine, op Operation) error {
	if m.sys.planLimits == nil || mach.PlanID == nil {
		return nil
	}
	pl, err := m.sys.planLimits(ctx, *mach.PlanID)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	field, limit, have := "snapshots", pl.Snapshots, 0
	if op.Type == OpBackup {
		field, limit = "backups", pl.Backups
	}
	if limit == nil {
		return nil
	}
	if op.Type == OpBackup {
		if mach.TenantID != nil { // backups are on record under their tenant only
			list, err := m.sys.Backups.OfMachine(*mach.TenantID, mach.ID)
			if err != nil {
				return err
			}
			for _, b := range list {
				if b.Origin == backups.OriginOnDemand {
					have++
				}
			}
		}
	} else {
		stored, err := persistence.Load[record](ctx, m.sys.store, machineKey(mach.ID))
		if err != nil {
			return err
		}
		have = stored.Snapshots
	}
	if have+1 > *limit {
		e := apierr.New(apierr.ErrQuotaExceeded, "plan %s allows each machine %d %s", pl.Name, *limit, field)
		e.Fields = []apierr.FieldError{apierr.Field(field, "plan %s allows %d per machine, the machine has %d", pl.Name, *limit, have)}
		return e
	}
	return nil
}

// TenantSnapshots counts a tenant's snapshots as its machine records last saw them
// (one scan of the tenant's machine index).
func (m *Machines) TenantSnapshots(ctx context.Context, tenant string) (int, error) {
	hs, err := holdings(ctx, m.sys.store, tenant)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, h := range hs {
		n += h.Snapshots
	}
	return n, nil
}

// putOnDemandBackup is the extra write of a backup task's end (finish): the record of
// the backup a user asked for, in the same batch as the task's outcome.
func putOnDemandBackup(r *backups.Backup) func(*persistence.Batch) error {
	if r == nil {
		return nil
	}
	return func(b *persistence.Batch) error { return backups.Put(b, r) }
}
