// Package leakcheck is the goroutine leak check every test binary of the module runs
// from its TestMain: goleak, with the few third-party goroutines that outlive their
// owner by design left out, each narrowly and with its reason, so that the packages
// share one list instead of each growing its own.
package leakcheck

import (
	"testing"

	"go.uber.org/goleak"
)

// Main runs the package's tests, then fails the binary if a goroutine that a test
// started is still running: a server, store, driver or loop that a test starts must be
// stopped by the end of it. goleak retries for a while before it reports, so goroutines
// that are on their way out are not reported.
func Main(m *testing.M, opts ...goleak.Option) {
	goleak.VerifyTestMain(m, append(ignored(), opts...)...)
}

// ignored are the goroutines of dependencies that outlive what started them by design,
// each named by a function of its own that no other goroutine runs.
func ignored() []goleak.Option {
	return []goleak.Option{
		// fasthttp refreshes the Date header of every server from one goroutine, started
		// by the first server and never stopped.
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		// fasthttp's default dialer cleans its DNS cache from one goroutine, started by
		// the first dial and never stopped.
		goleak.IgnoreTopFunction("github.com/valyala/fasthttp.(*TCPDialer).tcpAddrsClean"),
		// A fasthttp server's worker pool cleaner notices Shutdown only between sleeps of
		// the idle worker duration (10 s), after the server is gone.
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
		// A fasthttp client has no Close: its connection cleaner ends one idle
		// connection duration (10 s) after the client's last connection closed.
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*HostClient).connsCleaner"),
		// Its host-client cleaner likewise ends 10 s after the client's last host went
		// idle (the members' forwarding client).
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*Client).mCleaner"),
		// protoactor throttles dead-letter logs per period (1 s): the goroutine timing
		// the last period ends with it, after the actor system is shut down.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
	}
}
