package auth

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// On a cluster, Authorize used to ask the user's entity on every request (a message,
// and a hop to another member two times in three): the store's Watch names another
// member's write only some milliseconds after that member acknowledged it, and a
// table kept by it would let a logged-out or disabled user's token through elsewhere
// for that long. standingCache closes that gap with the store's WatchClock: a
// member serves a user's standing from memory only while its watch is known to have
// caught up with every write acknowledged up to standingWindow ago, and a change that
// ends tokens (a logout, a disable, a password, role or tenant change, a deletion) is
// answered only standingFence after it is durable (userEntity.publish). A request that
// comes after that answer, on any member, either finds the cache stale and asks the
// entity, or finds it fresh, which means its watch heard of the change and dropped the
// user's entry: either way it sees the change. See persistence.WatchClock.

const (
	// standingWindow is how recent the watch's catch-up must be for the cache to serve.
	// The etcd store catches up every 50 ms (a linearizable read and at most a
	// progress request), so on a healthy member the cache serves all the time.
	standingWindow = 500 * time.Millisecond
	// standingFence is how long a change that ends tokens waits, once durable, before
	// it is answered: the window, and a margin for the members' clocks running at
	// slightly different rates.
	standingFence = standingWindow + standingWindow/10
	// maxStanding bounds the cache; when full it starts again empty.
	maxStanding = 1 << 16
)

// standingCache is a member's copy of its users' standing (the entities' getAuth
// answers) on a shared store whose Watch has a clock; off (nil clock) otherwise.
type standingCache struct {
	clock persistence.WatchClock
	m     sync.Map // user id → *authState

	mu sync.Mutex
	// gen counts the invalidations, so that an answer asked for before one is not kept.
	gen    uint64
	n      int
	resets atomic.Uint64 // the clock's resets last seen
}

// newStandingCache is the cache of store's users' standing, watching the keys a
// standing is made of; nil when store is not shared or its Watch has no clock.
func newStandingCache(store persistence.Store) *standingCache {
	clock, ok := store.(persistence.WatchClock)
	if !ok || !store.Shared() {
		return nil
	}
	c := &standingCache{clock: clock}
	for _, kind := range []string{"user", "refresh"} {
		prefix := persistence.Prefix(kind)
		store.Watch(prefix, func(key []byte) {
			id := key[len(prefix):]
			if i := bytes.IndexByte(id, '/'); i >= 0 {
				id = id[:i]
			}
			c.invalidate(string(id))
		})
	}
	return c
}

// invalidate drops a user's entry: one of the keys its standing is made of changed.
func (c *standingCache) invalidate(id string) {
	c.mu.Lock()
	c.gen++
	if _, ok := c.m.LoadAndDelete(id); ok {
		c.n--
	}
	c.mu.Unlock()
}

// get is the user's standing if the cache may serve it now.
func (c *standingCache) get(id string) (*authState, bool) {
	// The clock first: an entry read after it was dropped by every change the clock
	// says the watch heard of.
	at, resets := c.clock.WatchedThrough()
	if at.IsZero() || time.Since(at) > standingWindow {
		return nil, false
	}
	if resets != c.resets.Load() {
		c.reset(resets)
		return nil, false
	}
	v, ok := c.m.Load(id)
	if !ok {
		return nil, false
	}
	return v.(*authState), true
}

// reset empties the cache: the watch may have missed changes (persistence.WatchClock).
func (c *standingCache) reset(resets uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.m.Clear()
	c.n = 0
	c.resets.Store(resets)
}

// begin is the generation to pass to keep, taken before the entity is asked.
func (c *standingCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// keep remembers st, the entity's answer to an ask begun at gen, unless a key of any
// user changed since then (the answer may predate the change).
func (c *standingCache) keep(id string, st *authState, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.n >= maxStanding {
		c.m.Clear()
		c.n = 0
	}
	if _, loaded := c.m.Swap(id, st); !loaded {
		c.n++
	}
}

// ends reports whether next ends a token that prev let through: the user deleted or
// disabled, its generation changed, a login ended, or one restricted to enrolling a
// second factor. A change that only adds (a new login) ends none, and a member whose
// cache lacks it asks the entity.
func ends(prev, next *authState) bool {
	if prev == nil || prev.Gone {
		return false
	}
	if next.Gone || (next.Disabled && !prev.Disabled) || next.Gen != prev.Gen {
		return true
	}
	for id := range prev.Sessions {
		if _, ok := next.Sessions[id]; !ok {
			return true
		}
	}
	for id := range next.Restricted {
		if _, ok := prev.Restricted[id]; !ok {
			return true
		}
	}
	return false
}
