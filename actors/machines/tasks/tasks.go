// Package tasks keeps the records of slow work on the hypervisor (Task) and their
// indexes: written by the entity that owns a task's target (a machine's tasks by the
// machine's actor, in its batch, through Put), read here (Tasks), and waited for
// (Tasks.Wait, told of an end by Ended). It sits below the machines, which write them,
// and knows no machine.
package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Task statuses.
const (
	TaskQueued    = "queued"
	TaskRunning   = "running"
	TaskSucceeded = "succeeded"
	TaskFailed    = "failed"
)

// Task is a record of slow work on the hypervisor. Tasks are written by the entity that
// owns their target (a machine's tasks by the machine's actor, which is also the lock),
// in the same batch as the target's change.
type Task struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	TargetType string          `json:"target_type"`
	TargetID   string          `json:"target_id"`
	TenantID   *string         `json:"tenant_id"`
	Status     string          `json:"status"`
	Error      *string         `json:"error"`
	CreatedAt  time.Time       `json:"created_at"`
	StartedAt  *time.Time      `json:"started_at"`
	FinishedAt *time.Time      `json:"finished_at"`
	Result     json.RawMessage `json:"result"`
}

// Finished reports whether the task has ended.
func (t Task) Finished() bool { return t.Status == TaskSucceeded || t.Status == TaskFailed }

// Version is the version of a task record's encoding.
const Version = 1

// Keys of tasks: the record, and an index of unfinished tasks (task id → owner id) that
// a restart walks to settle what was in flight when the process died.
func taskKey(id string) []byte     { return persistence.Key("task", id) }
func openTaskKey(id string) []byte { return persistence.Key("task-open", id) }

// ScanOpen calls fn with each unfinished task (task-open) and its target: the work a
// process left in flight, which a start settles.
func ScanOpen(ctx context.Context, s persistence.Store, fn func(task, target string) error) error {
	prefix := persistence.Prefix("task-open")
	return s.Scan(ctx, prefix, nil, 0, func(k, v []byte) error { return fn(string(k[len(prefix):]), string(v)) })
}

// machineTaskKey indexes a machine's tasks newest first: task-vm/<machine>/<the task
// id mirrored> (newestFirst), so that a forward scan, the only one the stores have,
// lists the latest task first.
func machineTaskKey(machine, id string) []byte {
	return persistence.Key("task-vm", machine, newestFirst(id))
}

// crockford is the alphabet of ULIDs (Crockford's base32), in sort order.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// newestFirst mirrors each character of a task id (a ULID) in its alphabet ('0' and
// 'Z', '1' and 'Y', ...): ids of one length that sort oldest first sort newest first
// once mirrored. It is its own inverse; a character outside the alphabet is kept.
func newestFirst(id string) string {
	b := []byte(id)
	for i, c := range b {
		if j := strings.IndexByte(crockford, c); j >= 0 {
			b[i] = crockford[len(crockford)-1-j]
		}
	}
	return string(b)
}

// Tasks reads task records and tells waiters when a task ends.
type Tasks struct {
	store persistence.Store
	mu    sync.Mutex
	// waiting are the Wait calls of each task. The machine's entity tells them the
	// end (Ended) when it runs on this member; the store's watch of task records
	// (changed) nudges them to read the record again when any member wrote it.
	waiting map[string][]*waiter
}

// waiter is one Wait call: told the ended task by ended, or nudged by the watch.
type waiter struct {
	told  chan Task
	nudge chan struct{}
}

// New returns the task service, following every write of a task record from
// here on: a waiter on one member learns the end of a task whose machine runs on
// another (a schedule's run waits for the task it started), without polling.
func New(store persistence.Store) *Tasks {
	t := &Tasks{store: store, waiting: map[string][]*waiter{}}
	prefix := persistence.Prefix("task")
	store.Watch(prefix, func(key []byte) { t.changed(string(key[len(prefix):])) })
	return t
}

