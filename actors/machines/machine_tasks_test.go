package machines

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// newestFirst turns ids that sort oldest first into keys that sort newest first, and
// back.
func TestNewestFirstReversesTheOrder(t *testing.T) {
	ids := make([]string, 200)
	for i := range ids {
		ids[i] = persistence.NewID()
	}
	slices.Sort(ids)
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = newestFirst(id)
		if back := newestFirst(keys[i]); back != id {
			t.Fatalf("newestFirst(newestFirst(%s)) = %s; want the id", id, back)
		}
	}
	want := slices.Clone(keys)
	slices.Sort(keys)
	slices.Reverse(want)
	if !slices.Equal(keys, want) {
		t.Fatal("the mirrored ids do not sort newest first")
	}
}

// taskIDs lists the ids of tasks.
func taskIDs(ts []Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// pages lists a machine's tasks page by page, following the cursors.
func pages(t *testing.T, ctx context.Context, tasks *Tasks, machine string, tenant *string, limit int) []string {
	t.Helper()
	var out []string
	cursor := ""
	for range 100 {
		page, next, err := tasks.OfMachine(ctx, machine, tenant, cursor, limit)
		if err != nil {
			t.Fatal(err)
		}
		if limit > 0 && len(page) > limit {
			t.Fatalf("a page of %d tasks; want at most %d", len(page), limit)
		}
		out = append(out, taskIDs(page)...)
		if next == "" {
			return out
		}
		cursor = next
	}
	t.Fatal("the cursors never end")
	return nil
}

// A machine's tasks are listed newest first, page by page, in its tenant's scope only.
func TestTasksOfMachine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, m := syncedMachine(t, ctx, 1)
	tenant, other := "T1", "T2"
	if _, err := s.Machines.Assign(ctx, m.ID, &tenant); err != nil {
		t.Fatal(err)
	}
	var made []string
	for i := range 5 {
		name := fmt.Sprintf("vm-%d", i)
		made = append(made, runToEnd(t, ctx, s, m.ID, Operation{Type: OpConfig, Config: &hypervisor.ConfigChange{Name: &name}}).ID)
	}
	slices.Reverse(made)
	for _, limit := range []int{0, 1, 2, 5, 6} {
		if got := pages(t, ctx, s.Tasks, m.ID, nil, limit); !slices.Equal(got, made) {
			t.Fatalf("limit %d: got %v; want %v (newest first)", limit, got, made)
		}
	}
	if got := pages(t, ctx, s.Tasks, m.ID, &tenant, 2); !slices.Equal(got, made) {
		t.Fatalf("in the tenant's scope: got %v; want %v", got, made)
	}
	if got, _, err := s.Tasks.OfMachine(ctx, m.ID, &other, "", 0); err != nil || len(got) != 0 {
		t.Fatalf("in another tenant's scope: got %v, %v; want none", taskIDs(got), err)
	}
	for _, id := range []string{"nosuch", "", m.ID + "/x"} {
		if got, next, err := s.Tasks.OfMachine(ctx, id, nil, "", 0); err != nil || len(got) != 0 || next != "" {
			t.Fatalf("machine %q: got %v %q, %v; want none", id, taskIDs(got), next, err)
		}
	}
}

// The migration to schema version 4 indexes the tasks of a store written without the
// index, over several batches, and running it again changes nothing.
func TestMigrateMachineTasks(t *testing.T) {
	ctx := context.Background()
	s := newTestSystem(t)
	const n = 2*taskMigrationBatch + 10
	var a, b []string
	batch := new(persistence.Batch)
	for i := range n {
		machine := "ma"
		if i%3 == 0 {
			machine = "mb"
		}
		task := Task{ID: persistence.NewID(), Type: "vm.start", TargetType: "machine", TargetID: machine,
			TenantID: kit.Ptr("T1"), Status: TaskSucceeded, CreatedAt: time.Now().UTC()}
		val, err := persistence.Encode(taskVersion, &task)
		if err != nil {
			t.Fatal(err)
		}
		batch.Put(taskKey(task.ID), val) // as a release before the index wrote it
		if machine == "ma" {
			a = append(a, task.ID)
		} else {
			b = append(b, task.ID)
		}
	}
	other := Task{ID: persistence.NewID(), Type: "sync", TargetType: "cluster", TargetID: "x", Status: TaskSucceeded}
	val, err := persistence.Encode(taskVersion, &other)
	if err != nil {
		t.Fatal(err)
	}
	batch.Put(taskKey(other.ID), val).Put(taskKey(persistence.NewID()), []byte("not a task"))
	if err := s.store.Commit(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if got := pages(t, ctx, s.Tasks, "ma", nil, 0); len(got) != 0 {
		t.Fatalf("before the migration: %d tasks of ma listed; want none", len(got))
	}
	slices.Reverse(a)
	slices.Reverse(b)
	for run := 1; run <= 2; run++ {
		if err := MigrateMachineTasks(ctx, s.store, zap.NewNop()); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := pages(t, ctx, s.Tasks, "ma", nil, 100); !slices.Equal(got, a) {
			t.Fatalf("run %d: ma's tasks %d; want its %d, newest first", run, len(got), len(a))
		}
		if got := pages(t, ctx, s.Tasks, "mb", nil, 0); !slices.Equal(got, b) {
			t.Fatalf("run %d: mb's tasks %d; want its %d, newest first", run, len(got), len(b))
		}
		if keys := countKeys(t, s.store, persistence.Prefix("task-vm")); keys != n {
			t.Fatalf("run %d: %d index entries; want %d", run, keys, n)
		}
	}
}
