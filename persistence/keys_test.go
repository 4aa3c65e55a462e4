package persistence

import (
	"sort"
	"sync"
	"testing"

	"github.com/oklog/ulid/v2"
)

func TestKeyAndPrefix(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		{string(Key(KindVM, "01ABC")), "vm/01ABC"},
		{string(Key(KindFirewall, "t1", "r1")), "fw/t1/r1"},
		{string(Key(KindUserEmail, "a/b@example.com")), "user-email/a/b@example.com"},
		{string(Key("meta")), "meta"},
		{string(Key()), ""},
		{string(Prefix(KindUser)), "user/"},
		{string(Prefix(KindFirewall, "t1")), "fw/t1/"},
		{string(Prefix()), ""},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q; want %q", tt.got, tt.want)
		}
	}
}

func TestNewIDMonotonic(t *testing.T) {
	const goroutines, each = 8, 500
	var mu sync.Mutex
	var all []string
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			ids := make([]string, each)
			for i := range ids {
				ids[i] = NewID()
			}
			// Within one goroutine, each id is greater than the one before.
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Errorf("NewID %q after %q; want increasing ids", ids[i], ids[i-1])
					return
				}
			}
			mu.Lock()
			all = append(all, ids...)
			mu.Unlock()
		})
	}
	wg.Wait()

	sort.Strings(all)
	for i, id := range all {
		if i > 0 && id == all[i-1] {
			t.Fatalf("NewID returned %q twice", id)
		}
		if _, err := ulid.ParseStrict(id); err != nil {
			t.Fatalf("NewID = %q: not a ULID: %v", id, err)
		}
	}
}
