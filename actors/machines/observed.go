package machines

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/obsdigest"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/machines/vmids"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/internal/strblocks"
	"github.com/vmplane/vmplane/persistence"
)

// What the sync (actors/inventory) asks of the machines and the nodes to bring the
// store in line with the hypervisor's inventory: which vmids are known, whether a
// record already shows what the hypervisor reports, an observation or an absence
// handed to the entity that owns the record, and the adoption of machines the store
// does not know yet. Machine and node records stay this package's alone.

// VMIDs returns the record id of every machine the store knows in the location
// tagged loc ("": the default), by its vmid: vmids repeat across locations.
// The ids share a few blocks of memory instead of an allocation each (a million of
// them on a sync of a million machines).
func (m *Machines) VMIDs(ctx context.Context, loc string) (*vmids.Index, error) {
	known := &vmids.Index{}
	var ids strblocks.Blocks
	prefix := vmidPrefix(hvloc.ID(loc))
	err := m.sys.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		vmid, err := strconv.Atoi(string(k[len(prefix):]))
		if err == nil {
			known.Add(vmid, ids.String(v))
		}
		return nil
	})
	return known.Sorted(), err
}

// vmidPrefix is the prefix of the vmid index of the location loc: vm-vmid/ for the
// default one (as before there were locations), vm-vmid-at/<loc>/ for the others.
func vmidPrefix(loc hvloc.ID) []byte {
	if loc == "" {
		return persistence.Prefix("vm-vmid")
	}
	return persistence.Prefix("vm-vmid-at", string(loc))
}

// Observe hands a machine's entity what the hypervisor reports of it, as of at at
// the earliest (zero: now), and reports whether its record changed. An observation
// of another location than the record's (hm.Location) changes nothing.
func (m *Machines) Observe(ctx context.Context, id string, hm hypervisor.Machine, at time.Time) (bool, error) {
	r, err := kit.Ask[capacity.Changed](ctx, m.kind, id, &observe{M: hm, At: at})
	return r.Changed, err
}

// Vanish tells a machine's entity that the hypervisor did not have it at at, and
// reports whether its record was removed.
func (m *Machines) Vanish(ctx context.Context, id string, at time.Time) (bool, error) {
	r, err := kit.Ask[capacity.Changed](ctx, m.kind, id, &vanish{At: at})
	return r.Changed, err
}

// ObservedDigests answers the digest of every machine's record (obsdigest), by
// machine id, for a sync to hand to Unchanged: one scan of small values instead of a
// record read and decode per machine (a restart's sync of a million unchanged
// machines did a million of those, issue 33). nil: they are not to be trusted now
// (a member that does not keep them is live, or they were not yet made exact), and
// Unchanged reads the records.
func (m *Machines) ObservedDigests(ctx context.Context) (*obsdigest.Set, error) {
	return m.digests.All(ctx)
}

// Unchanged reports whether the stored record of a machine already shows what the
// hypervisor reports (or a task owns it, when the task's end will tell), and whether
// the power state is what differs. The record is what the machine's actor holds: it
// writes before it changes its state.
//
// digests (ObservedDigests, read after the inventory) answer "the same" without the
// record when the machine's digest shows it; a machine without one, or whose digest
// differs, has its record read. A record written since the digests were read was
// written after the inventory too, which cannot show that write: the digest it
// replaced is what the inventory is compared with, as the record read would have been
// had the sync reached that machine sooner.
func (m *Machines) Unchanged(ctx context.Context, id string, hm hypervisor.Machine, digests *obsdigest.Set) (same, stateDiffers bool) {
	if d, ok := digests.Get(id); ok && digestShows(d, hm) {
		return true, false
	}
	rec, err := persistence.Load[record](ctx, m.sys.store, machineKey(id))
	if err != nil {
		return false, false // let the actor decide
	}
	if rec.TaskID != nil {
		return true, false
	}
	next := rec.Machine
	applyObserved(&next, hm)
	return machineEqual(&next, &rec.Machine), next.Status != rec.Status
}

// digestShows reports whether d, the digest of a record, proves that applyObserved
// leaves that record as it is for hm. applyObserved reads the record as well as hm
// (a name or template kept when hm has none, the drive's image kept by its file), so
// the digest is compared with that of hm applied to an empty record: the record's
// compared fields are then those, and applying hm to them changes nothing
// (TestApplyObservedSettles holds applyObserved to that).
func digestShows(d string, hm hypervisor.Machine) bool {
	if d == obsdigest.TaskOwned {
		return true
	}
	var once record
	applyObserved(&once.Machine, hm)
	want := observedDigest(&once)
	return want != nil && string(want) == d
}

