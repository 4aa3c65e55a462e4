package kit

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
)

// Entity is the behaviour of one record-owning actor. The Kind's adapter calls Load once
// per incarnation (at start and after every restart) and Handle for each request.
type Entity interface {
	// Load reads the entity's record from the store. A missing record is not an error:
	// the entity starts empty and answers not-found or accepts a create.
	Load() error
	// Handle handles one message; a request is answered through ctx (Respond, Fail,
	// or Later to answer after Handle returned).
	Handle(ctx *Ctx, msg any)
}

// Absence is implemented by entities that know whether their record exists. An entity
// whose record does not exist holds nothing worth keeping, so it is passivated as soon
// as it has answered: looking up ids that do not exist leaves nothing running.
type Absence interface{ Absent() bool }

// Busy is implemented by entities that can have work in flight that will report back
// (a machine's task): a busy entity is not passivated.
type Busy interface{ Busy() bool }

// Kind supervises every entity of one kind. Each entity is a child actor named by its
// record id, spawned on its first message and passivated after an idle period, when
// its record does not exist, or when more than maxLive run; the Kind is the only way to
// reach an entity, so no message can race a passivation.
type Kind struct {
	name      string
	rt        *Runtime
	pid       *actor.PID
	live      atomic.Int64
	newFn     func(id string) Entity
	idle      time.Duration
	maxLive   int
	kindMsg   func(ctx *Ctx, msg any) bool
	stopSweep func()
}

// Envelope addresses Msg to the entity with record id ID.
type Envelope struct {
	ID  string
	Msg any
	// Audit is the audit entry of the request Msg makes, if any (Ctx.Audit).
	Audit *AuditEntry
	// box is the reply box of the ask that sent it (askLocal), which the entity
	// answers directly (Ctx.Respond, Reply.Respond): no lookup of the sender in the
	// process registry, and no allocation for it, on every answer. The box still takes
	// only the reply addressed to the request it waits for.
	box *replyBox
}

// sweepIdle asks a supervisor to passivate the entities idle for longer than its idle
// time. Idleness is tracked by the supervisor, not with protoactor's per-actor receive
// timeout, whose timer goroutine races with the actor's own (found by the race
// detector), and which costs a timer per entity.
type sweepIdle struct{}

// Passivate is an entity's own request to be stopped now (a deleted health check).
// Absent says its record does not exist: in a cluster its hold is released once it
// stopped.
type Passivate struct {
	ID     string
	Absent bool
}

// child is what a supervisor knows of a running entity.
type child struct {
	pid *actor.PID
	// last is when the entity last got or handled a message (unix nanoseconds).
	last atomic.Int64
	// busy is whether the entity has work in flight that will report back, which
	// keeps it from being passivated; the entity sets it after each message.
	busy atomic.Bool
	// inflight, when the entity has one, counts work it handed off that finishes
	// without a message to it (rule writes answered by the store's writer). Read live
	// by the sweep, so that finishing such work costs no message.
	inflight atomic.Pointer[atomic.Int64]
	// absent is set when the entity stopped because its record does not exist.
	absent bool
}

// idle reports whether nothing keeps the entity from being passivated.
func (c *child) idle() bool {
	if c.busy.Load() {
		return false
	}
	n := c.inflight.Load()
	return n == nil || n.Load() == 0
}

// HandsOff is implemented by entities whose handed-off work is counted (child.inflight).
type HandsOff interface{ HandedOff() *atomic.Int64 }

// Supervision: a failing entity is restarted (it reloads from the store) up to 5 times
// in 10 s, then stopped; its next message spawns it afresh.
var entityStrategy = actor.NewOneForOneStrategy(5, 10*time.Second, actor.DefaultDecider)

// StartKind spawns the supervisor of a kind. idle is the kind's own idle time (the
// system's EntityOptions may replace it); 0 means its entities are never passivated for
// idleness or count (they run on their own, like health checks) but still when absent.
// kindMsg, when set, handles messages addressed to the kind itself (not wrapped in an
// envelope), such as creates that must be serialised across all entities of the kind;
// it reports whether it handled the message.
func (rt *Runtime) StartKind(name string, idle time.Duration, newFn func(id string) Entity, kindMsg func(ctx *Ctx, msg any) bool) *Kind {
	k := &Kind{name: name, rt: rt, newFn: newFn, idle: idle, kindMsg: kindMsg}
	if idle > 0 {
		if rt.entities.Idle > 0 {
			k.idle = rt.entities.Idle
		}
		k.maxLive = rt.entities.MaxLive
	}
	idle = k.idle
	props := actor.PropsFromProducer(func() actor.Actor {
		return &supervisor{kind: k, children: map[string]*child{}, byPID: map[string]string{}, stopping: map[string][]stashed{}}
	}, actor.WithSupervisor(entityStrategy), actor.WithDispatcher(rt.workers))
	pid, err := rt.actors.Root.SpawnNamed(props, name)
	if err != nil {
		// Names are fixed at compile time; a clash is a programming error.
		panic(fmt.Sprintf("kit: spawn supervisor %s: %v", name, err))
	}
	k.pid = pid
	rt.kindsMu.Lock()
	rt.kinds = append(rt.kinds, k)
	rt.kindsMu.Unlock()
	k.stopSweep = func() {}
	if idle > 0 {
		loop := Every(rt.Clock, rt.Log, "idle sweep", max(idle/2, time.Millisecond), false, func(context.Context, time.Time) {
			rt.actors.Root.Send(pid, &sweepIdle{})
		})
		k.stopSweep = loop.Stop
	}
	return k
}

