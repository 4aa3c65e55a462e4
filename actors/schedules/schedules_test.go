package schedules

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCompileSchedule(t *testing.T) {
	f := func(spec, tz string, wantFields ...string) {
		t.Helper()
		_, _, errs := compileSchedule(spec, tz)
		var got []string
		for _, e := range errs {
			got = append(got, e.Field)
		}
		if strings.Join(got, ",") != strings.Join(wantFields, ",") {
			t.Fatalf("compileSchedule(%q, %q): got errors on %v (%+v); want on %v", spec, tz, got, errs, wantFields)
		}
	}
	f("0 3 * * *", "UTC")
	f("*/15 9-17 * * 1-5", "Europe/Berlin")
	f("30 0 3 * * *", "UTC") // leading seconds
	f("* * * * * *", "UTC")
	f("@daily", "America/New_York")
	f("@every 90m", "UTC")
	f("0 3 * *", "UTC", "cron")
	f("0 3 * * * * *", "UTC", "cron")
	f("60 * * * *", "UTC", "cron")
	f("", "UTC", "cron")
	f("@reboot", "UTC", "cron")
	f("TZ=UTC 0 3 * * *", "UTC", "cron")
	f("CRON_TZ=Europe/Berlin0", "UTC", "cron") // would panic inside the parser
	f("0 0 30 2 *", "UTC", "cron")             // 30 February: never
	f(strings.Repeat("1,", 150)+"1 * * * *", "UTC", "cron")
	// At MaxCronLen a valid expression is taken, one longer is refused.
	at := "0" + strings.Repeat(" ", MaxCronLen-len("03 * * *")) + "3 * * *"
	f(at, "UTC")
	f(at[:1]+" "+at[1:], "UTC", "cron") // one space more inside
	f("0 3 * * *", strings.Repeat("a/", MaxTimezoneLen/2)+"b", "timezone")
	f("0 3 * * *", "Mars/Olympus", "timezone")
	f("0 3 * * *", "Local", "timezone")
	f("0 3 * * *", "", "timezone")
	f("nope", "Nowhere", "timezone", "cron")
}

