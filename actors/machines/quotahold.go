package machines

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A tenant's quotas of snapshots and backups on demand must hold when its machines ask
// at the same moment, and while the tasks that make them run: the records count a
// snapshot or a backup only once its task has ended. So the batch that starts a counted
// task (the machine entity's start) also writes quota-hold/<tenant>, the tenant's
// counted tasks in flight, with the new task added, and requires it to be as read when
// counting. Of two starts that counted the same things, the second to land is refused
// and counts again (it now sees the first's task). A task that has ended (or never
// was: its start failed) is dropped from the hold by the next count, which finds it in
// the records instead (a task's end writes the snapshot count or the backup record in
// the batch that ends it). Every write adds a fresh task id, so the value never comes
// back to one read before. A tenant without a finite quota of the kind writes nothing.

// heldTask is a counted task in flight: its kind (the quota's field) and, for a
// backup, the size it is expected to take (the machine's newest backup's).
type heldTask struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Bytes int64  `json:"bytes,omitempty"`
}

// heldTasks is the stored value of quota-hold/<tenant>.
type heldTasks struct {
	Tasks []heldTask `json:"tasks"`
}

const holdVersion = 1

// holdKey is quota-hold/<tenant>.
func holdKey(tenant string) []byte { return persistence.Key("quota-hold", tenant) }

// gib is a gigabyte of the quotas (backup_gb), 2^30 bytes as the disks' GB.
const gib = int64(1) << 30

// quotaClaim is what a counted start adds to its batch: the tenant's hold as read (nil:
// absent), required unchanged, and the hold with the new task.
type quotaClaim struct {
	tenant string
	read   []byte
	val    []byte
}

// put adds the claim to b (nothing for a nil claim: the start counts nothing).
func (c *quotaClaim) put(b *persistence.Batch) error {
	if c == nil {
		return nil
	}
	if c.read == nil {
		b.Require(persistence.IfAbsent(holdKey(c.tenant)))
	} else {
		b.Require(persistence.IfValue(holdKey(c.tenant), c.read))
	}
	b.Put(holdKey(c.tenant), c.val)
	return nil
}

// moved reports whether the tenant's hold holds something else than the claim read: a
// batch that carried the claim failed for that (another start landed first).
func (c *quotaClaim) moved(ctx context.Context, s persistence.Store) bool {
	if c == nil {
		return false
	}
	now, err := s.Get(ctx, holdKey(c.tenant))
	if errors.Is(err, persistence.ErrNotFound) {
		return c.read != nil
	}
	return err == nil && !bytes.Equal(now, c.read)
}

// quotaCounted reports whether an operation counts against the tenant's quotas: a
// snapshot, or a backup on demand (a schedule's backups are bounded by its retention).
func quotaCounted(op Operation) bool {
	return op.Type == OpSnapshot || op.Type == OpBackup && op.OnDemand
}

// claimQuota checks an operation against the quotas of the machine's tenant, counting
// the records and the tenant's counted tasks in flight, and returns the claim that the
// start's batch carries with taskID (nil when nothing is counted: no tenant, no finite
// quota). Past a quota it is 409 quota_exceeded.
func (m *Machines) claimQuota(ctx context.Context, mach *Machine, op Operation, taskID string) (*quotaClaim, error) {
	if !quotaCounted(op) || m.sys.limits == nil || mach.TenantID == nil {
		return nil, nil // an operator's machine, outside every tenant's quota
	}
	tenant := *mach.TenantID
	lim, err := m.sys.limits(ctx, tenant)
	if err != nil {
		return nil, err
	}
	field, limit := "snapshots", lim.Snapshots
	if op.Type == OpBackup {
		field, limit = "backups", lim.Backups
	}
	sized := op.Type == OpBackup && lim.BackupGB != Unlimited
	if limit == Unlimited && !sized {
		return nil, nil
	}
	// The hold before the records: a task that ends between the two reads is counted
	// twice (a refusal a retry undoes), never not at all.
	read, held, err := m.readHold(ctx, tenant)
	if err != nil {
		return nil, err
	}
	inFlight, inFlightBytes := 0, int64(0)
	for _, h := range held {
		if h.Kind == field {
			inFlight++
			inFlightBytes += h.Bytes
		}
	}
	if limit != Unlimited {
		have := 0
		if op.Type == OpBackup {
			have, err = m.sys.Backups.Count(ctx, tenant, limit+1)
		} else {
			have, err = m.TenantSnapshots(ctx, tenant)
		}
		if err != nil {
			return nil, err
		}
		if have += inFlight; have+1 > limit {
			e := apierr.New(apierr.ErrQuotaExceeded, "the tenant's quota of %s is exceeded", field)
			e.Fields = []apierr.FieldError{apierr.Field(field, "quota %d, in use %d (with tasks in flight), asked for 1 more", limit, have)}
			return nil, e
		}
	}
	var est int64
	if sized {
		if est, err = m.checkBackupSize(ctx, tenant, mach.ID, lim.BackupGB, inFlightBytes); err != nil {
			return nil, err
		}
	}
	if taskID == "" {
		return nil, nil // a check before the start: the start claims
	}
	held = append(held, heldTask{ID: taskID, Kind: field, Bytes: est})
	val, err := persistence.Encode(holdVersion, heldTasks{Tasks: held})
	if err != nil {
		return nil, err
	}
	return &quotaClaim{tenant: tenant, read: read, val: val}, nil
}

