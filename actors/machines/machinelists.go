package machines

import (
	"bytes"
	"context"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/listcache"
	"github.com/vmplane/vmplane/actors/machines/nodestate"
	"github.com/vmplane/vmplane/actors/machines/obsdigest"
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
	// acknowledged: on a cluster member the gate first catches up with the watch, so
	// that a write acknowledged on another member before this read has dropped its
	// page here.
	cache := cursor == "" && m.listsGate.Open(ctx)
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

// The operator's machine list filtered by node or state reads the node/state index
// (nodestate) while it is trusted: a page then costs the matching machines' reads, not
// a scan of the fleet until the page is full, which for a rare state is the fleet.

// keeping is Deps.Maintained of one feature: nil on a single node.
func (s *system) keeping(feature string) func() (bool, uint64) {
	if s.maintained == nil {
		return nil
	}
	return func() (bool, uint64) { return s.maintained(feature) }
}

// nodeStateOf is the node/state index entry of r (nil: no record).
func nodeStateOf(r *record) *nodestate.Entry {
	if r == nil {
		return nil
	}
	e := nodestate.Entry{Status: r.Status}
	if r.Node != "" {
		e.Node = capacity.NodeID(string(r.Location), r.Node)
	}
	return &e
}

// putNodeState keeps the node/state index in step with a record's node and state.
func putNodeState(b *persistence.Batch, prev, next *record) {
	id := ""
	if next != nil {
		id = next.ID
	} else if prev != nil {
		id = prev.ID
	}
	nodestate.Put(b, id, nodeStateOf(prev), nodeStateOf(next))
	obsdigest.Put(b, id, observedDigest(prev), observedDigest(next))
}

// observedDigest is the digest (obsdigest) of what the sync compares of r: the fields
// applyObserved reads and writes; nil: no record.
func observedDigest(r *record) []byte {
	switch {
	case r == nil:
		return nil
	case r.TaskID != nil:
		return []byte(obsdigest.TaskOwned)
	}
	m := &r.Machine
	return obsdigest.Sum([]any{m.VMID, m.Name, m.Node, m.Status, m.CPUCores, m.MemoryMB, m.TemplateID,
		m.Disks, m.DiskGB, m.Interfaces, m.Media, m.BootOrder, m.Display})
}

// nodeStateRecords is how the node/state index's build reads the machine records.
func nodeStateRecords(s persistence.Store) nodestate.Records {
	return nodestate.Records{
		IDs: recordIDs(s),
		Get: func(ctx context.Context, id string) (nodestate.Entry, []byte, error) {
			rec, raw, err := readRecord(ctx, s, id)
			if err != nil {
				return nodestate.Entry{}, nil, err
			}
			return *nodeStateOf(rec), raw, nil
		},
		Key: machineKey,
	}
}

// digestRecords is how the digests' build reads the machine records.
func digestRecords(s persistence.Store) obsdigest.Records {
	return obsdigest.Records{
		IDs: recordIDs(s),
		Get: func(ctx context.Context, id string) ([]byte, []byte, error) {
			rec, raw, err := readRecord(ctx, s, id)
			if err != nil {
				return nil, nil, err
			}
			return observedDigest(rec), raw, nil
		},
		Key: machineKey,
	}
}

// recordIDs calls fn with every machine's id, in id order.
func recordIDs(s persistence.Store) func(ctx context.Context, fn func(id string) error) error {
	return func(ctx context.Context, fn func(id string) error) error {
		prefix := persistence.Prefix("vm")
		return s.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error { return fn(string(k[len(prefix):])) })
	}
}

// readRecord reads and decodes a machine's record, with its stored value.
func readRecord(ctx context.Context, s persistence.Store, id string) (*record, []byte, error) {
	raw, err := s.Get(ctx, machineKey(id))
	if err != nil {
		return nil, nil, err
	}
	var rec record
	if _, err := persistence.Decode(raw, &rec); err != nil {
		return nil, nil, err
	}
	return &rec, raw, nil
}

// Where is a filter of the machine list: each field set must match (Node is a node
// id, capacity.NodeID).
type Where struct {
	Tenant             *string
	Name, Status, Node string
}

// Match reports whether m passes w.
func (w Where) Match(m *Machine) bool {
	return (w.Tenant == nil || (m.TenantID != nil && *m.TenantID == *w.Tenant)) &&
		(w.Name == "" || m.Name == w.Name) && (w.Status == "" || m.Status == w.Status) &&
		(w.Node == "" || capacity.NodeID(string(m.Location), m.Node) == w.Node)
}

// ListWhere returns the machines that pass w in creation order, after the cursor (a
// machine id): through the tenant's index when w names a tenant, through the
// node/state index when it names a state or a node and that index is trusted, else by
// a scan of every record.
func (m *Machines) ListWhere(ctx context.Context, cursor string, limit int, w Where) ([]Machine, string, error) {
	var prefix []byte
	if w.Tenant != nil {
		prefix = persistence.Prefix("vm-tenant", *w.Tenant)
	} else if w.Status != "" || w.Node != "" {
		trusted, err := m.nodeState.Trusted(ctx)
		if err != nil {
			return nil, "", err
		}
		switch {
		case !trusted:
		case w.Status != "":
			prefix = nodestate.StatePrefix(w.Status)
		default:
			prefix = nodestate.NodePrefix(w.Node)
		}
	}
	if prefix == nil {
		return m.List(ctx, cursor, limit, w.Match)
	}
	return kit.ScanIndexMany(ctx, m.sys.store, prefix, cursor, limit, machineKey, func(_ string, val []byte) (Machine, bool, error) {
		var rec record
		if _, err := persistence.Decode(val, &rec); err != nil {
			return Machine{}, false, err
		}
		return rec.Machine, w.Match(&rec.Machine), nil
	})
}
