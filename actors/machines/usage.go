package machines

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// A tenant's usage counter, vm-usage/<tenant>, is the sum of what its machines hold,
// kept in the same batch as every write that changes it (a create, a size change, a
// delete, a move between tenants), so that a quota check is one read instead of a scan
// of the tenant's machines. Each such write requires the counter to still hold what it
// read (or to be absent), so writes of one tenant's machines made at once on several
// members all land: the one that lost the race reads the counter again and retries.
//
// A counter is trusted only once every counter has been built from the tenant index
// (the marker meta/usage-counters says so) and while every member of the cluster keeps
// them: a member of an earlier release changes machines without moving the counters.
// Until then TenantUsage sums the index, as before the counters. The member that leads
// the "usage counters" job builds them and writes the marker once every member keeps
// them; every member that sees a member that does not keep them join drops the marker
// (settle), so that they are built again after it leaves. A single node's store gets
// them from the schema migration to version 3, or, when new, from that same job at
// start.

// Usage is what a tenant's machines hold against its quota.
type Usage struct {
	Machines int `json:"machines"`
	CPUCores int `json:"cpu_cores"`
	MemoryMB int `json:"memory_mb"`
	DiskGB   int `json:"disk_gb"`
}

func (u Usage) plus(v Usage, sign int) Usage {
	return Usage{Machines: u.Machines + sign*v.Machines, CPUCores: u.CPUCores + sign*v.CPUCores,
		MemoryMB: u.MemoryMB + sign*v.MemoryMB, DiskGB: u.DiskGB + sign*v.DiskGB}
}

// counter is the stored value of vm-usage/<tenant>. Rev grows at every write, so a
// writer that requires the value it read is refused even when other writes brought
// the sums back to the same numbers (the rebuild's scan may have seen them between).
type counter struct {
	Usage
	Rev uint64 `json:"rev"`
}

const counterVersion = 1

// CountersFeature is what a member announces, in its membership record, when it keeps
// the usage counters.
const CountersFeature = "usage-counters"

// counterJob is the cluster-wide job that builds the counters (kit.Runtime.Leads).
const counterJob = "usage counters"

// counterCheck is how often the leader of counterJob looks whether the counters must
// be built or dropped.
const counterCheck = 2 * time.Second

// counterTries bounds the retries of one write whose counters other writes keep moving.
const counterTries = 100

func usageKey(tenant string) []byte { return persistence.Key("vm-usage", tenant) }

// markerKey exists once every counter was built from the index.
var markerKey = persistence.Key(persistence.KindMeta, "usage-counters")

// holds is what r holds against its tenant's quota, and that tenant ("" for none).
func holds(r *record) (string, Usage) {
	if r == nil || r.TenantID == nil || *r.TenantID == "" {
		return "", Usage{}
	}
	return *r.TenantID, Usage{Machines: 1, CPUCores: r.CPUCores, MemoryMB: r.MemoryMB, DiskGB: r.DiskGB}
}

// countDelta is how a write of prev as next (nil: absent) moves the tenants' counters;
// a write that changes neither sizes nor tenant moves none.
func countDelta(prev, next *record) map[string]Usage {
	was, a := holds(prev)
	is, b := holds(next)
	if was == is && a == b {
		return nil
	}
	d := map[string]Usage{}
	if was != "" {
		d[was] = d[was].plus(a, -1)
	}
	if is != "" {
		d[is] = d[is].plus(b, 1)
	}
	for t, u := range d {
		if u == (Usage{}) {
			delete(d, t)
		}
	}
	return d
}

// readCounter returns tenant's counter and its stored bytes (nil: absent).
func readCounter(ctx context.Context, s persistence.Store, tenant string) (counter, []byte, error) {
	var c counter
	v, err := s.Get(ctx, usageKey(tenant))
	if errors.Is(err, persistence.ErrNotFound) {
		return c, nil, nil
	}
	if err != nil {
		return c, nil, err
	}
	_, err = persistence.Decode(v, &c)
	return c, v, err
}

