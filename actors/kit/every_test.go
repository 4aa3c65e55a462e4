package kit

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
)

// A loop runs at once when asked, then at every interval; a panic costs one run; Stop
// cancels the run in flight and returns once the loop has ended.
func TestEvery(t *testing.T) {
	var runs atomic.Int64
	started := make(chan struct{}, 1)
	l := Every(RealClock(), zap.NewNop(), "test loop", time.Millisecond, true, func(ctx context.Context, _ time.Time) {
		n := runs.Add(1)
		if n == 2 {
			panic("one bad run")
		}
		if n == 5 {
			started <- struct{}{}
			<-ctx.Done() // a long run: only Stop ends it
		}
	})
	<-started
	l.Stop()
	n := runs.Load()
	if n != 5 {
		t.Fatalf("%d runs; want 5 (the panic cost one run, not the loop)", n)
	}
	l.Stop()
	var never *Loop
	never.Stop()
}
