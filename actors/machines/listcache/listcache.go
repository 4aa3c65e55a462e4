// Package listcache keeps the first pages of lists that are read far more often than
// they change (a tenant's machines, the client area's most frequent read), decoded,
// and in the form the edge last answered with (Page.Encoded), so that a repeated list
// reads neither the store nor JSON.
//
// It is exact, not eventually fresh: its owner tells it (Invalidate), before a write is
// acknowledged, of every write that may change a list (machines does so from the
// store's Watch), and it drops the pages the write touches. A page built from reads
// that raced with a write is not kept (see Put). It knows nothing of the store or its
// keys: the package that owns the records wires it.
package listcache

import (
	"sync"
	"sync/atomic"
)

// Page is one page of a list. Pages are shared between callers: neither the page nor
// its items may be modified.
type Page[T any] struct {
	Items []T
	// Next is the cursor of the next page, empty on the last one.
	Next    string
	encoded atomic.Pointer[[]byte]
}

// Encoded returns enc(p), computing it once per page; a failed encoding is not kept.
func (p *Page[T]) Encoded(enc func(*Page[T]) ([]byte, error)) ([]byte, error) {
	if b := p.encoded.Load(); b != nil {
		return *b, nil
	}
	b, err := enc(p)
	if err != nil {
		return nil, err
	}
	p.encoded.Store(&b)
	return b, nil
}

// cost is what a page counts against the cache's bound: its items, and at least one,
// so that empty pages (of owners with nothing, or of ids that are no owner) are
// bounded too.
func (p *Page[T]) cost() int { return max(len(p.Items), 1) }

// Cache holds the first pages of recently listed owners' lists (a tenant's machines),
// by owner and limit, up to a bound on the items of all its pages.
type Cache[T any] struct {
	// id names an item, so that a write to it (whose key may not name the owner)
	// drops the right pages.
	id    func(*T) string
	bound int
	mu    sync.Mutex
	// seq counts invalidations. A page is kept only if none happened while it was read.
	seq uint64
	// pages holds each cached owner's first pages by limit.
	pages map[string]map[int]*Page[T]
	// owner maps each item on a cached page to that page's owner.
	owner map[string]string
	items int // the pages' cost, summed
}

// New returns a cache of at most bound items over all its pages; id names an item.
func New[T any](bound int, id func(*T) string) *Cache[T] {
	return &Cache[T]{id: id, bound: bound, pages: map[string]map[int]*Page[T]{}, owner: map[string]string{}}
}

// Get returns the cached first page of owner's list with this limit, or nil.
func (c *Cache[T]) Get(owner string, limit int) *Page[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages[owner][limit]
}

// Now is the invalidation count to pass to Put for a page about to be read.
func (c *Cache[T]) Now() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

// Put keeps a page read after Now returned seq, unless something was invalidated
// since: the page may then hold a record older than an acknowledged write.
func (c *Cache[T]) Put(owner string, limit int, p *Page[T], seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seq != seq || p.cost() > c.bound {
		return
	}
	for c.items+p.cost() > c.bound {
		for o := range c.pages { // an arbitrary owner: map order is unspecified
			c.drop(o)
			break
		}
	}
	byLimit := c.pages[owner]
	if byLimit == nil {
		byLimit = map[int]*Page[T]{}
		c.pages[owner] = byLimit
	}
	if old := byLimit[limit]; old != nil {
		c.items -= old.cost()
	}
	byLimit[limit] = p
	c.items += p.cost()
	for i := range p.Items {
		c.owner[c.id(&p.Items[i])] = owner
	}
}

// Invalidate drops the pages of owner, or, when owner is empty, of the owner whose
// page holds item.
func (c *Cache[T]) Invalidate(owner, item string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	if owner == "" {
		owner = c.owner[item]
	}
	if owner != "" {
		c.drop(owner)
	}
}

// Clear drops every page, as if everything had been invalidated: for a store whose
// watch may have missed writes (persistence.WatchClock's resets).
func (c *Cache[T]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.pages = map[string]map[int]*Page[T]{}
	c.owner = map[string]string{}
	c.items = 0
}

// drop forgets owner's pages; c.mu is held.
func (c *Cache[T]) drop(owner string) {
	for _, p := range c.pages[owner] {
		c.items -= p.cost()
		for i := range p.Items {
			if id := c.id(&p.Items[i]); c.owner[id] == owner {
				delete(c.owner, id)
			}
		}
	}
	delete(c.pages, owner)
}