// requireCounter makes b require tenant's counter to be as read (absent for nil).
func requireCounter(b *persistence.Batch, tenant string, read []byte) {
	if read == nil {
		b.Require(persistence.IfAbsent(usageKey(tenant)))
	} else {
		b.Require(persistence.IfValue(usageKey(tenant), read))
	}
}

// addCounts puts into b the counters of the tenants d names, moved by d, each
// required to be as read; it returns what it read, by tenant.
func addCounts(ctx context.Context, s persistence.Store, b *persistence.Batch, d map[string]Usage) (map[string][]byte, error) {
	read := make(map[string][]byte, len(d))
	for _, t := range slices.Sorted(maps.Keys(d)) {
		c, raw, err := readCounter(ctx, s, t)
		if err != nil {
			return nil, err
		}
		val, err := persistence.Encode(counterVersion, counter{Usage: c.Usage.plus(d[t], 1), Rev: c.Rev + 1})
		if err != nil {
			return nil, err
		}
		requireCounter(b, t, raw)
		b.Put(usageKey(t), val)
		read[t] = raw
	}
	return read, nil
}

// countsMoved reports whether a counter read holds something else now: a batch that
// required it failed for that, not for another of its conditions.
func countsMoved(ctx context.Context, s persistence.Store, read map[string][]byte) (bool, error) {
	for t, was := range read {
		_, now, err := readCounter(ctx, s, t)
		if err != nil {
			return false, err
		}
		if string(now) != string(was) || (now == nil) != (was == nil) {
			return true, nil
		}
	}
	return false, nil
}

// commitCounted commits base with the counters d names moved, through commit (which
// may add conditions of its own). A batch refused because another write moved a
// counter meanwhile is built again on the counters as they are now; one refused for
// another condition returns that failure, as it would without the counters.
func (m *Machines) commitCounted(base *persistence.Batch, d map[string]Usage, commit func(*persistence.Batch) error) error {
	if len(d) == 0 {
		return commit(base)
	}
	ctx, cancel := m.sys.rt.Work()
	defer cancel()
	for try := 1; ; try++ {
		b := &persistence.Batch{Ops: slices.Clone(base.Ops), Conds: slices.Clone(base.Conds), After: base.After}
		read, err := addCounts(ctx, m.sys.store, b, d)
		if err != nil {
			return err
		}
		err = commit(b)
		if !persistence.IsConditionFailed(err) || try == counterTries {
			return err
		}
		if moved, rerr := countsMoved(ctx, m.sys.store, read); rerr != nil || !moved {
			return err
		}
		m.counterRetries.Add(1)
	}
}

// CounterRetries counts the writes that were made again because another write moved
// a usage counter they had read (the race of two members changing one tenant's
// machines at once).
func (m *Machines) CounterRetries() uint64 { return m.counterRetries.Load() }

// CreateRefused reports whether the batch of c (AddCreate) was refused because its
// tenant's counter moved since AddCreate read it: the caller checks the quota again
// and makes a new one. False means another of the batch's conditions failed.
func (m *Machines) CreateRefused(ctx context.Context, c *Creation) (bool, error) {
	moved, err := countsMoved(ctx, m.sys.store, c.counts)
	if moved {
		m.counterRetries.Add(1)
	}
	return moved, err
}

// TenantUsage returns what tenant's machines hold: its counter, one read, while the
// counters are trusted; else the sum of its index (holdings).
func (m *Machines) TenantUsage(ctx context.Context, tenant string) (Usage, error) {
	trusted, err := m.CountersTrusted(ctx)
	if err != nil {
		return Usage{}, err
	}
	if trusted {
		c, _, err := readCounter(ctx, m.sys.store, tenant)
		return c.Usage, err
	}
	return scanUsage(ctx, m.sys.store, tenant)
}

