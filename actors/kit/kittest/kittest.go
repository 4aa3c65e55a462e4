// Package kittest holds what the tests of the actor runtime and of every domain package
// share: the goroutine leak check their TestMain runs and the one wait (WaitFor) they
// poll with, both the module's own (internal/leakcheck, internal/testwait) under the
// names the actors' tests use. Timing itself is the runtime's Clock: a test that needs
// time to pass runs its Runtime on a clockwork.FakeClock (kit.WithClock) and advances it.
package kittest

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/vmplane/vmplane/internal/leakcheck"
	"github.com/vmplane/vmplane/internal/testwait"
)

// Main runs the package's tests, then fails the binary if a goroutine a test started
// is still running: every kind, loop, timer, probe and store a test starts must be
// stopped by its end (leakcheck.Main, with the module's list of third-party goroutines
// that outlive their owner by design).
func Main(m *testing.M, opts ...goleak.Option) { leakcheck.Main(m, opts...) }

// WaitFor polls cond until it holds, failing the test after testwait's generous bound:
// the one wait of the actors' tests, for what follows a message or a fake clock's
// Advance on other goroutines. A test waits for an effect it can see, never a fixed
// time.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testwait.Eventually(t, what, cond)
}
