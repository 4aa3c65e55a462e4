package tenants

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence/storetest"
)

// A suspension stops the machines that were running (only those), records them, and
// holds the tenant's writes back (CheckActive); suspending again changes only the
// reason; an unsuspend with start starts those machines and no other, and a second
// unsuspend changes nothing.
func TestSuspendAndUnsuspendATenant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) { o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1}) })
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ten, err := s.Tenants.Create(ctx, "late payer", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ten.Suspension != nil {
		t.Fatalf("a new tenant: got suspension %+v; want none", ten.Suspension)
	}
	var ids []string
	for _, name := range []string{"up", "down"} {
		p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: name, TemplateID: "tpl-debian-12", CPUCores: 1, MemoryMB: 512, DiskGB: 20})
		if err != nil {
			t.Fatal(err)
		}
		if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
			t.Fatalf("create: got %+v, %v", task, err)
		}
		ids = append(ids, p.Machine.ID)
	}
	up, down := ids[0], ids[1]
	power := func(id string, a hypervisor.PowerAction) {
		t.Helper()
		task, err := s.Machines.Start(ctx, id, machines.Operation{Type: machines.OpPower, Action: a}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
			t.Fatalf("%s: got %+v, %v", a, got, err)
		}
	}
	power(down, hypervisor.ActionStop)
	status := func(id string) string {
		m, err := s.Machines.Get(ctx, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m.Status
	}

	if err := s.Tenants.CheckActive(ctx, ten.ID); err != nil {
		t.Fatalf("CheckActive of an active tenant: %v", err)
	}
	if _, err := s.Tenants.Suspend(ctx, ten.ID, "", ""); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("a suspension without a reason: got %v; want invalid_request", err)
	}
	if _, err := s.Tenants.Suspend(ctx, ten.ID, "unpaid", "pause"); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("an unknown action: got %v; want invalid_request", err)
	}
	if _, err := s.Tenants.Suspend(ctx, "nobody", "unpaid", ""); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("an unknown tenant: got %v; want not_found", err)
	}
	_, sub, _ := s.Events.Subscribe(s.Events.Latest(), nil)
	defer sub.Close()
	got, err := s.Tenants.Suspend(ctx, ten.ID, "invoice 42 unpaid", "")
	if err != nil {
		t.Fatal(err)
	}
	sp := got.Suspension
	if sp == nil || sp.Reason != "invoice 42 unpaid" || sp.Action != SuspendStop || sp.Since.IsZero() || !slices.Equal(sp.Machines, []string{up}) {
		t.Fatalf("suspended: got %+v; want the reason, action stop (the default) and the running machine %s", sp, up)
	}
	testwait.Eventually(t, "the running machine stopped", func() bool { return status(up) == machines.StatusStopped })
	if err := s.Tenants.CheckActive(ctx, ten.ID); !errors.Is(err, apierr.ErrTenantSuspended) || !strings.Contains(err.Error(), "invoice 42 unpaid") {
		t.Fatalf("CheckActive of a suspended tenant: got %v; want tenant_suspended with the reason", err)
	}
	for ev := range sub.C {
		if ev.Type == events.EventTenantSuspended {
			if ev.TenantID == nil || *ev.TenantID != ten.ID {
				t.Fatalf("got %+v; want the tenant's %s", ev, events.EventTenantSuspended)
			}
			break
		}
	}

	again, err := s.Tenants.Suspend(ctx, ten.ID, "invoice 43 unpaid too", SuspendNone)
	if err != nil {
		t.Fatal(err)
	}
	if sp2 := again.Suspension; sp2 == nil || sp2.Reason != "invoice 43 unpaid too" || !sp2.Since.Equal(sp.Since) || sp2.Action != SuspendStop || !slices.Equal(sp2.Machines, sp.Machines) {
		t.Fatalf("suspended again: got %+v; want only the reason changed", sp2)
	}
	if stored, err := s.Tenants.Get(ctx, ten.ID); err != nil || stored.Suspension == nil || stored.Suspension.Reason != "invoice 43 unpaid too" {
		t.Fatalf("read back: got %+v, %v", stored.Suspension, err)
	}

	back, err := s.Tenants.Unsuspend(ctx, ten.ID, true)
	if err != nil || back.Suspension != nil {
		t.Fatalf("unsuspended: got %+v, %v; want no suspension", back.Suspension, err)
	}
	testwait.Eventually(t, "the machine the suspension stopped started again", func() bool { return status(up) == machines.StatusRunning })
	if st := status(down); st != machines.StatusStopped {
		t.Fatalf("the machine that was stopped before: got %s; want still stopped", st)
	}
	if err := s.Tenants.CheckActive(ctx, ten.ID); err != nil {
		t.Fatalf("CheckActive after the unsuspend: %v", err)
	}
	before, _ := s.Tenants.Get(ctx, ten.ID)
	if again, err := s.Tenants.Unsuspend(ctx, ten.ID, true); err != nil || !again.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("an unsuspend of an active tenant: got %+v, %v; want it unchanged", again, err)
	}
}

