package machines

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/internal/testwait"
)

// A machine suspended for billing (action suspend) is suspended on the hypervisor; its
// tenant can start nothing on it (not even a resume) while the operator still can;
// suspending again sets the reason only; the unsuspend with start resumes it, and a
// second unsuspend changes nothing.
func TestSuspendMachineForBilling(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, m := syncedMachine(t, ctx, 1)
	tenant := "T1"
	if _, err := s.Machines.Assign(ctx, m.ID, &tenant); err != nil {
		t.Fatal(err)
	}
	if m.Status != StatusRunning {
		runToEnd(t, ctx, s, m.ID, Operation{Type: OpPower, Action: hypervisor.ActionStart})
	}
	get := func() Machine {
		got, err := s.Machines.Get(ctx, m.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if _, err := s.Machines.SuspendBilling(ctx, m.ID, "", ""); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("no reason: got %v; want invalid_request", err)
	}
	if _, err := s.Machines.SuspendBilling(ctx, "nosuch", "unpaid", ""); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("an unknown machine: got %v; want not_found", err)
	}
	got, err := s.Machines.SuspendBilling(ctx, m.ID, "unpaid", BillingSuspend)
	if err != nil {
		t.Fatal(err)
	}
	bs := got.BillingSuspension
	if bs == nil || bs.Reason != "unpaid" || bs.Action != BillingSuspend || !bs.WasRunning || bs.Since.IsZero() {
		t.Fatalf("got %+v; want the reason, action suspend, was running", bs)
	}
	testwait.Eventually(t, "the machine suspended on the hypervisor", func() bool {
		g := get()
		return g.Status == StatusSuspended && g.TaskID == nil
	})
	_, err = s.Machines.Start(ctx, m.ID, Operation{Type: OpPower, Action: hypervisor.ActionResume}, &tenant)
	if !errors.Is(err, apierr.ErrMachineSuspended) {
		t.Fatalf("the tenant's resume: got %v; want machine_suspended", err)
	}
	if again, err := s.Machines.SuspendBilling(ctx, m.ID, "still unpaid", BillingNone); err != nil ||
		again.BillingSuspension.Reason != "still unpaid" || again.BillingSuspension.Action != BillingSuspend || !again.BillingSuspension.Since.Equal(bs.Since) {
		t.Fatalf("suspended again: got %+v, %v; want only the reason changed", again.BillingSuspension, err)
	}
	back, err := s.Machines.UnsuspendBilling(ctx, m.ID, true)
	if err != nil || back.BillingSuspension != nil {
		t.Fatalf("unsuspend: got %+v, %v", back.BillingSuspension, err)
	}
	testwait.Eventually(t, "the machine resumed", func() bool {
		g := get()
		return g.Status == StatusRunning && g.TaskID == nil
	})
	before := get()
	if again, err := s.Machines.UnsuspendBilling(ctx, m.ID, true); err != nil || !again.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("a second unsuspend: got %+v, %v; want the machine unchanged", again, err)
	}
	runToEnd(t, ctx, s, m.ID, Operation{Type: OpPower, Action: hypervisor.ActionReboot})
	if _, err := s.Machines.Start(ctx, m.ID, Operation{Type: OpPower, Action: hypervisor.ActionReboot}, &tenant); err != nil {
		t.Fatalf("the tenant's reboot after the unsuspend: %v", err)
	}
}