// Wait returns the task once it has ended, or ctx's error first. On the member where
// the machine's entity runs, the entity tells it as soon as the end is durable
// (Ended), so a waiter makes one round trip and no polling; on another member of a
// cluster, the store's watch names the task's record when its end is written (a few
// milliseconds after the owner's write), and the waiter reads it again. A task that
// does not exist yet is waited for all the same: bound ctx when its start may have
// been lost.
func (t *Tasks) Wait(ctx context.Context, id string) (*Task, error) {
	w := &waiter{told: make(chan Task, 1), nudge: make(chan struct{}, 1)}
	t.mu.Lock()
	t.waiting[id] = append(t.waiting[id], w)
	t.mu.Unlock()
	defer t.forget(id, w)
	// After registering: an end recorded before is in the store, one after is told
	// or named by the watch.
	for {
		if cur, err := Load(ctx, t.store, id); err == nil && cur.Finished() {
			return cur, nil
		}
		select {
		case task := <-w.told:
			return &task, nil
		case <-w.nudge:
			// The record changed: read it again (it may only have started running).
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (t *Tasks) forget(id string, w *waiter) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ws := slices.DeleteFunc(t.waiting[id], func(c *waiter) bool { return c == w })
	if len(ws) == 0 {
		delete(t.waiting, id)
	} else {
		t.waiting[id] = ws
	}
}

// Ended tells the waiters of a task that has ended; its record is durable.
func (t *Tasks) Ended(task *Task) {
	if !task.Finished() {
		return
	}
	t.mu.Lock()
	ws := t.waiting[task.ID]
	delete(t.waiting, task.ID)
	t.mu.Unlock()
	for _, w := range ws {
		w.told <- *task // buffered, one send per waiter
	}
}

// changed nudges the waiters of task id: its record was written, by this member or
// another. It runs on the store's writing (or watching) goroutine, so it only wakes
// them; each reads the record itself. A nudge already pending is enough.
func (t *Tasks) changed(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, w := range t.waiting[id] {
		select {
		case w.nudge <- struct{}{}:
		default:
		}
	}
}

// Get returns one task. With a tenant scope, another tenant's task is not found.
func (t *Tasks) Get(ctx context.Context, id string, tenant *string) (Task, error) {
	val, err := t.store.Get(ctx, taskKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return Task{}, apierr.NotFound("task", id)
	}
	if err != nil {
		return Task{}, err
	}
	var task Task
	if _, err := persistence.Decode(val, &task); err != nil {
		return Task{}, err
	}
	if !kit.InScope(tenant, task.TenantID) {
		return Task{}, apierr.NotFound("task", id)
	}
	return task, nil
}

// List returns tasks, oldest first; with a tenant scope only that tenant's.
func (t *Tasks) List(ctx context.Context, tenant *string, cursor string, limit int) ([]Task, string, error) {
	if tenant == nil {
		return kit.ScanPage(ctx, t.store, persistence.Prefix("task"), cursor, limit, func(r *Task) (Task, bool) { return *r, true })
	}
	// The page's records in one read: on a cluster, one request to etcd, not one each.
	return kit.ScanIndexMany(ctx, t.store, persistence.Prefix("task-tenant", *tenant), cursor, limit, taskKey, func(_ string, v []byte) (Task, bool, error) {
		var task Task
		if _, err := persistence.Decode(v, &task); err != nil {
			return Task{}, false, err
		}
		return task, true, nil
	})
}

// OfMachine returns a machine's tasks, newest first, a page of limit (0: all) after the
// cursor (the id of the last task of the previous page; the next one is answered, empty
// on the last page). machineID is the machine's record id: Machines.Ref turns what a
// caller sent (a vmid too) into it, in the caller's scope. With a tenant scope only
// that tenant's tasks are listed, as in List, so another tenant's machine has none:
// the caller, having asked Machines.Ref in the same scope, answers 404 for it. The
// tasks of a machine destroyed since stay listed under its id.
func (t *Tasks) OfMachine(ctx context.Context, machineID string, tenant *string, cursor string, limit int) ([]Task, string, error) {
	if machineID == "" || strings.Contains(machineID, "/") {
		return []Task{}, "", nil
	}
	out, next, err := kit.ScanFiltered(ctx, t.store, persistence.Prefix("task-vm", machineID), newestFirst(cursor), limit,
		func(suffix string, _ []byte) (Task, bool, error) {
			task, err := Load(ctx, t.store, newestFirst(suffix))
			if errors.Is(err, persistence.ErrNotFound) {
				return Task{}, false, nil
			}
			if err != nil {
				return Task{}, false, err
			}
			return *task, kit.InScope(tenant, task.TenantID), nil
		})
	return out, newestFirst(next), err
}

// CreatedSince calls fn with each task created at from or later, oldest first. Task ids
// are ULIDs, which begin with their creation time, so the scan starts at the first id
// made at from instead of walking every task ever made. A task that cannot be decoded
// is skipped: one corrupt task must not hide the others.
func (t *Tasks) CreatedSince(ctx context.Context, from time.Time, fn func(*Task) error) error {
	prefix := persistence.Prefix("task")
	after := append(append([]byte{}, prefix...), ulidTimePrefix(from)...)
	return t.store.Scan(ctx, prefix, after, 0, func(_, v []byte) error {
		var task Task
		if _, err := persistence.Decode(v, &task); err != nil {
			return nil
		}
		return fn(&task)
	})
}

// ulidTimePrefix is the leading time part of the ULIDs made at t: every id made at t
// or later sorts after it.
func ulidTimePrefix(t time.Time) string {
	var u ulid.ULID
	if t.Before(time.UnixMilli(0)) {
		return ""
	}
	if err := u.SetTime(ulid.Timestamp(t)); err != nil {
		return ""
	}
	return u.String()[:10]
}

// Put puts into b the task's record and its index entries: its tenant's, its
// machine's (machineTaskKey) and, while it runs, the open tasks'.
func Put(b *persistence.Batch, t *Task) error {
	val, err := persistence.Encode(Version, t)
	if err != nil {
		return err
	}
	b.Put(taskKey(t.ID), val)
	if t.TenantID != nil {
		b.Put(persistence.Key("task-tenant", *t.TenantID, t.ID), nil)
	}
	if t.TargetType == "machine" && t.TargetID != "" {
		b.Put(machineTaskKey(t.TargetID, t.ID), nil)
	}
	if t.Finished() {
		b.Del(openTaskKey(t.ID))
	} else {
		b.Put(openTaskKey(t.ID), []byte(t.TargetID))
	}
	return nil
}

// Load reads one task's record.
func Load(ctx context.Context, store persistence.Store, id string) (*Task, error) {
	return persistence.Load[Task](ctx, store, taskKey(id))
}

// taskMigrationBatch bounds the keys one batch of MigrateMachineTasks writes (an etcd
// transaction takes a limited number of operations).
const taskMigrationBatch = 256

// MigrateMachineTasks is the schema migration 3→4: it indexes every machine's tasks
// written before the index (task-vm), in batches of at most taskMigrationBatch keys,
// each committed on its own. It may run again after a crash before the stamp: writing
// an entry that exists changes nothing. A task that cannot be decoded is left out, as
// CreatedSince leaves it. In a cluster, a member of the earlier release still running
// writes its new tasks without the entry: they are missing from their machine's list.
func MigrateMachineTasks(ctx context.Context, s persistence.Store, log *zap.Logger) error {
	prefix := persistence.Prefix("task")
	var after []byte
	indexed := 0
	for {
		b := new(persistence.Batch)
		seen := 0
		err := s.Scan(ctx, prefix, after, taskMigrationBatch, func(k, v []byte) error {
			seen++
			after = append(after[:0], k...)
			var task Task
			if _, err := persistence.Decode(v, &task); err == nil && task.TargetType == "machine" && task.TargetID != "" {
				b.Put(machineTaskKey(task.TargetID, task.ID), nil)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(b.Ops) > 0 {
			if err := s.Commit(ctx, b); err != nil {
				return err
			}
			indexed += len(b.Ops)
		}
		if seen < taskMigrationBatch {
			log.Info("machines' tasks indexed", zap.Int("tasks", indexed))
			return nil
		}
	}
}

// In a cluster a task travels as the answer of a machine's start (kit.Wire), under the
// name it had when the tasks lived in the machines package.
func init() { kit.Wire("machines.Task", 1, Task{}) }

// Waiting counts the Wait calls waiting for task id, or for any task when id is "":
// the tests of the owners of tasks check with it that a wait ends and forgets itself.
func (t *Tasks) Waiting(id string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id != "" {
		return len(t.waiting[id])
	}
	return len(t.waiting)
}
