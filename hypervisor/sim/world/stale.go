package world

import (
	"slices"
	"sync"
)

// maxStale is how many records may be named before the next call reads the whole
// world rather than record by record.
const maxStale = 64

// Stale are the records the store's watch named (another member wrote them) that are
// still to be read, or all of them once too many were named. It has a lock of its own:
// the watch marks from the store's goroutine. The zero Stale is empty.
type Stale struct {
	mu   sync.Mutex
	keys map[string]bool
	all  bool
}

// Mark notes records to read from the store.
func (s *Stale) Mark(keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.all {
		return
	}
	if s.keys == nil {
		s.keys = make(map[string]bool)
	}
	for _, k := range keys {
		s.keys[k] = true
	}
	if len(s.keys) > maxStale {
		s.keys, s.all = nil, true
	}
}

// MarkAll notes that the whole world is to be read again.
func (s *Stale) MarkAll() {
	s.mu.Lock()
	s.keys, s.all = nil, true
	s.mu.Unlock()
}

// Take returns, and forgets, what is to be read: the keys in order, or all.
func (s *Stale) Take() (keys []string, all bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys, all = slices.Sorted(func(yield func(string) bool) {
		for k := range s.keys {
			if !yield(k) {
				return
			}
		}
	}), s.all
	s.keys, s.all = nil, false
	return keys, all
}