// scanUsage is the sum of tenant's index entries.
func scanUsage(ctx context.Context, s persistence.Store, tenant string) (Usage, error) {
	hs, err := holdings(ctx, s, tenant)
	var u Usage
	for _, h := range hs {
		u = u.plus(Usage{Machines: 1, CPUCores: h.CPUCores, MemoryMB: h.MemoryMB, DiskGB: h.DiskGB}, 1)
	}
	return u, err
}

// markerCache remembers whether the marker exists, forgotten at each write of it (the
// store's Watch), so that a quota read costs no second read.
type markerCache struct {
	mu      sync.Mutex
	gen     uint64
	known   bool
	present bool
}

func (c *markerCache) forget() {
	c.mu.Lock()
	c.gen++
	c.known = false
	c.mu.Unlock()
}

// present reports whether the marker exists, reading it when not known.
func (c *markerCache) read(ctx context.Context, s persistence.Store) (bool, error) {
	c.mu.Lock()
	if c.known {
		defer c.mu.Unlock()
		return c.present, nil
	}
	gen := c.gen
	c.mu.Unlock()
	_, err := s.Get(ctx, markerKey)
	if err != nil && !errors.Is(err, persistence.ErrNotFound) {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.known, c.present = true, err == nil
	}
	return err == nil, nil
}

// everyone reports whether every member keeps the counters, and how many members
// that do not this member has seen join (a single node: true, 0).
func (m *Machines) everyone() (bool, uint64) {
	if m.sys.counting == nil {
		return true, 0
	}
	return m.sys.counting()
}

// CountersTrusted reports whether quota reads use the usage counters on this member:
// they were built from the index (the marker exists), every member keeps them, and
// this member has dropped the marker since the last member that does not keep them
// arrived (settle): such a member may have come and gone between two runs of the
// leader's job, its writes leaving the counters wrong under a marker written before.
func (m *Machines) CountersTrusted(ctx context.Context) (bool, error) {
	all, lacking := m.everyone()
	if !all || !m.settle(ctx, lacking) {
		return false, nil
	}
	return m.marker.read(ctx, m.sys.store)
}

// settle drops the marker once for each count of arrivals of members that do not
// keep the counters (everyone), and reports whether that is done for lacking. A drop
// that fails is tried again at the next read or run of the job; meanwhile quota reads
// scan.
func (m *Machines) settle(ctx context.Context, lacking uint64) bool {
	if m.settled.Load() == lacking {
		return true
	}
	if err := m.sys.store.Commit(ctx, new(persistence.Batch).Del(markerKey)); err != nil {
		m.sys.log.Warn("usage counters: cannot drop their marker after a member that does not keep them joined; quota reads scan meanwhile", zap.Error(err))
		return false
	}
	m.sys.log.Info("usage counters: a member that does not keep them joined; quota reads scan until they are built again")
	m.settled.Store(lacking)
	return true
}

// keepCounters runs the counters' job: on every member, the marker is dropped after a
// member that does not keep the counters joined (settle, which a quota read also
// does); on the member that leads it, the counters are built and the marker written
// once every member keeps them, and the marker is dropped while one does not.
func (m *Machines) keepCounters() {
	m.sys.store.Watch(markerKey, func([]byte) { m.marker.forget() })
	m.counterLoop = kit.Every(m.sys.rt.Clock, m.sys.log, counterJob, counterCheck, true, func(ctx context.Context, _ time.Time) {
		_, lacking := m.everyone()
		m.settle(ctx, lacking)
		if !m.sys.rt.Leads(ctx, counterJob) {
			return
		}
		if err := m.checkCounters(ctx); err != nil && ctx.Err() == nil {
			m.sys.log.Warn("usage counters: cannot check or build them; quota reads scan the tenants' machines meanwhile", zap.Error(err))
		}
	})
}

