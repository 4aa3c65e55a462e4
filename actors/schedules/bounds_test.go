package schedules

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// The shortest gap between due times, read off the expression: @every's delay, a
// cron's tightest pair of runs (also when it is not the first pair), and none for a
// schedule that fires once a year.
func TestShortestGap(t *testing.T) {
	from := mustTime(t, "2026-03-01T00:00:00Z")
	f := func(spec string, bound, want time.Duration) {
		t.Helper()
		sched, why := parseCron(spec)
		if why != "" {
			t.Fatal(why)
		}
		if got := shortestGap(sched, time.UTC, from, bound); got != want {
			t.Errorf("%s: got %v; want %v", spec, got, want)
		}
	}
	f("@every 15s", time.Hour, 15*time.Second)
	f("* * * * * *", time.Hour, time.Second)
	f("0 3 * * *", time.Hour, 24*time.Hour)
	f("0 * * * *", time.Hour, time.Hour)
	f("0,10 4 * * 6", time.Hour, 10*time.Minute) // Saturdays only, two runs 10 min apart
	f("0 0 1 1 *", time.Hour, 365*24*time.Hour)
}

// Operator bounds on schedules: a backup or a power schedule whose cron fires more
// often than its kind's minimum interval is refused on create and on a change of its
// cron (400 naming cron and the bound), while one within it is made; a tenant past the
// count of schedules gets 409 quota_exceeded; an older schedule can still be disabled.
func TestScheduleBounds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Machines: 1})
		o.Options = ScheduleOptions{MinBackupInterval: time.Hour, MinPowerInterval: 5 * time.Minute, PerTenant: 2}
	})
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 1 {
		t.Fatalf("got %d machines, %v; want 1", len(ms), err)
	}
	ten, err := s.Tenants.Create(ctx, "bounded", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Machines.Assign(ctx, ms[0].ID, &ten.ID); err != nil {
		t.Fatal(err)
	}
	m := ms[0].ID
	refused := func(what string, err error, bound string) {
		t.Helper()
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 400 || len(e.Fields) != 1 || e.Fields[0].Field != "cron" || !strings.Contains(e.Fields[0].Message, bound) {
			t.Fatalf("%s: got %v; want a 400 naming cron and the bound %s", what, err, bound)
		}
	}
	_, err = s.Schedules.Backup().Create(ctx, ten.ID, ScheduleInput{MachineID: &m, Cron: kit.Ptr("@every 15s"), Retention: kit.Ptr(2)})
	refused("backups every 15s", err, "1h0m0s")
	_, err = s.Schedules.Power().Create(ctx, ten.ID, ScheduleInput{MachineID: &m, Action: kit.Ptr("reboot"), Cron: kit.Ptr("*/2 * * * *")})
	refused("power every 2 minutes", err, "5m0s")

	b, err := s.Schedules.Backup().Create(ctx, ten.ID, ScheduleInput{MachineID: &m, Cron: kit.Ptr("0 * * * *"), Retention: kit.Ptr(2)})
	if err != nil {
		t.Fatalf("hourly backups: %v", err)
	}
	_, err = s.Schedules.Backup().Update(ctx, b.ID, nil, ScheduleInput{Cron: kit.Ptr("*/30 * * * *")})
	refused("a change to every 30 minutes", err, "1h0m0s")
	if _, err := s.Schedules.Power().Create(ctx, ten.ID, ScheduleInput{MachineID: &m, Action: kit.Ptr("reboot"), Cron: kit.Ptr("*/5 * * * *")}); err != nil {
		t.Fatalf("power every 5 minutes: %v", err)
	}
	_, err = s.Schedules.Power().Create(ctx, ten.ID, ScheduleInput{MachineID: &m, Action: kit.Ptr("start"), Cron: kit.Ptr("0 8 * * *")})
	if !errors.Is(err, apierr.ErrQuotaExceeded) {
		t.Fatalf("a third schedule: got %v; want quota_exceeded", err)
	}

	// Made before the bound was raised: it may still be turned off.
	s.Schedules.opts.MinBackupInterval = 2 * time.Hour
	if _, err := s.Schedules.Backup().Update(ctx, b.ID, nil, ScheduleInput{Enabled: kit.Ptr(false)}); err != nil {
		t.Fatalf("disabling a schedule made under a lower bound: %v", err)
	}
	_, err = s.Schedules.Backup().Update(ctx, b.ID, nil, ScheduleInput{Enabled: kit.Ptr(true)})
	refused("enabling it again", err, "2h0m0s")
}

// The count of schedules holds under concurrency: ten creates of one tenant at once
// against a bound of 3 make exactly 3 schedules; the other seven are 409
// quota_exceeded (each create's batch requires the tenant's count key as it counted).
func TestScheduleCountUnderConcurrency(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Machines: 1})
		o.Options = ScheduleOptions{MinBackupInterval: time.Hour, MinPowerInterval: 5 * time.Minute, PerTenant: 3}
	})
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 1 {
		t.Fatalf("got %d machines, %v; want 1", len(ms), err)
	}
	ten, err := s.Tenants.Create(ctx, "racing", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Machines.Assign(ctx, ms[0].ID, &ten.ID); err != nil {
		t.Fatal(err)
	}
	m := ms[0].ID
	const n = 10
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.Schedules.Power().Create(ctx, ten.ID, ScheduleInput{MachineID: &m, Action: kit.Ptr("reboot"), Cron: kit.Ptr("0 * * * *")})
			errs <- err
		}()
	}
	made, refused := 0, 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			made++
		case errors.Is(err, apierr.ErrQuotaExceeded):
			refused++
		default:
			t.Errorf("a create: %v", err)
		}
	}
	if made != 3 || refused != n-3 {
		t.Fatalf("made %d, refused %d; want 3 and %d", made, refused, n-3)
	}
	list, _, err := s.Schedules.Power().List(ctx, &ten.ID, "", "", 100)
	if err != nil || len(list) != 3 {
		t.Fatalf("listed %d schedules, %v; want 3", len(list), err)
	}
}
