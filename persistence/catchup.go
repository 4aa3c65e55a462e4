package persistence

import (
	"context"
	"sync"
)

// CatchUp is a request's memory of its catch-up with the watch (WatchBarrier): a
// request that checks several caches (an API key's record, then a list page) catches up
// once, at the first check, and the later checks reuse it. That is exact: the round
// began after the request did, so every write acknowledged before the request began has
// been named by the time it ends, which is all a cache check promises. The request
// carries it in its context (CatchUpKey); a context without one catches up on every
// call. The zero value is ready; it must not outlive its request, nor be shared by two.
type CatchUp struct {
	mu     sync.Mutex
	by     WatchBarrier // the store it caught up with; nil until then
	resets uint64
}

// catchUpKey is the context key of a request's *CatchUp.
type catchUpKey struct{}

// CatchUpKey is the key under which a request's context holds its *CatchUp (a context
// implementation of the edge answers it from a field, with no allocation).
var CatchUpKey any = catchUpKey{}

// WithCatchUp returns ctx carrying a fresh CatchUp: for requests whose context is not
// the edge's (tests, background work that reads through caches several times).
func WithCatchUp(ctx context.Context) context.Context {
	return context.WithValue(ctx, CatchUpKey, new(CatchUp))
}

// caughtUpOnce is CaughtUp through ctx's CatchUp, if it has one: the first call for
// store b runs round, later ones return its count. A failed round is not remembered.
func caughtUpOnce(ctx context.Context, b WatchBarrier, round func() (uint64, error)) (uint64, error) {
	c, _ := ctx.Value(CatchUpKey).(*CatchUp)
	if c == nil {
		return round()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == b {
		return c.resets, nil
	}
	resets, err := round()
	if err == nil && c.by == nil {
		c.by, c.resets = b, resets
	}
	return resets, err
}
