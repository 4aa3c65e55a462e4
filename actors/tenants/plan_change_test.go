package tenants

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// planSystem is a tenants test system on a one-node sim, synced, with two plans.
func planSystem(t *testing.T) (*testSystem, context.Context, plans.Plan, plans.Plan) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	s := newTestSystem(t, func(o *testOptions) { o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1}) })
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	small, err := s.Plans.Create(ctx, plans.PlanSpec{Name: "small", CPUCores: 1, MemoryMB: 1024, DiskGB: 20,
		Snapshots: kit.Ptr(1), AllowedTemplates: []string{"tpl-debian-12", "Ubuntu 24.04 LTS (noble)"}})
	if err != nil {
		t.Fatal(err)
	}
	large, err := s.Plans.Create(ctx, plans.PlanSpec{Name: "large", CPUCores: 4, MemoryMB: 4096, DiskGB: 40})
	if err != nil {
		t.Fatal(err)
	}
	return s, ctx, small, large
}

func fieldOf(err error) string {
	var e *apierr.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		return e.Fields[0].Field
	}
	return ""
}

// TestCreateFromPlan: the machine gets the plan's sizes and keeps its id; sizes beside
// a plan, a plan that does not exist and a template the plan does not allow are 400s
// naming the field; without a plan every size is required.
func TestCreateFromPlan(t *testing.T) {
	s, ctx, small, _ := planSystem(t)
	ten, err := s.Tenants.Create(ctx, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "vm", TemplateID: "tpl-ubuntu-24.04", PlanID: &small.ID})
	if err != nil {
		t.Fatal(err)
	}
	m := p.Machine
	if m.CPUCores != 1 || m.MemoryMB != 1024 || m.DiskGB != 20 || m.PlanID == nil || *m.PlanID != small.ID || m.Node != "pve1" {
		t.Fatalf("got %+v; want the plan's sizes and id, placed on pve1", m)
	}
	for _, tc := range []struct {
		spec  MachineSpec
		field string
	}{
		{MachineSpec{Name: "vm", TemplateID: "tpl-debian-12", PlanID: &small.ID, MemoryMB: 2048}, "memory_mb"},
		{MachineSpec{Name: "vm", TemplateID: "tpl-debian-12", PlanID: kit.Ptr("nope")}, "plan_id"},
		{MachineSpec{Name: "vm", TemplateID: "tpl-rocky-9", PlanID: &small.ID}, "template_id"},
		{MachineSpec{Name: "vm", TemplateID: "tpl-debian-12", CPUCores: 1, MemoryMB: 512}, "disk_gb"},
	} {
		_, err := s.Tenants.CreateMachine(ctx, ten.ID, tc.spec)
		if !errors.Is(err, apierr.ErrInvalidRequest) || fieldOf(err) != tc.field {
			t.Errorf("%+v: got %v; want 400 naming %s", tc.spec, err, tc.field)
		}
		if tc.field == "template_id" && !strings.Contains(err.Error(), "template not allowed by plan") {
			t.Errorf("got %v; want template not allowed by plan", err)
		}
	}
	// Explicit sizes still make a machine without a plan.
	p, err = s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "vm2", TemplateID: "tpl-debian-12", CPUCores: 1, MemoryMB: 512, DiskGB: 20})
	if err != nil || p.Machine.PlanID != nil {
		t.Fatalf("explicit sizes: got %+v, %v; want no plan", p.Machine, err)
	}
}

