package kit

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/apierr"
)

// deferred is a test entity that answers through Ctx's other ways: later, from another
// goroutine (answerLater, released by the test), with an error (failNow), or not at
// all when told (it counts what was told, and whether Answers said so); stopNow
// passivates it.
type deferred struct {
	release chan struct{}
	told    *atomic.Int64
}

type (
	answerLater struct{}
	failNow     struct{}
	stopNow     struct{}
	tellCount   struct{}
)

func (d *deferred) Load() error { return nil }

func (d *deferred) Handle(ctx *Ctx, msg any) {
	switch msg.(type) {
	case *answerLater:
		reply := ctx.Later()
		go func() {
			<-d.release
			reply.Respond(state{N: 1})
			reply.Respond(state{N: 2}) // a second answer is dropped
		}()
	case *failNow:
		ctx.Fail(errors.New("not an apierr"))
	case *stopNow:
		ctx.Passivate(false)
		ctx.Respond(Done{})
	case *tellCount:
		if !ctx.Answers() && !ctx.Later().Answers() {
			d.told.Add(1)
		}
		ctx.Respond(state{}) // told: nobody to answer, nothing happens
		ctx.Fail(errors.New("nobody hears this"))
	case *get:
		ctx.Respond(state{N: int(d.told.Load())})
	}
}

// TestCtxAnswers: an entity answers after its Handle returned, from another goroutine
// (the first answer counts); Fail answers with an *apierr.Error; a told message has
// nobody to answer and Respond does nothing; Passivate stops the entity, which the
// next message starts again.
func TestCtxAnswers(t *testing.T) {
	s := newTestSystem(t)
	told := new(atomic.Int64)
	release := make(chan struct{})
	k := s.StartKind("deferred", 0, func(string) Entity { return &deferred{release: release, told: told} }, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	later := make(chan error, 1)
	go func() {
		st, err := Ask[state](ctx, k, "d", &answerLater{})
		if err == nil && st.N != 1 {
			err = errors.New("not the first answer")
		}
		later <- err
	}()
	// The entity is free while the answer waits: it handles the next request.
	if _, err := Ask[state](ctx, k, "d", &get{}); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-later; err != nil {
		t.Fatalf("answered later: %v", err)
	}

	if _, err := Ask[state](ctx, k, "d", &failNow{}); !errors.Is(err, apierr.ErrInternal) {
		t.Fatalf("got %v; want the error as an internal apierr", err)
	}

	k.Send("d", &tellCount{})
	k.Send("d", &tellCount{})
	if st, err := Ask[state](ctx, k, "d", &get{}); err != nil || st.N != 2 {
		t.Fatalf("got %+v, %v; want both told messages seen as told", st, err)
	}

	if _, err := Ask[Done](ctx, k, "d", &stopNow{}); err != nil {
		t.Fatal(err)
	}
	kittest.WaitFor(t, "the entity to passivate", func() bool { return k.Live() == 0 })
	if _, err := Ask[state](ctx, k, "d", &get{}); err != nil || k.Live() != 1 {
		t.Fatalf("got %v with %d live; want the entity started again", err, k.Live())
	}
}