// checkCounters is the leader's part of the counters' job.
func (m *Machines) checkCounters(ctx context.Context) error {
	all, lacking := m.everyone()
	if !m.settle(ctx, lacking) {
		return nil
	}
	present, err := m.marker.read(ctx, m.sys.store)
	switch {
	case err != nil:
		return err
	case !all && present:
		return m.sys.store.Commit(ctx, new(persistence.Batch).Del(markerKey))
	case !all || present:
		return nil
	}
	r, err := RebuildCounters(ctx, m.sys.store)
	if err != nil {
		return err
	}
	// A member that does not keep them may have come and gone while they were built.
	if all, now := m.everyone(); !all || now != lacking {
		return nil
	}
	err = m.sys.store.Commit(ctx, new(persistence.Batch).Put(markerKey, []byte("1")).Require(persistence.IfAbsent(markerKey)))
	if err == nil {
		m.sys.log.Info("usage counters built: quota reads use them", zap.Int("tenants", r.Tenants), zap.Int("corrected", len(r.Corrected)))
	}
	if persistence.IsConditionFailed(err) {
		return nil
	}
	return err
}

// Rebuilt is what RebuildCounters did.
type Rebuilt struct {
	// Tenants is how many tenants it counted (those with machines or a counter).
	Tenants int
	// Corrected names the tenants whose counter it wrote: absent, or not the sum of
	// the index. Once the counters are kept, none is: tests check that they are exact
	// by rebuilding them.
	Corrected []string
}

// RebuildCounters sets every tenant's usage counter to the sum of its index entries,
// each written on the condition that the counter still holds what was read before its
// index was scanned (and read and summed again when it does not): a write that moved
// it meanwhile is never lost.
func RebuildCounters(ctx context.Context, s persistence.Store) (Rebuilt, error) {
	tenants := map[string]bool{}
	for _, kind := range []string{"vm-tenant", "vm-usage"} {
		prefix := persistence.Prefix(kind)
		err := s.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
			t := string(k[len(prefix):])
			if kind == "vm-tenant" {
				t, _, _ = strings.Cut(t, "/")
			}
			tenants[t] = true
			return nil
		})
		if err != nil {
			return Rebuilt{}, err
		}
	}
	r := Rebuilt{Tenants: len(tenants)}
	for _, t := range slices.Sorted(maps.Keys(tenants)) {
		wrote, err := recount(ctx, s, t)
		if err != nil {
			return r, err
		}
		if wrote {
			r.Corrected = append(r.Corrected, t)
		}
	}
	return r, nil
}

// recount sets tenant's counter to the sum of its index, and reports whether it had
// to write it.
func recount(ctx context.Context, s persistence.Store, tenant string) (bool, error) {
	for try := 1; ; try++ {
		c, raw, err := readCounter(ctx, s, tenant)
		if err != nil {
			return false, err
		}
		u, err := scanUsage(ctx, s, tenant)
		if err != nil {
			return false, err
		}
		if u == c.Usage {
			return false, nil // exact already (an absent counter is zero)
		}
		val, err := persistence.Encode(counterVersion, counter{Usage: u, Rev: c.Rev + 1})
		if err != nil {
			return false, err
		}
		b := new(persistence.Batch)
		requireCounter(b, tenant, raw)
		err = s.Commit(ctx, b.Put(usageKey(tenant), val))
		if !persistence.IsConditionFailed(err) || try == counterTries {
			return err == nil, err
		}
	}
}

// MigrateUsageCounters is the schema migration 2→3: on a single node's store every
// tenant's counter is built and the marker written (nothing else runs yet). On a
// shared store the members of the earlier release may still run and would not keep
// the counters: the leader of the counters' job builds them once they are gone.
func MigrateUsageCounters(ctx context.Context, s persistence.Store, b *persistence.Batch, log *zap.Logger) error {
	if s.Shared() {
		return nil
	}
	r, err := RebuildCounters(ctx, s)
	if err != nil {
		return err
	}
	log.Info("usage counters built", zap.Int("tenants", r.Tenants), zap.Int("written", len(r.Corrected)))
	b.Put(markerKey, []byte("1"))
	return nil
}
