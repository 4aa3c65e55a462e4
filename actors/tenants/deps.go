package tenants

import (
	"context"
	"github.com/vmplane/vmplane/actors/addresses"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/plans"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Deps are what tenants, their firewall and the overview need from outside
// their package.
type Deps struct {
	Runtime  *kit.Runtime
	Driver   hypervisor.Driver
	Events   *events.Events
	Machines *machines.Services
	// Inventory answers the templates the last sync saw, which a create names.
	Inventory *inventory.Inventory
	// Alerts counts a tenant's open alerts for its overview.
	Alerts *alerts.Alerts
	// Plans give a create from a plan its sizes and a plan change its target; nil:
	// no plans (a create naming one is refused).
	Plans *plans.Plans
	// HasUsers and HasSchedules say whether a tenant still has users or schedules,
	// which keep it from being deleted. Their owners (auth, schedules) are not below
	// tenants, so the composition root passes them in; nil says none.
	HasUsers, HasSchedules func(ctx context.Context, tenant string) (bool, error)
	// HasWebhooks says whether a tenant still has webhooks (actors/webhooks, above
	// tenants' reach too), which keep it from being deleted; nil says none.
	HasWebhooks func(ctx context.Context, tenant string) (bool, error)
	// ForgetTenant puts into the batch that deletes a tenant the deletes of what
	// rooms above tenants keep of it beside the records that stop the delete (the
	// schedules' count key); nil: nothing.
	ForgetTenant func(b *persistence.Batch, tenant string)
	// Addresses give a new machine its addresses from the IP pools; nil: none (its
	// network is configured outside vmplane).
	Addresses *addresses.Addresses
	// SuspendAction is what a suspension that names no action does to the tenant's
	// running machines: SuspendStop ("" too), SuspendHypervisor or SuspendNone.
	SuspendAction string
	// LocationExists answers whether a location of that id is there (a not-found
	// error otherwise), which a create names; the locations are no room of the
	// tenants'. nil: the default location alone is known.
	LocationExists func(ctx context.Context, id string) error
}

// system is what the tenants' code reaches through its sys field.
type system struct {
	rt        *kit.Runtime
	store     persistence.Store
	driver    hypervisor.Driver
	log       *zap.Logger
	Events    *events.Events
	Machines  *machines.Machines
	Nodes     *capacity.Nodes
	Backups   *machines.Backups
	Inventory *inventory.Inventory
	Alerts    *alerts.Alerts
	Plans     *plans.Plans
	Addresses *addresses.Addresses
	Tenants   *Tenants
	// hasUsers and hasSchedules are Deps' HasUsers and HasSchedules, never nil.
	hasUsers, hasSchedules func(ctx context.Context, tenant string) (bool, error)
	// hasWebhooks is Deps' HasWebhooks, never nil.
	hasWebhooks func(ctx context.Context, tenant string) (bool, error)
	// forgetTenant is Deps' ForgetTenant, never nil.
	forgetTenant func(b *persistence.Batch, tenant string)
	// suspendAction is Deps' SuspendAction, never "".
	suspendAction string
	// locationExists is Deps' LocationExists.
	locationExists func(ctx context.Context, id string) error
	// standing is the tenants' standing as their entities publish it (CheckActive).
	standing *standings
}

// Start starts the tenants' kind.
func Start(d Deps) *Tenants {
	s := &system{rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver, log: d.Runtime.Log, Events: d.Events,
		Machines: d.Machines.Machines, Nodes: d.Machines.Nodes, Backups: d.Machines.Backups, Inventory: d.Inventory, Alerts: d.Alerts, Plans: d.Plans, Addresses: d.Addresses,
		hasUsers: orNone(d.HasUsers), hasSchedules: orNone(d.HasSchedules), hasWebhooks: orNone(d.HasWebhooks), forgetTenant: d.ForgetTenant, suspendAction: d.SuspendAction,
		locationExists: d.LocationExists, standing: newStandings(d.Runtime.Store)}
	if s.forgetTenant == nil {
		s.forgetTenant = func(*persistence.Batch, string) {}
	}
	if s.suspendAction == "" {
		s.suspendAction = SuspendStop
	}
	s.Tenants = startTenants(s)
	return s.Tenants
}

// orNone is f, or for nil a function that answers none.
func orNone(f func(context.Context, string) (bool, error)) func(context.Context, string) (bool, error) {
	if f == nil {
		return func(context.Context, string) (bool, error) { return false, nil }
	}
	return f
}
