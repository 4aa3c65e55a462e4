// Package actors is the composition root of vmplane's actors: Start builds the runtime
// (actors/kit) and the domain packages (events, alerts, webhooks, auth, limiter,
// machines, inventory, consoles, tenants, schedules, monitoring) in dependency order, each from a
// Deps value naming what it uses, and Stop stops them in reverse. No domain package
// imports it.
//
// Every entity follows one pattern: load its record from the store when it starts,
// validate a request against its state, persist the change through the group-commit
// writer, and reply only after the write is durable. A panic while handling a request
// answers that request with an internal error at once and the supervisor restarts the
// entity, which reloads its record from the store.
package actors

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/audit"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/consoles"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/limiter"
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/actors/traffic"
	"github.com/vmplane/vmplane/actors/usage"
	"github.com/vmplane/vmplane/actors/webhooks"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// DefaultTimeout bounds one request from the edge to an actor.
const DefaultTimeout = kit.DefaultTimeout

// System is the running actor system with its supervisors and the services built on it.
type System struct {
	rt     *kit.Runtime
	store  persistence.Store
	driver hypervisor.Driver
	log    *zap.Logger

	// Users owns user records and their refresh-token families.
	Users *auth.Users
	// Limiter holds the rate limit token buckets.
	Limiter *limiter.Limiter
	// Machines owns machine records; each machine's actor is its lock.
	Machines *machines.Machines
	// Nodes owns node records.
	Nodes *capacity.Nodes
	// Tenants owns tenants, their quota and their firewall rules.
	Tenants *tenants.Tenants
	// Plans are the machine sizes sold, and their capacity.
	Plans *plans.Plans
	// Audit is the audit log: who did what.
	Audit *audit.Log
	// Addresses are the IP address pools and who holds which address.
	Addresses *addresses.Addresses
	// Usage keeps what each machine used, hour by hour, for invoices.
	Usage *usage.Usage
	// Traffic counts each machine's network traffic, by hour and month, and takes the
	// overage action on a machine past its plan's allowance.
	Traffic *traffic.Traffic
	// Inventory reconciles the store with the hypervisor's inventory (sync).
	Inventory *inventory.Inventory
	// Tasks reads task records.
	Tasks *tasks.Tasks
	// Consoles issues and redeems console tickets.
	Consoles *consoles.Consoles
	// ISOs is the ISO library.
	ISOs *isos.ISOs
	// Idempotency keeps the answers to requests made with an Idempotency-Key.
	Idempotency *auth.Idempotency
	// APIKeys are the keys programs call the API with.
	APIKeys *auth.APIKeys
	// Events fans out changes to GET /api/events.
	Events *events.Events
	// Insights finds faulty deployments.
	Insights *monitoring.Insights
	// History samples the cluster's daily usage and forecasts from it.
	History *monitoring.History
	// Schedules owns power and backup schedules and runs them.
	Schedules *schedules.Schedules
	// Backups reads and deletes the backups schedules took.
	Backups *machines.Backups
	// Alerts owns alert events, one open event per condition.
	Alerts *alerts.Alerts
	// HealthChecks owns the health checks and runs their probes.
	HealthChecks *monitoring.HealthChecks
	// Monitoring raises task and node usage alerts and computes the overview.
	Monitoring *monitoring.Monitoring
	// Webhooks send the events to the URLs users name.
	Webhooks *webhooks.Webhooks
	// Locations are the hypervisor clusters beside the configured one.
	Locations *locations.Locations
}

