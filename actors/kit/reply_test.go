package kit

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// echo answers a string with itself; "twice" is answered twice; "late" is answered
// after the caller gave up; "never" is not answered.
type echo struct{ release chan struct{} }

func (e *echo) Receive(ctx *Ctx, m any) {
	if msg, ok := m.(string); ok && msg != "never" {
		answerEcho(ctx, msg, e.release, "late answer")
	}
}

// answerEcho is what the test actors and entities answer msg with: "twice" twice,
// "late" each of lates once release is closed, anything else itself.
func answerEcho(ctx *Ctx, msg string, release chan struct{}, lates ...string) {
	switch msg {
	case "twice":
		ctx.Respond("first")
		ctx.Respond("second")
	case "late":
		reply := ctx.Later()
		go func() {
			<-release
			for _, a := range lates {
				reply.Respond(a)
			}
		}()
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

// echoEntity is echo as an entity: Ask reaches it through its kind's supervisor, and
// it answers the ask's reply box directly (Envelope.box). It records whether the box
// came with each request.
type echoEntity struct {
	release chan struct{}
	boxed   *atomic.Int64
}

func (e *echoEntity) Load() error { return nil }

func (e *echoEntity) Handle(ctx *Ctx, m any) {
	msg, ok := m.(string)
	if !ok {
		return
	}
	if ctx.box != nil {
		e.boxed.Add(1)
	}
	answerEcho(ctx, msg, e.release, "late answer", "late answer, again")
}

// TestEntityAnswersItsBoxDirectly: an entity's answer goes straight to the ask's reply
// box, and a duplicate or late answer (after the box was given up, while the next
// requests reuse other boxes) never reaches another request, with or without an
// audit entry riding along.
func TestEntityAnswersItsBoxDirectly(t *testing.T) {
	s := newTestSystem(t)
	release := make(chan struct{})
	boxed := new(atomic.Int64)
	k := s.StartKind("echoes", 0, func(string) Entity { return &echoEntity{release: release, boxed: boxed} }, nil)
	ctx := context.Background()

	if got, err := Ask[string](ctx, k, "e", "twice"); err != nil || got != "first" {
		t.Fatalf("got %q, %v; want the first answer", got, err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := Ask[string](short, k, "e", "late"); !errors.Is(err, apierr.ErrTimeout) {
		t.Fatalf("got %v; want a timeout", err)
	}
	close(release) // the late answers now arrive, while later requests run
	audited := WithAudit(ctx, &AuditEntry{Action: "POST /x"})
	for i := range 200 {
		want := "req-" + string(rune('a'+i%26))
		c := ctx
		if i%2 == 1 {
			c = audited
		}
		got, err := Ask[string](c, k, "e", want)
		if err != nil || got != want {
			t.Fatalf("request %d: got %q, %v; want %q (a reply of another request?)", i, got, err, want)
		}
	}
	if n := boxed.Load(); n != 202 {
		t.Fatalf("%d of 202 requests came with their reply box", n)
	}
}
