// Package fresh keeps a cluster member's copy of what entities answer about themselves
// (a user's standing, a tenant's), served without asking the entity, which may be
// active on another member, and exact all the same by a clock on the shared store's
// watch (persistence.WatchClock):
//
//   - the copy serves only while the watch is known to have caught up with every write
//     acknowledged up to Window ago;
//   - the watch drops an entity's entry as soon as it hears of a write of one of the
//     keys the answer is made of;
//   - a change that must be seen by every member at once (a logout, a suspension) is
//     answered only Fence after it is durable: a request that comes after that answer,
//     on any member, either finds the clock stale and asks the entity, or finds it
//     recent, which means its watch heard of the change and dropped the entry.
//
// What only adds (a login, a tenant taken out of suspension) needs no fence when the
// cache never holds the refusal it lifts: a member whose copy lacks it asks the entity.
package fresh

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

const (
	// Window is how recent the watch's catch-up must be for a cache to serve. The etcd
	// store catches up every 50 ms (a linearizable read and at most a progress
	// request), so on a healthy member a cache serves all the time.
	Window = 500 * time.Millisecond
	// Fence is how long a change that every member must see at once waits, once
	// durable, before it is answered: the window, and a margin for the members' clocks
	// running at slightly different rates.
	Fence = Window + Window/10
)

// Cache is a member's copy of entities' answers of type V, by entity id. Its zero
// value is not usable; a nil *Cache is off (a single node, where the entities publish
// exact tables of their own): Get finds nothing and the rest does nothing.
type Cache[V any] struct {
	clock persistence.WatchClock
	max   int
	m     sync.Map // id → V

	mu sync.Mutex
	// gen counts the invalidations, so that an answer asked for before one is not kept.
	gen    uint64
	n      int
	resets atomic.Uint64 // the clock's resets last seen
}

// New is the cache of store's entities whose answers are made of the keys under
// prefixes (each "kind", the keys kind/<id>[/...]), holding at most max of them (when
// full it starts again empty); nil when store is not shared or its Watch keeps no time.
func New[V any](store persistence.Store, max int, prefixes ...string) *Cache[V] {
	clock, ok := store.(persistence.WatchClock)
	if !ok || !store.Shared() {
		return nil
	}
	c := &Cache[V]{clock: clock, max: max}
	for _, kind := range prefixes {
		prefix := persistence.Prefix(kind)
		store.Watch(prefix, func(key []byte) {
			id := key[len(prefix):]
			if i := bytes.IndexByte(id, '/'); i >= 0 {
				id = id[:i]
			}
			c.Invalidate(string(id))
		})
	}
	return c
}

// Invalidate drops an entity's entry: one of the keys its answer is made of changed.
func (c *Cache[V]) Invalidate(id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.gen++
	if _, ok := c.m.LoadAndDelete(id); ok {
		c.n--
	}
	c.mu.Unlock()
}

// Get is the entity's answer if the cache may serve it now.
func (c *Cache[V]) Get(id string) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	// The clock first: an entry read after it was dropped by every change the clock
	// says the watch heard of.
	at, resets := c.clock.WatchedThrough()
	if at.IsZero() || time.Since(at) > Window {
		return zero, false
	}
	if resets != c.resets.Load() {
		c.reset(resets)
		return zero, false
	}
	v, ok := c.m.Load(id)
	if !ok {
		return zero, false
	}
	return v.(V), true
}

// reset empties the cache: the watch may have missed changes (persistence.WatchClock).
func (c *Cache[V]) reset(resets uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.m.Clear()
	c.n = 0
	c.resets.Store(resets)
}

// Begin is the generation to pass to Keep, taken before the entity is asked.
func (c *Cache[V]) Begin() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// Keep remembers v, the entity's answer to an ask begun at gen, unless a key of any
// entity changed since then (the answer may predate the change).
func (c *Cache[V]) Keep(id string, v V, gen uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.n >= c.max {
		c.m.Clear()
		c.n = 0
	}
	if _, loaded := c.m.Swap(id, v); !loaded {
		c.n++
	}
}
