package machines

import (
	"context"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/events"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Deps are what machines, nodes, tasks and backups need from
// outside their package.
type Deps struct {
	Runtime *kit.Runtime
	Driver  hypervisor.Driver
	Events  *events.Events
	Alerts  *alerts.Alerts
	// TenantExists answers nil for a tenant that exists (a machine is assigned only to
	// one); the tenants live above the machines, which know them only through this.
	TenantExists func(ctx context.Context, id string) error
	// Maintained, in a cluster, reports whether every live member keeps what feature
	// names (announces it: counters.Feature, nodestate.Feature), and how many members
	// that do not this member has seen join; nil on a single node, which keeps all.
	Maintained func(feature string) (all bool, without uint64)
	// TemplateLocation answers the location tag ("" the default one) of a template
	// the last sync saw (a reinstall names one, which must be of the machine's
	// location); the templates are the sync's (actors/inventory), above the machines.
	// Nil takes every template as existing, in every location.
	TemplateLocation func(ctx context.Context, id string) (string, error)
	// TemplateAllowed answers nil when a machine of the plan may be reinstalled with
	// the template, and a 400 naming template_id when the plan does not offer it (the
	// plans, like the templates, are above the machines); nil allows every template.
	TemplateAllowed func(ctx context.Context, plan, template string) error
	// Limits answers a tenant's quotas of backups and snapshots, which the tenants
	// above keep; nil leaves both unlimited.
	Limits func(ctx context.Context, tenant string) (Limits, error)
	// PlanLimits answers the per-machine bounds of backups and snapshots of a plan
	// (the plans, above the machines, keep them); nil leaves them unbounded.
	PlanLimits func(ctx context.Context, plan string) (PlanLimits, error)
	// Overcommit are the operator's ratios for the capacity arithmetic
	// (capacity.Room); zero ratios take capacity.DefaultOvercommit's.
	Overcommit capacity.Overcommit
	// TerminateGrace is how long a machine marked for termination waits, stopped,
	// before it is deleted (0: at once).
	TerminateGrace time.Duration
	// ReleaseAddresses puts into b the release of the pool addresses a machine
	// holds (the IP pools' records, which the machines do not own), in the batch that
	// deletes its record; nil releases nothing.
	ReleaseAddresses func(ctx context.Context, b *persistence.Batch, machine string, addrs []hypervisor.Address) error
	// ReassignAddresses puts into b the move of the pool addresses a machine holds to
	// another tenant (nil: none), in the batch that moves the machine; nil moves
	// nothing.
	ReassignAddresses func(ctx context.Context, b *persistence.Batch, machine string, addrs []hypervisor.Address, tenant *string) error
	// ChangeAddresses makes a change of a machine's addresses (ChangeAddresses) in
	// the IP pools' records; the composition root always gives it.
	ChangeAddresses AddressesChanger
	// AddAddress allocates one more address for a machine in the IP pools' records
	// (AddAddress); nil: the server hands out none.
	AddAddress AddressAdder
	// UnallocateAddress puts into b the undo of an AddAddress whose address the
	// hypervisor did not take: the allocation record deleted, the address free at
	// once.
	UnallocateAddress func(ctx context.Context, b *persistence.Batch, machine string, addr hypervisor.Address) error
}

// Services are the services of the machines package.
type Services struct {
	Machines *Machines
	Nodes    *capacity.Nodes
	Tasks    *tasks.Tasks
	Backups  *Backups
}

// system is what the machines' code reaches through its sys field.
type system struct {
	*Services
	rt           *kit.Runtime
	store        persistence.Store
	driver       hypervisor.Driver
	log          *zap.Logger
	Events       *events.Events
	Alerts       *alerts.Alerts
	tenantExists func(ctx context.Context, id string) error
	maintained   func(feature string) (bool, uint64)
	limits       func(ctx context.Context, tenant string) (Limits, error)
	planLimits   func(ctx context.Context, plan string) (PlanLimits, error)
	templates    func(ctx context.Context, id string) (string, error)
	// templateAllowed is Deps' TemplateAllowed.
	templateAllowed func(ctx context.Context, plan, template string) error
	// terminateGrace is Deps' TerminateGrace.
	terminateGrace time.Duration
	// releaseAddresses is Deps' ReleaseAddresses.
	releaseAddresses func(ctx context.Context, b *persistence.Batch, machine string, addrs []hypervisor.Address) error
	// reassignAddresses is Deps' ReassignAddresses.
	reassignAddresses func(ctx context.Context, b *persistence.Batch, machine string, addrs []hypervisor.Address, tenant *string) error
	changeAddresses   AddressesChanger
	// addAddress and unallocateAddress are Deps' AddAddress and UnallocateAddress.
	addAddress        AddressAdder
	unallocateAddress func(ctx context.Context, b *persistence.Batch, machine string, addr hypervisor.Address) error
}

// Start starts the machines' and the nodes' kinds and the services around them.
func Start(d Deps) *Services {
	s := &system{Services: &Services{}, rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver,
		log: d.Runtime.Log, Events: d.Events, Alerts: d.Alerts, tenantExists: d.TenantExists, maintained: d.Maintained, limits: d.Limits,
		templates: d.TemplateLocation, templateAllowed: d.TemplateAllowed, planLimits: d.PlanLimits, terminateGrace: d.TerminateGrace,
		releaseAddresses: d.ReleaseAddresses, reassignAddresses: d.ReassignAddresses, changeAddresses: d.ChangeAddresses,
		addAddress: d.AddAddress, unallocateAddress: d.UnallocateAddress}
	s.Tasks = tasks.New(s.store)
	s.Nodes = capacity.StartNodes(capacity.Deps{Runtime: d.Runtime, Driver: d.Driver, Alerts: d.Alerts, Overcommit: d.Overcommit,
		Allocated: func(ctx context.Context) (map[string]capacity.Size, error) { return s.Machines.Allocated(ctx) }})
	s.Machines = startMachines(s)
	s.Backups = &Backups{Backups: backups.New(d.Runtime, d.Driver), sys: s}
	return s.Services
}
