package kit

import (
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// EntityTimers keeps at most one timer per entity of a kind, outside every mailbox.
// A timer that fires calls back with the generation it was armed with; Take tells the
// live tick from a stale one (its timer was replaced or disarmed meanwhile), so a
// message already on its way cannot act twice.
type EntityTimers struct {
	// Clock runs the timers (the real clock when nil); services set it to their
	// Runtime's.
	Clock Clock

	mu     sync.Mutex
	closed bool
	seq    uint64
	armed  map[string]entityTimer
}

type entityTimer struct {
	gen   uint64
	timer clockwork.Timer
}

// Arm sets id's timer to call fire after d, replacing any other; after stop it does
// nothing.
func (t *EntityTimers) Arm(id string, d time.Duration, fire func(gen uint64)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	if old, ok := t.armed[id]; ok {
		old.timer.Stop()
	}
	if t.armed == nil {
		t.armed = map[string]entityTimer{}
	}
	if t.Clock == nil {
		t.Clock = RealClock()
	}
	t.seq++
	gen := t.seq
	t.armed[id] = entityTimer{gen: gen, timer: t.Clock.AfterFunc(d, func() { fire(gen) })}
}

// Disarm stops id's timer.
func (t *EntityTimers) Disarm(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.armed[id]; ok {
		old.timer.Stop()
		delete(t.armed, id)
	}
}

// Take consumes id's timer if gen is its live generation.
func (t *EntityTimers) Take(id string, gen uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.armed[id]
	if t.closed || !ok || a.gen != gen {
		return false
	}
	delete(t.armed, id)
	return true
}

// Stop disarms every timer for good.
func (t *EntityTimers) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	for id, a := range t.armed {
		a.timer.Stop()
		delete(t.armed, id)
	}
}
