package machines

import (
	"context"
	"slices"
	"time"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// Backups are the backups' records (actors/backups) with what needs the machines: a
// machine's backups in its tenant's scope, and a backup a failed task left behind.
type Backups struct {
	*backups.Backups
	sys *system
}

// OfMachineNewest returns one machine's backups newest first (ids are ULIDs, in
// creation order), a page of limit (0: all) after the cursor, the id of the last
// backup of the previous page. With a tenant scope another tenant's machine is not
// found. A machine's backups are few (its tenant's quota and its schedules'
// retention bound them), so they are read whole and paged here.
func (b *Backups) OfMachineNewest(ctx context.Context, machineID string, tenant *string, cursor string, limit int) ([]backups.Backup, string, error) {
	ref, err := b.sys.Machines.Ref(ctx, machineID, tenant)
	if err != nil {
		return nil, "", err
	}
	m, err := b.sys.Machines.Stored(ctx, ref.ID)
	if err != nil {
		return nil, "", NotFoundAs(err, machineID)
	}
	if m.TenantID == nil {
		return []backups.Backup{}, "", nil // backups are kept under a tenant
	}
	all, _, err := b.List(ctx, m.TenantID, ref.ID, "", 0)
	if err != nil {
		return nil, "", err
	}
	slices.Reverse(all)
	start := 0
	if cursor != "" {
		i := slices.IndexFunc(all, func(x backups.Backup) bool { return x.ID < cursor })
		if i < 0 {
			i = len(all)
		}
		start = i
	}
	page, last := kit.PageSlice(all, start, limit, func(backups.Backup) bool { return true })
	next := ""
	if last >= 0 {
		next = page[len(page)-1].ID
	}
	return page, next, nil
}

// Orphan finds a backup of the machine taken while task ran (a backup task that failed
// as it finished: vmplane stopped, or the machine could not be read afterwards) and
// not on record among the tenant's backups, so that its taker can keep it. The
// machine's actor runs one operation at a time, so a backup in the task's window is
// the task's. Nil when there is none, or it cannot be known now.
func (b *Backups) Orphan(ctx context.Context, tenantID, machineID string, task *tasks.Task) *hypervisor.Backup {
	if b.sys.driver == nil || task.StartedAt == nil || task.FinishedAt == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	m, err := b.sys.Machines.Get(ctx, machineID, nil)
	if err != nil || m.VMID == 0 {
		return nil
	}
	list, err := b.sys.driver.Backups(ctx, m.Ref())
	if err != nil {
		return nil
	}
	known, err := b.OfMachine(tenantID, machineID)
	if err != nil {
		return nil
	}
	have := map[string]bool{}
	for _, k := range known {
		have[k.BackupID] = true
	}
	from, to := task.StartedAt.Add(-time.Second), task.FinishedAt.Add(time.Second)
	var found *hypervisor.Backup
	for i := range list {
		if x := list[i]; !have[x.ID] && !x.CreatedAt.Before(from) && !x.CreatedAt.After(to) {
			found = &x
		}
	}
	return found
}

// validateBackupOp checks a backup operation (Operation.validate predates it).
func validateBackupOp(op Operation) error {
	var f []apierr.FieldError
	ok := false
	for _, m := range backups.Modes {
		ok = ok || string(m) == op.BackupMode
	}
	if !ok {
		f = append(f, apierr.Field("mode", "must be snapshot, suspend or stop"))
	}
	if op.Retention < 0 || op.Retention > backups.MaxRetention {
		f = append(f, apierr.Field("retention", "must be %d..%d", backups.MinRetention, backups.MaxRetention))
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}

// StartAs starts an operation like Start, under a task id the caller chose: a
// schedule records the id durably before the task exists, so that after a crash it
// can tell a run that never started from one whose task is still to be settled.
func (m *Machines) StartAs(ctx context.Context, id string, op Operation, tenant *string, taskID string) (tasks.Task, error) {
	var err error
	if op.Type == OpBackup {
		err = validateBackupOp(op)
	} else {
		err = op.validate()
	}
	if err != nil {
		return tasks.Task{}, err
	}
	return askMachine[tasks.Task](ctx, m, id, &startOp{Op: op, Tenant: tenant, TaskID: taskID})
}
