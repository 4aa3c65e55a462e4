// Package kittest holds what the tests of the actor runtime and of every domain package
// share: the goroutine leak check their TestMain runs and the one wait (WaitFor) they
// poll with. Timing itself is the runtime's Clock: a test that needs time to pass
// runs its Runtime on a clockwork.FakeClock (kit.WithClock) and advances it.
package kittest

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Main runs the package's tests, then fails the binary if a goroutine a test started
// is still running: every kind, loop, timer, probe and store a test starts must be
// stopped by its end. goleak retries for a while before it reports, so goroutines on
// their way out are not reported.
func Main(m *testing.M, opts ...goleak.Option) {
	goleak.VerifyTestMain(m, append(ignored(), opts...)...)
}

// ignored are the goroutines of dependencies that outlive what started them by design,
// each named by a function no other goroutine runs. (internal/leakcheck keeps the
// module-wide list with the same entry; the actors' tests need only this one.)
func ignored() []goleak.Option {
	return []goleak.Option{
		// protoactor throttles dead-letter logs per period (1 s): the goroutine timing
		// the last period ends with it, after the actor system is shut down.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
	}
}

// WaitFor polls cond until it holds, failing the test after a generous 20 s: the one
// wait of the actors' tests, for what follows a message or a fake clock's Advance on
// other goroutines. A test waits for an effect it can see, never a fixed time.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
