// Package actors holds vmplane's actor system: one supervisor per entity kind, the entity
// actors that own each record (users, machines, nodes, tenants, ...), their messages, the
// rate limiter and the schedulers.
//
// Every entity follows one pattern: load its record from the store when it starts,
// validate a request against its state, persist the change through the group-commit
// writer, and reply only after the write is durable. A panic while handling a request
// answers that request with an internal error at once and the supervisor restarts the
// entity, which reloads its record from the store.
package actors

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
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
	Users *Users
	// Limiter holds the rate limit token buckets.
	Limiter *Limiter
	// Machines owns machine records; each machine's actor is its lock.
	Machines *Machines
	// Nodes owns node records.
	Nodes *Nodes
	// Tenants owns tenants, their quota and their firewall rules.
	Tenants *Tenants
	// Cluster reconciles the store with the hypervisor.
	Cluster *Cluster
	// Tasks reads task records.
	Tasks *Tasks
	// Consoles issues and redeems console tickets.
	Consoles *Consoles
	// Idempotency keeps the answers to requests made with an Idempotency-Key.
	Idempotency *Idempotency
	// Events fans out changes to GET /api/events.
	Events *Events
	// Insights finds faulty deployments.
	Insights *Insights
	// History samples the cluster's daily usage and forecasts from it.
	History *History
	// Schedules owns power and backup schedules and runs them.
	Schedules *Schedules
	// Backups reads and deletes the backups schedules took.
	Backups *Backups
	// Alerts owns alert events, one open event per condition.
	Alerts *Alerts
	// HealthChecks owns the health checks and runs their probes.
	HealthChecks *HealthChecks
	// Monitoring raises task and node usage alerts and computes the overview.
	Monitoring *Monitoring
}

// Options configure the actor system.
type Options struct {
	Store  persistence.Store
	Driver hypervisor.Driver
	Logger *zap.Logger
	Auth   AuthOptions
	Limits LimitOptions
	// SyncInterval is how often the store is reconciled with the hypervisor
	// (0: only on demand).
	SyncInterval time.Duration
	// Faulty are the faulty-deployment rules' windows and thresholds (zero: defaults).
	Faulty FaultyOptions
	// HistoryInterval is how often the cluster's usage is sampled into the daily
	// history (0: never, and no backfill).
	HistoryInterval time.Duration
	// Schedules configure the schedulers (grace for missed runs, clock).
	Schedules ScheduleOptions
	// Monitoring configures the node usage alert (zero: defaults).
	Monitoring MonitoringOptions
	// Entities bound the entity actors each kind keeps running (zero: each kind's
	// own idle time, no count bound).
	Entities EntityOptions
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
	s := &System{rt: kit.New(opts.Store, log, opts.Entities), store: opts.Store, driver: opts.Driver, log: log, Events: newEvents()}
	auth, err := StartAuth(AuthDeps{Runtime: s.rt, Options: opts.Auth, TenantExists: s.tenantExists})
	if err != nil {
		s.Stop()
		return nil, err
	}
	s.Users, s.Idempotency = auth.Users, auth.Idempotency
	s.Limiter = StartLimiter(s.rt, opts.Limits)
	// Before anything publishes tasks: the monitoring watches the event bus from here.
	s.Alerts = StartAlerts(AlertsDeps{Runtime: s.rt, Events: s.Events})
	ms := StartMachines(MachinesDeps{Runtime: s.rt, Driver: s.driver, Events: s.Events, Alerts: s.Alerts,
		TenantExists: s.tenantExists, Authorize: s.Users.Authorize})
	s.Machines, s.Nodes, s.Tasks, s.Cluster, s.Consoles, s.Backups = ms.Machines, ms.Nodes, ms.Tasks, ms.Cluster, ms.Consoles, ms.Backups
	s.Tenants = StartTenants(TenantsDeps{Runtime: s.rt, Driver: s.driver, Events: s.Events, Machines: ms})
	mon := StartMonitoring(MonitoringDeps{Runtime: s.rt, Driver: s.driver, Events: s.Events, Alerts: s.Alerts,
		Machines: ms, Tenants: s.Tenants, Options: opts.Monitoring, Faulty: opts.Faulty, HistoryInterval: opts.HistoryInterval})
	s.HealthChecks, s.Monitoring, s.Insights, s.History = mon.HealthChecks, mon.Monitoring, mon.Insights, mon.History
	s.Schedules = StartSchedules(SchedulesDeps{Runtime: s.rt, Driver: s.driver, Machines: ms, Options: opts.Schedules})
	if err := s.Machines.settleOpenTasks(); err != nil {
		s.Stop()
		return nil, err
	}
	if err := s.Schedules.wakeAll(); err != nil {
		s.Stop()
		return nil, err
	}
	if err := s.HealthChecks.wakeAll(); err != nil {
		s.Stop()
		return nil, err
	}
	if opts.SyncInterval > 0 && s.driver != nil {
		s.Cluster.runPeriodic(opts.SyncInterval)
	}
	return s, nil
}

// tenantExists is how the packages below the tenants (users, machines) check that a
// tenant exists: the tenants are started after them, so the lookup is made at call
// time.
func (s *System) tenantExists(ctx context.Context, id string) error {
	_, err := s.Tenants.Get(ctx, id)
	return err
}

// Stop stops every supervisor (and so every entity) and waits for them.
func (s *System) Stop() {
	defer s.Events.close()
	if s.Schedules != nil {
		// First, so that no run starts a task while the machines stop.
		s.Schedules.stop()
	}
	// The insights' goroutines write to the store: they end before the store may close.
	if s.History != nil {
		s.History.stop()
	}
	if s.Insights != nil {
		s.Insights.stop()
	}
	if s.HealthChecks != nil {
		s.HealthChecks.stop()
	}
	if s.Monitoring != nil {
		s.Monitoring.stop()
	}
	if s.Cluster != nil {
		s.Cluster.stop()
	}
	if s.Machines != nil {
		// Hypervisor work in flight is cancelled; its tasks stay open in the store and
		// the next start settles them against the hypervisor's state.
		s.Machines.stop()
	}
	s.rt.StopKinds()
	if s.Limiter != nil {
		s.Limiter.stop()
	}
	if s.Users != nil {
		s.Users.stop()
	}
	s.rt.Shutdown()
}

// Driver is the hypervisor driver.
func (s *System) Driver() hypervisor.Driver { return s.driver }

// Store is the store every entity persists to.
func (s *System) Store() persistence.Store { return s.store }

// Kinds reports the live entity count of each kind, for /metrics.
func (s *System) Kinds() map[string]int { return s.rt.Kinds() }