// Options configure the actor system.
type Options struct {
	Store  persistence.Store
	Driver hypervisor.Driver
	Logger *zap.Logger
	Auth   auth.AuthOptions
	Limits limiter.LimitOptions
	// SyncInterval is how often the store is reconciled with the hypervisor
	// (0: only on demand).
	SyncInterval time.Duration
	// Faulty are the faulty-deployment rules' windows and thresholds (zero: defaults).
	Faulty monitoring.FaultyOptions
	// HistoryInterval is how often the cluster's usage is sampled into the daily
	// history (0: never, and no backfill).
	HistoryInterval time.Duration
	// Schedules configure the schedulers (grace for missed runs, clock).
	Schedules schedules.ScheduleOptions
	// Overcommit are the capacity arithmetic's ratios (zero: capacity.DefaultOvercommit's).
	Overcommit capacity.Overcommit
	// Monitoring configures the node usage alert (zero: defaults).
	Monitoring monitoring.MonitoringOptions
	// Entities bound the entity actors each kind keeps running (zero: each kind's
	// own idle time, no count bound).
	Entities EntityOptions
	// Clock runs every timer and loop of the services (nil: the real clock); tests
	// pass a fake one (clockwork.FakeClock) and advance it.
	Clock kit.Clock
	// Placement, in a cluster, says on which member each entity is active (nil: a
	// single node, where every entity is here).
	Placement kit.Placement
	// EventRelay, in a cluster, carries the events between the members, so that every
	// member's bus has every member's events with the same ids (nil: a single node's
	// bus). The bus closes it.
	EventRelay events.Relay
	// ISODir is where the images vmplane fetches itself are kept, ISOMaxBytes the
	// largest it fetches (isos.Deps; 0: isos.DefaultMaxBytes).
	ISODir      string
	ISOMaxBytes int64
	// TerminateGrace is how long a machine marked for termination waits, stopped,
	// before it is deleted with its snapshots and backups (machines.Deps.TerminateGrace).
	TerminateGrace time.Duration
	// SuspendAction is what a tenant's suspension that names no action does to its
	// running machines (tenants.Deps.SuspendAction; "": stop).
	SuspendAction string
	// Webhooks tune the webhooks' deliveries (zero: defaults; Clock nil: the
	// runtime's).
	Webhooks webhooks.Options
	// AuditRetention is how long the audit log keeps its entries (audit.Deps.Retention;
	// 0: audit.DefaultRetention).
	AuditRetention time.Duration
	// IPReleaseCooldown is how long an address a deleted machine held stays held
	// before it is given again (addresses.Deps.Cooldown; 0: addresses.DefaultCooldown).
	IPReleaseCooldown time.Duration
	// ReverseDNS is the DNS server the tenants' reverse names are pushed to
	// (addresses.Deps.DNS; nil: they are only stored).
	ReverseDNS addresses.ReverseDNS
	// UsageRetention is how long the hourly usage records are kept
	// (usage.Deps.Retention; 0: usage.DefaultRetention).
	UsageRetention time.Duration
	// TrafficOverageAction is what a machine past its plan's monthly traffic
	// allowance gets (OverageActions; "": report), TrafficThrottleMbps the rate limit
	// a throttle sets.
	TrafficOverageAction string
	TrafficThrottleMbps  int
	// Maintained, in a cluster, reports whether every live member keeps what feature
	// names, and how many members that do not this one has seen join
	// (machines.Deps.Maintained; nil: a single node).
	Maintained func(feature string) (all bool, without uint64)
	// Locations configure the hypervisor clusters beside the configured driver.
	Locations LocationOptions
}

// LocationOptions configure the locations (locations.Deps).
type LocationOptions struct {
	// Dispatcher is the driver that routes by location, whose default location is
	// Options.Driver (which is Dispatcher.Driver()); nil: the system makes one over
	// Options.Driver.
	Dispatcher *hvloc.Dispatcher
	// Build makes a location's driver (nil: a location cannot be added).
	Build func(locations.Settings) (hypervisor.Driver, error)
	// Key seals the locations' token secrets (nil: they are read from files only).
	Key []byte
	// Forget removes what the composition root keeps for a deleted location outside
	// its record (locations.Deps.Forget; nil: nothing).
	Forget func(ctx context.Context, id string) error
}

// EntityOptions bound the entity actors of every kind (kit.EntityOptions).
type EntityOptions = kit.EntityOptions

