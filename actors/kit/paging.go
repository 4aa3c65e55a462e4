package kit

import (
	"context"
	"errors"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// ErrStopScan ends a Scan early without being an error.
var ErrStopScan = errors.New("stop scan")

// ScanFiltered is the one pager of the store's lists: it walks the keys under prefix
// in order, after the cursor, turning each (key suffix, value) into an item or
// skipping it, until limit items (0: all). The cursor of the next page is the suffix of
// the last item returned, so filtered lists page correctly; it is empty on the last.
func ScanFiltered[T any](ctx context.Context, store persistence.Store, prefix []byte, cursor string, limit int, item func(suffix string, v []byte) (T, bool, error)) ([]T, string, error) {
	var after []byte
	if cursor != "" {
		after = append(append([]byte{}, prefix...), cursor...)
	}
	out := []T{}
	var last string
	more := false
	err := store.Scan(ctx, prefix, after, 0, func(k, v []byte) error {
		if limit > 0 && len(out) == limit {
			more = true
			return ErrStopScan
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
	if err != nil && !errors.Is(err, ErrStopScan) {
		return nil, "", err
	}
	if !more {
		last = ""
	}
	return out, last, nil
}

// ScanPage pages through records stored under prefix, decoding each as R and keeping
// those keep accepts.
func ScanPage[R any, T any](ctx context.Context, store persistence.Store, prefix []byte, cursor string, limit int, keep func(*R) (T, bool)) ([]T, string, error) {
	return ScanFiltered(ctx, store, prefix, cursor, limit, func(_ string, v []byte) (T, bool, error) {
		var rec R
		if _, err := persistence.Decode(v, &rec); err != nil {
			var zero T
			return zero, false, err
		}
		it, ok := keep(&rec)
		return it, ok, nil
	})
}

// ScanIndexMany pages through an index of ids (keys prefix+id) with the page's records
// read together (persistence.GetMany: one request to etcd, not one per record): the ids of
// the page (and one more, to know whether another page follows) from the index, then
// their records, key(id) each, turned into items or skipped by item (it is not called
// for a record that is gone). Records gone or skipped leave the page short: the index
// is read on from the last id until the page is full or the index ends, or until item
// returns ErrStopScan (ScanFiltered's way to end a list early: the rest is not wanted).
func ScanIndexMany[T any](ctx context.Context, store persistence.Store, prefix []byte, cursor string, limit int, key func(id string) []byte, item func(id string, v []byte) (T, bool, error)) ([]T, string, error) {
	out := []T{}
	after := cursor // where the index is read on from
	last := ""      // the id of the page's last item
	for {
		want := 0 // the whole index
		if limit > 0 {
			want = limit - len(out) + 1
		}
		var from []byte
		if after != "" {
			from = append(append([]byte{}, prefix...), after...)
		}
		var ids []string
		var keys [][]byte
		err := store.Scan(ctx, prefix, from, want, func(k, _ []byte) error {
			id := string(k[len(prefix):])
			ids, keys = append(ids, id), append(keys, key(id))
			return nil
		})
		if err != nil {
			return nil, "", err
		}
		values, err := persistence.GetMany(ctx, store, keys)
		if err != nil {
			return nil, "", err
		}
		for i, v := range values {
			if limit > 0 && len(out) == limit {
				return out, last, nil // ids[i] follows the page
			}
			if v == nil {
				continue // deleted between the index's read and its own
			}
			it, ok, err := item(ids[i], v)
			if errors.Is(err, ErrStopScan) {
				return out, "", nil // item saw that nothing after this one belongs
			}
			if err != nil {
				return nil, "", err
			}
			if ok {
				out = append(out, it)
				last = ids[i]
			}
		}
		if want == 0 || len(ids) < want {
			return out, "", nil // the index ended
		}
		after = ids[len(ids)-1]
	}
}

// PageSlice pages through items, already in list order, from index start: it keeps
// those keep accepts, up to limit (0: all). last is the index of the page's last item
// when more items follow it, -1 on the last page.
func PageSlice[T any](items []T, start, limit int, keep func(T) bool) (page []T, last int) {
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

// BadCursor answers a cursor that no page of the list handed out.
func BadCursor() error { return apierr.Invalid(apierr.Field("cursor", "is not a cursor of this list")) }

// LoadOptional is persistence.Load for an entity's own record, where a missing one is
// not an error: the entity starts empty (nil) and answers not-found or takes a create.
func LoadOptional[T any](ctx context.Context, store persistence.Store, key []byte) (*T, error) {
	v, err := persistence.Load[T](ctx, store, key)
	if errors.Is(err, persistence.ErrNotFound) {
		return nil, nil
	}
	return v, err
}

// InScope reports whether a record of owner is visible to a caller scoped to tenant
// (nil: an operator, who sees everything).
func InScope(tenant, owner *string) bool {
	return tenant == nil || (owner != nil && *owner == *tenant)
}

// Ptr returns a pointer to a copy of v.
func Ptr[T any](v T) *T { return &v }
