package machines

import (
	"context"
	"errors"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A tenant's quotas of backups and snapshots hold under concurrency: what a tenant
// holds is counted with the tasks in flight that will add to it (a snapshot, a backup),
// and the write that records a new such task requires the tenant's claim key to be as
// it was when the count was made, and changes it. Of two starts on two machines of one
// tenant counted at the same moment, the second's write fails its condition and it
// counts again, the first's task now among those in flight. The count and the write
// are made by the machine's entity, so a machine's own tasks never race.

// quotaKey is the tenant's claim key: vm-quota/<tenant>, a new value at every start of
// a task its backup or snapshot quota counts.
func quotaKey(tenant string) []byte { return persistence.Key("vm-quota", tenant) }

// QuotaCheck is what a start's entity checks before it records its task: the
// tenant's quota of Field (backups or snapshots) is Limit.
type QuotaCheck struct {
	Tenant string `json:"tenant"`
	Field  string `json:"field"`
	Limit  int    `json:"limit"`
}

// quotaTries bounds how often one start counts again because another start of the
// tenant's recorded its task meanwhile.
const quotaTries = 20

// countsTowards says which quota (backups or snapshots) a task type adds to when it
// succeeds: a snapshot, and a backup (on demand or a schedule's: both leave a record).
func countsTowards(taskType string) string {
	switch taskType {
	case "vm." + OpSnapshot:
		return "snapshots"
	case "vm." + OpBackup:
		return "backups"
	}
	return ""
}

// holding counts what tenant holds of field: backups on record, or its machines'
// snapshots as their records last saw them, plus the tasks in flight that add to it.
// A task is counted when the machine's index entry names it, finished or not by the
// time its record is read: the entry and the count it carries are written together
// (finish), so an entry that still names the task does not count its snapshot yet.
// Backups are counted after the index, so that a backup whose task ends in between
// is counted twice for this one check, never not at all.
func (m *Machines) holding(ctx context.Context, tenant, field string, limit int) (int, error) {
	hs, err := holdings(ctx, m.sys.store, tenant)
	if err != nil {
		return 0, err
	}
	have := 0
	for _, h := range hs {
		if field == "snapshots" {
			have += h.Snapshots
		}
		if h.TaskID == "" {
			continue
		}
		t, err := tasks.Load(ctx, m.sys.store, h.TaskID)
		if errors.Is(err, persistence.ErrNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if countsTowards(t.Type) == field {
			have++
		}
	}
	if field == "backups" {
		n, err := m.sys.Backups.Count(ctx, tenant, limit+1)
		if err != nil {
			return 0, err
		}
		have += n
	}
	return have, nil
}

// overQuotaOf is the quota_exceeded error of one more of field.
func overQuotaOf(field string, limit, have int) error {
	e := apierr.New(apierr.ErrQuotaExceeded, "the tenant's quota of %s is exceeded", field)
	e.Fields = []apierr.FieldError{apierr.Field(field, "quota %d, in use %d, asked for 1 more", limit, have)}
	return e
}

// claimQuota counts what q's tenant holds, refuses one more past its limit, and
// answers the writes that make the start's batch claim the count: the claim key
// required as read and changed; read is what it read (nil: absent), for claimMoved.
func (m *Machines) claimQuota(ctx context.Context, q *QuotaCheck) (extra func(*persistence.Batch) error, read []byte, err error) {
	read, err = m.sys.store.Get(ctx, quotaKey(q.Tenant))
	if errors.Is(err, persistence.ErrNotFound) {
		read, err = nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	have, err := m.holding(ctx, q.Tenant, q.Field, q.Limit)
	if err != nil {
		return nil, nil, err
	}
	if have+1 > q.Limit {
		return nil, nil, overQuotaOf(q.Field, q.Limit, have)
	}
	return func(b *persistence.Batch) error {
		key := quotaKey(q.Tenant)
		if read == nil {
			b.Require(persistence.IfAbsent(key))
		} else {
			b.Require(persistence.IfValue(key, read))
		}
		b.Put(key, []byte(persistence.NewID()))
		return nil
	}, read, nil
}

// claimMoved reports whether the tenant's claim key holds something else than read:
// a batch that required it failed for that, not for another of its conditions.
func (m *Machines) claimMoved(ctx context.Context, q *QuotaCheck, read []byte) (bool, error) {
	now, err := m.sys.store.Get(ctx, quotaKey(q.Tenant))
	if errors.Is(err, persistence.ErrNotFound) {
		return read != nil, nil
	}
	if err != nil {
		return false, err
	}
	return string(now) != string(read) || read == nil, nil
}

// saveClaimed is saveStamped for a start whose task a tenant's quota counts (q not
// nil): counted and claimed (claimQuota) in the batch that records the task, and
// counted again when another start of the tenant's claimed first.
func (e *machineEntity) saveClaimed(next *record, task *tasks.Task, st *kit.Stamp, q *QuotaCheck) error {
	if q == nil {
		return e.saveStamped(next, task, "task", st)
	}
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	for try := 1; ; try++ {
		extra, read, err := e.ms.claimQuota(ctx, q)
		if err != nil {
			return err
		}
		err = e.saveWith(next, task, "task", st, extra)
		if !persistence.IsConditionFailed(err) || try == quotaTries {
			return err
		}
		if moved, merr := e.ms.claimMoved(ctx, q, read); merr != nil || !moved {
			return err
		}
	}
}