// stashed is a message held while its entity finishes passivating.
type stashed struct {
	msg    any
	sender *actor.PID
}

type supervisor struct {
	kind *Kind
	// ctx is what kindMsg sees, reused for every message.
	ctx      Ctx
	children map[string]*child
	byPID    map[string]string
	stopping map[string][]stashed
}

func (sv *supervisor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Envelope:
		// In a cluster, an envelope that did not come through the placement (a timer's)
		// is for an entity this member holds: claims stick until the member's lease
		// ends, and a member whose lease ended is fenced and exits.
		// The envelope itself goes on when the entity needs more than its message (its
		// audit entry, its reply box): entityActor.handleSafely unpacks it.
		var msg any = m
		if m.Audit == nil && m.box == nil {
			msg = m.Msg
		}
		if q, ok := sv.stopping[m.ID]; ok {
			sv.stopping[m.ID] = append(q, stashed{msg, ctx.Sender()})
			return
		}
		c, spawned := sv.child(ctx, m.ID)
		c.last.Store(sv.kind.rt.Clock.Now().UnixNano())
		ctx.RequestWithCustomSender(c.pid, msg, ctx.Sender())
		if spawned {
			sv.evict(ctx, m.ID)
		}
	case *Passivate:
		if c, ok := sv.children[m.ID]; ok {
			c.absent = m.Absent
			sv.stop(ctx, m.ID, c)
		}
	case *sweepIdle:
		cutoff := sv.kind.rt.Clock.Now().Add(-sv.kind.idle).UnixNano()
		for id, c := range sv.children {
			if c.idle() && c.last.Load() <= cutoff {
				sv.stop(ctx, id, c)
			}
		}
	case *actor.Terminated:
		id, ok := sv.byPID[m.Who.Id]
		if !ok {
			return
		}
		delete(sv.byPID, m.Who.Id)
		absent := sv.children[id] != nil && sv.children[id].absent
		delete(sv.children, id)
		q, wasStopping := sv.stopping[id]
		delete(sv.stopping, id)
		if p := sv.kind.rt.placement; p != nil && absent && len(q) == 0 {
			p.Release(sv.kind.name, id)
		}
		if wasStopping && len(q) > 0 {
			pid := sv.spawn(ctx, id).pid
			for _, st := range q {
				ctx.RequestWithCustomSender(pid, st.msg, st.sender)
			}
		}
	default:
		if sv.kind.kindMsg != nil {
			sv.ctx.actx = ctx
			sv.kind.kindMsg(&sv.ctx, m)
		}
	}
}

// stop passivates a running entity unless it is already stopping. Poison is a user
// message: everything already forwarded is handled first, and what comes meanwhile is
// stashed until the entity has stopped.
func (sv *supervisor) stop(ctx actor.Context, id string, c *child) {
	if _, stopping := sv.stopping[id]; stopping {
		return
	}
	sv.stopping[id] = nil
	ctx.Poison(c.pid)
}

// evict keeps the kind within maxLive running entities: once a spawn goes over it,
// the least recently used idle entities are passivated down to 90% of the bound, so
// that the sort is paid once per tenth of the bound's spawns, not on each. keep (the
// entity just spawned, its message on the way) is never chosen.
func (sv *supervisor) evict(ctx actor.Context, keep string) {
	bound := sv.kind.maxLive
	running := len(sv.children) - len(sv.stopping)
	if bound <= 0 || running <= bound {
		return
	}
	type candidate struct {
		id   string
		c    *child
		last int64
	}
	idle := make([]candidate, 0, running)
	for id, c := range sv.children {
		if _, stopping := sv.stopping[id]; !stopping && id != keep && c.idle() {
			idle = append(idle, candidate{id, c, c.last.Load()})
		}
	}
	slices.SortFunc(idle, func(a, b candidate) int { return cmp.Compare(a.last, b.last) })
	n := min(running-bound*9/10, len(idle))
	for _, v := range idle[:n] {
		sv.stop(ctx, v.id, v.c)
	}
}

