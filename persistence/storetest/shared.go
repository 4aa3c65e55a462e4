package storetest

import (
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// Clocked is a store that says it is shared with other members and whose watch keeps
// time (persistence.WatchClock), as a cluster's etcd store is, with the clock set by
// the test: the caches built on such a watch (actors/kit/fresh) are tested on it. Its
// Watch is the wrapped store's (Badger's hears every write before Commit returns).
type Clocked struct {
	persistence.Store
	at atomic.Pointer[time.Time]
	// Resets is the watch's reset count WatchedThrough answers; a test adds to it.
	Resets atomic.Uint64
}

// Shared implements persistence.Store.
func (*Clocked) Shared() bool { return true }

// WatchedThrough implements persistence.WatchClock: the time last Set (zero before),
// and Resets.
func (s *Clocked) WatchedThrough() (time.Time, uint64) {
	var at time.Time
	if p := s.at.Load(); p != nil {
		at = *p
	}
	return at, s.Resets.Load()
}

// Set is the time the watch has caught up through from now on.
func (s *Clocked) Set(at time.Time) { s.at.Store(&at) }

// Shared is a store that says it is shared with other members, whose watch keeps no
// time: what the caches on a cluster must stay off on.
type Shared struct{ persistence.Store }

// Shared implements persistence.Store.
func (Shared) Shared() bool { return true }
