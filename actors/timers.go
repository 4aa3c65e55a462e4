package actors

import (
	"sync"
	"time"
)

// entityTimers keeps at most one timer per entity of a kind, outside every mailbox.
// A timer that fires calls back with the generation it was armed with; take tells the
// live tick from a stale one (its timer was replaced or disarmed meanwhile), so a
// message already on its way cannot act twice.
type entityTimers struct {
	mu     sync.Mutex
	closed bool
	seq    uint64
	armed  map[string]entityTimer
}

type entityTimer struct {
	gen   uint64
	timer *time.Timer
}

// arm sets id's timer to call fire after d, replacing any other; after stop it does
// nothing.
func (t *entityTimers) arm(id string, d time.Duration, fire func(gen uint64)) {
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
	t.seq++
	gen := t.seq
	t.armed[id] = entityTimer{gen: gen, timer: time.AfterFunc(d, func() { fire(gen) })}
}

// disarm stops id's timer.
func (t *entityTimers) disarm(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.armed[id]; ok {
		old.timer.Stop()
		delete(t.armed, id)
	}
}

// take consumes id's timer if gen is its live generation.
func (t *entityTimers) take(id string, gen uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.armed[id]
	if t.closed || !ok || a.gen != gen {
		return false
	}
	delete(t.armed, id)
	return true
}

// stop disarms every timer for good.
func (t *entityTimers) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	for id, a := range t.armed {
		a.timer.Stop()
		delete(t.armed, id)
	}
}
