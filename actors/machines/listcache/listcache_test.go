package listcache

import (
	"fmt"
	"testing"

	"github.com/vmplane/vmplane/actors/kit/kittest"
)

// TestMain fails the tests if they leave a goroutine running.
func TestMain(m *testing.M) { kittest.Main(m) }

type item struct{ ID, Name string }

const bound = 1000

func newCache() *Cache[item] { return New(bound, func(i *item) string { return i.ID }) }

// TestCacheDropsWhatAWriteTouches: a write named by item drops the pages of the owner
// holding it, and only those; one named by owner drops that owner's.
func TestCacheDropsWhatAWriteTouches(t *testing.T) {
	c := newCache()
	c.Put("t1", 50, &Page[item]{Items: []item{{ID: "m1"}}}, c.Now())
	c.Put("t2", 50, &Page[item]{Items: []item{{ID: "m2"}}}, c.Now())
	c.Invalidate("", "m1")
	if c.Get("t1", 50) != nil || c.Get("t2", 50) == nil {
		t.Fatal("a write of m1 did not drop t1's page alone")
	}
	c.Invalidate("t2", "")
	if c.Get("t2", 50) != nil {
		t.Fatal("a write of t2's index kept its page")
	}
}

// TestCacheRefusesRacedPages: a page read while a write was acknowledged may hold the
// old record, so it is not kept.
func TestCacheRefusesRacedPages(t *testing.T) {
	c := newCache()
	seq := c.Now()
	c.Invalidate("", "m1") // a write acknowledged after seq was taken
	c.Put("t1", 50, &Page[item]{Items: []item{{ID: "m1", Name: "stale"}}}, seq)
	if c.Get("t1", 50) != nil {
		t.Fatal("a page read across a write was kept")
	}
	c.Put("t1", 50, &Page[item]{Items: []item{{ID: "m1", Name: "one"}}}, c.Now())
	if c.Get("t1", 50) == nil {
		t.Fatal("a page read with no write in between was not kept")
	}
}

// TestCacheBound: the cache never holds more than its bound.
func TestCacheBound(t *testing.T) {
	c := newCache()
	page := func(owner string, n int) *Page[item] {
		p := &Page[item]{}
		for i := range n {
			p.Items = append(p.Items, item{ID: fmt.Sprintf("%s-%d", owner, i)})
		}
		return p
	}
	for i := range 5 {
		c.Put(fmt.Sprintf("t%d", i), 500, page(fmt.Sprintf("t%d", i), bound/4), c.Now())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, byLimit := range c.pages {
		for _, p := range byLimit {
			total += len(p.Items)
		}
	}
	if total > bound || total != c.items || len(c.owner) != total {
		t.Fatalf("holding %d items (counted %d, %d owners); want at most %d, counts agreeing", total, c.items, len(c.owner), bound)
	}
	if len(c.pages) != 4 {
		t.Fatalf("holding %d owners; want the 4 that fit", len(c.pages))
	}
}

// TestCacheBoundsEmptyPages: pages of owners with nothing count too.
func TestCacheBoundsEmptyPages(t *testing.T) {
	c := newCache()
	for i := range bound + 100 {
		c.Put(fmt.Sprintf("nobody-%d", i), 50, &Page[item]{}, c.Now())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pages) > bound || c.items > bound {
		t.Fatalf("holding %d empty pages (cost %d); want at most %d", len(c.pages), c.items, bound)
	}
}

// TestPageEncodedOnce: a page's encoding is computed once; a failed one is not kept.
func TestPageEncodedOnce(t *testing.T) {
	p := &Page[item]{}
	calls := 0
	enc := func(*Page[item]) ([]byte, error) {
		calls++
		if calls == 1 {
			return nil, fmt.Errorf("boom")
		}
		return []byte("x"), nil
	}
	if _, err := p.Encoded(enc); err == nil {
		t.Fatal("the failed encoding was not answered")
	}
	for range 2 {
		if b, err := p.Encoded(enc); err != nil || string(b) != "x" {
			t.Fatalf("got %q, %v; want x", b, err)
		}
	}
	if calls != 2 {
		t.Fatalf("encoded %d times; want 2 (the failure, then once)", calls)
	}
}