// Start builds the services in dependency order (each gets what it uses, nothing
// more) and, once all run, settles the tasks a previous run left open and arms the
// schedules' and health checks' timers.
func Start(opts Options) (*System, error) {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	log := opts.Logger.Named("actors")
	var kitOpts []kit.Option
	if opts.Clock != nil {
		kitOpts = append(kitOpts, kit.WithClock(opts.Clock))
	}
	if opts.Placement != nil {
		kitOpts = append(kitOpts, kit.WithPlacement(opts.Placement))
	}
	defaultDriver := ""
	if opts.Driver != nil {
		defaultDriver = opts.Driver.Name()
	}
	if opts.Locations.Dispatcher == nil {
		// A system of tests that call no driver has none to wrap.
		opts.Locations.Dispatcher = hvloc.New(opts.Driver)
		if opts.Driver != nil {
			opts.Driver = opts.Locations.Dispatcher.Driver()
		}
	}
	s := &System{rt: kit.New(opts.Store, log, opts.Entities, kitOpts...), store: opts.Store, driver: opts.Driver, log: log}
	// First: every room's writes may carry an entry of the log.
	s.Audit = audit.Start(audit.Deps{Runtime: s.rt, Retention: opts.AuditRetention})
	// In a cluster the bus holds every member's events (events.NewRelayed).
	if opts.EventRelay != nil {
		s.Events = events.NewRelayed(opts.EventRelay)
	} else {
		s.Events = events.New()
	}
	auth, err := auth.Start(auth.Deps{Runtime: s.rt, Options: opts.Auth, TenantExists: s.tenantExists, TenantRequiresTOTP: s.tenantRequiresTOTP})
	if err != nil {
		s.Stop()
		return nil, err
	}
	s.Users, s.Idempotency, s.APIKeys = auth.Users, auth.Idempotency, auth.APIKeys
	s.Limiter = limiter.Start(s.rt, opts.Limits)
	// Before anything publishes tasks: the monitoring watches the event bus from here.
	s.Alerts = alerts.Start(alerts.Deps{Runtime: s.rt, Events: s.Events})
	// Before anything publishes either: the webhooks queue the events from the bus's start.
	s.Webhooks = webhooks.Start(webhooks.Deps{Runtime: s.rt, Events: s.Events, Alerts: s.Alerts, TenantExists: s.tenantExists,
		Options: opts.Webhooks})
	// Before the machines: a machine's delete releases its addresses in its batch.
	s.Addresses = addresses.Start(addresses.Deps{Runtime: s.rt, Cooldown: opts.IPReleaseCooldown, DNS: opts.ReverseDNS,
		// The locations start after (their delete asks the pools); asked only by a
		// pool's write.
		LocationExists: func(ctx context.Context, id string) error { return s.Locations.Exists(ctx, id) }})
	// Before anything calls the driver: the dispatcher holds every location's.
	build := opts.Locations.Build
	if build == nil {
		build = func(locations.Settings) (hypervisor.Driver, error) {
			return nil, errors.New("this server builds no driver for a location")
		}
	}
	lctx, lcancel := context.WithTimeout(context.Background(), time.Minute)
	s.Locations, err = locations.Start(lctx, locations.Deps{Runtime: s.rt, Dispatcher: opts.Locations.Dispatcher, Build: build,
		Key: opts.Locations.Key, DefaultDriver: defaultDriver, InUse: s.locationInUse,
		// A deleted location's cluster is no more: an alert that it did not answer
		// would stay open for ever.
		Deleted:     func(id string) { s.Alerts.Clear(alerts.AlertHypervisorUnavailable, monitoring.LocationTarget(id)) },
		Forget:      opts.Locations.Forget,
		Unavailable: s.locationsDown})
	lcancel()
	if err != nil {
		s.Stop()
		return nil, err
	}
	ms := machines.Start(machines.Deps{Runtime: s.rt, Driver: s.driver, Events: s.Events, Alerts: s.Alerts,
		TenantExists: s.tenantExists, Maintained: opts.Maintained, TerminateGrace: opts.TerminateGrace,
		ReleaseAddresses: s.Addresses.Release, ReassignAddresses: s.Addresses.Reassign,
		ChangeAddresses: func(ctx context.Context, b *persistence.Batch, machine string, have []hypervisor.Address, c machines.AddressChange) ([]hypervisor.Address, error) {
			return s.Addresses.SetPTR(ctx, b, machine, have, c.Address, c.PTR)
		},
		AddAddress: func(ctx context.Context, b *persistence.Batch, machine string, tenant *string, loc, node string, have []hypervisor.Address, r machines.AddressRequest) (hypervisor.Address, func(context.Context) (bool, error), error) {
			w := addresses.Want{Location: loc, Node: node, NodeID: capacity.NodeID(loc, node)}
			addr, g, err := s.Addresses.AllocateOne(ctx, b, w, r.Version, r.Address, have, machine, tenant)
			return addr, func(ctx context.Context) (bool, error) { return s.Addresses.Taken(ctx, g) }, err
		},
		UnallocateAddress: s.Addresses.Unallocate,
		// The sync starts after the machines (it asks them); asked only by a reinstall.
		TemplateLocation: func(ctx context.Context, id string) (string, error) {
			tpl, err := s.Inventory.Template(ctx, id)
			return tpl.Location, err
		},
		// Asked only by a reinstall of a machine of a plan.
		TemplateAllowed: func(ctx context.Context, plan, template string) error {
			return s.Tenants.TemplateAllowed(ctx, plan, template)
		},
		// The tenants start after the machines (they depend on them); asked only
		// before a snapshot or a backup on demand.
		Limits: func(ctx context.Context, tenant string) (machines.Limits, error) {
			return s.Tenants.Limits(ctx, tenant)
		},
		// The plans start after the machines (they count the machines of a plan).
		PlanLimits: func(ctx context.Context, plan string) (machines.PlanLimits, error) {
			return s.Plans.Limits(ctx, plan)
		},
		Overcommit: opts.Overcommit})
	s.Machines, s.Nodes, s.Tasks, s.Backups = ms.Machines, ms.Nodes, ms.Tasks, ms.Backups
	// The plans start after (the overage job asks them only once it runs).
	action := opts.TrafficOverageAction
	if action == "" {
		action = OverageReport
	}
	s.Traffic = traffic.New(traffic.Deps{Runtime: s.rt, Overage: s.trafficOverage(action, opts.TrafficThrottleMbps)})
	s.Inventory = inventory.Start(inventory.Deps{Runtime: s.rt, Driver: s.driver, Machines: ms, Traffic: s.Traffic.Record,
		LocationGone: s.locationGone})
	s.Consoles = consoles.New(consoles.Deps{Runtime: s.rt, Driver: s.driver, Machines: ms.Machines, Authorize: s.Users.Authorize})
	s.Plans = plans.Start(plans.Deps{Runtime: s.rt, Machines: ms.Machines, Nodes: ms.Nodes, LocationExists: s.Locations.Exists})
	s.Usage = usage.New(usage.Deps{Runtime: s.rt, Retention: opts.UsageRetention,
		Machines: func(ctx context.Context) ([]usage.Machine, error) {
			bs, err := ms.Machines.Billables(ctx)
			out := make([]usage.Machine, len(bs))
			for i, b := range bs {
				out[i] = usage.Machine(b)
			}
			return out, err
		},
		Backups: func(ctx context.Context) (map[string]usage.Stored, error) {
			held, err := ms.Backups.HeldByMachine(ctx)
			out := make(map[string]usage.Stored, len(held))
			for id, h := range held {
				out[id] = usage.Stored(h)
			}
			return out, err
		},
		Traffic: func(ctx context.Context, h time.Time) (map[string]usage.Traffic, error) {
			moved, err := s.Traffic.Hour(ctx, h)
			out := make(map[string]usage.Traffic, len(moved))
			for id, b := range moved {
				out[id] = usage.Traffic{In: int64(b.In), Out: int64(b.Out)}
			}
			return out, err
		}})
	s.Usage.Run()
	s.Traffic.Run()
	s.ISOs = isos.New(isos.Deps{Runtime: s.rt, Driver: s.driver, Machines: ms.Machines, Tasks: ms.Tasks, Events: s.Events, TenantExists: s.tenantExists,
		Dir: opts.ISODir, MaxBytes: opts.ISOMaxBytes})
	s.Tenants = tenants.Start(tenants.Deps{Runtime: s.rt, Driver: s.driver, Events: s.Events, Machines: ms, Inventory: s.Inventory, Alerts: s.Alerts,
		Plans: s.Plans, Addresses: s.Addresses,
		HasUsers: s.Users.TenantHasUsers, SuspendAction: opts.SuspendAction,
		// Schedules start after tenants (they depend on them); asked only by a delete.
		HasSchedules: func(ctx context.Context, tenant string) (bool, error) {
			return s.Schedules.TenantHasSchedules(ctx, tenant)
		},
		HasWebhooks: s.Webhooks.TenantHasWebhooks, ForgetTenant: schedules.ForgetTenant, LocationExists: s.Locations.Exists})
	mon := monitoring.Start(monitoring.Deps{Runtime: s.rt, Driver: s.driver, Events: s.Events, Alerts: s.Alerts,
		Machines: ms, Tenants: s.Tenants, Options: opts.Monitoring, Faulty: opts.Faulty, HistoryInterval: opts.HistoryInterval})
	s.HealthChecks, s.Monitoring, s.Insights, s.History = mon.HealthChecks, mon.Monitoring, mon.Insights, mon.History
	s.Schedules = schedules.Start(schedules.Deps{Runtime: s.rt, Driver: s.driver, Machines: ms, Options: opts.Schedules, Tenants: s.Tenants})
	// Start has no caller's context; each read is bounded by the store's own timeout.
	if err := s.Revive(context.Background()); err != nil {
		s.Stop()
		return nil, err
	}
	if err := s.ISOs.Settle(context.Background()); err != nil {
		s.Stop()
		return nil, err
	}
	if opts.SyncInterval > 0 && s.driver != nil {
		s.Inventory.RunPeriodic(opts.SyncInterval)
	}
	return s, nil
}

