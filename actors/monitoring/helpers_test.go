package monitoring

import (
	"context"
	"testing"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// testSystem is the monitoring services on a runtime of their own, with everything
// below them (tenants, machines, alerts, the event bus), as the composition root
// starts them.
type testSystem struct {
	*Services
	rt        *kit.Runtime
	store     persistence.Store
	Events    *events.Events
	Alerts    *alerts.Alerts
	Machines  *machines.Machines
	Nodes     *capacity.Nodes
	Inventory *inventory.Inventory
	Tenants   *tenants.Tenants
}

// testOptions configure the test system.
type testOptions struct {
	Driver     hypervisor.Driver
	Monitoring MonitoringOptions
	Faulty     FaultyOptions
	// Clock runs the runtime (the real clock when nil).
	Clock kit.Clock
}

// startTestSystem starts the monitoring and what it stands on over store, settles the
// tasks a previous run left open and arms the health checks, as the root does.
func startTestSystem(t testing.TB, store persistence.Store, opts testOptions) *testSystem {
	var ko []kit.Option
	if opts.Clock != nil {
		ko = append(ko, kit.WithClock(opts.Clock))
	}
	// With VMPLANE_TEST_WIRE=1 every request crosses members (wiretest.Loopback).
	lb := wiretest.FromEnv(t)
	rt := kit.New(store, nil, kit.EntityOptions{}, append(ko, lb.Options()...)...)
	lb.Bind(rt)
	s := &testSystem{rt: rt, store: store, Events: events.New()}
	s.Alerts = alerts.Start(alerts.Deps{Runtime: rt, Events: s.Events})
	ms := machines.Start(machines.Deps{Runtime: rt, Driver: opts.Driver, Events: s.Events, Alerts: s.Alerts,
		TenantExists: func(ctx context.Context, id string) error { _, err := s.Tenants.Get(ctx, id); return err },
		TemplateLocation: func(ctx context.Context, id string) (string, error) {
			tpl, err := s.Inventory.Template(ctx, id)
			return tpl.Location, err
		}})
	s.Machines, s.Nodes = ms.Machines, ms.Nodes
	s.Inventory = inventory.Start(inventory.Deps{Runtime: rt, Driver: opts.Driver, Machines: ms})
	s.Tenants = tenants.Start(tenants.Deps{Runtime: rt, Driver: opts.Driver, Events: s.Events, Machines: ms, Inventory: s.Inventory, Alerts: s.Alerts})
	s.Services = Start(Deps{Runtime: rt, Driver: opts.Driver, Events: s.Events, Alerts: s.Alerts, Machines: ms,
		Tenants: s.Tenants, Options: opts.Monitoring, Faulty: opts.Faulty})
	if err := s.Machines.SettleOpenTasks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.HealthChecks.WakeAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// Stop stops the services in the composition root's order.
func (s *testSystem) Stop() {
	s.History.Stop()
	s.Insights.Stop()
	s.HealthChecks.Stop()
	s.Monitoring.Stop()
	s.Tenants.Stop()
	s.Inventory.Stop()
	s.Machines.Stop()
	s.rt.Shutdown()
	s.Events.Close()
}

// newTestSystem starts the test system over a store in t.TempDir(), stopped at cleanup.
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
	s := startTestSystem(t, store, opts)
	t.Cleanup(func() {
		s.Stop()
		store.Close()
	})
	return s
}
