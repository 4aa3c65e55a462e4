package kit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// echo answers a string with itself; "twice" is answered twice; "late" is answered
// after the caller gave up; "never" is not answered.
type echo struct{ release chan struct{} }

func (e *echo) Receive(ctx *Ctx, m any) {
	msg, ok := m.(string)
	if !ok {
		return
	}
	switch msg {
	case "twice":
		ctx.Respond("first")
		ctx.Respond("second")
	case "late":
		reply := ctx.Later()
		go func() {
			<-e.release
			reply.Respond("late answer")
		}()
	case "never":
	default:
		ctx.Respond(msg)
	}
}

// TestAskNeverCrossesReplies: a reply box is reused, so late and duplicate answers must
// never reach a later request.
func TestAskNeverCrossesReplies(t *testing.T) {
	s := newTestSystem(t)
	e := &echo{release: make(chan struct{})}
	pid, err := s.Spawn("echo", func() Actor { return e })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.actors.Root.Stop(pid.pid) })
	ctx := context.Background()

	if got, err := AskRef[string](ctx, s, pid, "twice"); err != nil || got != "first" {
		t.Fatalf("got %q, %v; want the first answer", got, err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := AskRef[string](short, s, pid, "late"); !errors.Is(err, apierr.ErrTimeout) {
		t.Fatalf("got %v; want a timeout", err)
	}
	close(e.release) // the late answer now arrives, while later requests run
	for i := range 200 {
		want := "req-" + string(rune('a'+i%26))
		got, err := AskRef[string](ctx, s, pid, want)
		if err != nil || got != want {
			t.Fatalf("request %d: got %q, %v; want %q (a reply of another request?)", i, got, err, want)
		}
	}
}

// TestAskDeadActor: a request to a stopped actor fails as unavailable at once.
func TestAskDeadActor(t *testing.T) {
	s := newTestSystem(t)
	pid, err := s.Spawn("echo", func() Actor { return &echo{} })
	if err != nil {
		t.Fatal(err)
	}
	if err := s.actors.Root.StopFuture(pid.pid).Wait(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := AskRef[string](ctx, s, pid, "hello"); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("got %v; want unavailable", err)
	}
	if v, err := AskRef[any](ctx, s, pid, "hello"); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("ask[any] got %v, %v; want unavailable, not the dead letter as an answer", v, err)
	}
}

// TestAskTimesOutWithItsContext: a request that times out at its context's deadline
// returns once that context is done, so a caller can tell its own deadline from
// another cause (the limiter's login wait does).
func TestAskTimesOutWithItsContext(t *testing.T) {
	s := newTestSystem(t)
	pid, err := s.Spawn("echo", func() Actor { return &echo{} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.actors.Root.Stop(pid.pid) })
	for i := range 200 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		_, err := AskRef[string](ctx, s, pid, "never")
		done := ctx.Err()
		cancel()
		if !errors.Is(err, apierr.ErrTimeout) || done == nil {
			t.Fatalf("request %d: got %v with the context not done (%v); want a timeout once it is", i, err, done)
		}
	}
}