// Revive wakes the entities that run on their own: it settles the tasks left open
// (by a previous run, or by a member that died) and arms the schedules' and health
// checks' timers and those of the machines marked for termination (on every member
// that revives: the first to fire starts the deletion, the machine's entity refuses
// the others). It runs at start and, in a cluster, whenever a member left: each
// wake goes to the entity's owner, claiming it when its owner was the member that
// left, so every entity of the dead member is running again on a live one. Waking an
// entity that runs already does nothing.
func (s *System) Revive(ctx context.Context) error {
	return errors.Join(s.Machines.SettleOpenTasks(ctx), s.Schedules.WakeAll(ctx), s.HealthChecks.WakeAll(ctx), s.Machines.WakeTerminations(ctx))
}

// Runtime is the actor runtime the services run on (a cluster member serves
// forwarded requests into it).
func (s *System) Runtime() *kit.Runtime { return s.rt }

// locationInUse says what belongs to location id (plans, IP pools, nodes, machines),
// which keeps it from being deleted, or "" when nothing does. The rooms it asks start
// after the locations; it is asked only by a location's delete.
func (s *System) locationInUse(ctx context.Context, id string) (string, error) {
	tag := hvloc.Tag(id)
	var held []string
	for _, c := range []struct {
		what  string
		count func(context.Context, string) (int, error)
	}{{"plan(s)", s.Plans.CountLocation}, {"IP pool(s)", s.Addresses.CountLocation},
		{"machine(s)", s.Machines.CountLocation}} {
		n, err := c.count(ctx, tag)
		if err != nil {
			return "", err
		}
		if n > 0 {
			held = append(held, fmt.Sprintf("%d %s", n, c.what))
		}
	}
	return strings.Join(held, ", "), nil
}

