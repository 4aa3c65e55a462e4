package testwait

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a T that records a failure and ends its goroutine as testing.T does.
type recorder struct{ failed string }

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// watch runs f with a recorder in a goroutine of its own (Fatalf ends it) and returns
// the failure message, "" when f did not fail.
func watch(f func(T)) string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.failed
}

// after returns a condition that turns true on its n-th call.
func after(n int64) func() bool {
	var calls atomic.Int64
	return func() bool { return calls.Add(1) >= n }
}

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	t.Parallel()
	if msg := watch(func(t T) { Eventually(t, "the third poll", after(3)) }); msg != "" {
		t.Fatalf("got failure %q; want none", msg)
	}
}

func TestEventuallyFailsNamingWhatItWaitedFor(t *testing.T) {
	t.Parallel()
	msg := watch(func(t T) { eventually(t, 50*time.Millisecond, "the machine to run", func() bool { return false }) })
	if !strings.Contains(msg, "the machine to run") || !strings.Contains(msg, "50ms") {
		t.Fatalf("got failure %q; want it to name the wait and its bound", msg)
	}
}

func TestUntilFailsWithTheLastError(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	msg := watch(func(t T) {
		until(t, 50*time.Millisecond, func() error { return fmt.Errorf("got status %d; want 3", calls.Add(1)) })
	})
	if want := fmt.Sprintf("got status %d; want 3", calls.Load()); !strings.HasSuffix(msg, want) {
		t.Fatalf("got failure %q; want it to end with the last error %q", msg, want)
	}
	var n atomic.Int64
	if msg := watch(func(t T) {
		Until(t, func() error {
			if n.Add(1) < 3 {
				return errors.New("not yet")
			}
			return nil
		})
	}); msg != "" {
		t.Fatalf("got failure %q; want none", msg)
	}
}

func TestNeverFailsAtOnceWhenTheConditionHolds(t *testing.T) {
	t.Parallel()
	// A Never that waited out its window instead would hang here until go test's
	// -timeout ends the run.
	msg := watch(func(t T) { Never(t, time.Hour, "a run after disabling", after(2)) })
	if !strings.Contains(msg, "a run after disabling") {
		t.Fatalf("got failure %q; want it to name what happened", msg)
	}
}

func TestNeverPollsForTheWholeWindow(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	start := time.Now()
	msg := watch(func(t T) { Never(t, 30*time.Millisecond, "anything", func() bool { calls.Add(1); return false }) })
	if msg != "" {
		t.Fatalf("got failure %q; want none", msg)
	}
	if time.Since(start) < 30*time.Millisecond || calls.Load() < 2 {
		t.Fatalf("got %d polls over %s; want several over the whole window", calls.Load(), time.Since(start))
	}
}

func TestPollReports(t *testing.T) {
	t.Parallel()
	if !Poll(time.Minute, after(2)) {
		t.Fatal("got false for a condition that holds; want true")
	}
	if Poll(20*time.Millisecond, func() bool { return false }) {
		t.Fatal("got true for a condition that never holds; want false")
	}
}
