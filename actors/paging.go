package actors

import (
	"errors"

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