// locationGone says whether the location tagged tag was deleted: its record is gone.
func (s *System) locationGone(ctx context.Context, tag string) (bool, error) {
	err := s.Locations.Exists(ctx, hvloc.Name(tag))
	if errors.Is(err, apierr.ErrNotFound) {
		return true, nil
	}
	return false, err
}

// locationsDown names the locations whose hypervisor_unavailable alert is open, by
// location id: the default one's alert names the driver, another's "location <tag>"
// (monitoring's hypervisor watch). An open condition is a key in the store, so this
// is one short scan, on every member alike.
func (s *System) locationsDown(ctx context.Context) (map[string]bool, error) {
	open, err := s.Alerts.OpenTargets(ctx, alerts.AlertHypervisorUnavailable)
	if err != nil {
		return nil, err
	}
	down := map[string]bool{}
	if s.driver != nil && open[s.driver.Name()] {
		down[locations.Default] = true
	}
	for target := range open {
		if tag, ok := strings.CutPrefix(target, monitoring.LocationTarget("")); ok && tag != "" {
			down[tag] = true
		}
	}
	return down, nil
}

// tenantExists is how the packages below the tenants (users, machines) check that a
// tenant exists: the tenants are started after them, so the lookup is made at call
// time.
func (s *System) tenantExists(ctx context.Context, id string) error {
	_, err := s.Tenants.Get(ctx, id)
	return err
}

