package persistence

import (
	"context"
	"sync"
	"testing"
)

// TestWatchSeesCommittedKeys checks the contract read caches rely on: a watcher hears of
// every put and delete under its prefix, and only those, after the write is visible and
// before Commit returns; in both commit modes.
func TestWatchSeesCommittedKeys(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		opts Options
	}{{"group-commit", Options{}}, {"sync-each-write", Options{NoGroupCommit: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			s := openStore(t, mode.opts)
			var (
				mu      sync.Mutex
				heard   []string
				visible = map[string]bool{}
			)
			s.Watch([]byte("vm/"), func(key []byte) {
				_, err := s.Get(context.Background(), key) // a test may look; production watchers must not
				mu.Lock()
				defer mu.Unlock()
				heard = append(heard, string(key))
				visible[string(key)] = err == nil
			})
			mustCommit(t, s, new(Batch).Put([]byte("vm/a"), []byte("1")).Put([]byte("vmx/b"), []byte("2")).Put([]byte("tenant/c"), []byte("3")))
			mu.Lock()
			if len(heard) != 1 || heard[0] != "vm/a" || !visible["vm/a"] {
				t.Fatalf("after the put, heard %v (visible %v), want [vm/a] visible when Commit returns", heard, visible)
			}
			mu.Unlock()
			mustCommit(t, s, new(Batch).Del([]byte("vm/a")))
			mu.Lock()
			if len(heard) != 2 || heard[1] != "vm/a" || visible["vm/a"] {
				t.Fatalf("after the delete, heard %v (visible %v), want a second vm/a, gone", heard, visible)
			}
			mu.Unlock()
		})
	}
}

// TestWatchConcurrentCommits: every key of many concurrent commits is heard once each.
func TestWatchConcurrentCommits(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})
	var mu sync.Mutex
	heard := map[string]int{}
	s.Watch([]byte("k/"), func(key []byte) {
		mu.Lock()
		heard[string(key)]++
		mu.Unlock()
	})
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Commit(context.Background(), new(Batch).Put(Key("k", string(rune('A'+i))), []byte("v"))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(heard) != 64 {
		t.Fatalf("heard %d distinct keys, want 64", len(heard))
	}
	for k, n := range heard {
		if n != 1 {
			t.Errorf("%s heard %d times", k, n)
		}
	}
}
