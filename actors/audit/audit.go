// Package audit is the audit log: who did what, to what, with what result. An entry is
// written in the batch of the change it records (the rooms add it with
// kit.Runtime.Audit, through the writer this package hands the runtime), or alone for
// a request that was refused before it changed anything. The log is read newest first,
// by operators whole and by a tenant's users for their tenant only, and entries older
// than the retention are pruned by a cluster-wide job.
package audit

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Entry is one entry of the log (kit's type: it travels with requests).
type Entry = kit.AuditEntry

// DefaultRetention is how long entries are kept unless configured.
const DefaultRetention = 90 * 24 * time.Hour

// pruneInterval is how often the retention job runs; pruneBatch how many entries one
// of its batches deletes.
const (
	pruneInterval = time.Hour
	pruneBatch    = 256
)

const entryVersion = 1

// NewID makes the id of an entry made at t: the time inverted (so that the store's
// ascending order is newest first), then random digits that keep two entries of one
// nanosecond apart.
func NewID(t time.Time) string {
	// math/rand: the digits only keep ids of one nanosecond apart, and cost no system
	// call on every change.
	var b [27]byte
	appendHex(b[:0], uint64(math.MaxUint64)-uint64(t.UnixNano()), 16)
	b[16] = '-'
	appendHex(b[:17], rand.Uint64()&(1<<40-1), 10)
	return string(b[:])
}

// appendHex appends v in width lower-case hex digits, zero-padded (v must fit).
func appendHex(dst []byte, v uint64, width int) []byte {
	const digits = "0123456789abcdef"
	n := len(dst)
	dst = append(dst, make([]byte, width)...)
	for i := n + width - 1; i >= n; i-- {
		dst[i] = digits[v&0xf]
		v >>= 4
	}
	return dst
}

// timePart is the part of an id that orders it: math.MaxUint64 less t's nanoseconds,
// in 16 hex digits.
func timePart(t time.Time) string {
	return fmt.Sprintf("%016x", uint64(math.MaxUint64)-uint64(t.UnixNano()))
}

// validID reports whether s has NewID's shape (a cursor handed out by a list).
func validID(s string) bool {
	tp, rnd, ok := strings.Cut(s, "-")
	if !ok || len(tp) != 16 || len(rnd) != 10 {
		return false
	}
	_, e1 := hex.DecodeString(tp)
	_, e2 := hex.DecodeString(rnd)
	return e1 == nil && e2 == nil
}

func entryKey(id string) []byte          { return persistence.Key("audit", id) }
func tenantKey(tenant, id string) []byte { return persistence.Key("audit-tenant", tenant, id) }

// Deps are what the log needs.
type Deps struct {
	Runtime *kit.Runtime
	// Retention is how long entries are kept (0: DefaultRetention; negative: for ever).
	Retention time.Duration
}

// Log is the audit log.
type Log struct {
	rt        *kit.Runtime
	retention time.Duration
	loop      *kit.Loop
}

// Start installs the log's writer in the runtime (kit.Runtime.Audit) and starts the
// retention job.
func Start(d Deps) *Log {
	l := &Log{rt: d.Runtime, retention: d.Retention}
	if l.retention == 0 {
		l.retention = DefaultRetention
	}
	d.Runtime.SetAuditor(put)
	if l.retention > 0 {
		l.loop = d.Runtime.EveryOnOne("audit retention", pruneInterval, true, func(ctx context.Context, _ time.Time) {
			// The clock's time, not the tick's: a tick late (a fake clock advanced by
			// a day ticks once) prunes up to now.
			if _, err := l.Prune(ctx, l.rt.Clock.Now().Add(-l.retention)); err != nil {
				l.rt.Log.Warn("audit log not pruned", zap.Error(err))
			}
		})
	}
	return l
}

// Stop ends the retention job.
func (l *Log) Stop() {
	if l.loop != nil {
		l.loop.Stop()
	}
}

// put adds e to b: the entry and, when it concerns a tenant, the tenant's index key
// (a key alone: a copy of the entry would double what every change writes).
func put(b *persistence.Batch, e *Entry) error {
	if e.ID == "" {
		e.ID = NewID(e.Time)
	}
	v, err := encodeEntry(e)
	if err != nil {
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrInternal, "storage: cannot encode record"), err)
	}
	if e.TenantID == "" {
		b.Put(entryKey(e.ID), v)
		return nil
	}
	// Both keys in one allocation (persistence.AppendKey).
	buf := make([]byte, 0, persistence.KeyLen("audit", e.ID)+persistence.KeyLen("audit-tenant", e.TenantID, e.ID))
	ek := persistence.AppendKey(buf, "audit", e.ID)
	ek = ek[:len(ek):len(ek)]
	tk := persistence.AppendKey(buf[len(ek):len(ek)], "audit-tenant", e.TenantID, e.ID)
	b.Put(ek, v).Put(tk, nil)
	return nil
}

