package tasks

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// TestMain fails the tests if they leave a goroutine running.
func TestMain(m *testing.M) { kittest.Main(m) }

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

func TestULIDTimePrefixBoundsLaterIDs(t *testing.T) {
	before := persistence.NewID()
	at := testwait.PastMilli(t, time.Now())
	testwait.PastMilli(t, at)
	after := persistence.NewID()
	p := ulidTimePrefix(at)
	if len(p) != 10 || !(before < p) || !(p < after) {
		t.Fatalf("got prefix %q between %q and %q; want it to separate them", p, before, after)
	}
}

func taskIDs(ts []Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// pages lists a machine's tasks page by page, following the cursors.
func pages(t *testing.T, ctx context.Context, ts *Tasks, machine string, tenant *string, limit int) []string {
	t.Helper()
	var out []string
	cursor := ""
	for range 100 {
		page, next, err := ts.OfMachine(ctx, machine, tenant, cursor, limit)
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
// countKeys counts the keys under prefix.
func countKeys(t *testing.T, store persistence.Store, prefix []byte) int {
	t.Helper()
	n := 0
	if err := store.Scan(context.Background(), prefix, nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// The migration to schema version 4 indexes the tasks of a store written without the
// index, over several batches, and running it again changes nothing.
func TestMigrateMachineTasks(t *testing.T) {
	ctx := context.Background()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	all := New(store)
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
		val, err := persistence.Encode(Version, &task)
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
	val, err := persistence.Encode(Version, &other)
	if err != nil {
		t.Fatal(err)
	}
	batch.Put(taskKey(other.ID), val).Put(taskKey(persistence.NewID()), []byte("not a task"))
	if err := store.Commit(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if got := pages(t, ctx, all, "ma", nil, 0); len(got) != 0 {
		t.Fatalf("before the migration: %d tasks of ma listed; want none", len(got))
	}
	slices.Reverse(a)
	slices.Reverse(b)
	for run := 1; run <= 2; run++ {
		if err := MigrateMachineTasks(ctx, store, zap.NewNop()); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := pages(t, ctx, all, "ma", nil, 100); !slices.Equal(got, a) {
			t.Fatalf("run %d: ma's tasks %d; want its %d, newest first", run, len(got), len(a))
		}
		if got := pages(t, ctx, all, "mb", nil, 0); !slices.Equal(got, b) {
			t.Fatalf("run %d: mb's tasks %d; want its %d, newest first", run, len(got), len(b))
		}
		if keys := countKeys(t, store, persistence.Prefix("task-vm")); keys != n {
			t.Fatalf("run %d: %d index entries; want %d", run, keys, n)
		}
	}
}
