// Package quotahold keeps quota-hold/<tenant>: a tenant's snapshot and backup tasks in
// flight, which the machines count against its quotas with the records, and the
// backup_gb size check. It reads the task records and knows nothing of machines.
//
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
package quotahold

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Task is a counted task in flight: its kind (the quota's field) and, for a
// backup, the size it is expected to take (the machine's newest backup's).
type Task struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Bytes int64  `json:"bytes,omitempty"`
}

// held is the stored value of quota-hold/<tenant>.
type held struct {
	Tasks []Task `json:"tasks"`
}

const version = 1

// Key is quota-hold/<tenant>.
func Key(tenant string) []byte { return persistence.Key("quota-hold", tenant) }

// Forget puts into b the delete of a deleted tenant's record (it has no machine left
// whose task it could count).
func Forget(b *persistence.Batch, tenant string) { b.Del(Key(tenant)) }

// Claim is what a counted start adds to its batch: the tenant's hold as read (nil:
// absent), required unchanged, and the hold with the new task.
type Claim struct {
	tenant string
	read   []byte
	val    []byte
}

// Put adds the claim to b (nothing for a nil claim: the start counts nothing).
func (c *Claim) Put(b *persistence.Batch) error {
	if c == nil {
		return nil
	}
	if c.read == nil {
		b.Require(persistence.IfAbsent(Key(c.tenant)))
	} else {
		b.Require(persistence.IfValue(Key(c.tenant), c.read))
	}
	b.Put(Key(c.tenant), c.val)
	return nil
}

// Moved reports whether the tenant's hold holds something else than the claim read: a
// batch that carried the claim failed for that (another start landed first).
func (c *Claim) Moved(ctx context.Context, s persistence.Store) bool {
	if c == nil {
		return false
	}
	now, err := s.Get(ctx, Key(c.tenant))
	if errors.Is(err, persistence.ErrNotFound) {
		return c.read != nil
	}
	return err == nil && !bytes.Equal(now, c.read)
}

// Read returns the tenant's hold as stored (nil: absent) and its tasks still in
// flight (queued or running); the others have ended, and the records count them. The task is written in the batch that
// adds it to the hold, so each one it names was made.
func Read(ctx context.Context, store persistence.Store, tenant string) ([]byte, []Task, error) {
	raw, err := store.Get(ctx, Key(tenant))
	if errors.Is(err, persistence.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var h held
	if _, err := persistence.Decode(raw, &h); err != nil {
		return nil, nil, err
	}
	var out []Task
	for _, t := range h.Tasks {
		task, err := tasks.Load(ctx, store, t.ID)
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

// New is the claim of a start that read raw (nil: absent) and holds list, its task with the others in flight.
func New(tenant string, read []byte, list []Task) (*Claim, error) {
	val, err := persistence.Encode(version, held{Tasks: list})
	if err != nil {
		return nil, err
	}
	return &Claim{tenant: tenant, read: read, val: val}, nil
}

// gib is a gigabyte of the quotas (backup_gb), 2^30 bytes as the disks' GB.
const gib = int64(1) << 30

// CheckSize refuses (409 quota_exceeded naming backup_gb) a backup expected to take
// est bytes when the tenant's backups, on record and in flight, hold used of a quota
// of quotaGB: once the quota is used up, or when this one would pass it.
func CheckSize(quotaGB int, used, est int64) error {
	if limit := int64(quotaGB) * gib; used >= limit || used+est > limit {
		e := apierr.New(apierr.ErrQuotaExceeded, "the tenant's quota of backup_gb is exceeded")
		e.Fields = []apierr.FieldError{apierr.Field("backup_gb", "quota %d GB, in use %s (with backups in flight), this backup expected %s",
			quotaGB, gbString(used), gbString(est))}
		return e
	}
	return nil
}

// gbString shows a size in GB with one decimal.
func gbString(n int64) string {
	return fmt.Sprintf("%.1f GB", float64(n)/float64(gib))
}
