package schedules

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// A suspended tenant's schedule does not run at its due time: the due time is skipped
// and last_status says why; after the unsuspend, the next due time runs.
func TestSuspendedTenantsScheduleSkips(t *testing.T) {
	clock := clockwork.NewFakeClockAt(mustTime(t, "2026-01-15T02:00:00Z"))
	s := newTestSystem(t, func(o *testOptions) {
		o.Clock = clock
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Machines: 1})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 1 {
		t.Fatalf("got %d machines, %v; want 1", len(ms), err)
	}
	ten, err := s.Tenants.Create(ctx, "unpaid", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Machines.Assign(ctx, ms[0].ID, &ten.ID); err != nil {
		t.Fatal(err)
	}
	action, cron := string(hypervisor.ActionStart), "0 3 * * *"
	if ms[0].Status == machines.StatusRunning {
		action = string(hypervisor.ActionReboot)
	}
	sc, err := s.Schedules.Power().Create(ctx, ten.ID, ScheduleInput{MachineID: &ms[0].ID, Action: &action, Cron: &cron})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tenants.Suspend(ctx, ten.ID, "invoice 7 unpaid", tenants.SuspendNone); err != nil {
		t.Fatal(err)
	}
	get := func() PowerSchedule {
		got, err := s.Schedules.Power().Get(ctx, sc.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	clock.Advance(time.Hour)
	kittest.WaitFor(t, "the due time skipped", func() bool {
		got := get()
		return got.LastStatus != nil && strings.HasPrefix(*got.LastStatus, "skipped: tenant suspended")
	})
	if got := get(); got.Runs != 0 || !strings.Contains(*got.LastStatus, "invoice 7 unpaid") || got.NextRunAt == nil ||
		!got.NextRunAt.Equal(mustTime(t, "2026-01-16T03:00:00Z")) {
		t.Fatalf("got runs %d, status %q, next %v; want no run, the reason, and the next day's due time", got.Runs, *got.LastStatus, got.NextRunAt)
	}
	if _, err := s.Tenants.Unsuspend(ctx, ten.ID, false); err != nil {
		t.Fatal(err)
	}
	clock.Advance(24 * time.Hour)
	kittest.WaitFor(t, "the run after the unsuspend", func() bool {
		got := get()
		return got.Runs == 1 && got.LastStatus != nil && *got.LastStatus == RunSucceeded
	})
}