// adoptBatch is how many new machines' records one durable batch writes: a first sync
// of a million machines writes a thousand synced batches, not four thousand (issue
// 33), and a batch (some 4,000 keys, a few MB) stays far below Badger's batch limit.
const adoptBatch = 1024

// adoptTries bounds how often one batch of adoptions is written again after some of
// its machines were recorded meanwhile by someone else.
const adoptTries = 3

// Adopt records machines found on the hypervisor (the sync), without a tenant, and
// returns how many it recorded. Each record is in its machine's location (hm.Location,
// as the dispatcher tags it). No actor exists for a new record yet, so the records
// are written here in batches, as a tenant's create writes its new machine's record,
// and no actor is woken: a first sync of a large cluster does not hold every machine
// in memory. Each adoption requires its
// vmid index key (vmidKey: per location) to be absent, in the same transaction as the record: a
// vmid is adopted once even if two syncs ever overlap (on two members of a cluster, or
// with a create that recorded its vmid since the inventory was read). A batch refused
// for that is written again without the machines now known.
func (m *Machines) Adopt(ctx context.Context, ms []hypervisor.Machine) (int, error) {
	if len(ms) == 0 {
		return 0, nil
	}
	// While a create runs, the hypervisor already has its machine but our record does
	// not know its vmid yet: adopting now would make a second, tenantless record of
	// it. Unknown machines wait for a sync with no create in flight.
	if busy, err := m.createsInFlight(ctx); err != nil || busy {
		return 0, err
	}
	added := 0
	for start := 0; start < len(ms); start += adoptBatch {
		chunk := ms[start:min(start+adoptBatch, len(ms))]
		for try := 1; ; try++ {
			recs, err := m.adoptChunk(chunk)
			if err == nil {
				for _, rec := range recs {
					Publish(m.sys.Events, rec, "sync", "")
				}
				added += len(recs)
				break
			}
			if !persistence.IsConditionFailed(err) || try == adoptTries {
				return added, err
			}
			// Some vmids were recorded since the inventory was read: leave them out.
			if chunk, err = m.unknown(ctx, chunk); err != nil {
				return added, err
			}
		}
	}
	return added, nil
}

// adoptChunk writes the records of machines in one batch, each on the condition that
// its vmid is still unknown, and returns them.
func (m *Machines) adoptChunk(chunk []hypervisor.Machine) ([]Machine, error) {
	if len(chunk) == 0 {
		return nil, nil
	}
	b := new(persistence.Batch)
	recs := make([]Machine, 0, len(chunk))
	now := time.Now().UTC()
	for _, hm := range chunk {
		rec := record{Machine: Machine{ID: persistence.NewID(), CreatedAt: now, UpdatedAt: now, Location: hvloc.ID(hm.Location)}}
		applyObserved(&rec.Machine, hm)
		val, err := persistence.Encode(recordVersion, &rec)
		if err != nil {
			return nil, err
		}
		key := vmidKey(rec.Location, hm.VMID)
		b.Put(machineKey(rec.ID), val).Put(key, []byte(rec.ID)).Require(persistence.IfAbsent(key))
		putNodeState(b, nil, &rec)
		recs = append(recs, rec.Machine)
	}
	if err := m.sys.rt.Commit(b); err != nil {
		return nil, err
	}
	return recs, nil
}

// unknown returns the machines of ms whose vmid has no record.
func (m *Machines) unknown(ctx context.Context, ms []hypervisor.Machine) ([]hypervisor.Machine, error) {
	out := ms[:0:0]
	for _, hm := range ms {
		_, err := m.sys.store.Get(ctx, vmidKey(hvloc.ID(hm.Location), hm.VMID))
		switch {
		case errors.Is(err, persistence.ErrNotFound):
			out = append(out, hm)
		case err != nil:
			return nil, err
		}
	}
	return out, nil
}

// createsInFlight reports whether a machine create task is still open.
func (m *Machines) createsInFlight(ctx context.Context) (bool, error) {
	found := false
	err := tasks.ScanOpen(ctx, m.sys.store, func(task, _ string) error {
		t, err := tasks.Load(ctx, m.sys.store, task)
		if err == nil && (t.Type == "vm.create" || t.Type == "vm."+OpRestoreNew) && !t.Finished() {
			found = true
			return kit.ErrStopScan
		}
		return nil
	})
	if err != nil && !errors.Is(err, kit.ErrStopScan) {
		return false, err
	}
	return found, nil
}
