package machines

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"

	"github.com/vmplane/vmplane/persistence"
)

// A tenant's machine list is the client area's most frequent read, and building it
// means reading and decoding every machine record on the page. The machine list cache
// keeps the first pages of recently listed tenants, decoded, and (through
// MachinePage.Encoded) in the form the edge last answered with, so a repeated list
// reads neither the store nor JSON.
//
// It is exact, not eventually fresh: the store tells it, before acknowledging, of every
// write to a machine record or a tenant's machine index (persistence.Store.Watch), and
// it drops the pages those writes touch. A page built from reads that raced with a
// write is not kept (see put).

// maxCachedMachines bounds the machines held by the cache, over all its pages: about
// 2 KB each, decoded and encoded. A page counts at least one, so empty pages (of
// tenants with no machines, or of ids that are no tenant) are bounded too.
const maxCachedMachines = 20000

// cost is what a page counts against maxCachedMachines.
func (p *MachinePage) cost() int { return max(len(p.Items), 1) }

// MachinePage is one page of a tenant's machine list. Pages are shared between
// callers: neither the page nor its items may be modified.
type MachinePage struct {
	Items []Machine
	// Next is the cursor of the next page, empty on the last one.
	Next    string
	encoded atomic.Pointer[[]byte]
}

// Encoded returns enc(p), computing it once per page; a failed encoding is not kept.
func (p *MachinePage) Encoded(enc func(*MachinePage) ([]byte, error)) ([]byte, error) {
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

type machineLists struct {
	mu sync.Mutex
	// seq counts invalidations. A page is kept only if none happened while it was read.
	seq uint64
	// pages holds each cached tenant's first pages by limit.
	pages map[string]map[int]*MachinePage
	// owner maps each machine on a cached page to that page's tenant, so a write to
	// vm/<id>, whose key does not name the tenant, drops the right pages.
	owner map[string]string
	items int // the pages' cost, summed
}

func newMachineLists(store persistence.Store) *machineLists {
	l := &machineLists{pages: map[string]map[int]*MachinePage{}, owner: map[string]string{}}
	machinePrefix := persistence.Prefix("vm")
	store.Watch(machinePrefix, func(key []byte) {
		l.invalidate("", string(key[len(machinePrefix):]))
	})
	indexPrefix := persistence.Prefix("vm-tenant")
	store.Watch(indexPrefix, func(key []byte) {
		tenant, _, _ := bytes.Cut(key[len(indexPrefix):], []byte{'/'})
		l.invalidate(string(tenant), "")
	})
	return l
}

// get returns the cached first page of tenant's list with this limit, or nil.
func (l *machineLists) get(tenant string, limit int) *MachinePage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pages[tenant][limit]
}

// now is the invalidation count to pass to put for a page about to be read.
func (l *machineLists) now() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// put keeps a page read after now() returned seq, unless something was invalidated
// since: the page may then hold a record older than an acknowledged write.
func (l *machineLists) put(tenant string, limit int, p *MachinePage, seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seq != seq || p.cost() > maxCachedMachines {
		return
	}
	for l.items+p.cost() > maxCachedMachines {
		for t := range l.pages { // an arbitrary tenant: map order is unspecified
			l.drop(t)
			break
		}
	}
	byLimit := l.pages[tenant]
	if byLimit == nil {
		byLimit = map[int]*MachinePage{}
		l.pages[tenant] = byLimit
	}
	if old := byLimit[limit]; old != nil {
		l.items -= old.cost()
	}
	byLimit[limit] = p
	l.items += p.cost()
	for i := range p.Items {
		l.owner[p.Items[i].ID] = tenant
	}
}

// invalidate drops the pages of tenant, or of the tenant whose page holds machine.
func (l *machineLists) invalidate(tenant, machine string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	if tenant == "" {
		tenant = l.owner[machine]
	}
	if tenant != "" {
		l.drop(tenant)
	}
}

// drop forgets tenant's pages; l.mu is held.
func (l *machineLists) drop(tenant string) {
	for _, p := range l.pages[tenant] {
		l.items -= p.cost()
		for i := range p.Items {
			if l.owner[p.Items[i].ID] == tenant {
				delete(l.owner, p.Items[i].ID)
			}
		}
	}
	delete(l.pages, tenant)
}

// TenantPage returns one page of a tenant's machines, in id order: first pages from
// the cache when they are there. The page is shared: see MachinePage.
func (m *Machines) TenantPage(ctx context.Context, tenant, cursor string, limit int) (*MachinePage, error) {
	// A store shared with other members names their writes only after they were
	// acknowledged: a cached page could miss one, so a cluster member reads the store.
	cache := cursor == "" && !m.sys.store.Shared()
	if cache {
		if p := m.lists.get(tenant, limit); p != nil {
			return p, nil
		}
	}
	seq := m.lists.now()
	items, next, err := m.listTenant(ctx, tenant, cursor, limit)
	if err != nil {
		return nil, err
	}
	p := &MachinePage{Items: items, Next: next}
	if cache {
		m.lists.put(tenant, limit, p, seq)
	}
	return p, nil
}
