package kit

import (
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// workers is the dispatcher every actor's mailbox runs on: goroutines kept for reuse.
//
// protoactor's default dispatcher starts a new goroutine for every run of a mailbox (each
// time a mailbox goes from empty to non-empty). A new goroutine starts with a small stack,
// and an entity's handler (validation, JSON encoding, the store) grows it two or three
// times before it returns: under the durable-write benchmark, copying stacks
// (runtime.newstack and copystack) took 5.6 % of the server's CPU. A worker that ran one
// mailbox keeps its grown stack for the next, as fasthttp's worker pool does for
// connections (until a garbage collection finds it idle and shrinks it; busy workers,
// taken last-in first-out, mostly keep theirs).
//
// A mailbox run may block (in a synchronous store commit, for one), so a run never
// waits for a worker: when none is idle, Schedule starts a new one. Idle workers are
// kept last-in first-out, so the ones that just ran, with warm stacks and caches, run
// next, and at most maxIdle are kept; the others exit.
type workers struct {
	throughput int
	maxIdle    int

	mu     sync.Mutex
	idle   []chan func()
	closed bool

	running atomic.Int64 // worker goroutines alive, busy or idle
}

var _ actor.Dispatcher = (*workers)(nil)

// mailboxThroughput is how many messages a mailbox handles in one run before it lets
// other goroutines run: protoactor's default.
const mailboxThroughput = 300

// maxIdleWorkers bounds the idle workers kept. A burst (the initial sync spawns an
// actor for every machine) can need thousands at once; they need not all stay.
const maxIdleWorkers = 256

func newWorkers(throughput, maxIdle int) *workers {
	return &workers{throughput: throughput, maxIdle: maxIdle}
}

// Schedule implements actor.Dispatcher: fn runs on an idle worker, or on a new one.
func (d *workers) Schedule(fn func()) {
	d.mu.Lock()
	if n := len(d.idle); n > 0 {
		w := d.idle[n-1]
		d.idle[n-1] = nil
		d.idle = d.idle[:n-1]
		d.mu.Unlock()
		w <- fn // buffered: never blocks
		return
	}
	d.mu.Unlock()
	d.running.Add(1)
	go d.work(fn)
}

// Throughput implements actor.Dispatcher.
func (d *workers) Throughput() int { return d.throughput }

// work runs fn and then waits for more, until there are enough idle workers or the
// dispatcher is closed.
func (d *workers) work(fn func()) {
	defer d.running.Add(-1)
	var next chan func()
	for {
		fn()
		if next == nil {
			next = make(chan func(), 1)
		}
		d.mu.Lock()
		if d.closed || len(d.idle) >= d.maxIdle {
			d.mu.Unlock()
			return
		}
		d.idle = append(d.idle, next)
		d.mu.Unlock()
		if fn = <-next; fn == nil {
			return // close
		}
	}
}

// close ends the idle workers; later runs get a goroutine of their own that ends with
// the run. Workers busy in a run end when it returns.
func (d *workers) close() {
	d.mu.Lock()
	idle := d.idle
	d.idle, d.closed = nil, true
	d.mu.Unlock()
	for _, w := range idle {
		w <- nil
	}
}
