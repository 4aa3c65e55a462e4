package httpedge

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// A request's context is bounded by requestTimeout. context.WithTimeout would start a
// runtime timer for every request and stop it at the end: in the profile of an
// authenticated GET that was a fifth of the edge's own time (BENCHMARKS.md, issue 33),
// for a timer that almost never fires, since most requests wait on nothing (the
// limiter's lease, the verified token, the users' standing and the first-page caches
// answer from memory). A reqCtx keeps its deadline as a field: Deadline and Err need no
// timer, and a Done channel is made only when something waits on it (an ask of an
// actor, a store read that selects on it), and only then is the context put on the
// edge's one deadline timer (deadlines), which closes it when due. The request's end
// cancels it, as WithTimeout's cancel did.

// closedDone is the Done of a context that ended before anyone asked for its channel.
var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// reqCtx is a request's context: no values, no parent, a deadline, cancelled by its
// request's end. Its methods are safe for concurrent use, as a context's must be.
type reqCtx struct {
	deadline time.Time
	dl       *deadlines

	mu   sync.Mutex
	done chan struct{} // nil until Done is called
	err  error         // non-nil once ended
	// afters are the functions to run when it ends (AfterFunc), by registration number.
	afters map[uint64]func()
	nextID uint64
	// waiting: it is on dl's timer (it has a Done or an AfterFunc and has not ended).
	waiting bool
	// caught is the request's catch-up with a cluster's watch, so that the caches it
	// checks (an API key's record, a list's first page) wait for one etcd round, not
	// one each (persistence.CatchUp).
	caught persistence.CatchUp
	// audit is the entry of the request's change, once its checks passed (kit.AuditKey):
	// a field, not a context.WithValue on every audited request.
	audit atomic.Pointer[kit.AuditEntry]
}

// Deadline implements context.Context.
func (c *reqCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// Value implements context.Context: a request's context carries two values itself, its
// persistence.CatchUp and its audit entry (context.WithValue on top of it adds others).
func (c *reqCtx) Value(key any) any {
	switch key {
	case persistence.CatchUpKey:
		return &c.caught
	case kit.AuditKey{}:
		if e := c.audit.Load(); e != nil {
			return e
		}
	}
	return nil
}

// Done implements context.Context. The first call makes the channel and puts the
// context on the deadline timer.
func (c *reqCtx) Done() <-chan struct{} {
	c.mu.Lock()
	if c.done != nil {
		d := c.done
		c.mu.Unlock()
		return d
	}
	if c.err != nil {
		c.mu.Unlock()
		return closedDone
	}
	c.done = make(chan struct{})
	d := c.done
	c.mu.Unlock()
	c.watch()
	return d
}

// Err implements context.Context. A deadline that has passed ends the context here if
// the timer has not yet done it, so that Err and Done always agree.
func (c *reqCtx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err == nil && !time.Now().Before(c.deadline) {
		c.end(context.DeadlineExceeded)
		c.mu.Lock()
		err = c.err
		c.mu.Unlock()
	}
	return err
}

// AfterFunc runs f in its own goroutine once the context ends, as context.AfterFunc
// does; stop unregisters f, reporting whether that kept it from running. The context
// package finds it (its afterFuncer) when a context is derived from a reqCtx, so that
// a derived context (context.WithTimeout of a narrower ask) costs no goroutine.
func (c *reqCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	if c.afters == nil {
		c.afters = map[uint64]func(){}
	}
	c.nextID++
	id := c.nextID
	c.afters[id] = f
	c.mu.Unlock()
	c.watch()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, ok := c.afters[id]; !ok {
			return false
		}
		delete(c.afters, id)
		return true
	}
}

// watch puts the context on its deadline timer, once.
func (c *reqCtx) watch() {
	c.mu.Lock()
	if c.waiting || c.err != nil {
		c.mu.Unlock()
		return
	}
	c.waiting = true
	c.mu.Unlock()
	c.dl.add(c)
}

// cancel ends the context (the request is over); a no-op once ended.
func (c *reqCtx) cancel() { c.end(context.Canceled) }

// end ends the context with err, first come first served: closes Done, takes it off
// the timer and runs the AfterFuncs.
func (c *reqCtx) end(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	afters := c.afters
	c.afters = nil
	waiting := c.waiting
	c.waiting = false
	c.mu.Unlock()
	if waiting {
		c.dl.remove(c)
	}
	for _, f := range afters {
		go f()
	}
}

// String names the context as the context package's do (fmt, logs).
func (c *reqCtx) String() string { return "httpedge.requestContext" }

// deadlines are the request contexts that something waits on, and one timer, set for
// the earliest of their deadlines, that ends those due. It runs only while one is
// waited on: an idle server has no timer, and a request that waits on nothing costs
// it nothing.
type deadlines struct {
	mu      sync.Mutex
	waiting map[*reqCtx]struct{}
	timer   *time.Timer
	// at is when timer fires; zero when it is not set.
	at time.Time
}

// add puts c on the timer.
func (d *deadlines) add(c *reqCtx) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.waiting == nil {
		d.waiting = map[*reqCtx]struct{}{}
	}
	d.waiting[c] = struct{}{}
	if d.at.IsZero() || c.deadline.Before(d.at) {
		d.arm(c.deadline)
	}
}

// remove takes c off the timer (it ended). The timer stays set: when it fires for a
// context no longer there it sets itself for the next, or stops.
func (d *deadlines) remove(c *reqCtx) {
	d.mu.Lock()
	delete(d.waiting, c)
	if len(d.waiting) == 0 && !d.at.IsZero() {
		d.timer.Stop()
		d.at = time.Time{}
	}
	d.mu.Unlock()
}

// arm sets the timer to fire at t. Called with mu held.
func (d *deadlines) arm(t time.Time) {
	d.at = t
	wait := time.Until(t)
	if d.timer == nil {
		d.timer = time.AfterFunc(wait, d.fire)
		return
	}
	d.timer.Reset(wait)
}

// fire ends the contexts that are due and sets the timer for the next.
func (d *deadlines) fire() {
	now := time.Now()
	var due []*reqCtx
	d.mu.Lock()
	var next time.Time
	for c := range d.waiting {
		if !now.Before(c.deadline) {
			due = append(due, c)
			delete(d.waiting, c)
			continue
		}
		if next.IsZero() || c.deadline.Before(next) {
			next = c.deadline
		}
	}
	d.at = time.Time{}
	if !next.IsZero() {
		d.arm(next)
	}
	d.mu.Unlock()
	for _, c := range due {
		c.end(context.DeadlineExceeded)
	}
}
