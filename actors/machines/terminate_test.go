package machines

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// A termination within a grace marks the machine (terminate_at) and stops it; its
// tenant starts nothing on it; a cancel takes it back; marked again, the machine is
// deleted at the due time on the runtime's clock, with its snapshots and backups, and
// machine.terminated is published.
func TestTerminateAfterTheGrace(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	drv := sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 1})
	s := newTestSystem(t, func(o *testOptions) { o.Driver, o.Clock, o.TerminateGrace = drv, clock, 24*time.Hour })
	if _, err := s.adopt(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 1 {
		t.Fatalf("got %d machines, %v", len(ms), err)
	}
	m, tenant := ms[0], "T1"
	if _, err := s.Machines.Assign(ctx, m.ID, &tenant); err != nil {
		t.Fatal(err)
	}
	if m.Status != StatusRunning {
		runToEnd(t, ctx, s, m.ID, Operation{Type: OpPower, Action: hypervisor.ActionStart})
	}
	wait := func(task tasks.Task, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
			t.Fatalf("got %+v, %v", got, err)
		}
	}
	wait(s.Machines.CreateSnapshot(ctx, m.ID, nil, SnapshotRequest{Name: "before"}))
	wait(s.Machines.BackupNow(ctx, m.ID, nil, BackupRequest{Note: "keep"}))
	if list, _, err := s.Backups.List(ctx, nil, m.ID, "", 0); err != nil || len(list) != 1 {
		t.Fatalf("backups: got %d, %v; want 1", len(list), err)
	}
	get := func() (Machine, error) { return s.Machines.Get(ctx, m.ID, nil) }

	got, err := s.Machines.Terminate(ctx, m.ID)
	due := clock.Now().Add(24 * time.Hour)
	if err != nil || got.TerminateAt == nil || !got.TerminateAt.Equal(due) {
		t.Fatalf("terminate: got %v, %v; want terminate_at %s", got.TerminateAt, err, due)
	}
	kittest.WaitFor(t, "the machine stopped within the grace", func() bool {
		g, err := get()
		return err == nil && g.Status == StatusStopped && g.TaskID == nil
	})
	if _, err := s.Machines.Start(ctx, m.ID, Operation{Type: OpPower, Action: hypervisor.ActionStart}, &tenant); !errors.Is(err, apierr.ErrInvalidState) {
		t.Fatalf("the tenant's start of a machine marked for termination: got %v; want invalid_state", err)
	}
	if _, err := s.Machines.Start(ctx, m.ID, Operation{Type: OpDestroy, Purge: true}, nil); !errors.Is(err, apierr.ErrInvalidState) {
		t.Fatalf("a purge before the due time: got %v; want invalid_state", err)
	}
	if back, err := s.Machines.CancelTerminate(ctx, m.ID); err != nil || back.TerminateAt != nil {
		t.Fatalf("cancel: got %v, %v; want no terminate_at", back.TerminateAt, err)
	}
	clock.Advance(25 * time.Hour)
	if _, err := get(); err != nil {
		t.Fatalf("a cancelled termination: %v; want the machine kept", err)
	}

	_, sub, _ := s.Events.Subscribe(s.Events.Latest(), nil)
	defer sub.Close()
	if _, err := s.Machines.Terminate(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	// What a restart does: the timer is armed again from the store.
	if err := s.Machines.WakeTerminations(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Advance(24 * time.Hour)
	kittest.WaitFor(t, "the machine deleted at the due time", func() bool {
		_, err := get()
		return errors.Is(err, apierr.ErrNotFound)
	})
	if list, _, err := s.Backups.List(ctx, nil, m.ID, "", 0); err != nil || len(list) != 0 {
		t.Fatalf("backups after the termination: got %d, %v; want none", len(list), err)
	}
	if keys, err := s.store.Get(ctx, terminateKey(m.ID)); err == nil {
		t.Fatalf("the termination's index key is left: %s", keys)
	}
	for ev := range sub.C {
		if ev.Type == events.EventMachineTerminated {
			break
		}
	}
}
