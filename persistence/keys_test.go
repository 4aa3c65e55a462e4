package persistence

import (
	"sort"
	"sync"
	"testing"

	"github.com/oklog/ulid/v2"
)

func TestKeyAndPrefix(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// AppendKey writes Key's bytes, KeyLen is their length, and keys cut from one buffer
// with full slice expressions stay apart when the first is appended to.
func TestAppendKeyIsKey(t *testing.T) {
	t.Parallel()
	for _, parts := range [][]string{nil, {"a"}, {"fw", "t1", "r1"}, {"audit-tenant", "", "x"}} {
		want := Key(parts...)
		if got := AppendKey(nil, parts...); string(got) != string(want) {
			t.Errorf("AppendKey(%q) = %q; want %q", parts, got, want)
		}
		if n := KeyLen(parts...); n != len(want) {
			t.Errorf("KeyLen(%q) = %d; want %d", parts, n, len(want))
		}
	}
	buf := make([]byte, 0, KeyLen("fw", "t", "r")+KeyLen("fw-rule", "r"))
	a := AppendKey(buf, "fw", "t", "r")
	a = a[:len(a):len(a)]
	b := AppendKey(buf[len(a):len(a)], "fw-rule", "r")
	if &b[0] != &buf[:cap(buf)][len(a)] {
		t.Fatal("the second key did not share the buffer")
	}
	_ = append(a, "/more"...)
	if string(a) != "fw/t/r" || string(b) != "fw-rule/r" {
		t.Fatalf("got %q and %q; want fw/t/r and fw-rule/r", a, b)
	}
}
