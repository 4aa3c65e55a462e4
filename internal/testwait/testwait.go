// Package testwait is how tests wait for what happens asynchronously: on timers, actor
// messages, event-bus followers or another process. Eventually and Until poll until
// something holds; Never checks that something stays false for a short window.
//
// The bounds are generous on purpose. A test that passes never waits them out: they
// only turn a hang into a failure, on a loaded machine under -race. So no test asserts
// a duration, and no test sleeps for a fixed time hoping the system got somewhere.
//
// A negative check (Never) proves nothing unless the system had its chance to do the
// wrong thing: wait first, with Eventually, for a positive signal that comes after the
// moment it would have happened (a later run, a counter, a log line), then call Never
// with a short window to catch what was already on its way.
package testwait

import "time"

const (
	// Timeout bounds Eventually and Until: far above what any wait takes, so only
	// something that never happens reaches it.
	Timeout = 30 * time.Second
	// Interval is the pause between two polls: most polls are HTTP requests to a test
	// server under -race, and tests run in parallel on few cores, so polling faster
	// costs the other tests more than it saves this one.
	Interval = 20 * time.Millisecond
)

// T is what the helpers need of a *testing.T or *testing.B: an interface so that
// testwait's own test can watch a failure.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// PastMilli waits for the clock to pass the millisecond of after (a ULID's and a
// stored time's resolution) and returns the time it then reads.
func PastMilli(t T, after time.Time) time.Time {
	t.Helper()
	var now time.Time
	Eventually(t, "the clock to pass "+after.Format(time.StampMilli), func() bool {
		now = time.Now()
		return now.UnixMilli() > after.UnixMilli()
	})
	return now
}

// Eventually polls cond until it returns true. It fails the test with what when cond
// is still false after Timeout: what names what the test waits for ("two backups"), or
// what is wrong when it never comes ("the schedule took no backup").
func Eventually(t T, what string, cond func() bool) {
	t.Helper()
	eventually(t, Timeout, what, cond)
}

// Until polls check until it returns nil. It fails the test with check's last error
// when that takes longer than Timeout, so the message says what was last seen: check
// returns an error describing how far the system is from what the test waits for.
func Until(t T, check func() error) {
	t.Helper()
	until(t, Timeout, check)
}

// Never polls cond for window and fails the test at once if it returns true. Call it
// after a positive signal has shown that the system had its chance (see the package
// documentation); the window only catches what was already under way.
func Never(t T, window time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(window); ; time.Sleep(Interval) {
		if cond() {
			t.Fatalf("got %s; want it never to happen", what)
			return
		}
		if time.Now().After(end) {
			return
		}
	}
}

// Poll polls cond until it returns true or timeout passes, and reports whether it did.
// It fails nothing: it is for goroutines other than the test's and for callers that go
// on either way (kill a child process once enough is done, or when it is late).
func Poll(timeout time.Duration, cond func() bool) bool {
	for end := time.Now().Add(timeout); ; time.Sleep(Interval) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

func eventually(t T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(timeout, cond) {
		t.Fatalf("waited %s: %s", timeout, what)
	}
}

func until(t T, timeout time.Duration, check func() error) {
	t.Helper()
	var last error
	if !Poll(timeout, func() bool { last = check(); return last == nil }) {
		t.Fatalf("waited %s: %v", timeout, last)
	}
}
