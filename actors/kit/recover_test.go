package kit

import (
	"errors"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/apierr"
)

func TestRecover(t *testing.T) {
	core, logs := observer.New(zap.ErrorLevel)
	log := zap.New(core)
	run := func(fn func(), failed func(error)) {
		t.Helper()
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer Recover(log, "test work", failed)
			fn()
		}()
		<-done
	}
	var got error
	run(func() { panic("boom") }, func(err error) { got = err })
	if !errors.Is(got, apierr.ErrInternal) {
		t.Fatalf("got %v; want an internal error handed to failed", got)
	}
	if n := logs.FilterMessage("panic in background work: it failed, the server goes on").Len(); n != 1 {
		t.Fatalf("got %d panic log lines; want 1", n)
	}
	if e := logs.All()[0]; e.ContextMap()["stack"] == nil || e.ContextMap()["work"] != "test work" {
		t.Fatalf("got fields %v; want the work and a stack", e.ContextMap())
	}
	// No panic: failed is not called.
	got = nil
	run(func() {}, func(err error) { got = err })
	if got != nil {
		t.Fatalf("got %v without a panic; want failed not called", got)
	}
	// A panic in failed, or no failed at all, is logged and goes no further.
	run(func() { panic("boom") }, func(error) { panic("again") })
	run(func() { panic("boom") }, nil)
	if n := logs.FilterMessage("panic while failing background work").Len(); n != 1 {
		t.Fatalf("got %d log lines of a panic in failed; want 1", n)
	}
}
