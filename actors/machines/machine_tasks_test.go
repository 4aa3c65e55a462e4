package machines

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor"
)

// taskIDs lists the ids of tasks.
func taskIDs(ts []tasks.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// pages lists a machine's tasks page by page, following the cursors.
func pages(t *testing.T, ctx context.Context, ts *tasks.Tasks, machine string, tenant *string, limit int) []string {
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