// TestChangePlan: a move up is a resize to the plan's sizes after which the record
// names the plan; a move to a plan of a smaller disk is a 400 saying both sizes; the
// quota bounds the growth; the plan bounds the machine's snapshots.
func TestChangePlan(t *testing.T) {
	s, ctx, small, large := planSystem(t)
	ten, err := s.Tenants.Create(ctx, "t", &QuotaChange{CPUCores: kit.Ptr(4)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "vm", TemplateID: "tpl-debian-12", PlanID: &small.ID})
	if err != nil {
		t.Fatal(err)
	}
	if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("create: got %+v, %v", task, err)
	}
	// The plan allows one snapshot per machine.
	task, err := s.Machines.CreateSnapshot(ctx, p.Machine.ID, &ten.ID, machines.SnapshotRequest{Name: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("snapshot: got %+v, %v", got, err)
	}
	_, err = s.Machines.CreateSnapshot(ctx, p.Machine.ID, &ten.ID, machines.SnapshotRequest{Name: "s2"})
	if !errors.Is(err, apierr.ErrQuotaExceeded) || !strings.Contains(err.Error(), "plan small") {
		t.Fatalf("a second snapshot: got %v; want quota_exceeded naming plan small", err)
	}

	// Another machine holds a core: the move to 4 cores is past the quota of 4.
	other, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "other", TemplateID: "tpl-debian-12", PlanID: &small.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tenants.ChangePlan(ctx, ten.ID, p.Machine.ID, large.ID); !errors.Is(err, apierr.ErrQuotaExceeded) {
		t.Fatalf("move past the quota: got %v; want quota_exceeded", err)
	}
	if task, err := s.Tasks.Wait(ctx, other.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("create: got %+v, %v", task, err)
	}
	if task, err := s.Machines.Destroy(ctx, other.Machine.ID, nil); err != nil {
		t.Fatal(err)
	} else if _, err := s.Tasks.Wait(ctx, task.ID); err != nil {
		t.Fatal(err)
	}

	task, err = s.Tenants.ChangePlan(ctx, ten.ID, p.Machine.ID, large.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("move up: got %+v, %v", got, err)
	}
	m, err := s.Machines.Stored(ctx, p.Machine.ID)
	if err != nil || m.CPUCores != 4 || m.MemoryMB != 4096 || m.DiskGB != 40 || m.PlanID == nil || *m.PlanID != large.ID {
		t.Fatalf("after the move: got %+v, %v; want large's sizes and id", m, err)
	}
	_, err = s.Tenants.ChangePlan(ctx, ten.ID, p.Machine.ID, small.ID)
	if !errors.Is(err, apierr.ErrInvalidRequest) || !strings.Contains(err.Error(), "disk is 40 GB and plan small's 20 GB") {
		t.Fatalf("move down: got %v; want 400 naming both disks", err)
	}
	if _, err := s.Tenants.ChangePlan(ctx, ten.ID, p.Machine.ID, large.ID); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("move to the plan it is on: got %v; want 400", err)
	}
	if _, err := s.Tenants.ChangePlan(ctx, ten.ID, p.Machine.ID, "nope"); fieldOf(err) != "plan_id" {
		t.Fatalf("move to no plan: got %v; want 400 naming plan_id", err)
	}
	// A plan of the same sizes: the machine moves, nothing is resized.
	same, err := s.Plans.Create(ctx, plans.PlanSpec{Name: "large-2", CPUCores: 4, MemoryMB: 4096, DiskGB: 40})
	if err != nil {
		t.Fatal(err)
	}
	task, err = s.Tenants.ChangeAnyPlan(ctx, p.Machine.ID, same.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("move sideways: got %+v, %v", got, err)
	}
	if m, err := s.Machines.Stored(ctx, p.Machine.ID); err != nil || m.PlanID == nil || *m.PlanID != same.ID || m.CPUCores != 4 {
		t.Fatalf("after the sideways move: got %+v, %v", m, err)
	}
	// A plan that does not offer the machine's template (by id or name) is refused,
	// for the tenant and for an operator alike; one that names it by name is fine.
	other2, err := s.Plans.Create(ctx, plans.PlanSpec{Name: "windows", CPUCores: 4, MemoryMB: 4096, DiskGB: 60, AllowedTemplates: []string{"tpl-ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, move := range []func() (tasks.Task, error){
		func() (tasks.Task, error) { return s.Tenants.ChangePlan(ctx, ten.ID, p.Machine.ID, other2.ID) },
		func() (tasks.Task, error) { return s.Tenants.ChangeAnyPlan(ctx, p.Machine.ID, other2.ID) },
	} {
		if _, err := move(); fieldOf(err) != "plan_id" || !strings.Contains(err.Error(), "does not offer the machine's template tpl-debian-12") {
			t.Fatalf("a move to a plan without the machine's template: got %v; want 400 naming plan_id", err)
		}
	}
	byName, err := s.Plans.Create(ctx, plans.PlanSpec{Name: "named", CPUCores: 4, MemoryMB: 4096, DiskGB: 60, AllowedTemplates: []string{"Debian 12 (bookworm)"}})
	if err != nil {
		t.Fatal(err)
	}
	if task, err := s.Tenants.ChangePlan(ctx, ten.ID, p.Machine.ID, byName.ID); err != nil {
		t.Fatalf("a move to a plan naming the template by name: %v", err)
	} else if _, err := s.Tasks.Wait(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
}

// TestPlanBoundsBackupsOnDemand: a plan's backups bound each of its machines' backups
// taken on demand (409 naming the plan), whatever the tenant's quota allows.
func TestPlanBoundsBackupsOnDemand(t *testing.T) {
	s, ctx, _, _ := planSystem(t)
	one, err := s.Plans.Create(ctx, plans.PlanSpec{Name: "one backup", CPUCores: 1, MemoryMB: 512, DiskGB: 20, Backups: kit.Ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	ten, err := s.Tenants.Create(ctx, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "vm", TemplateID: "tpl-debian-12", PlanID: &one.ID})
	if err != nil {
		t.Fatal(err)
	}
	if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("create: got %+v, %v", task, err)
	}
	task, err := s.Machines.BackupNow(ctx, p.Machine.ID, &ten.ID, machines.BackupRequest{Note: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("backup: got %+v, %v", got, err)
	}
	_, err = s.Machines.BackupNow(ctx, p.Machine.ID, &ten.ID, machines.BackupRequest{})
	if !errors.Is(err, apierr.ErrQuotaExceeded) || !strings.Contains(err.Error(), "plan one backup allows each machine 1 backups") {
		t.Fatalf("a second backup: got %v; want quota_exceeded naming the plan", err)
	}
	// Unbounded again: the plan's change holds at once.
	if _, err := s.Plans.Update(ctx, one.ID, plans.PlanChange{}, map[string]bool{"backups": true}); err != nil {
		t.Fatal(err)
	}
	task, err = s.Machines.BackupNow(ctx, p.Machine.ID, &ten.ID, machines.BackupRequest{})
	if err != nil {
		t.Fatalf("a backup with no bound: %v", err)
	}
	if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("backup: got %+v, %v", got, err)
	}
}
