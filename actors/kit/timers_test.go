package kit

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"go.uber.org/zap"
)

// Timers fire on their clock: nothing before the due time, the live generation once
// it comes, and a replaced, disarmed or stopped timer never acts.
func TestEntityTimersOnAFakeClock(t *testing.T) {
	clock := clockwork.NewFakeClock()
	// atLeast tells whether n timers are set on the clock, without waiting.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	atLeast := func(n int) bool { return clock.BlockUntilContext(done, n) == nil }
	timers := EntityTimers{Clock: clock}
	fired := make(chan firing, 4)
	arm := func(id string, d time.Duration) {
		timers.Arm(id, d, func(gen uint64) { fired <- firing{id, gen} })
	}
	next := func() firing {
		t.Helper()
		select {
		case f := <-fired:
			return f
		case <-time.After(10 * time.Second):
			t.Fatal("no timer fired")
			return firing{}
		}
	}
	arm("a", time.Second)
	arm("b", 2*time.Second)
	arm("a", 3*time.Second) // replaces a's first timer
	arm("c", time.Second)
	timers.Disarm("c")
	if !atLeast(2) || atLeast(3) {
		t.Fatal("want two timers set (a's second and b's): the replaced and the disarmed stopped")
	}
	clock.Advance(2 * time.Second)
	f := next()
	if f.id != "b" || !timers.Take("b", f.gen) || timers.Take("b", f.gen) {
		t.Fatalf("got %+v firing; want b's live timer, taken once", f)
	}
	if timers.Take("a", 1) {
		t.Fatal("a's replaced timer was taken")
	}
	clock.Advance(time.Second)
	if f = next(); f.id != "a" || !timers.Take("a", f.gen) {
		t.Fatalf("got %+v firing; want a's second timer", f)
	}
	arm("d", time.Second)
	if !atLeast(1) {
		t.Fatal("d's timer is not set")
	}
	timers.Stop()
	arm("e", time.Second)
	if atLeast(1) {
		t.Fatal("a timer is still set after Stop")
	}
}

type firing struct {
	id  string
	gen uint64
}

// A loop runs on its clock: once an interval has passed on it, not before.
func TestEveryOnAFakeClock(t *testing.T) {
	clock := clockwork.NewFakeClock()
	runs := make(chan time.Time, 4)
	l := Every(clock, zap.NewNop(), "fake loop", time.Minute, false, func(_ context.Context, now time.Time) { runs <- now })
	defer l.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := 1; i <= 2; i++ {
		if err := clock.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal("the loop never waited on the clock")
		}
		start := clock.Now()
		clock.Advance(time.Minute)
		select {
		case now := <-runs:
			if !now.Equal(start.Add(time.Minute)) {
				t.Fatalf("run %d at %s; want the clock's %s", i, now, start.Add(time.Minute))
			}
		case <-ctx.Done():
			t.Fatalf("run %d never came", i)
		}
	}
}
