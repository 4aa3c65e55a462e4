// Package kit is vmplane's actor runtime: it knows how to run entities, not what they
// are. A Runtime holds the protoactor system, the workers every mailbox runs on, the
// reusable reply boxes of Ask, the store entities persist to and the logger; a Kind
// supervises every entity of one kind (activation by id, passivation, restarts); Ask
// carries requests and an actor answers them through its Ctx (or a Reply, later); the
// pagers walk the store's lists; Every runs periodic loops; Recover guards background
// goroutines.
//
// kit imports protoactor, persistence and apierr and no domain package: what a machine
// or a tenant is lives in the domain packages beside it, which build on kit. The
// cluster's placement and fencing belong here, so that no domain package learns whether
// it runs on one member or several.
package kit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// DefaultTimeout bounds one request from the edge to an actor.
const DefaultTimeout = 10 * time.Second

// Runtime is the running actor system that entities of every kind share.
type Runtime struct {
	actors *actor.ActorSystem
	// Store is the store every entity persists to.
	Store persistence.Store
	// Log is the runtime's logger; domain packages name their own from it.
	Log *zap.Logger
	// Clock is the time every entity timer, loop and due time of the services runs on
	// (the real clock unless New was given WithClock).
	Clock Clock
	// replies are the reusable reply addresses of Ask (reply.go).
	replies *replyBoxes
	// workers run every actor's mailbox (dispatcher.go).
	workers *workers
	// entities bound every passivating kind.
	entities EntityOptions
	kindsMu  sync.RWMutex // guards kinds: Deliver looks them up from the cluster's goroutines
	kinds    []*Kind
	// placement, in a cluster, says where each entity is active (placement.go); nil on
	// a single node.
	placement Placement
	// tells holds told messages on their way to entities on other members.
	tells tells
	// runID names this run on a single node (Owner).
	runID string
	// auditor adds an audit entry to a batch (audit.go); nil until the audit room
	// installs it.
	auditor atomic.Pointer[Auditor]
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

// New starts an actor runtime over store. protoactor's own log lines go to log (its
// info lines at debug level: they are internal noise for an operator).
func New(store persistence.Store, log *zap.Logger, entities EntityOptions, opts ...Option) *Runtime {
	if log == nil {
		log = zap.NewNop()
	}
	// protoactor logs through slog; route it into zap so there is one log stream.
	cfg := actor.Configure(actor.WithLoggerFactory(func(sys *actor.ActorSystem) *slog.Logger {
		return slog.New(quietInfo{zapslog.NewHandler(log.Core(), zapslog.WithName("protoactor"))})
	}))
	rt := &Runtime{actors: actor.NewActorSystemWithConfig(cfg), Store: store, Log: log, Clock: RealClock(), entities: entities,
		runID: newRunID()}
	for _, o := range opts {
		o(rt)
	}
	rt.tells.queues = map[string][]any{}
	rt.tells.drained = make(chan struct{})
	rt.tells.stop = make(chan struct{})
	rt.replies = newReplyBoxes(rt.actors)
	rt.workers = newWorkers(mailboxThroughput, maxIdleWorkers)
	return rt
}

// StopKinds stops every kind's supervisor, and so every entity, newest kind first,
// and waits for them.
func (rt *Runtime) StopKinds() {
	rt.kindsMu.Lock()
	kinds := rt.kinds
	rt.kinds = nil
	rt.kindsMu.Unlock()
	for i := len(kinds) - 1; i >= 0; i-- {
		kinds[i].stopSweep()
		_ = rt.actors.Root.StopFuture(kinds[i].pid).Wait()
	}
}

// Shutdown stops the actor system and ends the idle workers. Kinds are stopped first
// (StopKinds); actors spawned outside a kind (the limiter's) must be stopped by their
// owners before.
func (rt *Runtime) Shutdown() {
	rt.tells.shutdown()
	rt.StopKinds()
	rt.actors.Shutdown()
	rt.workers.close()
}

// Kinds reports the live entity count of each kind, for /metrics.
func (rt *Runtime) Kinds() map[string]int {
	rt.kindsMu.RLock()
	defer rt.kindsMu.RUnlock()
	out := make(map[string]int, len(rt.kinds))
	for _, k := range rt.kinds {
		out[k.name] = int(k.live.Load())
	}
	return out
}

// Send tells the actor to msg from outside any actor; no answer is expected.
func (rt *Runtime) Send(to Ref, msg any) { rt.actors.Root.Send(to.pid, msg) }

// Spawn starts an actor that is not an entity (the limiter's shards) on the runtime's
// workers, under name; newFn makes its behaviour, again after a restart.
func (rt *Runtime) Spawn(name string, newFn func() Actor) (Ref, error) {
	props := actor.PropsFromProducer(func() actor.Actor { return &plainActor{a: newFn()} }, actor.WithDispatcher(rt.workers))
	pid, err := rt.actors.Root.SpawnNamed(props, name)
	return Ref{pid}, err
}

// Commit persists a batch and waits for durability. Entities call it before replying;
// the deadline keeps a stuck disk from holding a mailbox forever.
func (rt *Runtime) Commit(b *persistence.Batch) error {
	ctx, cancel := rt.Work()
	defer cancel()
	return rt.Store.Commit(ctx, b)
}

// Work is the context of store reads made for no caller: an entity's, for a message
// (which carries no context: it may come from another member) or in its Load, and a
// service's own start-up reads. It is bounded by DefaultTimeout, as Commit's wait is,
// so that a hung store cannot hold a mailbox forever. The caller cancels it when the
// work is done.
func (rt *Runtime) Work() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), DefaultTimeout)
}

