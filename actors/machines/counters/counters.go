// Package counters keeps the tenants' usage counters: vm-usage/<tenant>, the sum of
// what the tenant's machines hold, moved in the batch of every write of a machine that
// changes it, and the marker that says they can be trusted. It sits below the machines,
// which own the records and the tenant index the counters are built from: they hand in
// what a write moves (Delta), and the index as functions (Index).
package counters

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/derived"
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

// Plus is u with v added sign times (1 or -1).
func (u Usage) Plus(v Usage, sign int) Usage {
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

// Feature is what a member announces, in its membership record, when it keeps the
// usage counters.
const Feature = "usage-counters"

// counterJob is the cluster-wide job that builds the counters (kit.Runtime.Leads).
const counterJob = "usage counters"

// counterCheck is how often the leader of counterJob looks whether the counters must
// be built or dropped.
const counterCheck = 2 * time.Second

// counterTries bounds the retries of one write whose counters other writes keep moving.
const counterTries = 100

// Delta is how a write moves the tenants' counters when a machine that held a against
// tenant was ("" for none) holds b against tenant is afterwards (b zero and is "" for a
// machine deleted); a write that changes neither sizes nor tenant moves none.
func Delta(was string, a Usage, is string, b Usage) map[string]Usage {
	if was == is && a == b {
		return nil
	}
	d := map[string]Usage{}
	if was != "" {
		d[was] = d[was].Plus(a, -1)
	}
	if is != "" {
		d[is] = d[is].Plus(b, 1)
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

// Add puts into b the counters of the tenants d names, moved by d, each required to
// be as read; it returns what it read, by tenant (for Moved).
func Add(ctx context.Context, s persistence.Store, b *persistence.Batch, d map[string]Usage) (map[string][]byte, error) {
	read := make(map[string][]byte, len(d))
	for _, t := range slices.Sorted(maps.Keys(d)) {
		c, raw, err := readCounter(ctx, s, t)
		if err != nil {
			return nil, err
		}
		val, err := persistence.Encode(counterVersion, counter{Usage: c.Usage.Plus(d[t], 1), Rev: c.Rev + 1})
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

// Index is the tenant index the counters are built from and a quota read sums while
// they are not trusted; the machines own it and read it for the counters.
type Index struct {
	// Tenants calls add with each tenant that has a machine in the index.
	Tenants func(ctx context.Context, add func(tenant string)) error
	// Sum is what tenant's machines hold by the index.
	Sum func(ctx context.Context, tenant string) (Usage, error)
}

// Deps are what the counters need from the machines above them.
type Deps struct {
	Runtime *kit.Runtime
	// Counting, in a cluster, reports whether every live member keeps the counters
	// (announces Feature), and how many members that do not this member has seen
	// join; nil on a single node, which keeps them.
	Counting func() (all bool, without uint64)
	// Index reads the tenant index of the runtime's store.
	Index Index
}

// Counters are one member's keeping of the usage counters: its writes through them
// (Commit), its quota reads (TenantUsage) and the counters' job (derived.Data: the
// marker and who builds them).
type Counters struct {
	rt      *kit.Runtime
	store   persistence.Store
	index   Index
	data    *derived.Data
	retries atomic.Uint64
}

// Start starts keeping the counters: the job runs from now until Stop.
func Start(d Deps) *Counters {
	c := &Counters{rt: d.Runtime, store: d.Runtime.Store, index: d.Index}
	c.data = derived.Start(derived.Deps{Runtime: d.Runtime, Job: counterJob, Marker: markerKey, Check: counterCheck,
		Keeping: d.Counting, Build: func(ctx context.Context) (zap.Field, error) {
			r, err := Rebuild(ctx, c.store, c.index)
			return zap.Dict("rebuilt", zap.Int("tenants", r.Tenants), zap.Int("corrected", len(r.Corrected))), err
		}})
	return c
}

// Stop ends the counters' job.
func (c *Counters) Stop() { c.data.Stop() }

// Commit commits base with the counters d names moved, through commit (which may add
// conditions of its own). A batch refused because another write moved a counter
// meanwhile is built again on the counters as they are now; one refused for another
// condition returns that failure, as it would without the counters.
func (c *Counters) Commit(base *persistence.Batch, d map[string]Usage, commit func(*persistence.Batch) error) error {
	if len(d) == 0 {
		return commit(base)
	}
	ctx, cancel := c.rt.Work()
	defer cancel()
	for try := 1; ; try++ {
		b := &persistence.Batch{Ops: slices.Clone(base.Ops), Conds: slices.Clone(base.Conds), After: base.After}
		read, err := Add(ctx, c.store, b, d)
		if err != nil {
			return err
		}
		err = commit(b)
		if !persistence.IsConditionFailed(err) || try == counterTries {
			return err
		}
		if moved, rerr := countsMoved(ctx, c.store, read); rerr != nil || !moved {
			return err
		}
		c.retries.Add(1)
	}
}

// Retries counts the writes that were made again because another write moved a
// counter they had read (the race of two members changing one tenant's machines at
// once).
func (c *Counters) Retries() uint64 { return c.retries.Load() }

// Moved reports whether a batch built on the counters read (Add's answer) was refused
// because one of them moved since: the caller builds it again. False means another of
// the batch's conditions failed.
func (c *Counters) Moved(ctx context.Context, read map[string][]byte) (bool, error) {
	moved, err := countsMoved(ctx, c.store, read)
	if moved {
		c.retries.Add(1)
	}
	return moved, err
}

// TenantUsage returns what tenant's machines hold: its counter, one read, while the
// counters are trusted; else the sum of its index.
func (c *Counters) TenantUsage(ctx context.Context, tenant string) (Usage, error) {
	trusted, err := c.Trusted(ctx)
	if err != nil {
		return Usage{}, err
	}
	if trusted {
		cnt, _, err := readCounter(ctx, c.store, tenant)
		return cnt.Usage, err
	}
	return c.index.Sum(ctx, tenant)
}

// Trusted reports whether quota reads use the usage counters on this member
// (derived.Data.Trusted: built, and kept by every member).
func (c *Counters) Trusted(ctx context.Context) (bool, error) { return c.data.Trusted(ctx) }

// Check is the leader's part of the counters' job (derived.Data.Check): it builds the
// counters and writes the marker once every member keeps them, and drops the marker
// while one does not.
func (c *Counters) Check(ctx context.Context) error { return c.data.Check(ctx) }