// checkBackupSize refuses a backup that would take the tenant's backups past its
// backup_gb quota: the sizes of its backups on record, of those in flight (inFlight,
// each expected as large as its machine's newest backup), and of this one, expected as
// large as the machine's newest backup. With no backup of the machine yet its size is
// not known: it is refused only once the quota is used up. It returns this backup's
// expected size.
func (m *Machines) checkBackupSize(ctx context.Context, tenant, machineID string, quotaGB int, inFlight int64) (int64, error) {
	held, err := m.sys.Backups.TenantHeld(ctx, tenant)
	if err != nil {
		return 0, err
	}
	list, err := m.sys.Backups.OfMachine(tenant, machineID)
	if err != nil {
		return 0, err
	}
	var est int64
	if len(list) > 0 {
		newest := slices.MaxFunc(list, func(a, b backups.Backup) int { return a.CreatedAt.Compare(b.CreatedAt) })
		est = newest.SizeBytes
	}
	used, limit := held.Bytes+inFlight, int64(quotaGB)*gib
	if used >= limit || used+est > limit {
		e := apierr.New(apierr.ErrQuotaExceeded, "the tenant's quota of backup_gb is exceeded")
		e.Fields = []apierr.FieldError{apierr.Field("backup_gb", "quota %d GB, in use %s (with backups in flight), this backup expected %s",
			quotaGB, gbString(used), gbString(est))}
		return 0, e
	}
	return est, nil
}

// gbString shows a size in GB with one decimal.
func gbString(n int64) string {
	return fmt.Sprintf("%.1f GB", float64(n)/float64(gib))
}

// readHold returns the tenant's hold as stored (nil: absent) and its tasks still in
// flight (queued or running); the others have ended, and the records count them. The task is written in the batch that
// adds it to the hold, so each one it names was made.
func (m *Machines) readHold(ctx context.Context, tenant string) ([]byte, []heldTask, error) {
	raw, err := m.sys.store.Get(ctx, holdKey(tenant))
	if errors.Is(err, persistence.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var h heldTasks
	if _, err := persistence.Decode(raw, &h); err != nil {
		return nil, nil, err
	}
	var out []heldTask
	for _, t := range h.Tasks {
		task, err := tasks.Load(ctx, m.sys.store, t.ID)
		if errors.Is(err, persistence.ErrNotFound) {
			continue // removed by the tasks' retention: it ended long ago
		}
		if err != nil {
			return nil, nil, err
		}
		if task.Status == tasks.TaskQueued || task.Status == tasks.TaskRunning {
			out = append(out, t)
		}
	}
	return raw, out, nil
}

// holdTries bounds the counts of one start that other starts of its tenant keep
// overtaking.
const holdTries = 50

// saveCounted saves a start's record and task (saveStamped) with, for an operation
// counted against its tenant's quotas, the claim of its place in them: checked and
// written in the one batch, counted again when another start of the tenant landed
// between.
func (e *machineEntity) saveCounted(next *record, task *tasks.Task, m *startOp) error {
	if !quotaCounted(m.Op) {
		return e.saveStamped(next, task, "task", m.Stamp)
	}
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	for try := 0; ; try++ {
		claim, err := e.ms.claimQuota(ctx, &e.rec.Machine, m.Op, task.ID)
		if err != nil {
			return err
		}
		err = e.saveWith(next, task, "task", m.Stamp, claim.put)
		if err != nil && try < holdTries && persistence.IsConditionFailed(err) && claim.moved(ctx, e.sys.store) {
			continue
		}
		return err
	}
}