func TestNextRunInTimeZone(t *testing.T) {
	f := func(spec, tz, after, want string) {
		t.Helper()
		sched, loc, errs := compileSchedule(spec, tz)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		got := nextRun(sched, loc, mustTime(t, after))
		if got == nil || !got.Equal(mustTime(t, want)) || got.Location() != time.UTC {
			t.Fatalf("next of %q in %s after %s: got %v; want %s in UTC", spec, tz, after, got, want)
		}
	}
	f("0 2 * * *", "UTC", "2025-01-15T10:00:00Z", "2025-01-16T02:00:00Z")
	// 02:00 in Berlin is 01:00 UTC in winter and 00:00 UTC in summer.
	f("0 2 * * *", "Europe/Berlin", "2025-01-15T10:00:00Z", "2025-01-16T01:00:00Z")
	f("0 2 * * *", "Europe/Berlin", "2025-07-15T10:00:00Z", "2025-07-16T00:00:00Z")
	// The day of the week is the zone's: Monday 00:30 in Tokyo is Sunday 15:30 UTC.
	f("30 0 * * 1", "Asia/Tokyo", "2025-03-05T00:00:00Z", "2025-03-09T15:30:00Z")
	// Strictly after: a due time now is not next.
	f("* * * * * *", "UTC", "2025-01-15T10:00:00Z", "2025-01-15T10:00:01Z")
	f("0 0 1 1 *", "UTC", "2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
}

func TestMissedRun(t *testing.T) {
	f := func(spec, since, now string, grace time.Duration, wantRun, wantFirst string) {
		t.Helper()
		sched, loc, errs := compileSchedule(spec, "UTC")
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		run, first := missedRun(sched, loc, mustTime(t, since), mustTime(t, now), grace)
		show := func(v time.Time) string {
			if v.IsZero() {
				return ""
			}
			return v.Format(time.RFC3339)
		}
		if show(run) != wantRun || show(first) != wantFirst {
			t.Fatalf("missedRun(%q, since %s, now %s, grace %s): got run %q first %q; want %q %q",
				spec, since, now, grace, show(run), show(first), wantRun, wantFirst)
		}
	}
	daily := "0 2 * * *"
	// Nothing missed: the next due time is still ahead.
	f(daily, "2025-01-15T02:00:00Z", "2025-01-15T10:00:00Z", time.Hour, "", "")
	// Missed 30 minutes ago: run it.
	f(daily, "2025-01-14T02:00:00Z", "2025-01-15T02:30:00Z", time.Hour, "2025-01-15T02:00:00Z", "2025-01-15T02:00:00Z")
	// Exactly at the grace: still run.
	f(daily, "2025-01-14T02:00:00Z", "2025-01-15T03:00:00Z", time.Hour, "2025-01-15T02:00:00Z", "2025-01-15T02:00:00Z")
	// Beyond the grace: skip, naming the first missed.
	f(daily, "2025-01-14T02:00:00Z", "2025-01-15T03:00:01Z", time.Hour, "", "2025-01-15T02:00:00Z")
	// Down three days, back 30 minutes after the latest: run only the latest.
	f(daily, "2025-01-12T02:00:00Z", "2025-01-15T02:30:00Z", time.Hour, "2025-01-15T02:00:00Z", "2025-01-13T02:00:00Z")
	// Grace 0 skips every missed run, but a due time exactly now is not missed yet.
	f(daily, "2025-01-14T02:00:00Z", "2025-01-15T02:00:01Z", 0, "", "2025-01-15T02:00:00Z")
	// Since is exclusive: a due time already claimed never counts as missed.
	f(daily, "2025-01-15T02:00:00Z", "2025-01-15T02:00:30Z", time.Hour, "", "")
	// A per-second schedule down for ten years: the latest second, found in a few
	// steps (a walk through 300 million seconds would not end within the test).
	f("* * * * * *", "2015-01-14T00:00:00Z", "2025-01-15T00:00:00.5Z", 720*time.Hour, "2025-01-15T00:00:00Z", "2015-01-14T00:00:01Z")
	// Since inside the grace window bounds the search.
	f("*/10 * * * * *", "2025-01-15T09:59:50Z", "2025-01-15T10:00:05Z", time.Hour, "2025-01-15T10:00:00Z", "2025-01-15T10:00:00Z")
}

func TestScheduleApplyAndValidate(t *testing.T) {
	rec := scheduleRecord{ScheduleBase: ScheduleBase{Cron: "0 3 * * *", Timezone: "UTC", Enabled: true}, Kind: ScheduleBackup, Retention: 3, Mode: "snapshot"}
	if f := validateSchedule(&rec); len(f) != 0 {
		t.Fatalf("got %+v; want a valid schedule", f)
	}
	c := rec
	retimed, f := c.apply(ScheduleInput{Retention: kit.Ptr(5)})
	if retimed || len(f) != 0 || c.Retention != 5 {
		t.Fatalf("got retimed %v, %+v, retention %d; want a plain change to 5", retimed, f, c.Retention)
	}
	c = rec
	if retimed, _ = c.apply(ScheduleInput{Enabled: kit.Ptr(true), Cron: kit.Ptr("0 3 * * *")}); retimed {
		t.Fatal("got retimed for a change to the same values; want not")
	}
	if retimed, _ = c.apply(ScheduleInput{Timezone: kit.Ptr("Asia/Tokyo")}); !retimed {
		t.Fatal("got not retimed for a new time zone; want retimed")
	}
	c = rec
	if _, f = c.apply(ScheduleInput{Action: kit.Ptr("stop")}); len(f) != 1 || f[0].Field != "action" {
		t.Fatalf("got %+v; want action refused on a backup schedule", f)
	}
	p := scheduleRecord{ScheduleBase: rec.ScheduleBase, Kind: SchedulePower, Action: "suspend"}
	if f := validateSchedule(&p); len(f) != 1 || f[0].Field != "action" {
		t.Fatalf("got %+v; want suspend refused", f)
	}
	for _, a := range []string{"start", "stop", "shutdown", "reboot"} {
		p.Action = a
		if f := validateSchedule(&p); len(f) != 0 {
			t.Fatalf("action %s: got %+v; want valid", a, f)
		}
	}
}

func TestStartFailedStatus(t *testing.T) {
	s := &Schedules{}
	f := func(err error, wantPrefix string, wantDisable bool) {
		t.Helper()
		d := &runDone{MachineID: "M1"}
		s.startFailed(d, err)
		if !strings.HasPrefix(d.Status, wantPrefix) || d.Disable != wantDisable {
			t.Fatalf("startFailed(%v): got %q disable %v; want %q… disable %v", err, d.Status, d.Disable, wantPrefix, wantDisable)
		}
	}
	f(apierr.New(apierr.ErrOperationInProgress, "machine M1 has task T in progress"), "failed: operation_in_progress: machine M1 has task T", false)
	f(apierr.NotFound("machine", "M1"), "failed: machine M1 no longer exists (or is no longer the tenant's); the schedule is disabled", true)
	f(apierr.New(apierr.ErrInvalidState, "stop is not allowed while the machine is stopped"), "skipped: stop is not allowed", false)
	f(errors.New("boom"), "failed: internal", false)
}

func TestPruneBackups(t *testing.T) {
	ctx := context.Background()
	d := sim.New(sim.Config{Seed: 1, Nodes: 1, Machines: 1, OpDelay: time.Millisecond})
	inv, err := d.Inventory(ctx)
	if err != nil || len(inv.Machines) == 0 {
		t.Fatalf("inventory: %v", err)
	}
	ref := hypervisor.Ref{VMID: inv.Machines[0].VMID, Node: inv.Machines[0].Node}
	take := func() hypervisor.Backup {
		t.Helper()
		b, err := d.Backup(ctx, ref, hypervisor.BackupSnapshot)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	other := take() // taken some other way: never counted, never deleted
	var mine []string
	for i := 0; i < 3; i++ {
		mine = append(mine, take().ID)
	}
	mine = append(mine, "vzdump-qemu-gone") // deleted on the hypervisor meanwhile
	taken := take()
	pruned, missing, errs := backups.Prune(ctx, d, ref, taken, 2, mine)
	if strings.Join(pruned, ",") != mine[0]+","+mine[1] || strings.Join(missing, ",") != "vzdump-qemu-gone" || len(errs) != 0 {
		t.Fatalf("got pruned %v, missing %v, errors %v; want the two oldest of mine pruned and the gone one missing", pruned, missing, errs)
	}
	left, err := d.Backups(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range left {
		ids = append(ids, b.ID)
	}
	if want := other.ID + "," + mine[2] + "," + taken.ID; strings.Join(ids, ",") != want {
		t.Fatalf("got %v on the hypervisor; want %s", ids, want)
	}
	// Retention 1 keeps the one just taken, whatever the clock says.
	pruned, _, _ = backups.Prune(ctx, d, ref, taken, 1, []string{mine[2]})
	if len(pruned) != 1 || pruned[0] != mine[2] {
		t.Fatalf("got pruned %v; want %s", pruned, mine[2])
	}
}

// heldDriver is the simulator whose power actions wait until release is closed.
type heldDriver struct {
	*sim.Driver
	release chan struct{}
}

func (d *heldDriver) Power(ctx context.Context, ref hypervisor.Ref, a hypervisor.PowerAction) error {
	select {
	case <-d.release:
	case <-ctx.Done():
		return hypervisor.ContextError(ctx.Err())
	}
	return d.Driver.Power(ctx, ref, a)
}

// TestRunGivesUpOnBusyMachineBeforeNextDue: a run whose machine stays busy waits only
// until shortly before the next due time, and says which task held the machine.
func TestRunGivesUpOnBusyMachineBeforeNextDue(t *testing.T) {
	d := &heldDriver{Driver: sim.New(sim.Config{OpDelay: -1, Seed: 1, Machines: 1}), release: make(chan struct{})}
	defer close(d.release)
	s := newTestSystem(t, func(o *testOptions) { o.Driver = d })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 1 {
		t.Fatalf("got %d machines, %v; want 1", len(ms), err)
	}
	ten, err := s.Tenants.Create(ctx, "held", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Machines.Assign(ctx, ms[0].ID, &ten.ID); err != nil {
		t.Fatal(err)
	}
	action := hypervisor.ActionReboot
	if ms[0].Status != machines.StatusRunning {
		action = hypervisor.ActionStart
	}
	holder, err := s.Machines.Start(ctx, ms[0].ID, machines.Operation{Type: machines.OpPower, Action: action}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	rec := scheduleRecord{ScheduleBase: ScheduleBase{ID: "S1", TenantID: ten.ID, MachineID: ms[0].ID,
		LastRunAt: kit.Ptr(now.Add(-time.Second)), NextRunAt: kit.Ptr(now.Add(400 * time.Millisecond))}, Kind: SchedulePower, Action: string(action)}
	w, err := s.Schedules.startWhenFree(rec, persistence.NewID())
	if !errors.Is(err, apierr.ErrOperationInProgress) || w == nil {
		t.Fatalf("got %v, %+v; want operation_in_progress after waiting", err, w)
	}
	if !w.until.Before(*rec.NextRunAt) {
		t.Fatalf("waited until %v; want before the next due time %v", w.until, *rec.NextRunAt)
	}
	if got := w.gaveUp(); !strings.Contains(got, "busy with task "+holder.ID+" (vm.") {
		t.Fatalf("got %q; want it to name the task %s that held the machine", got, holder.ID)
	}
}

// A daily schedule runs on the runtime's clock: not before its due time (a schedule
// of another machine due a second earlier shows the clock got there), once at it, and
// again a day later, in as long as the runs take.
func TestScheduleRunsOnTheRuntimesClock(t *testing.T) {
	clock := clockwork.NewFakeClockAt(mustTime(t, "2026-01-15T02:00:00Z"))
	s := newTestSystem(t, func(o *testOptions) {
		o.Clock = clock
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Machines: 2})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 2 {
		t.Fatalf("got %d machines, %v; want 2", len(ms), err)
	}
	ten, err := s.Tenants.Create(ctx, "daily", nil)
	if err != nil {
		t.Fatal(err)
	}
	create := func(m machines.Machine, cron string) PowerSchedule {
		t.Helper()
		if _, err := s.Machines.Assign(ctx, m.ID, &ten.ID); err != nil {
			t.Fatal(err)
		}
		action := string(hypervisor.ActionReboot)
		if m.Status != machines.StatusRunning {
			action = string(hypervisor.ActionStart)
		}
		sc, err := s.Schedules.Power().Create(ctx, ten.ID, ScheduleInput{MachineID: &m.ID, Action: &action, Cron: &cron})
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	sc := create(ms[0], "0 3 * * *")
	control := create(ms[1], "59 59 2 * * *")
	if due := mustTime(t, "2026-01-15T03:00:00Z"); sc.NextRunAt == nil || !sc.NextRunAt.Equal(due) {
		t.Fatalf("next run at %v; want %s, an hour after the clock's now", sc.NextRunAt, due)
	}
	ran := func(id string, want int) func() bool {
		return func() bool {
			got, err := s.Schedules.Power().Get(ctx, id, nil)
			return err == nil && got.Runs == want && got.LastStatus != nil && *got.LastStatus == RunSucceeded
		}
	}
	clock.Advance(time.Hour - time.Second)
	kittest.WaitFor(t, "the control schedule's run a second before the due time", ran(control.ID, 1))
	if got, err := s.Schedules.Power().Get(ctx, sc.ID, nil); err != nil || got.Runs != 0 {
		t.Fatalf("got %d runs before the due time, %v; want none", got.Runs, err)
	}
	clock.Advance(time.Second)
	kittest.WaitFor(t, "the run of the due time", ran(sc.ID, 1))
	clock.Advance(24 * time.Hour)
	kittest.WaitFor(t, "the next day's run", ran(sc.ID, 2))
}