// A suspension with action suspend suspends the running machines on the hypervisor,
// and an unsuspend with start resumes them; one without start leaves them as they are.
func TestSuspendWithHypervisorSuspend(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) { o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1}) })
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ten, err := s.Tenants.Create(ctx, "paused", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "vm", TemplateID: "tpl-debian-12", CPUCores: 1, MemoryMB: 512, DiskGB: 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil {
		t.Fatal(err)
	}
	status := func() string {
		m, err := s.Machines.Get(ctx, p.Machine.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m.Status
	}
	if _, err := s.Tenants.Suspend(ctx, ten.ID, "unpaid", SuspendHypervisor); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the machine suspended", func() bool { return status() == machines.StatusSuspended })
	if _, err := s.Tenants.Unsuspend(ctx, ten.ID, false); err != nil {
		t.Fatal(err)
	}
	if st := status(); st != machines.StatusSuspended {
		t.Fatalf("after an unsuspend without start: got %s; want still suspended", st)
	}
	if _, err := s.Tenants.Suspend(ctx, ten.ID, "unpaid again", SuspendNone); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tenants.Unsuspend(ctx, ten.ID, true); err != nil || got.Suspension != nil {
		t.Fatalf("unsuspend: got %+v, %v", got, err)
	}
	if st := status(); st != machines.StatusSuspended {
		t.Fatalf("after an unsuspend of a suspension that touched no machine: got %s; want still suspended", st)
	}
}

// A machine that runs after the suspension began (busy then, starting, or started
// behind vmplane's back) is stopped by the next sweep, and joins the suspension's
// machines, so an unsuspend with start starts it again.
func TestSuspensionSweepStopsWhatRunsLater(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	drv := sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1})
	s := newTestSystem(t, func(o *testOptions) { o.Driver = drv })
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ten, err := s.Tenants.Create(ctx, "swept", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "late", TemplateID: "tpl-debian-12", CPUCores: 1, MemoryMB: 512, DiskGB: 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil {
		t.Fatal(err)
	}
	status := func() string {
		m, err := s.Machines.Get(ctx, p.Machine.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m.Status
	}
	stop, err := s.Machines.Start(ctx, p.Machine.ID, machines.Operation{Type: machines.OpPower, Action: hypervisor.ActionStop}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tasks.Wait(ctx, stop.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Tenants.Suspend(ctx, ten.ID, "unpaid", SuspendStop)
	if err != nil || got.Suspension == nil || len(got.Suspension.Machines) != 0 {
		t.Fatalf("suspended with nothing running: got %+v, %v", got.Suspension, err)
	}
	// Started on the hypervisor behind vmplane's back; the sync sees it run.
	m, err := s.Machines.Get(ctx, p.Machine.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := drv.Power(ctx, hypervisor.Ref{VMID: m.VMID, Node: m.Node}, hypervisor.ActionStart); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if st := status(); st != machines.StatusRunning {
		t.Fatalf("after the sync: got %s; want running", st)
	}
	if err := s.Tenants.EnforceSuspensions(ctx); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the sweep stopped the machine", func() bool { return status() == machines.StatusStopped })
	if ten, err := s.Tenants.Get(ctx, ten.ID); err != nil || ten.Suspension == nil || !slices.Equal(ten.Suspension.Machines, []string{p.Machine.ID}) {
		t.Fatalf("the suspension after the sweep: got %+v, %v; want the machine it stopped listed", ten.Suspension, err)
	}
	if _, err := s.Tenants.Unsuspend(ctx, ten.ID, true); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the unsuspend started the machine", func() bool { return status() == machines.StatusRunning })
	// An active tenant's machines are none of the sweep's business.
	if err := s.Tenants.EnforceSuspensions(ctx); err != nil {
		t.Fatal(err)
	}
	if st := status(); st != machines.StatusRunning {
		t.Fatalf("after a sweep of an active tenant: got %s; want running", st)
	}
}

// The standing CheckActive reads without a message is published by the tenant's entity
// before it answers a change: right after each acknowledged suspend and unsuspend the
// table holds the new standing (an entry that lagged would be the old one, or none),
// and CheckActive answers it. A tenant whose entity has not published yet is asked.
func TestSuspensionIsPublishedBeforeItIsAnswered(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t)
	ten, err := s.Tenants.Create(ctx, "published", nil)
	if err != nil {
		t.Fatal(err)
	}
	table := s.Tenants.sys.standing
	if st, ok := table.get(ten.ID); !ok || st.suspended {
		t.Fatalf("a new tenant's standing: got %+v, %v; want active, published", st, ok)
	}
	for i := range 20 {
		reason := fmt.Sprintf("unpaid %d", i)
		if _, err := s.Tenants.Suspend(ctx, ten.ID, reason, SuspendNone); err != nil {
			t.Fatal(err)
		}
		if st, ok := table.get(ten.ID); !ok || !st.suspended || st.reason != reason {
			t.Fatalf("round %d, after the suspension was answered: got %+v, %v; want suspended (%s), published", i, st, ok, reason)
		}
		err := s.Tenants.CheckActive(ctx, ten.ID)
		if !errors.Is(err, apierr.ErrTenantSuspended) || !strings.Contains(err.Error(), reason) {
			t.Fatalf("round %d: CheckActive of a suspended tenant: got %v; want tenant_suspended: %s", i, err, reason)
		}
		if _, err := s.Tenants.Unsuspend(ctx, ten.ID, false); err != nil {
			t.Fatal(err)
		}
		if st, ok := table.get(ten.ID); !ok || st.suspended {
			t.Fatalf("round %d, after the unsuspension was answered: got %+v, %v; want active, published", i, st, ok)
		}
		if err := s.Tenants.CheckActive(ctx, ten.ID); err != nil {
			t.Fatalf("round %d: CheckActive of an unsuspended tenant: %v", i, err)
		}
	}

	// A tenant deleted is no longer in the table: its check asks, and finds none.
	if err := s.Tenants.Delete(ctx, ten.ID); err != nil {
		t.Fatal(err)
	}
	if st, ok := table.get(ten.ID); ok {
		t.Fatalf("a deleted tenant's standing: got %+v; want none", st)
	}
	if err := s.Tenants.CheckActive(ctx, ten.ID); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("CheckActive of a deleted tenant: got %v; want not_found", err)
	}

	// On a shared store (a cluster) nothing is published: every check asks the entity
	// (or, when the store's watch keeps time, the member's copy: TestClusterSuspension).
	off := newStandings(storetest.Shared{Store: s.Tenants.sys.store})
	off.publish("t1", &Tenant{ID: "t1"})
	if _, ok := off.get("t1"); ok {
		t.Fatal("a shared store's table served a standing")
	}
}