// tenantRequiresTOTP says whether tenant id requires its users to have a second
// factor; a tenant gone meanwhile requires nothing (its users go with it).
func (s *System) tenantRequiresTOTP(ctx context.Context, id string) (bool, error) {
	t, err := s.Tenants.Get(ctx, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return false, nil
	}
	return t.RequireTOTP, err
}

// Stop stops every supervisor (and so every entity) and waits for them.
func (s *System) Stop() {
	defer s.Events.Close()
	if s.Usage != nil {
		s.Usage.Stop() // its job reads the store
	}
	if s.Traffic != nil {
		s.Traffic.Stop() // its job reads the store and starts machine tasks
	}
	if s.Schedules != nil {
		// First, so that no run starts a task while the machines stop.
		s.Schedules.Stop()
	}
	// The insights' goroutines write to the store: they end before the store may close.
	if s.History != nil {
		s.History.Stop()
	}
	if s.Insights != nil {
		s.Insights.Stop()
	}
	if s.HealthChecks != nil {
		s.HealthChecks.Stop()
	}
	if s.Monitoring != nil {
		s.Monitoring.Stop()
	}
	if s.Tenants != nil {
		s.Tenants.Stop()
	}
	if s.Inventory != nil {
		s.Inventory.Stop()
	}
	if s.Audit != nil {
		s.Audit.Stop()
	}
	if s.ISOs != nil {
		s.ISOs.Stop() // fetches in flight stay pending; the next start fails them
	}
	if s.Machines != nil {
		// Hypervisor work in flight is cancelled; its tasks stay open in the store and
		// the next start settles them against the hypervisor's state.
		s.Machines.Stop()
	}
	if s.Webhooks != nil {
		// After the machines: the events of their last tasks are queued.
		s.Webhooks.Stop()
	}
	if s.Locations != nil {
		s.Locations.Stop()
	}
	s.rt.StopKinds()
	if s.Limiter != nil {
		s.Limiter.Stop()
	}
	if s.Users != nil {
		s.Users.Stop()
	}
	s.rt.Shutdown()
}

// Driver is the hypervisor driver.
func (s *System) Driver() hypervisor.Driver { return s.driver }

// Store is the store every entity persists to.
func (s *System) Store() persistence.Store { return s.store }

// Kinds reports the live entity count of each kind, for /metrics.
func (s *System) Kinds() map[string]int { return s.rt.Kinds() }
