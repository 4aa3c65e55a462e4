package persistence

import (
	"context"
	"sync"
)

// CatchUp is a request's memory of its catch-up with the watch (WatchBarrier), kept in
// its context under CatchUpKey: a request that checks several caches (an API key's
// record, then a list page) catches up once, at the first check. That is exact: the
// round began after the request did, so every write acknowledged before the request
// began has been named when it ends, which is all a cache check promises. So it must
// not outlive its request nor be shared by two. The zero value is ready.
type CatchUp struct {
	mu     sync.Mutex
	by     WatchBarrier // the store it caught up with; nil until then
	resets uint64
}

type catchUpKey struct{}

// CatchUpKey is the context key of a request's *CatchUp.
var CatchUpKey any = catchUpKey{}

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
