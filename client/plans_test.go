package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// testPlans: the operator writes plans, a tenant's user reads them and their capacity,
// makes a machine from one and moves it to another; the operator moves it back (not
// down: the disk would shrink), and a plan in use is not deleted.
func testPlans(t *testing.T, ctx context.Context, w *world) {
	two := int64(2)
	small, err := w.admin.CreatePlan(ctx, client.PlanSpec{Name: "client small", CPUCores: 1, MemoryMB: 512, DiskGB: w.tpl.DiskGB,
		Snapshots: &two, AllowedTemplates: []string{w.tpl.ID}})
	if err != nil || small.IPv4 != 1 || small.Snapshots == nil || *small.Snapshots != 2 {
		t.Fatalf("create plan: %+v %v", small, err)
	}
	if _, err := w.admin.CreatePlan(ctx, client.PlanSpec{Name: "Client Small", CPUCores: 1, MemoryMB: 512, DiskGB: 20}); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("create of a taken name: %v; want ErrConflict", err)
	}
	large, err := w.admin.CreatePlan(ctx, client.PlanSpec{Name: "client large", CPUCores: 2, MemoryMB: 1024, DiskGB: w.tpl.DiskGB + 10})
	if err != nil {
		t.Fatal(err)
	}
	up, err := w.admin.UpdatePlan(ctx, small.ID, client.PlanChange{Snapshots: client.Null[int64](), IPv4: client.Set[int64](2)})
	if err != nil || up.Snapshots != nil || up.IPv4 != 2 {
		t.Fatalf("update plan: %+v %v", up, err)
	}
	if _, err := w.a.CreatePlan(ctx, client.PlanSpec{Name: "mine", CPUCores: 1, MemoryMB: 512, DiskGB: 20}); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a tenant user's create: %v; want ErrForbidden", err)
	}
	seen := 0
	for p, err := range w.a.Plans(ctx, client.ListOptions{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		if p.ID == small.ID || p.ID == large.ID {
			seen++
		}
	}
	if seen != 2 {
		t.Fatalf("plans listed: %d of 2", seen)
	}
	if p, err := w.a.Plan(ctx, large.ID); err != nil || p.Name != "client large" {
		t.Fatalf("plan: %+v %v", p, err)
	}
	c, err := w.a.PlanCapacity(ctx, small.ID)
	if err != nil || c.PlanID != small.ID || c.Total < 1 || len(c.Nodes) == 0 || c.Overcommit.CPU != 4 {
		t.Fatalf("capacity: %+v %v", c, err)
	}
	// Locations: the plan is the default location's; the lists and the capacity
	// filter by it, and an unknown one is refused.
	if small.LocationID != "default" || c.LocationID != "default" || c.Nodes[0].LocationID != "default" || c.Nodes[0].Name == "" {
		t.Fatalf("locations: plan %q, capacity %+v; want default", small.LocationID, c)
	}
	if c, err := w.a.PlanCapacityIn(ctx, small.ID, "default"); err != nil || c.Total < 1 {
		t.Fatalf("capacity in default: %+v %v", c, err)
	}
	if _, err := w.a.PlanCapacityIn(ctx, small.ID, "nowhere"); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("capacity in another location: %v; want ErrInvalidRequest", err)
	}
	if _, err := w.admin.CreatePlan(ctx, client.PlanSpec{Name: "client nowhere", CPUCores: 1, MemoryMB: 512, DiskGB: 20, LocationID: "nowhere"}); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("create in an unknown location: %v; want ErrInvalidRequest", err)
	}
	for loc, want := range map[string]int{"default": 2, "nowhere": 0} {
		n := 0
		for p, err := range w.a.PlansIn(ctx, client.LocationFilter{Location: loc, ListOptions: client.ListOptions{Limit: 1}}) {
			if err != nil {
				t.Fatal(err)
			}
			if p.ID == small.ID || p.ID == large.ID {
				n++
			}
		}
		if n != want {
			t.Fatalf("plans of %s: %d of ours; want %d", loc, n, want)
		}
	}

	if _, _, err := w.a.CreateMachine(ctx, client.MachineSpec{Name: "elsewhere", TemplateID: w.tpl.ID, PlanID: small.ID, LocationID: "nowhere"}); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("create from a plan in another location: %v; want ErrInvalidRequest", err)
	}
	m, task, err := w.a.CreateMachine(ctx, client.MachineSpec{Name: "planned", TemplateID: w.tpl.ID, PlanID: small.ID, LocationID: "default"})
	if err != nil || m.PlanID == nil || *m.PlanID != small.ID || m.CPUCores != 1 || m.LocationID != "default" {
		t.Fatalf("create from a plan: %+v %v", m, err)
	}
	if _, err := w.a.WaitTask(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	if task, err = w.a.ChangePlan(ctx, m.ID, large.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.a.WaitTask(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := w.a.GetMachine(ctx, m.ID); err != nil || got.PlanID == nil || *got.PlanID != large.ID || got.MemoryMB != 1024 {
		t.Fatalf("after the move: %+v %v", got, err)
	}
	if _, err := w.admin.ChangeMachinePlan(ctx, m.ID, small.ID); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("move down: %v; want ErrInvalidRequest (the disk would shrink)", err)
	}
	// The operator's move: to a plan of the same disk and more memory.
	larger, err := w.admin.CreatePlan(ctx, client.PlanSpec{Name: "client larger", CPUCores: 2, MemoryMB: 2048, DiskGB: large.DiskGB})
	if err != nil {
		t.Fatal(err)
	}
	if task, err = w.admin.ChangeMachinePlan(ctx, m.ID, larger.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.admin.WaitTask(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.admin.DeletePlan(ctx, larger.ID); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("delete of a plan in use: %v; want ErrConflict", err)
	}
	if task, err = w.admin.DeleteMachine(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.admin.WaitTask(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{small.ID, large.ID, larger.ID} {
		if err := w.admin.DeletePlan(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}
