package kit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/persistence"
)

// indexStore is a store for the index tests, the prefix of tenant t1's index and the key
// of a record.
func indexStore(t *testing.T) (*persistence.Badger, []byte, func(id string) []byte) {
	t.Helper()
	s, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, persistence.Prefix("idx", "t1"), func(id string) []byte { return persistence.Prefix("rec", id) }
}

// TestScanIndexManyPages: ScanIndexMany pages an index whose records are partly gone
// or filtered out exactly as the index's present, kept items in order, each page full
// while more follow, the cursor of the last page empty, whatever the limit.
func TestScanIndexManyPages(t *testing.T) {
	s, index, record := indexStore(t)
	b := new(persistence.Batch)
	var want []string
	for i := 1; i <= 30; i++ {
		id := fmt.Sprintf("%02d", i)
		b.Put(append(append([]byte{}, index...), id...), nil)
		switch {
		case i >= 5 && i <= 9, i >= 26: // gone: deleted after the index was read
		case i%4 == 0: // skipped by the filter
			b.Put(record(id), []byte("skip-"+id))
		default:
			b.Put(record(id), []byte("v-"+id))
			want = append(want, "v-"+id)
		}
	}
	b.Put(append(persistence.Prefix("idx", "t2"), "01"...), nil) // another owner's
	b.Put(record("x"), []byte("v-x"))
	if err := s.Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	item := func(id string, v []byte) (string, bool, error) {
		if !strings.HasSuffix(string(v), id) {
			return "", false, fmt.Errorf("record of %s is %q", id, v)
		}
		return string(v), !strings.HasPrefix(string(v), "skip-"), nil
	}
	for _, limit := range []int{0, 1, 2, 3, 5, 7, len(want), len(want) + 1, 100} {
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > len(want)+1 {
				t.Fatalf("limit %d: more pages than items", limit)
			}
			page, next, err := ScanIndexMany(context.Background(), s, index, cursor, limit, record, item)
			if err != nil {
				t.Fatalf("limit %d: %v", limit, err)
			}
			if next != "" && len(page) != limit {
				t.Fatalf("limit %d: a page of %d items followed by another", limit, len(page))
			}
			if next != "" && !strings.HasSuffix(page[len(page)-1], next) {
				t.Fatalf("limit %d: cursor %q is not the page's last item %q", limit, next, page[len(page)-1])
			}
			got = append(got, page...)
			if next == "" {
				break
			}
			cursor = next
		}
		if !slices.Equal(got, want) {
			t.Fatalf("limit %d: got %q; want %q", limit, got, want)
		}
	}
}

// TestScanIndexManyStops: an item that returns ErrStopScan ends the list there, as it
// ends ScanFiltered's: the items before it, no next page, no error. (The audit log's
// tenant list stops at the first entry older than its Since; it answered 500 when
// ScanIndexMany passed ErrStopScan on as an error.)
func TestScanIndexManyStops(t *testing.T) {
	s, index, record := indexStore(t)
	b := new(persistence.Batch)
	for i := 1; i <= 10; i++ {
		id := fmt.Sprintf("%02d", i)
		b.Put(append(append([]byte{}, index...), id...), nil).Put(record(id), []byte(id))
	}
	if err := s.Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	item := func(id string, v []byte) (string, bool, error) {
		if id == "04" {
			return "", false, ErrStopScan
		}
		return string(v), true, nil
	}
	for _, limit := range []int{0, 2, 3, 5} {
		if limit == 3 {
			if page, next, err := ScanIndexMany(context.Background(), s, index, "03", limit, record, item); err != nil || len(page) != 0 || next != "" {
				t.Fatalf("the page after the stop: got %q, next %q, %v; want none", page, next, err)
			}
		}
		page, next, err := ScanIndexMany(context.Background(), s, index, "", limit, record, item)
		want := []string{"01", "02", "03"}
		if limit > 0 && limit < 3 {
			want = want[:limit]
		}
		// A page filled before the stop is seen names a next page (ScanFiltered's too),
		// which the stop then ends empty.
		if err != nil || !slices.Equal(page, want) || (limit > 3 || limit == 0) && next != "" {
			t.Fatalf("limit %d: got %q, next %q, %v; want %q and no error", limit, page, next, err, want)
		}
	}
}
