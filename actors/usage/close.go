package usage

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// Close closes the hours whose end has passed at now and that no run closed yet: the
// last whole hour, and after a downtime the hours missed since the last one closed,
// at most Backfill back (those are marked estimated: they are counted from what the
// machines hold now; older ones stay gaps). With no hour closed within Backfill (the
// first start, or a longer downtime) only the last whole hour is closed. Each tenant's
// hour is a conditional create, so closing an hour twice (two members, a restart in
// the middle) keeps what the first close wrote.
func (u *Usage) Close(ctx context.Context, now time.Time) error {
	last := now.UTC().Truncate(time.Hour).Add(-time.Hour)
	start := last.Add(-u.d.Backfill)
	closed := map[time.Time]bool{}
	var latest time.Time
	prefix := persistence.Prefix("usage-closed")
	err := u.store.Scan(ctx, prefix, closedKey(start.Add(-time.Hour)), 0, func(k, _ []byte) error {
		h, err := time.Parse(hourLayout, string(k[len(prefix):]))
		if err != nil {
			return nil // not ours to judge
		}
		closed[h] = true
		if h.After(latest) {
			latest = h
		}
		return nil
	})
	if err != nil {
		return err
	}
	first := last
	if !latest.IsZero() {
		first = latest.Add(time.Hour)
	} else if ran, err := u.closedAny(ctx); err != nil {
		return err
	} else if ran {
		first = start // down longer than the backfill: the hours before start stay gaps
	}
	for h := first; !h.After(last); h = h.Add(time.Hour) {
		if closed[h] {
			continue
		}
		if err := u.closeHour(ctx, h, now.Sub(h.Add(time.Hour)) >= lateAfter); err != nil {
			return err
		}
	}
	return nil
}

// closedAny reports whether any hour was ever closed (one is kept for the retention).
func (u *Usage) closedAny(ctx context.Context) (bool, error) {
	found := false
	err := u.store.Scan(ctx, persistence.Prefix("usage-closed"), nil, 1, func(_, _ []byte) error {
		found = true
		return nil
	})
	return found, err
}

// closeHour writes hour h's records, counted from what the machines hold now.
func (u *Usage) closeHour(ctx context.Context, h time.Time, estimated bool) error {
	ms, err := u.d.Machines(ctx)
	if err != nil {
		return err
	}
	stored := map[string]Stored{}
	if u.d.Backups != nil {
		if stored, err = u.d.Backups(ctx); err != nil {
			return err
		}
	}
	traffic := map[string]Traffic{}
	if u.d.Traffic != nil {
		if traffic, err = u.d.Traffic(ctx, h); err != nil {
			return err
		}
	}
	end := h.Add(time.Hour)
	byTenant := map[string][]UsageLine{}
	for _, m := range ms {
		if !m.CreatedAt.Before(end) {
			continue // made after the hour
		}
		l := UsageLine{MachineID: m.ID, Name: m.Name, TenantID: m.TenantID, PlanID: m.PlanID, Hours: 1,
			CoreHours: int64(m.CPUCores), MemoryMBHours: int64(m.MemoryMB), DiskGBHours: int64(m.DiskGB),
			SnapshotHours: int64(m.Snapshots)}
		if s, ok := stored[m.ID]; ok {
			l.BackupHours, l.BackupByteHours = int64(s.Count), s.Bytes
		}
		if t, ok := traffic[m.ID]; ok {
			l.TrafficInBytes, l.TrafficOutBytes = t.In, t.Out
		}
		if estimated {
			l.EstimatedHours = 1
		}
		tp := tenantPart(m.TenantID)
		byTenant[tp] = append(byTenant[tp], l)
	}
	tenants := make([]string, 0, len(byTenant))
	for t := range byTenant {
		tenants = append(tenants, t)
	}
	slices.Sort(tenants)
	hw := hourWriter{u: u, h: h, estimated: estimated}
	for _, t := range tenants {
		lines := byTenant[t]
		slices.SortFunc(lines, func(a, b UsageLine) int { return cmp.Compare(a.MachineID, b.MachineID) })
		var err error
		if len(lines) > partLines {
			err = u.writeHour(ctx, t, h, estimated, lines)
		} else {
			err = hw.add(ctx, t, lines)
		}
		if err != nil {
			return err
		}
	}
	if err := hw.flush(ctx); err != nil {
		return err
	}
	return u.markClosed(ctx, h, estimated)
}

