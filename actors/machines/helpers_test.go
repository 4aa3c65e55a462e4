package machines

import (
	"context"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// testSystem is the machines' services on a runtime of their own, with the event bus
// and the alerts below them, as the composition root starts them. Every tenant exists.
type testSystem struct {
	*Services
	rt     *kit.Runtime
	store  persistence.Store
	driver hypervisor.Driver
	Events *events.Events
	Alerts *alerts.Alerts
}

// testOptions configure newTestSystem.
type testOptions struct {
	Driver hypervisor.Driver
	// Maintained is machines' Deps.Maintained (nil: a single node).
	Maintained func(string) (bool, uint64)
	// Wrap, when set, is the store the services see, around the real one.
	Wrap func(persistence.Store) persistence.Store
	// Limits is machines' Deps.Limits (nil: unlimited).
	Limits func(context.Context, string) (Limits, error)
	// Clock runs the runtime (nil: the real clock); TerminateGrace is machines' Deps'.
	Clock          kit.Clock
	TerminateGrace time.Duration
	// Store, when set, is the store to start on (a restart's: an earlier system's,
	// stopped), which the caller closes; nil: a new one in t.TempDir().
	Store persistence.Store
	// KeepOpen leaves the system running at cleanup, for a test that stops it itself.
	KeepOpen bool
	// ReleaseAddresses is machines' Deps' (nil: none).
	ReleaseAddresses func(ctx context.Context, b *persistence.Batch, machine string, addrs []hypervisor.Address) error
	// AddAddress and UnallocateAddress are machines' Deps' (nil: none).
	AddAddress        AddressAdder
	UnallocateAddress func(ctx context.Context, b *persistence.Batch, machine string, addr hypervisor.Address) error
}

// newTestSystem starts the machines' services over a store in t.TempDir(), stopped at
// cleanup.
func newTestSystem(t testing.TB, mutate ...func(*testOptions)) *testSystem {
	t.Helper()
	var opts testOptions
	for _, m := range mutate {
		m(&opts)
	}
	store, own := opts.Store, opts.Store == nil
	if own {
		var err error
		if store, err = persistence.Open(persistence.Options{Dir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
	}
	if opts.Wrap != nil {
		store = opts.Wrap(store)
	}
	// With VMPLANE_TEST_WIRE=1 every request crosses members (wiretest.Loopback).
	lb := wiretest.FromEnv(t)
	ko := lb.Options()
	if opts.Clock != nil {
		ko = append(ko, kit.WithClock(opts.Clock))
	}
	rt := kit.New(store, nil, kit.EntityOptions{}, ko...)
	lb.Bind(rt)
	s := &testSystem{rt: rt, store: store, driver: opts.Driver, Events: events.New()}
	s.Alerts = alerts.Start(alerts.Deps{Runtime: rt, Events: s.Events})
	s.Services = Start(Deps{Runtime: rt, Driver: opts.Driver, Events: s.Events, Alerts: s.Alerts,
		TenantExists: func(context.Context, string) error { return nil }, Maintained: opts.Maintained, Limits: opts.Limits,
		TerminateGrace: opts.TerminateGrace, ReleaseAddresses: opts.ReleaseAddresses,
		AddAddress: opts.AddAddress, UnallocateAddress: opts.UnallocateAddress})
	if opts.KeepOpen {
		return s
	}
	t.Cleanup(func() {
		s.stop()
		if own {
			store.Close()
		}
	})
	return s
}

// stop stops the services and their runtime, as a process that ends does.
func (s *testSystem) stop() {
	s.Machines.Stop()
	s.rt.Shutdown()
	s.Events.Close()
}

// adopt records what the driver's inventory holds, as a first sync (actors/inventory,
// above this package) does: the nodes through their entities, the machines adopted.
func (s *testSystem) adopt(ctx context.Context) (int, error) {
	inv, err := s.driver.Inventory(ctx)
	if err != nil {
		return 0, err
	}
	for _, n := range inv.Nodes {
		if _, err := s.Nodes.Observe(ctx, n); err != nil {
			return 0, err
		}
	}
	return s.Machines.Adopt(ctx, inv.Machines)
}
