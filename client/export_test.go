package client

import (
	"context"
	"time"
)

// WithPause makes the client call pause instead of waiting between two tries, so a
// test sees the waits it asks for without spending them.
func WithPause(pause func(ctx context.Context, d time.Duration) error) Option {
	return func(c *core) error { c.pause = pause; return nil }
}
