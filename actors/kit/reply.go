package kit

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Every edge request waits for at least one actor's answer (the limiter's, then often
// an entity's). A protoactor future, the stock way to wait, registers a new process in
// the process registry, arms a timer and removes both for every request: about half
// the cost of a round trip. A reply box is a process registered once and reused, whose
// replies go to a channel; ask borrows one per request.
//
// A box must never hand one request's answer to another: each request gets its own
// sender PID value (protoactor hands that same pointer to the process a reply is for),
// and the box accepts only the first reply addressed to the PID it is waiting for. A box whose wait timed out is thrown away,
// since its answer may still come.

// maxIdleBoxes bounds the boxes kept for reuse: more than the requests in flight at once
// on a busy edge.
const maxIdleBoxes = 1024

type replyBox struct {
	pid   *actor.PID
	ch    chan any
	timer *time.Timer
	// want is the sender PID of the request being waited for; nil between requests
	// and once its reply came.
	want atomic.Pointer[actor.PID]
}

// SendUserMessage implements actor.Process: the reply to the current request goes to
// the channel, anything else (a late or second reply) is dropped.
func (b *replyBox) SendUserMessage(pid *actor.PID, msg any) {
	// Only the first reply to the awaited request wins; it clears want, so the channel
	// (one slot, emptied by wait) never holds more than that one reply.
	if pid == nil || !b.want.CompareAndSwap(pid, nil) {
		return
	}
	_, m, _ := actor.UnwrapEnvelope(msg)
	b.ch <- m
}

// SendSystemMessage implements actor.Process; a box has no system messages.
func (b *replyBox) SendSystemMessage(*actor.PID, any) {}

// Stop implements actor.Process; boxes are removed by replyBoxes.discard.
func (b *replyBox) Stop(*actor.PID) {}

// replyBoxes is the System's pool of boxes.
type replyBoxes struct {
	sys  *actor.ActorSystem
	idle chan *replyBox
	mu   sync.Mutex // guards registration ids
	next uint64
}

func newReplyBoxes(sys *actor.ActorSystem) *replyBoxes {
	return &replyBoxes{sys: sys, idle: make(chan *replyBox, maxIdleBoxes)}
}

// get returns an idle box, or a new registered one.
func (p *replyBoxes) get() *replyBox {
	select {
	case b := <-p.idle:
		return b
	default:
	}
	p.mu.Lock()
	p.next++
	id := "reply$" + strconv.FormatUint(p.next, 36)
	p.mu.Unlock()
	b := &replyBox{ch: make(chan any, 1), timer: time.NewTimer(time.Hour)}
	b.timer.Stop()
	b.pid, _ = p.sys.ProcessRegistry.Add(b, id)
	return b
}

// request sends msg to pid with a sender that only this request's reply matches.
func (p *replyBoxes) request(b *replyBox, pid *actor.PID, msg any) {
	sender := &actor.PID{Address: b.pid.Address, Id: b.pid.Id}
	b.want.Store(sender)
	p.sys.Root.RequestWithCustomSender(pid, msg, sender)
}

// wait returns the reply, or false when none came within timeout or ctx ended first.
// A timeout of 0 leaves the bound to ctx's own deadline: a timer of the box set to the
// same instant could fire first, and the caller, told the request timed out, would
// still find ctx not done.
func (p *replyBoxes) wait(ctx context.Context, b *replyBox, timeout time.Duration) (any, bool) {
	if timeout == 0 {
		select {
		case m := <-b.ch:
			return m, true
		case <-ctx.Done():
			return nil, false
		}
	}
	b.timer.Reset(timeout)
	select {
	case m := <-b.ch:
		b.timer.Stop()
		return m, true
	case <-b.timer.C:
		return nil, false
	case <-ctx.Done():
		b.timer.Stop()
		return nil, false
	}
}

// put returns a box that got its reply to the pool.
func (p *replyBoxes) put(b *replyBox) {
	select {
	case p.idle <- b:
	default:
		p.discard(b)
	}
}

// discard unregisters a box for good: it timed out, or the pool is full.
func (p *replyBoxes) discard(b *replyBox) {
	b.want.Store(nil)
	p.sys.ProcessRegistry.Remove(b.pid)
}