// child returns the running entity for id, spawning it if needed, and whether it did.
func (sv *supervisor) child(ctx actor.Context, id string) (*child, bool) {
	if c, ok := sv.children[id]; ok {
		return c, false
	}
	return sv.spawn(ctx, id), true
}

// spawn starts the entity for id.
func (sv *supervisor) spawn(ctx actor.Context, id string) *child {
	k := sv.kind
	c := &child{}
	c.last.Store(k.rt.Clock.Now().UnixNano())
	props := actor.PropsFromProducer(func() actor.Actor {
		e := k.newFn(id)
		if h, ok := e.(HandsOff); ok {
			// A restarted entity counts afresh; its predecessor's work is waited for
			// when it loads (Tenants.lastRuleWrite).
			c.inflight.Store(h.HandedOff())
		}
		return &entityActor{kind: k, id: id, e: e, child: c, ctx: Ctx{id: id}}
	}, actor.WithDispatcher(k.rt.workers))
	pid, err := ctx.SpawnNamed(props, id)
	if err != nil {
		// The name is still registered: the old incarnation has not terminated yet
		// although it is no longer in our map. Fall back to a unique name; the record
		// id, not the PID, is what the store knows.
		pid = ctx.SpawnPrefix(props, id+"-")
	}
	c.pid = pid
	sv.children[id] = c
	sv.byPID[pid.Id] = id
	return c
}

// entityActor adapts an entity to protoactor: lifecycle, passivation and panic safety.
type entityActor struct {
	kind    *Kind
	id      string
	e       Entity
	child   *child
	loadErr error
	// ctx is what the entity's Handle sees, reused for every message.
	ctx Ctx
}

func (a *entityActor) Receive(ctx actor.Context) {
	switch ctx.Message().(type) {
	case *actor.Started:
		a.kind.live.Add(1)
		a.loadErr = a.e.Load()
		if a.loadErr != nil {
			a.kind.rt.Log.Error("entity load failed", zap.String("kind", a.kind.name), zap.String("id", a.id), zap.Error(a.loadErr))
		}
	case *actor.Restarting, *actor.Stopped:
		a.kind.live.Add(-1)
	case actor.SystemMessage, actor.AutoReceiveMessage:
	default:
		if a.loadErr != nil {
			// Try again: the store may be back.
			if a.loadErr = a.e.Load(); a.loadErr != nil {
				a.ctx.actx = ctx
				a.ctx.Fail(apierr.New(apierr.ErrUnavailable, "storage unavailable"))
				return
			}
		}
		a.handleSafely(ctx)
		a.child.last.Store(a.kind.rt.Clock.Now().UnixNano())
		if b, ok := a.e.(Busy); ok {
			a.child.busy.Store(b.Busy())
		}
		if e, ok := a.e.(Absence); ok && e.Absent() && a.child.idle() {
			ctx.Send(ctx.Parent(), &Passivate{ID: a.id, Absent: true})
		}
	}
}

// handleSafely answers the pending request with 500 at once if the entity panics, then
// re-panics so the supervisor restarts it from its stored record.
func (a *entityActor) handleSafely(ctx actor.Context) {
	defer func() {
		if r := recover(); r != nil {
			a.kind.rt.Log.Error("entity panic", zap.String("kind", a.kind.name), zap.String("id", a.id),
				zap.Any("panic", r), zap.Stack("stack"))
			if ctx.Sender() != nil {
				ctx.Respond(apierr.New(apierr.ErrInternal, "internal error"))
			}
			panic(r)
		}
	}()
	a.ctx.actx = ctx
	msg := ctx.Message()
	a.ctx.audit, a.ctx.box = nil, nil
	if m, ok := msg.(*Envelope); ok {
		msg, a.ctx.audit, a.ctx.box = m.Msg, m.Audit, m.box
	}
	a.e.Handle(&a.ctx, msg)
	a.ctx.audit, a.ctx.box = nil, nil
}

// Ref is the address of the kind's supervisor: messages sent to it directly, rather
// than through Send or Ask, never leave this member (an Envelope for an entity that
// is held here, a message for the kind itself that kindMsg handles).
func (k *Kind) Ref() Ref { return Ref{k.pid} }

// Send tells the entity id msg from outside any actor; no answer is expected. In a
// cluster, a message for an entity active on another member is forwarded there, after
// the messages told to that entity before it.
func (k *Kind) Send(id string, msg any) {
	if p := k.rt.placement; p != nil && !k.rt.tells.direct(k.name+"/"+id, func() bool { return p.Local(k.name, id) }) {
		k.tell(id, msg)
		return
	}
	k.rt.actors.Root.Send(k.pid, &Envelope{ID: id, Msg: msg})
}

// Runtime is the runtime the kind runs on.
func (k *Kind) Runtime() *Runtime { return k.rt }

// Live is how many entities of the kind run now.
func (k *Kind) Live() int { return int(k.live.Load()) }
