package machines

import (
	"bytes"
	"context"

	"github.com/vmplane/vmplane/actors/machines/listcache"
	"github.com/vmplane/vmplane/persistence"
)

// A tenant's machine list is the client area's most frequent read, and building it
// means reading and decoding every machine record on the page: the machine list cache
// (listcache) keeps the first pages of recently listed tenants. The store tells it,
// before acknowledging, of every write to a machine record or a tenant's machine index
// (persistence.Store.Watch), and it drops the pages those writes touch.

// maxCachedMachines bounds the machines held by the cache, over all its pages: about
// 2 KB each, decoded and encoded.
const maxCachedMachines = 20000

// MachinePage is one page of a tenant's machine list. Pages are shared between
// callers: neither the page nor its items may be modified.
type MachinePage = listcache.Page[Machine]

// newMachineLists returns the cache of tenants' first list pages, told of every write
// of a machine record (whose key does not name the tenant: the cache knows which
// tenant's page holds the machine) or a tenant index key.
func newMachineLists(store persistence.Store) *listcache.Cache[Machine] {
	l := listcache.New(maxCachedMachines, func(m *Machine) string { return m.ID })
	machinePrefix := persistence.Prefix("vm")
	store.Watch(machinePrefix, func(key []byte) {
		l.Invalidate("", string(key[len(machinePrefix):]))
	})
	indexPrefix := persistence.Prefix("vm-tenant")
	store.Watch(indexPrefix, func(key []byte) {
		tenant, _, _ := bytes.Cut(key[len(indexPrefix):], []byte{'/'})
		l.Invalidate(string(tenant), "")
	})
	return l
}

// TenantPage returns one page of a tenant's machines, in id order: first pages from
// the cache when they are there. The page is shared: see MachinePage.
func (m *Machines) TenantPage(ctx context.Context, tenant, cursor string, limit int) (*MachinePage, error) {
	// A store shared with other members names their writes only after they were
	// acknowledged: a cached page could miss one, so a cluster member reads the store.
	cache := cursor == "" && !m.sys.store.Shared()
	if cache {
		if p := m.lists.Get(tenant, limit); p != nil {
			return p, nil
		}
	}
	seq := m.lists.Now()
	items, next, err := m.listTenant(ctx, tenant, cursor, limit)
	if err != nil {
		return nil, err
	}
	p := &MachinePage{Items: items, Next: next}
	if cache {
		m.lists.Put(tenant, limit, p, seq)
	}
	return p, nil
}
