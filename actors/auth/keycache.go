package auth

import (
	"context"
	"sync"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// keyCache holds the API key records a request authenticated with, by key id, so that
// a key's next requests skip the store read and decode of its record (most of the cost
// of a read made with an API key: BENCHMARKS.md, issue 33). It is exact: the store's
// Watch drops a record in the write that changes or deletes it (a revocation, an
// expiry set, a delete), before that write is acknowledged, and a record read across
// such a write is not kept. The key's user is still read on every request, and the
// expiry and allowed addresses checked, so nothing else changes. On a shared store (a
// cluster) another member's write is heard only a moment after its acknowledgement:
// there the gate first catches up with the watch (persistence.CacheGate), so that a
// key revoked on another member before the request began is refused.
type keyCache struct {
	mu sync.Mutex
	// gate says whether the cache may serve a request (nil without a store).
	gate *persistence.CacheGate
	// gen counts the invalidations, so that a record read before one is not kept.
	gen uint64
	m   map[string]*keyRecord
}

// maxCachedKeys bounds the cache; when full it starts again empty.
const maxCachedKeys = 4096

// newKeyCache is the cache of sys's API key records, watching their prefix.
func newKeyCache(sys *system) *keyCache {
	c := &keyCache{m: map[string]*keyRecord{}}
	if sys.store == nil {
		return c
	}
	c.gate = persistence.NewCacheGate(sys.store, func() {
		c.mu.Lock()
		c.gen++
		clear(c.m)
		c.mu.Unlock()
	})
	prefix := keyKey("")
	sys.store.Watch(prefix, func(key []byte) {
		id := string(key[len(prefix):])
		c.mu.Lock()
		c.gen++
		delete(c.m, id)
		c.mu.Unlock()
	})
	return c
}

// load is the record of key id, from the cache or else the store (nil when there is
// none); records read from the store are kept unless a key was written meanwhile.
// Callers must not modify what it returns.
func (c *keyCache) load(ctx context.Context, sys *system, id string) (*keyRecord, error) {
	if c.gate == nil || !c.gate.Open(ctx) {
		return kit.LoadOptional[keyRecord](ctx, sys.store, keyKey(id))
	}
	c.mu.Lock()
	rec, ok := c.m[id]
	gen := c.gen
	c.mu.Unlock()
	if ok {
		return rec, nil
	}
	rec, err := kit.LoadOptional[keyRecord](ctx, sys.store, keyKey(id))
	if err != nil || rec == nil {
		return rec, err
	}
	c.mu.Lock()
	if c.gen == gen {
		if len(c.m) >= maxCachedKeys {
			clear(c.m)
		}
		c.m[id] = rec
	}
	c.mu.Unlock()
	return rec, nil
}
