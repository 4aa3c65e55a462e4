package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/client"
	"github.com/vmplane/vmplane/internal/testwait"
)

// testSuspension suspends tenant B, whose user's writes then fail with
// ErrTenantSuspended while its reads work, and unsuspends it.
func testSuspension(t *testing.T, ctx context.Context, w *world) {
	ten, err := w.admin.SuspendTenant(ctx, w.tenB.ID, client.SuspendSpec{Reason: "invoice unpaid", Action: client.SuspendNone})
	if err != nil || ten.Suspension == nil || ten.Suspension.Reason != "invoice unpaid" || ten.Suspension.Action != client.SuspendNone {
		t.Fatalf("suspend: got %+v, %v", ten, err)
	}
	_, err = w.b.CreateFirewallRule(ctx, client.FirewallRuleSpec{Direction: "out", Action: "accept", Protocol: "any"})
	if !errors.Is(err, client.ErrTenantSuspended) {
		t.Fatalf("a suspended tenant's write: got %v; want ErrTenantSuspended", err)
	}
	if _, err := w.b.Overview(ctx); err != nil {
		t.Fatalf("a suspended tenant's read: %v", err)
	}
	if ten, err = w.admin.UnsuspendTenant(ctx, w.tenB.ID, true); err != nil || ten.Suspension != nil {
		t.Fatalf("unsuspend: got %+v, %v", ten, err)
	}
	r, err := w.b.CreateFirewallRule(ctx, client.FirewallRuleSpec{Direction: "out", Action: "accept", Protocol: "any"})
	if err != nil {
		t.Fatalf("after the unsuspend: %v", err)
	}
	if err := w.b.DeleteFirewallRule(ctx, r.ID); err != nil {
		t.Fatal(err)
	}

	// One machine, for billing: tenant A's, left running (action none).
	m, err := w.admin.SuspendMachineBilling(ctx, w.m.ID, client.SuspendSpec{Reason: "order unpaid", Action: client.SuspendNone})
	if err != nil || m.BillingSuspension == nil || m.BillingSuspension.Reason != "order unpaid" {
		t.Fatalf("suspend-billing: got %+v, %v", m, err)
	}
	if _, err := w.a.MachineAction(ctx, w.m.ID, client.ActionReboot); !errors.Is(err, client.ErrMachineSuspended) {
		t.Fatalf("a reboot of a machine suspended for billing: got %v; want ErrMachineSuspended", err)
	}
	if m, err = w.admin.UnsuspendMachineBilling(ctx, w.m.ID, true); err != nil || m.BillingSuspension != nil {
		t.Fatalf("unsuspend-billing: got %+v, %v", m, err)
	}

	// A termination (no grace on the test server: at once) of a machine of tenant B.
	made, task, err := w.b.CreateMachine(ctx, client.MachineSpec{Name: "doomed", TemplateID: w.tpl.ID, CPUCores: 1, MemoryMB: 512, DiskGB: w.tpl.DiskGB})
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t, ctx, task)
	if m, err = w.admin.CancelTerminateMachine(ctx, made.ID); err != nil || m.TerminateAt != nil {
		t.Fatalf("cancel of a machine not marked: got %+v, %v", m, err)
	}
	if m, err = w.admin.TerminateMachine(ctx, made.ID); err != nil || m.TerminateAt == nil {
		t.Fatalf("terminate: got %+v, %v", m, err)
	}
	testwait.Eventually(t, "the terminated machine deleted", func() bool {
		_, err := w.admin.GetMachine(ctx, made.ID)
		return errors.Is(err, client.ErrNotFound)
	})
}