// hourWriter writes the hours of the tenants whose lines fit one value, several to a
// batch: one synced write a tenant made the close of 40,000 tenants take minutes
// (one etcd round or one fsync each), and the hour is not marked closed until the last.
type hourWriter struct {
	u         *Usage
	h         time.Time
	estimated bool
	tenants   []string
	vals      [][]byte
	bytes     int
}

// add writes tenant's hour, in the next batch.
func (w *hourWriter) add(ctx context.Context, tenant string, lines []UsageLine) error {
	val, err := persistence.Encode(hourVersion, hourRecord{Hour: w.h, Estimated: w.estimated, Machines: lines})
	if err != nil {
		return err
	}
	if len(w.tenants) == batchTenants || len(w.tenants) > 0 && w.bytes+len(val) > batchBytes {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	w.tenants, w.vals, w.bytes = append(w.tenants, tenant), append(w.vals, val), w.bytes+len(val)
	return nil
}

// flush writes the batch: each tenant's hour on the condition that no run wrote it
// before. When another run wrote one of them first, the batch writes nothing, and each
// is written again on its own: the others are written, those are kept as they are.
func (w *hourWriter) flush(ctx context.Context) error {
	tenants, vals := w.tenants, w.vals
	w.tenants, w.vals, w.bytes = nil, nil, 0
	if len(tenants) == 0 {
		return nil
	}
	b := new(persistence.Batch)
	for i, t := range tenants {
		if err := createHour(b, t, w.h, vals[i]); err != nil {
			return err
		}
	}
	err := w.u.store.Commit(ctx, b)
	if err == nil || !persistence.IsConditionFailed(err) {
		return err
	}
	for i, t := range tenants {
		if len(tenants) > 1 {
			b := new(persistence.Batch)
			if err := createHour(b, t, w.h, vals[i]); err != nil {
				return err
			}
			if err := w.u.store.Commit(ctx, b); err == nil {
				continue
			} else if !persistence.IsConditionFailed(err) {
				return err
			}
		}
		if err := w.u.indexWritten(ctx, t, w.h); err != nil {
			return err
		}
	}
	return nil
}

// indexWritten puts tenant's hour h, which another run wrote first, in the hour's
// index with the parts its record names, when it is not there yet: a run of the
// previous release writes no index, and when it stopped before its marker (which
// lists its tenants), nothing else would name what it wrote to the retention.
func (u *Usage) indexWritten(ctx context.Context, tenant string, h time.Time) error {
	if _, err := u.store.Get(ctx, indexKey(h, tenant)); err == nil {
		return nil // written with its record: a run of this release
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	v, err := u.store.Get(ctx, hourKey(tenant, h))
	if errors.Is(err, persistence.ErrNotFound) {
		return nil // deleted since: nothing to name
	} else if err != nil {
		return err
	}
	var rec hourRecord
	if _, err := persistence.Decode(v, &rec); err != nil {
		return err
	}
	idx, err := persistence.Encode(indexVersion, indexRecord{})
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(indexKey(h, tenant), idx)
	if rec.Parts > 0 && rec.Run != "" {
		runIdx, err := persistence.Encode(indexVersion, indexRecord{Parts: rec.Parts})
		if err != nil {
			return err
		}
		b.Put(runIndexKey(h, tenant, rec.Run), runIdx)
	}
	return u.store.Commit(ctx, b)
}

// createHour adds to b the conditional create of tenant's hour h (val, its encoded
// record) with the index's key that names it, in the same batch: what the retention
// deletes is every record written, and only those.
func createHour(b *persistence.Batch, tenant string, h time.Time, val []byte) error {
	idx, err := persistence.Encode(indexVersion, indexRecord{})
	if err != nil {
		return err
	}
	k := hourKey(tenant, h)
	b.Require(persistence.IfAbsent(k)).Put(k, val).Put(indexKey(h, tenant), idx)
	return nil
}

// ignoreConditionFailed is err, but nil when a condition failed: another run wrote
// the record first, and it is kept.
func ignoreConditionFailed(err error) error {
	if err != nil && persistence.IsConditionFailed(err) {
		return nil
	}
	return err
}

// writeHour writes one tenant's hour: its first partLines lines in the hour's record,
// the rest in parts of as many (usage-hour/<tenant>/<hour>/<run>/<n>), so that no value
// passes the store's limit however many machines the tenant has (one record of a
// tenant of 3,000 machines, or of the operator's adopted ones, did: the hour then
// failed for every tenant, issue 33). The parts are written first, each its own batch,
// under an id of this run, which the hour's index names before them; the record, which
// names the run and counts its parts, last, on the condition that no run wrote it
// before, in one batch with the tenant's key of the index. So a reader counts one
// run's parts or none, a run that fails or loses the race leaves parts no record names
// (the loser deletes its own, the retention any left, from the index), and a tenant's
// hour is still counted once.
func (u *Usage) writeHour(ctx context.Context, tenant string, h time.Time, estimated bool, lines []UsageLine) error {
	k := hourKey(tenant, h)
	rec := hourRecord{Hour: h, Estimated: estimated, Machines: lines}
	var parts [][]UsageLine
	if len(lines) > partLines {
		if _, err := u.store.Get(ctx, k); err == nil {
			return u.indexWritten(ctx, tenant, h) // another run counted this tenant's hour first
		} else if !errors.Is(err, persistence.ErrNotFound) {
			return err
		}
		rec.Machines = lines[:partLines]
		for rest := lines[partLines:]; len(rest) > 0; rest = rest[min(partLines, len(rest)):] {
			parts = append(parts, rest[:min(partLines, len(rest))])
		}
		rec.Run, rec.Parts = persistence.NewID(), len(parts)
		idx, err := persistence.Encode(indexVersion, indexRecord{Parts: len(parts)})
		if err != nil {
			return err
		}
		if err := u.store.Commit(ctx, new(persistence.Batch).Put(runIndexKey(h, tenant, rec.Run), idx)); err != nil {
			return err
		}
		for i, part := range parts {
			val, err := persistence.Encode(hourVersion, hourRecord{Hour: h, Estimated: estimated, Machines: part})
			if err != nil {
				return err
			}
			if err := u.store.Commit(ctx, new(persistence.Batch).Put(partKey(tenant, h, rec.Run, i+1), val)); err != nil {
				return err
			}
		}
	}
	val, err := persistence.Encode(hourVersion, rec)
	if err != nil {
		return err
	}
	b := new(persistence.Batch)
	if err := createHour(b, tenant, h, val); err != nil {
		return err
	}
	err = u.store.Commit(ctx, b)
	if err == nil || !persistence.IsConditionFailed(err) {
		return err
	}
	// Another run counted this tenant's hour first: ours are parts no record names,
	// deleted before the index's key that names them.
	if len(parts) > 0 {
		keys := make([][]byte, 0, len(parts)+1)
		for i := range parts {
			keys = append(keys, partKey(tenant, h, rec.Run, i+1))
		}
		if err := u.deleteKeys(ctx, append(keys, runIndexKey(h, tenant, rec.Run))); err != nil {
			return err
		}
	}
	return u.indexWritten(ctx, tenant, h)
}

// deleteKeys deletes keys in batches of at most deleteChunk, in their order: a
// cluster's etcd refuses a transaction of more than 128 operations by default.
func (u *Usage) deleteKeys(ctx context.Context, keys [][]byte) error {
	for len(keys) > 0 {
		n := min(deleteChunk, len(keys))
		b := new(persistence.Batch)
		for _, k := range keys[:n] {
			b.Del(k)
		}
		if err := u.store.Commit(ctx, b); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// markClosed records hour h closed, once every tenant's hour is written. The marker
// lists no tenants (what was written is in the hour's index), so it is the same small
// value at any number of tenants, and a second run that closed the hour at once finds
// it written and has nothing to add.
func (u *Usage) markClosed(ctx context.Context, h time.Time, estimated bool) error {
	k := closedKey(h)
	val, err := persistence.Encode(closedVersion, closedRecord{Hour: h, Estimated: estimated})
	if err != nil {
		return err
	}
	err = u.store.Commit(ctx, new(persistence.Batch).Require(persistence.IfAbsent(k)).Put(k, val))
	return ignoreConditionFailed(err) // another run marked it: the same hour, closed
}

// Prune deletes the hours that ended more than Retention before now, oldest first, at
// most pruneHours per call (the job calls it every minute). An hour's keys are found
// in its index, one scan of the hour (a page at a time), not one a tenant: each tenant's
// record and the index key that names it, each run's parts (those a run left unnamed
// included) before the index key that names them, and the marker last; and, for an
// hour a previous release closed, the tenants its marker lists, with their parts. A
// prune cut short is done again from what is left. The hours are found from the index
// as well as from the markers, so an hour whose marker a previous release's prune
// deleted (it read no tenants in it) still has its records deleted.
func (u *Usage) Prune(ctx context.Context, now time.Time) error {
	cutoff := now.UTC().Add(-u.d.Retention)
	for range pruneHours {
		h, ok, err := u.oldestHour(ctx)
		if err != nil || !ok || h.Add(time.Hour).After(cutoff) {
			return err
		}
		if err := u.pruneHour(ctx, h); err != nil {
			return err
		}
	}
	return nil
}

// oldestHour returns the oldest hour that has a marker or an index, if any.
func (u *Usage) oldestHour(ctx context.Context) (time.Time, bool, error) {
	var oldest time.Time
	found := false
	for _, kind := range []string{"usage-closed", "usage-index"} {
		prefix := persistence.Prefix(kind)
		err := u.store.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
			name, _, _ := strings.Cut(string(k[len(prefix):]), "/")
			h, err := time.Parse(hourLayout, name)
			if err != nil {
				return nil // not ours to judge
			}
			if !found || h.Before(oldest) {
				oldest, found = h, true
			}
			return errStop
		})
		if err != nil && err != errStop {
			return time.Time{}, false, err
		}
	}
	return oldest, found, nil
}

// pruneHour deletes hour h: what its index names, a page of the index at a time (so
// that the keys held stay bounded at any number of tenants), the tenants its marker
// lists (a previous release's), and the marker last.
func (u *Usage) pruneHour(ctx context.Context, h time.Time) error {
	prefix := indexPrefix(h)
	var after []byte
	for {
		var keys [][]byte
		n := 0
		err := u.store.Scan(ctx, prefix, after, indexPage, func(k, v []byte) error {
			n++
			tenant, run, isRun := strings.Cut(string(k[len(prefix):]), "/")
			if isRun {
				var ir indexRecord
				if _, err := persistence.Decode(v, &ir); err != nil {
					return err
				}
				for i := 1; i <= ir.Parts; i++ {
					keys = append(keys, partKey(tenant, h, run, i))
				}
			} else {
				keys = append(keys, hourKey(tenant, h))
			}
			after = append([]byte(nil), k...)
			keys = append(keys, after) // after what it names
			return nil
		})
		if err != nil {
			return err
		}
		if err := u.deleteKeys(ctx, keys); err != nil {
			return err
		}
		if n < indexPage {
			break
		}
	}
	marker := closedKey(h)
	var keys [][]byte
	switch old, err := u.store.Get(ctx, marker); {
	case err == nil:
		var c closedRecord
		if _, err := persistence.Decode(old, &c); err != nil {
			return err
		}
		for _, t := range c.Tenants {
			keys = append(keys, hourKey(t, h))
			err := u.store.Scan(ctx, partsPrefix(t, h), nil, 0, func(k, _ []byte) error {
				keys = append(keys, append([]byte(nil), k...))
				return nil
			})
			if err != nil {
				return err
			}
		}
	case !errors.Is(err, persistence.ErrNotFound):
		return err
	}
	return u.deleteKeys(ctx, append(keys, marker))
}
