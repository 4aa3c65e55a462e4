package fresh

import (
	"context"
	"testing"
	"time"

	"github.com/vmplane/vmplane/persistence"
	"github.com/vmplane/vmplane/persistence/storetest"
)

func openStore(t *testing.T) persistence.Store {
	t.Helper()
	s, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestCache: a cache serves only while the watch's clock is recent, drops an entity
// whose keys change (any key under its prefixes), keeps no answer asked for across
// such a change, empties on a reset of the watch, and is off on a store that is not
// shared or whose watch keeps no time.
func TestCache(t *testing.T) {
	store := &storetest.Clocked{Store: openStore(t)}
	c := New[int](store, 2, "user", "refresh")
	if c == nil {
		t.Fatal("no cache on a shared store whose watch keeps time")
	}
	if New[int](openStore(t), 2, "user") != nil || New[int](storetest.Shared{Store: openStore(t)}, 2, "user") != nil {
		t.Fatal("a cache on a store that is not shared, or whose watch keeps no time")
	}
	var off *Cache[int]
	off.Keep("u1", 1, off.Begin())
	off.Invalidate("u1")
	if _, ok := off.Get("u1"); ok {
		t.Fatal("an off cache served")
	}
	hit := func(id string, want int) bool {
		t.Helper()
		got, ok := c.Get(id)
		if ok && got != want {
			t.Fatalf("Get(%s) = %d; want %d", id, got, want)
		}
		return ok
	}
	put := func(key []byte) {
		t.Helper()
		if err := store.Commit(context.Background(), new(persistence.Batch).Put(key, []byte("x"))); err != nil {
			t.Fatal(err)
		}
	}

	c.Keep("u1", 1, c.Begin())
	if hit("u1", 1) {
		t.Fatal("served before the watch's clock ever caught up")
	}
	store.Set(time.Now().Add(time.Hour)) // caught up from now on
	if !hit("u1", 1) {
		t.Fatal("not served with the clock caught up")
	}
	put(persistence.Key("user", "u1"))
	if hit("u1", 1) {
		t.Fatal("served after the entity's record changed")
	}
	c.Keep("u1", 1, c.Begin())
	put(persistence.Key("refresh", "u1", "s1"))
	if hit("u1", 1) {
		t.Fatal("served after a key under the entity's second prefix changed")
	}
	c.Keep("u2", 2, c.Begin())
	put(persistence.Key("user-email", "u2")) // not one of u2's keys
	if !hit("u2", 2) {
		t.Fatal("dropped by a key under another prefix")
	}

	// An answer asked for before a change (of any entity) is not kept.
	gen := c.Begin()
	put(persistence.Key("user", "u3"))
	c.Keep("u1", 1, gen)
	if hit("u1", 1) {
		t.Fatal("kept an answer asked for before a change")
	}

	// Stale clock: nothing is served, and served again once it is recent.
	c.Keep("u1", 1, c.Begin())
	store.Set(time.Now().Add(-2 * Window))
	if hit("u1", 1) || hit("u2", 2) {
		t.Fatal("served with the watch's clock older than the window")
	}
	store.Set(time.Now().Add(time.Hour))
	if !hit("u1", 1) {
		t.Fatal("not served once the clock is recent again")
	}

	// A reset of the watch empties the cache.
	store.Resets.Add(1)
	if hit("u1", 1) || hit("u2", 2) {
		t.Fatal("served across a reset of the watch")
	}
	c.Keep("u1", 1, c.Begin())
	if !hit("u1", 1) {
		t.Fatal("not served after the reset was taken in")
	}

	// At its bound it starts again empty.
	c.Keep("u2", 2, c.Begin())
	c.Keep("u3", 3, c.Begin())
	if hit("u1", 1) || hit("u2", 2) || !hit("u3", 3) {
		t.Fatal("past its bound, the cache did not start again with the newest entry alone")
	}
}
