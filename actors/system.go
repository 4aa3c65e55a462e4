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
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// DefaultTimeout bounds one request from the edge to an actor.
const DefaultTimeout = 10 * time.Second

// System is the running actor system with its supervisors and the services built on it.
type System struct {
	actors *actor.ActorSystem
	store  persistence.Store
	driver hypervisor.Driver
	log    *zap.Logger
	// replies are the reusable reply addresses of ask (reply.go).
	replies *replyBoxes
	// workers run every actor's mailbox (dispatcher.go).
	workers *workers

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

	kinds []*Kind
	// entities bound every passivating kind.
	entities EntityOptions
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

// EntityOptions bound the entity actors of every kind that passivates (all but the
// health checks, whose entities run their probes): an entity is stopped once it has
// been idle for Idle, and when more than MaxLive of a kind run, the least recently
// used idle ones are stopped. An entity with work in flight is never stopped; its
// next message starts it again from the store.
type EntityOptions struct {
	// Idle replaces each kind's own idle time when positive.
	Idle time.Duration
	// MaxLive is how many entities of one kind may run at once (0: no bound).
	MaxLive int
}

// Start starts the actor system and every supervisor.
func Start(opts Options) (*System, error) {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	log := opts.Logger.Named("actors")
	// protoactor logs through slog; route it into zap so there is one log stream.
	cfg := actor.Configure(actor.WithLoggerFactory(func(sys *actor.ActorSystem) *slog.Logger {
		return slog.New(quietInfo{zapslog.NewHandler(log.Core(), zapslog.WithName("protoactor"))})
	}))
	s := &System{actors: actor.NewActorSystemWithConfig(cfg), store: opts.Store, driver: opts.Driver, log: log, Events: newEvents(), entities: opts.Entities}
	s.replies = newReplyBoxes(s.actors)
	s.workers = newWorkers(mailboxThroughput, maxIdleWorkers)
	var err error
	if s.Users, err = startUsers(s, opts.Auth); err != nil {
		s.Stop()
		return nil, err
	}
	s.Limiter = startLimiter(s, opts.Limits)
	s.Tasks = &Tasks{sys: s}
	s.Nodes = startNodes(s)
	s.Machines = startMachines(s)
	s.Tenants = startTenants(s)
	s.Cluster = &Cluster{sys: s}
	s.Consoles = newConsoles(s)
	s.Idempotency = startIdempotency(s)
	// Before anything publishes tasks: the monitoring watches the event bus from here.
	s.Alerts = startAlerts(s)
	s.HealthChecks = startHealthChecks(s)
	s.Monitoring = startMonitoring(s, opts.Monitoring)
	s.Insights = startInsights(s, opts.Faulty)
	s.History = startHistory(s, opts.HistoryInterval)
	s.Backups = &Backups{sys: s}
	s.Schedules = startSchedules(s, opts.Schedules)
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
	for i := len(s.kinds) - 1; i >= 0; i-- {
		s.kinds[i].stopSweep()
		_ = s.actors.Root.StopFuture(s.kinds[i].pid).Wait()
	}
	if s.Limiter != nil {
		s.Limiter.stop()
	}
	if s.Users != nil {
		s.Users.stop()
	}
	s.actors.Shutdown()
	s.workers.close()
}

// Driver is the hypervisor driver.
func (s *System) Driver() hypervisor.Driver { return s.driver }

// Store is the store every entity persists to.
func (s *System) Store() persistence.Store { return s.store }

// Kinds reports the live entity count of each kind, for /metrics.
func (s *System) Kinds() map[string]int {
	out := make(map[string]int, len(s.kinds))
	for _, k := range s.kinds {
		out[k.name] = int(k.live.Load())
	}
	return out
}

// ask sends msg to pid and waits for the reply, which is either a T or an error.
func ask[T any](ctx context.Context, s *System, pid *actor.PID, msg any) (T, error) {
	var zero T
	timeout := DefaultTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
		if timeout <= 0 {
			return zero, apierr.New(apierr.ErrTimeout, "the request did not finish in time")
		}
	}
	box := s.replies.get()
	s.replies.request(box, pid, msg)
	res, ok := s.replies.wait(box, timeout)
	if !ok {
		s.replies.discard(box)
		return zero, apierr.New(apierr.ErrTimeout, "the request did not finish in time")
	}
	s.replies.put(box)
	// Errors first: for T = any, case T would take them as answers.
	switch r := res.(type) {
	case *apierr.Error:
		return zero, r
	case *actor.DeadLetterResponse:
		return zero, apierr.New(apierr.ErrUnavailable, "the service is not available")
	case T:
		return r, nil
	}
	return zero, fmt.Errorf("actors: unexpected reply %T to %T", res, msg)
}

// respondErr answers the current request with err as an *apierr.Error, so a reply is
// always plain data.
func respondErr(ctx actor.Context, err error) {
	ctx.Respond(apierr.From(err))
}

// commit persists a batch and waits for durability. Entities call it before replying;
// the deadline keeps a stuck disk from holding a mailbox forever.
func (s *System) commit(b *persistence.Batch) error {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	return s.store.Commit(ctx, b)
}
