package persistence

import (
	"context"
	"sync/atomic"
)

// CacheGate tells an in-memory cache built on Store.Watch whether it may serve a read.
// On a store that is not shared it always may: Watch names every write before its
// Commit returns. On a shared store (a cluster's etcd) another member's write is named
// only after it was acknowledged, so the gate first catches up with the watch
// (WatchBarrier): then every write acknowledged before the read began has been named,
// and the cache is exact. When the watch has reset since (it skipped writes etcd
// compacted away, whose keys it could not name) the gate empties the cache first. A
// shared store without a barrier, or one that does not answer, serves nothing from the
// cache: the read goes to the store, which answers or fails as it would.
type CacheGate struct {
	barrier WatchBarrier // nil: serve always; see shared
	shared  bool
	clear   func()
	resets  atomic.Uint64
}

// NewCacheGate returns the gate of a cache of store's records; clear empties the cache
// (and must make a page read before it not be kept: listcache's Clear counts as an
// invalidation).
func NewCacheGate(store Store, clear func()) *CacheGate {
	g := &CacheGate{shared: store.Shared(), clear: clear}
	g.barrier, _ = store.(WatchBarrier)
	return g
}

// Open reports whether a read that begins now may be served from the cache (and a page
// it reads from the store kept in it). On a shared store it waits for the watch to
// catch up: one to two round trips to etcd, shared by all the reads waiting at once.
func (g *CacheGate) Open(ctx context.Context) bool {
	if !g.shared {
		return true
	}
	if g.barrier == nil {
		return false
	}
	resets, err := g.barrier.CaughtUp(ctx)
	if err != nil {
		return false
	}
	for {
		seen := g.resets.Load()
		if resets <= seen {
			return true
		}
		g.clear() // before the count moves: a read that finds the new count finds the cache empty
		if g.resets.CompareAndSwap(seen, resets) {
			return true
		}
	}
}
