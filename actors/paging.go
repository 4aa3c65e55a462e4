package actors

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// errStopScan ends a Scan early without being an error.
var errStopScan = errors.New("stop scan")

// scanFiltered is the one pager of the store's lists: it walks the keys under prefix
// in order, after the cursor, turning each (key suffix, value) into an item or
// skipping it, until limit items (0: all). The cursor of the next page is the suffix of
// the last item returned, so filtered lists page correctly; it is empty on the last.
func scanFiltered[T any](store persistence.Store, prefix []byte, cursor string, limit int, item func(suffix string, v []byte) (T, bool, error)) ([]T, string, error) {
	var after []byte
	if cursor != "" {
		after = append(append([]byte{}, prefix...), cursor...)
	}
	out := []T{}
	var last string
	more := false
	err := store.Scan(prefix, after, 0, func(k, v []byte) error {
		if limit > 0 && len(out) == limit {
			more = true
			return errStopScan
		}
		suffix := string(k[len(prefix):])
		it, ok, err := item(suffix, v)
		if err != nil {
			return err
		}
		if ok {
			out = append(out, it)
			last = suffix
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return nil, "", err
	}
	if !more {
		last = ""
	}
	return out, last, nil
}

// scanPage pages through records stored under prefix, decoding each as R and keeping
// those keep accepts.
func scanPage[R any, T any](store persistence.Store, prefix []byte, cursor string, limit int, keep func(*R) (T, bool)) ([]T, string, error) {
	return scanFiltered(store, prefix, cursor, limit, func(_ string, v []byte) (T, bool, error) {
		var rec R
		if _, err := persistence.Decode(v, &rec); err != nil {
			var zero T
			return zero, false, err
		}
		it, ok := keep(&rec)
		return it, ok, nil
	})
}

// scanIndex pages through an index of ids (keys prefix+id) and loads each record; ids
// whose record is gone are skipped.
func scanIndex[T any](store persistence.Store, prefix []byte, cursor string, limit int, load func(id string) (*T, error)) ([]T, string, error) {
	return scanFiltered(store, prefix, cursor, limit, func(id string, _ []byte) (T, bool, error) {
		v, err := load(id)
		if errors.Is(err, persistence.ErrNotFound) {
			var zero T
			return zero, false, nil
		}
		if err != nil {
			var zero T
			return zero, false, err
		}
		return *v, true, nil
	})
}

// scanIndexFiltered is scanIndex for items that a filter may also skip.
func scanIndexFiltered[T any](store persistence.Store, prefix []byte, cursor string, limit int, item func(id string) (T, bool, error)) ([]T, string, error) {
	return scanFiltered(store, prefix, cursor, limit, func(id string, _ []byte) (T, bool, error) { return item(id) })
}

// pageSlice pages through items, already in list order, from index start: it keeps
// those keep accepts, up to limit (0: all). last is the index of the page's last item
// when more items follow it, -1 on the last page.
func pageSlice[T any](items []T, start, limit int, keep func(T) bool) (page []T, last int) {
	page = []T{}
	for i := max(start, 0); i < len(items); i++ {
		if !keep(items[i]) {
			continue
		}
		if limit > 0 && len(page) == limit {
			return page, last
		}
		page = append(page, items[i])
		last = i
	}
	return page, -1
}

// badCursor answers a cursor that no page of the list handed out.
func badCursor() error { return apierr.Invalid(apierr.Field("cursor", "is not a cursor of this list")) }

// rulePage answers a listRules: a page of the tenant's rules in position order (a
// machine's set when MachineID is set). Rules have positions, not keys, so a cursor is
// "<position>.<id>" of the page's last rule: the next page starts after that rule
// wherever it is now, or, when it was deleted, at the position it had (the rules
// after it moved up by one).
func (e *tenantEntity) rulePage(m *listRules) any {
	start := 0
	if m.Cursor != "" {
		pos, id, ok := strings.Cut(m.Cursor, ".")
		n, err := strconv.Atoi(pos)
		if !ok || err != nil || n < 1 {
			return badCursor()
		}
		start = n - 1
		if r, ok := e.ruleIDs[id]; ok {
			start = r.Position
		}
	}
	page, last := pageSlice(e.rules, start, m.Limit, func(r *FirewallRule) bool {
		return m.MachineID == nil || r.MachineID == nil || *r.MachineID == *m.MachineID
	})
	out := Rules{Items: make([]FirewallRule, len(page))}
	for i, r := range page {
		out.Items[i] = *r
	}
	if last >= 0 {
		out.Next = strconv.Itoa(e.rules[last].Position) + "." + e.rules[last].ID
	}
	return out
}

// Page returns a page of a tenant's rules in position order, optionally only a
// machine's set, after the cursor (the next cursor of the previous page).
func (f Firewall) Page(ctx context.Context, tenant string, machineID *string, cursor string, limit int) ([]FirewallRule, string, error) {
	r, err := ask[Rules](ctx, f.t.sys, f.t.kind.pid, &envelope{ID: tenant, Msg: &listRules{MachineID: machineID, Cursor: cursor, Limit: limit}})
	return r.Items, r.Next, err
}
