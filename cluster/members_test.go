package cluster

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestLeaveEndsTheMemberLeftListeners: a listener still running when its member leaves
// is told (its context ends) and waited for: none outlives the member (the package's
// leak check would name it).
func TestLeaveEndsTheMemberLeftListeners(t *testing.T) {
	_, a, b := twoMembers(t)
	running := make(chan kit.Member, 1)
	var ended atomic.Bool
	b.OnMemberLeft(func(ctx context.Context, m kit.Member) {
		defer ended.Store(true)
		running <- m
		<-ctx.Done()
		// Work to finish after the member was told to stop (as the composition root's
		// listener has), so that a Leave that did not wait would return before it.
		wctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout)
		defer cancel()
		for range 20 {
			_, _ = b.cli.Get(wctx, "/test/members/a")
		}
	})
	a.leave()
	select {
	case m := <-running:
		if m.Name != "a" {
			t.Fatalf("b's listener told %s left; want a", m.Name)
		}
	case <-time.After(testwait.Timeout):
		t.Fatal("b's listener never ran")
	}
	b.leave()
	if !ended.Load() {
		t.Fatal("b's listener still runs after b left")
	}
}
