package auth

import (
	"github.com/vmplane/vmplane/actors/kit/fresh"
	"github.com/vmplane/vmplane/persistence"
)

// On a cluster, Authorize used to ask the user's entity on every request (a message,
// and a hop to another member two times in three): the store's Watch names another
// member's write only some milliseconds after that member acknowledged it, and a
// table kept by it would let a logged-out or disabled user's token through elsewhere
// for that long. standingCache closes that gap with the store's WatchClock: a
// member serves a user's standing from memory only while its watch is known to have
// caught up with every write acknowledged up to fresh.Window ago, and a change that
// ends tokens (a logout, a disable, a password, role or tenant change, a deletion) is
// answered only standingFence after it is durable (userEntity.publish). A request that
// comes after that answer, on any member, either finds the cache stale and asks the
// entity, or finds it fresh, which means its watch heard of the change and dropped the
// user's entry: either way it sees the change. See persistence.WatchClock and
// actors/kit/fresh, which keeps such copies.

const (
	// standingFence is how long a change that ends tokens waits, once durable, before
	// it is answered.
	standingFence = fresh.Fence
	// maxStanding bounds the cache; when full it starts again empty.
	maxStanding = 1 << 16
)

// standingCache is a member's copy of its users' standing (the entities' getAuth
// answers) on a shared store whose Watch has a clock; off (nil) otherwise.
type standingCache = fresh.Cache[*authState]

// newStandingCache is the cache of store's users' standing, watching the keys a
// standing is made of (the user's record and its logins); nil when store is not
// shared or its Watch has no clock.
func newStandingCache(store persistence.Store) *standingCache {
	return fresh.New[*authState](store, maxStanding, "user", "refresh")
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