// AskRef sends msg to the actor to and waits for the reply, which is either a T or an
// error. The wait ends at ctx's deadline (DefaultTimeout without one) or when ctx is
// cancelled, so a shutdown never waits out a timeout.
func AskRef[T any](ctx context.Context, rt *Runtime, to Ref, msg any) (T, error) {
	res, err := askLocal(ctx, rt, to.pid, msg)
	return answer[T](res, err, msg)
}

// askLocal sends msg to a local pid and returns its raw answer.
func askLocal(ctx context.Context, rt *Runtime, pid *actor.PID, msg any) (any, error) {
	timeout := DefaultTimeout
	if d, ok := ctx.Deadline(); ok {
		if time.Until(d) <= 0 {
			<-ctx.Done() // at once, or when its timer, due now, has fired
			return nil, apierr.New(apierr.ErrTimeout, "the request did not finish in time")
		}
		timeout = 0 // ctx's deadline bounds the wait (replyBoxes.wait)
	}
	box := rt.replies.get()
	if env, ok := msg.(*Envelope); ok {
		env.box = box // the entity answers the box directly (Envelope.box)
	}
	rt.replies.request(box, pid, msg)
	res, ok := rt.replies.wait(ctx, box, timeout)
	if !ok {
		rt.replies.discard(box)
		if ctx.Err() != nil && ctx.Err() != context.DeadlineExceeded {
			return nil, apierr.New(apierr.ErrUnavailable, "the request was cancelled")
		}
		return nil, apierr.New(apierr.ErrTimeout, "the request did not finish in time")
	}
	rt.replies.put(box)
	if _, ok := res.(*actor.DeadLetterResponse); ok {
		return nil, apierr.New(apierr.ErrUnavailable, "the service is not available")
	}
	return res, nil
}

// answer turns a raw answer into a T or an error.
func answer[T any](res any, err error, msg any) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	// Errors first: for T = any, case T would take them as answers.
	switch r := res.(type) {
	case *apierr.Error:
		return zero, r
	case T:
		return r, nil
	}
	return zero, fmt.Errorf("kit: unexpected reply %T to %T", res, msg)
}

// Ask sends msg to the entity id of kind k and waits for its reply, a T or an error.
// In a cluster the entity may be active on another member: the request goes there.
func Ask[T any](ctx context.Context, k *Kind, id string, msg any) (T, error) {
	if k.rt.placement == nil {
		return AskRef[T](ctx, k.rt, Ref{k.pid}, &Envelope{ID: id, Msg: msg, Audit: AuditOf(ctx)})
	}
	res, err := k.request(ctx, id, msg)
	return answer[T](res, err, msg)
}

// Done is the answer to a request that succeeded with nothing to say.
type Done struct{}
