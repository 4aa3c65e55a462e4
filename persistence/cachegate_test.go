package persistence_test

import (
	"context"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// gatedStore is a store for CacheGate: only Shared and CaughtUp are used.
type gatedStore struct {
	persistence.Store
	shared bool
	resets uint64
	err    error
	calls  int
}

func (s *gatedStore) Shared() bool { return s.shared }

// barrierStore is gatedStore with a barrier.
type barrierStore struct{ *gatedStore }

func (s barrierStore) CaughtUp(ctx context.Context) (uint64, error) {
	s.calls++
	return s.resets, s.err
}

// TestCacheGate: a store that is not shared always serves from the cache and is never
// asked to catch up; a shared one without a barrier never does; with one, it serves
// once caught up and not when catching up fails, and the cache is emptied once each
// time the watch's reset count moves.
func TestCacheGate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cleared := 0
	clear := func() { cleared++ }

	local := barrierStore{&gatedStore{}}
	if g := persistence.NewCacheGate(local, clear); !g.Open(ctx) || local.calls != 0 {
		t.Fatalf("a store that is not shared: served %v after %d catch-ups; want served, none", g.Open(ctx), local.calls)
	}
	if g := persistence.NewCacheGate(&gatedStore{shared: true}, clear); g.Open(ctx) {
		t.Fatal("a shared store without a barrier serves from the cache")
	}

	s := barrierStore{&gatedStore{shared: true}}
	g := persistence.NewCacheGate(s, clear)
	for i, step := range []struct {
		resets  uint64
		err     error
		serves  bool
		cleared int
	}{
		{0, nil, true, 0},
		{0, apierr.New(apierr.ErrUnavailable, "etcd unreachable"), false, 0},
		{1, nil, true, 1},
		{1, nil, true, 1},
		{0, nil, true, 1}, // a round read before the reset: the cache is already empty
		{3, nil, true, 2},
	} {
		s.resets, s.err = step.resets, step.err
		if got := g.Open(ctx); got != step.serves || cleared != step.cleared || s.calls != i+1 {
			t.Fatalf("step %d: served %v, cleared %d times, %d catch-ups; want %v, %d, %d", i, got, cleared, s.calls, step.serves, step.cleared, i+1)
		}
	}
}
