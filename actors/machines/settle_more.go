package machines

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor"
)

// reachedSnapshot reports whether a machine's snapshot list shows a snapshot
// operation as done: the snapshot taken is there (its name was free when the task
// began, so it is the task's), the one deleted is gone. A rollback leaves no trace in
// the list (the machine's "current" parent is not part of it): never told done.
func reachedSnapshot(list []hypervisor.Snapshot, op Operation) bool {
	has := func(name string) bool {
		return slices.ContainsFunc(list, func(s hypervisor.Snapshot) bool { return s.Name == name })
	}
	switch op.Type {
	case OpSnapshot:
		return op.Snapshot != nil && has(op.Snapshot.Name)
	case OpSnapshotDelete:
		return !has(op.SnapshotName)
	}
	return false
}

// settleEvidence completes a settle's report of a snapshot or on-demand backup task
// from the hypervisor: done is the report so far (Observed set, Err nil when the
// machine shows the task done); the snapshot count is refreshed, and an on-demand
// backup whose archive is on the backup storage is adopted as the task's result (its
// record is written by finish, as if the task had ended), so that a crash after
// vzdump finished leaves no archive off record. A scheduled backup's archive is its
// schedule's to keep (Backups.Orphan there).
func (m *Machines) settleEvidence(ctx context.Context, machineID string, tenant *string, taskID string, ref hypervisor.Ref, op Operation, done *opDone) (bool, error) {
	switch {
	case op.Type == OpSnapshot || op.Type == OpSnapshotDelete || op.Type == OpSnapshotRollback:
		list, err := m.sys.driver.Snapshots(ctx, ref)
		if err == nil {
			done.Snapshots = kit.Ptr(len(list))
		}
		return err == nil && reachedSnapshot(list, op), err
	case op.Type == OpBackup && op.OnDemand && tenant != nil:
		task, err := tasks.Load(ctx, m.sys.store, taskID)
		if err != nil {
			return false, err
		}
		t := *task
		now := time.Now().UTC()
		t.FinishedAt = &now
		b := m.sys.Backups.Orphan(ctx, *tenant, machineID, &t)
		if b == nil {
			return false, nil
		}
		raw, err := json.Marshal(backups.Result{Backup: *b})
		if err != nil {
			return false, err
		}
		done.Result = raw
		return true, nil
	}
	return false, nil
}
