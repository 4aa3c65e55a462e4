package kit

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// Loop is a periodic job started by Every.
type Loop struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Every runs fn every interval of clock on a goroutine of its own (at once too when
// first is set) until Stop. fn's context is cancelled by Stop, so a run in flight (a sync, a
// ping) never holds up a shutdown; a panic in fn is logged as what and costs that one
// run (Recover). Every periodic loop of the services has this one shape.
func Every(clock Clock, log *zap.Logger, what string, interval time.Duration, first bool, fn func(ctx context.Context, now time.Time)) *Loop {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Loop{cancel: cancel, done: make(chan struct{})}
	run := func(now time.Time) {
		defer Recover(log, what, nil)
		fn(ctx, now)
	}
	go func() {
		defer close(l.done)
		if first {
			run(clock.Now())
		}
		t := clock.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.Chan():
				if ctx.Err() != nil {
					return
				}
				run(now)
			}
		}
	}()
	return l
}

// Stop cancels the run in flight, if any, and waits for the loop to end. Stopping a nil
// Loop (one never started) or stopping twice does nothing.
func (l *Loop) Stop() {
	if l == nil {
		return
	}
	l.cancel()
	<-l.done
}
