package machines

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

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

const taskVersion = 1

// Keys of tasks: the record, and an index of unfinished tasks (task id → owner id) that
// a restart walks to settle what was in flight when the process died.
func taskKey(id string) []byte     { return persistence.Key("task", id) }
func openTaskKey(id string) []byte { return persistence.Key("task-open", id) }

// Tasks reads task records and tells waiters when a task ends.
type Tasks struct {
	sys *system
	mu  sync.Mutex
	// waiting are the Wait calls of each task, told by ended.
	waiting map[string][]chan Task
}

// Wait returns the task once it has ended, or ctx's error first. The machine's entity
// tells it as soon as the end is durable (ended), so a waiter makes one round trip and
// no polling. A task that does not exist yet is waited for all the same: bound ctx
// when its start may have been lost.
func (t *Tasks) Wait(ctx context.Context, id string) (*Task, error) {
	ch := make(chan Task, 1)
	t.mu.Lock()
	if t.waiting == nil {
		t.waiting = map[string][]chan Task{}
	}
	t.waiting[id] = append(t.waiting[id], ch)
	t.mu.Unlock()
	defer t.forget(id, ch)
	// After registering: an end recorded before is in the store, one after is told.
	if cur, err := LoadTask(t.sys.store, id); err == nil && cur.Finished() {
		return cur, nil
	}
	select {
	case task := <-ch:
		return &task, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (t *Tasks) forget(id string, ch chan Task) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ws := slices.DeleteFunc(t.waiting[id], func(c chan Task) bool { return c == ch })
	if len(ws) == 0 {
		delete(t.waiting, id)
	} else {
		t.waiting[id] = ws
	}
}

// ended tells the waiters of a task that has ended; its record is durable.
func (t *Tasks) ended(task *Task) {
	if !task.Finished() {
		return
	}
	t.mu.Lock()
	ws := t.waiting[task.ID]
	delete(t.waiting, task.ID)
	t.mu.Unlock()
	for _, ch := range ws {
		ch <- *task // buffered, one send per waiter
	}
}

// Get returns one task. With a tenant scope, another tenant's task is not found.
func (t *Tasks) Get(_ context.Context, id string, tenant *string) (Task, error) {
	val, err := t.sys.store.Get(taskKey(id))
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
func (t *Tasks) List(_ context.Context, tenant *string, cursor string, limit int) ([]Task, string, error) {
	if tenant == nil {
		return kit.ScanPage(t.sys.store, persistence.Prefix("task"), cursor, limit, func(r *Task) (Task, bool) { return *r, true })
	}
	return kit.ScanIndex(t.sys.store, persistence.Prefix("task-tenant", *tenant), cursor, limit, func(id string) (*Task, error) {
		return LoadTask(t.sys.store, id)
	})
}

func PutTask(b *persistence.Batch, t *Task) error {
	val, err := persistence.Encode(taskVersion, t)
	if err != nil {
		return err
	}
	b.Put(taskKey(t.ID), val)
	if t.TenantID != nil {
		b.Put(persistence.Key("task-tenant", *t.TenantID, t.ID), nil)
	}
	if t.Finished() {
		b.Del(openTaskKey(t.ID))
	} else {
		b.Put(openTaskKey(t.ID), []byte(t.TargetID))
	}
	return nil
}

func LoadTask(store persistence.Store, id string) (*Task, error) {
	return persistence.Load[Task](store, taskKey(id))
}
