package machines

import (
	"context"
	"slices"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/machines/counters"
	"github.com/vmplane/vmplane/actors/machines/quotahold"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// quotaCounted reports whether an operation counts against the tenant's quotas: a
// snapshot, or a backup on demand (a schedule's backups are bounded by its retention).
func quotaCounted(op Operation) bool {
	return op.Type == OpSnapshot || op.Type == OpBackup && op.OnDemand
}

// claimQuota checks an operation against the quotas of the machine's tenant (records
// and tasks in flight, package quotahold) and returns the claim the start's batch
// carries with taskID (nil: nothing counted). Past a quota it is 409 quota_exceeded.
func (m *Machines) claimQuota(ctx context.Context, mach *Machine, op Operation, taskID string) (*quotahold.Claim, error) {
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
	read, held, err := quotahold.Read(ctx, m.sys.store, tenant)
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
	return quotahold.New(tenant, read, append(held, quotahold.Task{ID: taskID, Kind: field, Bytes: est}))
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
	if err := quotahold.CheckSize(quotaGB, held.Bytes+inFlight, est); err != nil {
		return 0, err
	}
	return est, nil
}

// holdTries bounds the counts of one start that other starts of its tenant keep
// overtaking.
const holdTries = 50

// saveCounted is saveStamped with, for a counted operation, its claim in the tenant's
// quotas in the same batch, counted again when another start of the tenant landed.
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
		err = e.saveWith(next, task, "task", m.Stamp, claim.Put)
		if err != nil && try < holdTries && persistence.IsConditionFailed(err) && claim.Moved(ctx, e.sys.store) {
			continue
		}
		return err
	}
}

// ForgetTenant puts into b the deletes of what machines keep of a tenant beside its
// machines (its usage counter, its counted tasks in flight), for the batch that
// deletes a tenant that has no machine left.
func (m *Machines) ForgetTenant(b *persistence.Batch, tenant string) {
	counters.Forget(b, tenant)
	quotahold.Forget(b, tenant)
}
