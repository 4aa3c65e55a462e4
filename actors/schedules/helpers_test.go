package schedules

import (
	"context"
	"testing"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// testSystem is the schedules on a runtime of their own, with the tenants, machines,
// alerts and event bus below them, as the composition root starts them.
type testSystem struct {
	*machines.Services
	Inventory *inventory.Inventory
	rt        *kit.Runtime
	store     persistence.Store
	Events    *events.Events
	Tenants   *tenants.Tenants
	Schedules *Schedules
}

// testOptions configure newTestSystem.
type testOptions struct {
	Driver  hypervisor.Driver
	Options ScheduleOptions
	// Clock runs the runtime (the real clock when nil).
	Clock kit.Clock
}

// newTestSystem starts the schedules over a store in t.TempDir(), stopped at cleanup.
func newTestSystem(t testing.TB, mutate ...func(*testOptions)) *testSystem {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var opts testOptions
	for _, m := range mutate {
		m(&opts)
	}
	var ko []kit.Option
	if opts.Clock != nil {
		ko = append(ko, kit.WithClock(opts.Clock))
	}
	// With VMPLANE_TEST_WIRE=1 every request crosses members (wiretest.Loopback).
	lb := wiretest.FromEnv(t)
	rt := kit.New(store, nil, kit.EntityOptions{}, append(ko, lb.Options()...)...)
	lb.Bind(rt)
	s := &testSystem{rt: rt, store: store, Events: events.New()}
	al := alerts.Start(alerts.Deps{Runtime: rt, Events: s.Events})
	s.Services = machines.Start(machines.Deps{Runtime: rt, Driver: opts.Driver, Events: s.Events, Alerts: al,
		TenantExists: func(ctx context.Context, id string) error { _, err := s.Tenants.Get(ctx, id); return err },
		TemplateLocation: func(ctx context.Context, id string) (string, error) {
			tpl, err := s.Inventory.Template(ctx, id)
			return tpl.Location, err
		}})
	s.Inventory = inventory.Start(inventory.Deps{Runtime: rt, Driver: opts.Driver, Machines: s.Services})
	s.Tenants = tenants.Start(tenants.Deps{Runtime: rt, Driver: opts.Driver, Events: s.Events, Machines: s.Services, Inventory: s.Inventory,
		HasSchedules: func(ctx context.Context, tenant string) (bool, error) {
			return s.Schedules.TenantHasSchedules(ctx, tenant)
		}})
	s.Schedules = Start(Deps{Runtime: rt, Driver: opts.Driver, Machines: s.Services, Options: opts.Options, Tenants: s.Tenants})
	if err := s.Schedules.WakeAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Schedules.Stop()
		s.Tenants.Stop()
		s.Inventory.Stop()
		s.Machines.Stop()
		rt.Shutdown()
		s.Events.Close()
		store.Close()
	})
	return s
}
