package traffic

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Bytes is network traffic, in bytes: In received by the machine, Out sent by it.
type Bytes struct {
	In  uint64 `json:"in"`
	Out uint64 `json:"out"`
}

// Total is In and Out together: what counts against a plan's allowance.
func (b Bytes) Total() uint64 { return b.In + b.Out }

func (b *Bytes) add(o Bytes) {
	b.In += o.In
	b.Out += o.Out
}

// lastRecord is a machine's counters as last read (traffic-last/...).
type lastRecord struct {
	In  uint64    `json:"in"`
	Out uint64    `json:"out"`
	At  time.Time `json:"at"`
}

const lastVersion, bytesVersion, overVersion = 1, 1, 1

// Moved is what the counters moved from last to now: their difference, or, for a
// counter below the last one (the machine's process restarted and began again from
// 0), all of now.
func Moved(last, now hypervisor.TrafficCounters) Bytes {
	d := func(l, n uint64) uint64 {
		if n < l {
			return n
		}
		return n - l
	}
	return Bytes{In: d(last.In, now.In), Out: d(last.Out, now.Out)}
}

// Defaults.
const (
	// Interval is how often the overage job runs.
	Interval = 5 * time.Minute
	// HourRetention is how long the hours are kept: the usage close copies each into
	// its invoice records, late by up to its backfill (a week).
	HourRetention = 8 * 24 * time.Hour
	// MonthRetention is how many months are kept, this one included.
	MonthRetention = 13
	// lastRetention drops the counters of a machine not seen running for that long
	// (deleted, or stopped): its next start counts from its first reading.
	lastRetention = HourRetention
	// batchOps bounds the operations of one commit (etcd caps a transaction's).
	batchOps = 96
)

// recordMachines is how many machines Record reads and writes at a time. A variable
// for the tests.
var recordMachines = 4096

// Deps are what the traffic counting needs from outside its package.
type Deps struct {
	Runtime *kit.Runtime
	// Overage is what the overage job asks and does; nil: no job (Run does nothing).
	Overage *Overage
}

// Traffic keeps the machines' traffic counters and totals.
type Traffic struct {
	d     Deps
	store persistence.Store
	log   *zap.Logger
	loop  *kit.Loop
}

