package inventory

import (
	"context"
	"testing"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// TestMain fails the tests if they leave a goroutine running.
func TestMain(m *testing.M) { kittest.Main(m) }

// testSystem is the sync over the machines' services, on a runtime of their own, as
// the composition root starts them. Every tenant exists.
type testSystem struct {
	*machines.Services
	Inventory *Inventory
	rt        *kit.Runtime
	store     persistence.Store
	driver    hypervisor.Driver
}

// newTestSystem starts the sync and the machines on driver d over a store in
// t.TempDir(), stopped at cleanup.
func newTestSystem(t testing.TB, d hypervisor.Driver) *testSystem {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// With VMPLANE_TEST_WIRE=1 every request crosses members (wiretest.Loopback).
	lb := wiretest.FromEnv(t)
	rt := kit.New(store, nil, kit.EntityOptions{}, lb.Options()...)
	lb.Bind(rt)
	ev := events.New()
	s := &testSystem{rt: rt, store: store, driver: d}
	s.Services = machines.Start(machines.Deps{Runtime: rt, Driver: d, Events: ev, Alerts: alerts.Start(alerts.Deps{Runtime: rt, Events: ev}),
		TenantExists: func(context.Context, string) error { return nil },
		TemplateLocation: func(ctx context.Context, id string) (string, error) {
			tpl, err := s.Inventory.Template(ctx, id)
			return tpl.Location, err
		}})
	s.Inventory = Start(Deps{Runtime: rt, Driver: d, Machines: s.Services})
	t.Cleanup(func() {
		s.Inventory.Stop()
		s.Machines.Stop()
		rt.Shutdown()
		ev.Close()
		store.Close()
	})
	return s
}
