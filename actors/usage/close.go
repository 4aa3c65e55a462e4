package usage

import (
	"cmp"
	"context"
	"errors"
	"slices"
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
	for _, t := range tenants {
		lines := byTenant[t]
		slices.SortFunc(lines, func(a, b UsageLine) int { return cmp.Compare(a.MachineID, b.MachineID) })
		if err := u.writeHour(ctx, t, h, estimated, lines); err != nil {
			return err
		}
	}
	return u.markClosed(ctx, h, estimated, tenants)
}

// writeHour writes one tenant's hour: its first partLines lines in the hour's record,
// the rest in parts of as many (usage-hour/<tenant>/<hour>/<run>/<n>), so that no value
// passes the store's limit however many machines the tenant has (one record of a
// tenant of 3,000 machines, or of the operator's adopted ones, did: the hour then
// failed for every tenant, issue 33). The parts are written first, each its own batch,
// under an id of this run; the record, which names the run and counts its parts, last,
// on the condition that no run wrote it before. So a reader counts one run's parts or
// none, a run that fails or loses the race leaves parts no record names (the loser
// deletes its own, the retention any left), and a tenant's hour is still counted once.
func (u *Usage) writeHour(ctx context.Context, tenant string, h time.Time, estimated bool, lines []UsageLine) error {
	k := hourKey(tenant, h)
	rec := hourRecord{Hour: h, Estimated: estimated, Machines: lines}
	var parts [][]UsageLine
	if len(lines) > partLines {
		if _, err := u.store.Get(ctx, k); err == nil {
			return nil // another run counted this tenant's hour first
		} else if !errors.Is(err, persistence.ErrNotFound) {
			return err
		}
		rec.Machines = lines[:partLines]
		for rest := lines[partLines:]; len(rest) > 0; rest = rest[min(partLines, len(rest)):] {
			parts = append(parts, rest[:min(partLines, len(rest))])
		}
		rec.Run, rec.Parts = persistence.NewID(), len(parts)
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
	err = u.store.Commit(ctx, new(persistence.Batch).Require(persistence.IfAbsent(k)).Put(k, val))
	if err == nil || !persistence.IsConditionFailed(err) {
		return err
	}
	// Another run counted this tenant's hour first: ours are parts no record names.
	if len(parts) > 0 {
		keys := make([][]byte, len(parts))
		for i := range parts {
			keys[i] = partKey(tenant, h, rec.Run, i+1)
		}
		return u.deleteKeys(ctx, keys)
	}
	return nil
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

// markClosed records hour h closed with the tenants written for it. Two runs that
// closed the hour at once (two members, a restart) may each have written tenants the
// other did not: the marker keeps the union, written over the one read (a conditional
// write, again when another changed it), so the retention deletes every tenant's hour.
func (u *Usage) markClosed(ctx context.Context, h time.Time, estimated bool, tenants []string) error {
	k := closedKey(h)
	for {
		cond := persistence.IfAbsent(k)
		c := closedRecord{Hour: h, Estimated: estimated, Tenants: tenants}
		old, err := u.store.Get(ctx, k)
		switch {
		case err == nil:
			var prev closedRecord
			if _, err := persistence.Decode(old, &prev); err != nil {
				return err
			}
			merged := slices.Clone(prev.Tenants)
			for _, t := range tenants {
				if !slices.Contains(merged, t) {
					merged = append(merged, t)
				}
			}
			if len(merged) == len(prev.Tenants) {
				return nil // nothing of ours missing
			}
			slices.Sort(merged)
			prev.Tenants = merged
			c, cond = prev, persistence.IfValue(k, old)
		case !errors.Is(err, persistence.ErrNotFound):
			return err
		}
		val, err := persistence.Encode(closedVersion, c)
		if err != nil {
			return err
		}
		err = u.store.Commit(ctx, new(persistence.Batch).Require(cond).Put(k, val))
		if err == nil || !persistence.IsConditionFailed(err) {
			return err
		}
	}
}

// Prune deletes the hours that ended more than Retention before now, a bounded number
// per call (the job calls it every minute): each hour's tenant records with their
// parts (writeHour), those a run left unnamed included, and its marker last, so that a
// prune cut short is done again from the marker.
func (u *Usage) Prune(ctx context.Context, now time.Time) error {
	cutoff := now.UTC().Add(-u.d.Retention)
	type due struct {
		key []byte
		c   closedRecord
	}
	var hours []due
	err := u.store.Scan(ctx, persistence.Prefix("usage-closed"), nil, 24, func(k, v []byte) error {
		var c closedRecord
		if _, err := persistence.Decode(v, &c); err != nil {
			return err
		}
		if c.Hour.Add(time.Hour).After(cutoff) {
			return errStop
		}
		hours = append(hours, due{append([]byte(nil), k...), c})
		return nil
	})
	if err != nil && err != errStop {
		return err
	}
	for _, d := range hours {
		var keys [][]byte
		for _, t := range d.c.Tenants {
			keys = append(keys, hourKey(t, d.c.Hour))
			err := u.store.Scan(ctx, partsPrefix(t, d.c.Hour), nil, 0, func(k, _ []byte) error {
				keys = append(keys, append([]byte(nil), k...))
				return nil
			})
			if err != nil {
				return err
			}
		}
		if err := u.deleteKeys(ctx, append(keys, d.key)); err != nil {
			return err
		}
	}
	return nil
}