// New returns the traffic records of d's store, without the job (Run starts it).
func New(d Deps) *Traffic {
	return &Traffic{d: d, store: d.Runtime.Store, log: d.Runtime.Log.Named("traffic")}
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// Record adds what the machines' counters moved since their last reading, read at at
// (by machine id), to each machine's hour and month of at. A machine read for the
// first time (new, or not seen running for lastRetention) only has its counters kept:
// what they hold may be from before vmplane counted. A machine not in counters keeps its
// last reading (stopped, or on a node that is down); when it runs again, a counter
// below that reading counts in full. The inventory sync calls it, one sync at a time
// in the cluster, so the reads and writes of one call do not race another's.
//
// The machines are taken recordMachines at a time in id order, each chunk's readings and
// totals read in one scan of their keys' range and its writes committed before the
// next is read: a million running machines' readings, totals and writes held at once
// were half a gigabyte of a sync's heap (issue 33).
func (t *Traffic) Record(ctx context.Context, at time.Time, counters map[string]hypervisor.TrafficCounters) error {
	if len(counters) == 0 {
		return nil
	}
	at = at.UTC()
	ids := slices.Sorted(maps.Keys(counters))
	after := ""
	for start := 0; start < len(ids); start += recordMachines {
		chunk := ids[start:min(start+recordMachines, len(ids))]
		if err := t.recordChunk(ctx, at, after, chunk, counters); err != nil {
			return err
		}
		after = chunk[len(chunk)-1]
	}
	return nil
}

// recordChunk is Record for the machines ids (sorted), all after the machine after
// ("": from the first).
func (t *Traffic) recordChunk(ctx context.Context, at time.Time, after string, ids []string, counters map[string]hypervisor.TrafficCounters) error {
	last, err := scanRange[lastRecord](ctx, t.store, persistence.Prefix("traffic-last"), after, ids)
	if err != nil {
		return err
	}
	// Each machine's writes (its reading, its hour, its month) go into one commit
	// together, so a failure never keeps a reading whose bytes were not added.
	var groups [][]persistence.Op
	moved := map[string]Bytes{}
	for _, id := range ids {
		c := counters[id]
		l, seen := last[id]
		if seen && l.In == c.In && l.Out == c.Out && at.Sub(l.At) < lastRetention/2 {
			continue // nothing moved: no write (its reading is refreshed now and then)
		}
		if seen {
			if m := Moved(hypervisor.TrafficCounters{In: l.In, Out: l.Out}, c); m.Total() > 0 {
				moved[id] = m
			}
		}
		val, err := persistence.Encode(lastVersion, lastRecord{In: c.In, Out: c.Out, At: at})
		if err != nil {
			return err
		}
		groups = append(groups, []persistence.Op{{Key: lastKey(id), Value: val}})
	}
	if len(moved) > 0 {
		hours, err := scanRange[Bytes](ctx, t.store, persistence.Prefix("traffic-hour", hourName(at)), after, ids)
		if err != nil {
			return err
		}
		months, err := scanRange[Bytes](ctx, t.store, persistence.Prefix("traffic-month", monthName(at)), after, ids)
		if err != nil {
			return err
		}
		for i, g := range groups {
			id := string(g[0].Key[len("traffic-last/"):])
			m, ok := moved[id]
			if !ok {
				continue
			}
			for _, tot := range []struct {
				sum Bytes
				key []byte
			}{{hours[id], hourKey(at, id)}, {months[id], monthKey(at, id)}} {
				tot.sum.add(m)
				val, err := persistence.Encode(bytesVersion, tot.sum)
				if err != nil {
					return err
				}
				groups[i] = append(groups[i], persistence.Op{Key: tot.key, Value: val})
			}
		}
	}
	return commitGroups(ctx, t.store, groups)
}

// scanRange reads the records under prefix of the machines after after ("": from the
// first) up to the last of ids (sorted), by machine id: one scan of that range of
// keys, which holds ids' records and those of machines not among them (stopped ones).
func scanRange[T any](ctx context.Context, s persistence.Store, prefix []byte, after string, ids []string) (map[string]T, error) {
	var from []byte
	if after != "" {
		from = append(prefix[:len(prefix):len(prefix)], after...)
	}
	out := make(map[string]T, len(ids))
	err := scanDecodeRange(ctx, s, prefix, from, ids[len(ids)-1], func(id string, r T) { out[id] = r })
	return out, err
}

// totals reads the totals under prefix, by machine.
func (t *Traffic) totals(ctx context.Context, prefix []byte) (map[string]Bytes, error) {
	out := map[string]Bytes{}
	err := scanDecode(ctx, t.store, prefix, func(id string, v Bytes) { out[id] = v })
	return out, err
}

// Hour returns each machine's traffic in the hour starting at h, by machine id (the
// usage close's Deps.Traffic).
func (t *Traffic) Hour(ctx context.Context, h time.Time) (map[string]Bytes, error) {
	return t.totals(ctx, persistence.Prefix("traffic-hour", hourName(h)))
}

// Month returns a machine's traffic in the calendar month (UTC) of at: zero when it
// moved nothing, or nothing was counted.
func (t *Traffic) Month(ctx context.Context, machine string, at time.Time) (Bytes, error) {
	var v Bytes
	raw, err := t.store.Get(ctx, monthKey(at, machine))
	if errors.Is(err, persistence.ErrNotFound) {
		return v, nil
	}
	if err != nil {
		return v, err
	}
	_, err = persistence.Decode(raw, &v)
	return v, err
}

// scanDecode decodes every record under prefix, handing fn the key's last part.
func scanDecode[T any](ctx context.Context, s persistence.Store, prefix []byte, fn func(id string, v T)) error {
	return scanDecodeRange(ctx, s, prefix, nil, "", fn)
}

// scanDecodeRange is scanDecode for the keys after after (nil: from the first) whose
// last part is at most until ("": every one).
func scanDecodeRange[T any](ctx context.Context, s persistence.Store, prefix, after []byte, until string, fn func(id string, v T)) error {
	err := s.Scan(ctx, prefix, after, 0, func(k, v []byte) error {
		id := k[len(prefix):]
		if until != "" && string(id) > until {
			return errStop
		}
		var r T
		if _, err := persistence.Decode(v, &r); err != nil {
			return err
		}
		fn(string(id), r)
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return err
}

// commitGroups commits the groups of operations, each whole, in batches of about
// batchOps operations.
func commitGroups(ctx context.Context, s persistence.Store, groups [][]persistence.Op) error {
	b := new(persistence.Batch)
	for i, g := range groups {
		b.Ops = append(b.Ops, g...)
		if len(b.Ops) >= batchOps || i == len(groups)-1 {
			if err := s.Commit(ctx, b); err != nil {
				return err
			}
			b = new(persistence.Batch)
		}
	}
	return nil
}
