package kit

import "github.com/jonboulle/clockwork"

// Clock is where the runtime and every domain package read the time and wait for it:
// entity timers (EntityTimers), periodic loops (Every), probe intervals, schedules'
// due times. The composition root runs on the real clock; tests hand a
// clockwork.FakeClock to New (WithClock) and advance it, so a test of "nothing happens
// after the interval" advances past the interval instead of sleeping through it.
//
// It is clockwork's interface rather than one of kit's own: clockwork is small, has no
// dependencies, and its fake fires due timers in Advance and can wait for a number
// of sleepers (BlockUntilContext), which is what a test needs to advance without racing
// the code that arms the timer.
type Clock = clockwork.Clock

// RealClock is the wall clock, the default of every Runtime.
func RealClock() Clock { return clockwork.NewRealClock() }

// Option configures New.
type Option func(*Runtime)

// WithClock runs the runtime, and every service built on it, on c.
func WithClock(c Clock) Option {
	return func(rt *Runtime) { rt.Clock = c }
}
