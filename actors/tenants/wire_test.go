package tenants

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// TestWire checks that every message and answer registered with kit.Wire (this
// package's and those of the packages it imports) crosses members whole, and that every
// message this package sends through a Kind, and every answer its entities give, is
// registered (as far as reading the source tells).
func TestWire(t *testing.T) { wiretest.Check(t) }

// TestAcrossMembers runs some of this package's tests with every request crossing
// members (wiretest.Loopback); VMPLANE_TEST_WIRE=1 runs all of them so.
func TestAcrossMembers(t *testing.T) {
	wiretest.AcrossMembers(t, TestRuleWritesOfOneTenantShareSyncs, TestRuleIndexFollowsWrites, TestBackupAndSnapshotQuotasOfATenant, testTenantRequests)
}

// testTenantRequests makes the requests of a tenant's life that the other tests leave
// out (a rename, its usage, a machine's create and resize, a rule's life, a refused
// delete) and checks their answers, so that TestAcrossMembers sends them across members.
func testTenantRequests(t *testing.T) {
	ctx := context.Background()
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1})
	})
	if _, err := s.Inventory.Sync(ctx); err != nil { // the templates
		t.Fatal(err)
	}
	ten, err := s.Tenants.Create(ctx, "wired", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ten, err = s.Tenants.Update(ctx, ten.ID, TenantChange{Name: kit.Ptr("rewired"), Quota: &QuotaChange{CPUCores: kit.Ptr(8)}}); err != nil ||
		ten.Name != "rewired" || ten.Quota.CPUCores != 8 || ten.Quota.Machines != DefaultQuota.Machines {
		t.Fatalf("update: %+v, %v", ten, err)
	}
	if got, err := s.Tenants.Get(ctx, ten.ID); err != nil || got != ten {
		t.Fatalf("get: %+v, %v; want %+v", got, err, ten)
	}
	p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "web", TemplateID: "tpl-debian-12", CPUCores: 2, MemoryMB: 1024, DiskGB: 20})
	if err != nil || p.Machine.TenantID == nil || *p.Machine.TenantID != ten.ID || p.Task.TargetID != p.Machine.ID {
		t.Fatalf("create machine: %+v, %v", p, err)
	}
	if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("provisioning: %+v, %v", task, err)
	}
	if u, err := s.Tenants.Usage(ctx, ten.ID); err != nil || u.Machines != 1 || u.CPUCores != 2 {
		t.Fatalf("usage: %+v, %v; want one machine of 2 cores", u, err)
	}
	task, err := s.Tenants.ResizeMachine(ctx, ten.ID, p.Machine.ID, ResourceChange{CPUCores: kit.Ptr(4)})
	if err != nil {
		t.Fatal(err)
	}
	if task, err := s.Tasks.Wait(ctx, task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("resize: %+v, %v", task, err)
	}
	// The tenant hears that the first resize started by a told message, which across
	// members may come after this request: until then the machine counts as busy.
	kittest.WaitFor(t, "a resize past the quota refused for its quota", func() bool {
		_, err := s.Tenants.ResizeMachine(ctx, ten.ID, p.Machine.ID, ResourceChange{CPUCores: kit.Ptr(9)})
		if err == nil || !errors.Is(err, apierr.ErrQuotaExceeded) && !errors.Is(err, apierr.ErrOperationInProgress) {
			t.Fatalf("a resize past the quota: %v; want quota_exceeded", err)
		}
		return errors.Is(err, apierr.ErrQuotaExceeded)
	})
	fw := s.Tenants.Firewall()
	in := ruleIn()
	in.MachineID = &p.Machine.ID
	r, err := fw.Create(ctx, ten.ID, in)
	if err != nil || r.MachineID == nil || *r.MachineID != p.Machine.ID || r.Position != 1 {
		t.Fatalf("create rule: %+v, %v", r, err)
	}
	if r, err = fw.Update(ctx, ten.ID, r.ID, RuleInput{Comment: kit.Ptr("wired"), Clear: []string{"machine_id"}}); err != nil || r.Comment != "wired" || r.MachineID != nil {
		t.Fatalf("update rule: %+v, %v", r, err)
	}
	if got, err := fw.Get(ctx, ten.ID, r.ID); err != nil || got.Comment != "wired" {
		t.Fatalf("get rule: %+v, %v", got, err)
	}
	if rs, next, err := fw.Page(ctx, ten.ID, nil, "", 1); err != nil || len(rs) != 1 || rs[0].ID != r.ID || next != "" {
		t.Fatalf("page: %+v, %q, %v", rs, next, err)
	}
	if err := fw.Delete(ctx, ten.ID, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Tenants.Delete(ctx, ten.ID); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("delete of a tenant with a machine: %v; want conflict", err)
	}
}
