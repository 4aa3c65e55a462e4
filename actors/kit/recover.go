package kit

import (
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
)

// Recover keeps a panic in background work from ending the process. Every goroutine
// that runs driver or entity work outside a mailbox (a machine's task, a schedule's
// run, a health probe, a firewall push, a sync) defers it first thing:
//
//	defer kit.Recover(log, "machine task", func(err error) { /* fail the task */ })
//
// A panic there (a driver that indexes an empty list, a nil it did not expect) is
// logged with its stack and handed to failed as an internal error, so it costs the one
// task, probe or push it was doing, never the server. Mailboxes have their own guard
// (handleSafely); nothing else catches a panic on another goroutine.
//
// It must be deferred directly, as above: recover only works in the deferred call
// itself. failed may be nil; a panic inside failed is logged and dropped.
func Recover(log *zap.Logger, what string, failed func(err error)) {
	r := recover()
	if r == nil {
		return
	}
	log.Error("panic in background work: it failed, the server goes on",
		zap.String("work", what), zap.Any("panic", r), zap.Stack("stack"))
	if failed == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			log.Error("panic while failing background work", zap.String("work", what), zap.Any("panic", r), zap.Stack("stack"))
		}
	}()
	failed(apierr.New(apierr.ErrInternal, "internal error in %s; it was logged", what))
}
