package kit

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/vmplane/vmplane/apierr"
)

// protoactor is the runtime, and it stays in kit: the domain packages see the message
// an actor handles through a Ctx, answer through it or through a Reply, and address the
// actors that are not entities (the limiter's shards) by a Ref. None of them imports
// protoactor (actors/rooms_test.go checks).

// Ctx is what an actor's handler sees of the message it handles: who, if anyone, waits
// for the answer. Each actor has one Ctx, reused for every message it handles, so it
// costs no allocation per message; it is valid only during the call it was handed to,
// on the actor's own goroutine. To answer later or from another goroutine, take a Reply
// with Later.
type Ctx struct {
	actx actor.Context
	// id is the entity's record id, for Passivate; empty for an actor that is not an
	// entity (a kind's supervisor, the limiter's shards).
	id string
	// audit is the audit entry of the request being handled (Audit), or nil.
	audit *AuditEntry
	// box is the reply box the request being handled came with (Envelope.box), or nil:
	// its answer goes there directly.
	box *replyBox
}

// Answers reports whether someone waits for an answer to the current message: a
// request does; a told message (a timer's tick, a wake-up) does not.
func (c *Ctx) Answers() bool { return c.actx.Sender() != nil }

// Respond answers the current request with v. A told message gets no answer: Respond
// does nothing then.
func (c *Ctx) Respond(v any) {
	if to := c.actx.Sender(); to != nil {
		if c.box != nil {
			c.box.SendUserMessage(to, v)
			return
		}
		c.actx.Send(to, v)
	}
}

// Fail answers the current request with err as an *apierr.Error, so that an answer is
// always plain data (an error that is not an *apierr.Error becomes an internal error).
func (c *Ctx) Fail(err error) { c.Respond(apierr.From(err)) }

// Later returns the handle that answers the current request after the handler has
// returned, from any goroutine (a write answered by the store's writer, a sync that
// runs for minutes). Its zero value, and the handle of a told message, answer nobody.
func (c *Ctx) Later() Reply {
	return Reply{root: c.actx.ActorSystem().Root, to: c.actx.Sender(), box: c.box}
}

// Passivate asks the entity's kind to stop the entity once it has handled what it was
// sent before (a deleted or disabled health check). absent says its record does not
// exist: in a cluster its hold is then released. Outside an entity it does nothing.
func (c *Ctx) Passivate(absent bool) {
	if c.id == "" {
		return
	}
	c.actx.Send(c.actx.Parent(), &Passivate{ID: c.id, Absent: absent})
}

// Reply answers one request, at most once, from any goroutine (Ctx.Later).
type Reply struct {
	root *actor.RootContext
	to   *actor.PID
	box  *replyBox // the ask's reply box, answered directly (Envelope.box); nil: through to
}

// Answers reports whether someone waits for this answer (false for a told message).
func (r Reply) Answers() bool { return r.to != nil }

// Respond answers the request with v; for a told message it does nothing.
func (r Reply) Respond(v any) {
	if r.to != nil {
		if r.box != nil {
			r.box.SendUserMessage(r.to, v)
			return
		}
		r.root.Send(r.to, v)
	}
}

// Fail answers the request with err as an *apierr.Error (Ctx.Fail).
func (r Reply) Fail(err error) { r.Respond(apierr.From(err)) }

// Ref is the address of an actor that is not an entity (the limiter's shards), which
// Runtime.Spawn starts: entities are reached through their Kind, by record id.
type Ref struct{ pid *actor.PID }

// Actor is the behaviour of an actor that is not an entity: Receive handles each
// message sent to its Ref, one at a time, answering through ctx.
type Actor interface {
	Receive(ctx *Ctx, msg any)
}

// plainActor adapts an Actor to protoactor; protoactor's own lifecycle messages are
// not passed on.
type plainActor struct {
	a   Actor
	ctx Ctx
}

func (p *plainActor) Receive(actx actor.Context) {
	switch msg := actx.Message().(type) {
	case actor.SystemMessage, actor.AutoReceiveMessage:
	default:
		p.ctx.actx = actx
		p.a.Receive(&p.ctx, msg)
	}
}