// Record writes e alone, unless an entry with its id is there already (the change
// it records carried it into its own batch): a refusal, which changed nothing, and
// the entry of a change whose room did not carry it (written just after the change).
func (l *Log) Record(ctx context.Context, e *Entry) error {
	if e == nil {
		return nil
	}
	c := *e
	if c.Time.IsZero() {
		c.Time = l.rt.Clock.Now().UTC()
	}
	if c.Result == "" {
		c.Result = kit.AuditResultOK
	}
	b := new(persistence.Batch)
	if err := put(b, &c); err != nil {
		return apierr.New(apierr.ErrInternal, "audit: %v", err)
	}
	b.Require(persistence.IfAbsent(entryKey(c.ID)))
	if err := l.rt.Store.Commit(ctx, b); err != nil && !persistence.IsConditionFailed(err) {
		return err
	}
	return nil
}

// Filter selects entries of the log; its zero value selects all.
type Filter struct {
	// Actor is a user or API key id: entries it made, or made for it (a key's user).
	Actor string
	// Target is a target's id, or kind/id.
	Target string
	// Action is an action as recorded ("POST /api/client/firewall/rules").
	Action string
	// Since and Until bound the entries' times (zero: unbounded), both included.
	Since, Until time.Time
}

func (f Filter) keep(e *Entry) bool {
	if f.Actor != "" && e.Actor != f.Actor && e.UserID != f.Actor {
		return false
	}
	if f.Target != "" && e.TargetID != f.Target && e.TargetKind+"/"+e.TargetID != f.Target {
		return false
	}
	if f.Action != "" && e.Action != f.Action {
		return false
	}
	return f.Until.IsZero() || !e.Time.After(f.Until)
}

// List pages through the entries f selects, newest first. tenant confines them to one
// tenant's (nil: every entry, for operators); an entry that concerns no tenant is an
// operator's only.
func (l *Log) List(ctx context.Context, tenant *string, f Filter, cursor string, limit int) ([]Entry, string, error) {
	if cursor != "" && !validID(cursor) {
		return nil, "", kit.BadCursor()
	}
	// Entries newer than Until come first: start past them.
	if !f.Until.IsZero() && cursor == "" {
		cursor = timePart(f.Until.Add(time.Nanosecond))
	}
	keep := func(v []byte) (Entry, bool, error) {
		var e Entry
		if _, err := persistence.Decode(v, &e); err != nil {
			return e, false, err
		}
		if !f.Since.IsZero() && e.Time.Before(f.Since) {
			return e, false, kit.ErrStopScan // older still follow
		}
		return e, f.keep(&e), nil
	}
	if tenant == nil {
		return kit.ScanFiltered(ctx, l.rt.Store, persistence.Prefix("audit"), cursor, limit, func(_ string, v []byte) (Entry, bool, error) {
			return keep(v)
		})
	}
	// A tenant's index names its entries; an entry pruned meanwhile is skipped.
	// The page's entries in one read: on a cluster, one request to etcd, not one each.
	return kit.ScanIndexMany(ctx, l.rt.Store, persistence.Prefix("audit-tenant", *tenant), cursor, limit, entryKey, func(_ string, v []byte) (Entry, bool, error) {
		return keep(v)
	})
}

// Prune deletes the entries made before before, and says how many.
func (l *Log) Prune(ctx context.Context, before time.Time) (int, error) {
	prefix := persistence.Prefix("audit")
	after := append(append([]byte{}, prefix...), timePart(before)...)
	n := 0
	for {
		b := new(persistence.Batch)
		count := 0
		err := l.rt.Store.Scan(ctx, prefix, after, 0, func(k, v []byte) error {
			if count == pruneBatch {
				return kit.ErrStopScan
			}
			var e Entry
			if _, err := persistence.Decode(v, &e); err == nil && e.TenantID != "" {
				b.Del(tenantKey(e.TenantID, string(k[len(prefix):])))
			}
			b.Del(append([]byte(nil), k...))
			count++
			return nil
		})
		if err != nil && !errors.Is(err, kit.ErrStopScan) {
			return n, err
		}
		if count == 0 {
			return n, nil
		}
		if err := l.rt.Store.Commit(ctx, b); err != nil {
			return n, err
		}
		n += count
	}
}
