package tenants

import (
	"context"
	"testing"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// testSystem is the tenants on a runtime of their own, with the machines, the alerts
// and the event bus below them, as the composition root starts them.
type testSystem struct {
	*machines.Services
	Inventory *inventory.Inventory
	rt        *kit.Runtime
	store     persistence.Store
	Events    *events.Events
	Alerts    *alerts.Alerts
	Plans     *plans.Plans
	Tenants   *Tenants
}

// testOptions configure newTestSystem.
type testOptions struct {
	Store  persistence.Store
	Driver hypervisor.Driver
	// HasUsers and HasSchedules stand for auth's and the schedules' answers (none
	// when nil).
	HasUsers, HasSchedules func(ctx context.Context, tenant string) (bool, error)
}

// newTestSystem starts the tenants over a store in t.TempDir(), stopped at cleanup.
func newTestSystem(t testing.TB, mutate ...func(*testOptions)) *testSystem {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions{Store: store}
	for _, m := range mutate {
		m(&opts)
	}
	// With VMPLANE_TEST_WIRE=1 every request crosses members (wiretest.Loopback).
	lb := wiretest.FromEnv(t)
	rt := kit.New(opts.Store, nil, kit.EntityOptions{}, lb.Options()...)
	lb.Bind(rt)
	s := &testSystem{rt: rt, store: opts.Store, Events: events.New()}
	s.Alerts = alerts.Start(alerts.Deps{Runtime: rt, Events: s.Events})
	s.Services = machines.Start(machines.Deps{Runtime: rt, Driver: opts.Driver, Events: s.Events, Alerts: s.Alerts,
		TenantExists: func(ctx context.Context, id string) error { _, err := s.Tenants.Get(ctx, id); return err },
		Limits:       func(ctx context.Context, id string) (machines.Limits, error) { return s.Tenants.Limits(ctx, id) },
		PlanLimits:   func(ctx context.Context, id string) (machines.PlanLimits, error) { return s.Plans.Limits(ctx, id) },
		TemplateLocation: func(ctx context.Context, id string) (string, error) {
			tpl, err := s.Inventory.Template(ctx, id)
			return tpl.Location, err
		},
		TemplateAllowed: func(ctx context.Context, plan, tpl string) error { return s.Tenants.TemplateAllowed(ctx, plan, tpl) }})
	s.Inventory = inventory.Start(inventory.Deps{Runtime: rt, Driver: opts.Driver, Machines: s.Services})
	s.Plans = plans.Start(plans.Deps{Runtime: rt, Machines: s.Machines, Nodes: s.Nodes})
	s.Tenants = Start(Deps{Runtime: rt, Driver: opts.Driver, Events: s.Events, Machines: s.Services, Inventory: s.Inventory, Alerts: s.Alerts, Plans: s.Plans,
		HasUsers: opts.HasUsers, HasSchedules: opts.HasSchedules})
	t.Cleanup(func() {
		s.Tenants.Stop()
		s.Inventory.Stop()
		s.Machines.Stop()
		rt.Shutdown()
		s.Events.Close()
		store.Close()
	})
	return s
}
