package auth

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// TestIdempotencySettling: a released key runs again; a key left claimed (a request
// that ended in a 500, a 504 or a panic) answers 409 and never runs twice; a stored
// answer replays; and a Complete that never arrived would leave the key claimed in
// memory, which the edge avoids by settling with a context of its own.
func TestIdempotencySettling(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	tokens := map[string]string{}
	claim := func(key string) (*Answer, error) {
		c, err := s.Idempotency.Claim(ctx, "user-1", key, "hash", false)
		tokens[key] = c.Token
		return c.Replay, err
	}

	if a, err := claim("released"); a != nil || err != nil {
		t.Fatalf("first claim: got %v, %v; want to run", a, err)
	}
	if err := s.Idempotency.Complete(ctx, "user-1", "released", tokens["released"], nil, false); err != nil {
		t.Fatal(err)
	}
	if a, err := claim("released"); a != nil || err != nil {
		t.Fatalf("claim after a release: got %v, %v; want to run again", a, err)
	}

	if _, err := claim("kept"); err != nil {
		t.Fatal(err)
	}
	if err := s.Idempotency.Complete(ctx, "user-1", "kept", tokens["kept"], nil, true); err != nil {
		t.Fatal(err)
	}
	_, err := claim("kept")
	if !errors.Is(err, apierr.ErrConflict) || !strings.Contains(err.Error(), "ended without an answer") {
		t.Fatalf("claim after a kept claim: got %v; want 409 saying the first ended without an answer", err)
	}

	if _, err := claim("answered"); err != nil {
		t.Fatal(err)
	}
	if err := s.Idempotency.Complete(ctx, "user-1", "answered", tokens["answered"], &Answer{RequestHash: "hash", Status: 201, Body: []byte(`{}`)}, false); err != nil {
		t.Fatal(err)
	}
	if a, err := claim("answered"); err != nil || a == nil || a.Status != 201 {
		t.Fatalf("claim after an answer: got %v, %v; want the 201 replayed", a, err)
	}
}

// TestIdempotencyStampedTakeover: the claim of a stamped request (its one write carries
// the claim) left by a process that died is taken over by the retry of the next run:
// without a recorded reply the retry runs it, and the dead run's write, however late,
// can no longer apply; with one, the retry answers with it. A claim of an unstamped
// request still answers 409, and a stamped one still running answers 409 in progress.
func TestIdempotencyStampedTakeover(t *testing.T) {
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run := func() *testSystem {
		s, err := startTestSystem(t, store, AuthOptions{BcryptCost: 4, AdminPassword: "initial-password"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ctx := context.Background()
	write := func(st *kit.Stamp, what string) error {
		b := new(persistence.Batch).Put([]byte("test/"+what), []byte(what))
		if err := st.Carry(b, kit.Done{}); err != nil {
			t.Fatal(err)
		}
		return store.Commit(ctx, b)
	}

	first := run()
	c1, err := first.Idempotency.Claim(ctx, "user-1", "k", "hash", true)
	if err != nil || c1.Stamp == nil || c1.Replay != nil {
		t.Fatalf("first claim: got %+v, %v; want to run with a stamp", c1, err)
	}
	var inProgress *apierr.Error
	if _, err := first.Idempotency.Claim(ctx, "user-1", "k", "hash", true); !errors.As(err, &inProgress) ||
		inProgress.Status != 409 || !strings.Contains(err.Error(), "in progress") || inProgress.RetryAfterS <= 0 {
		t.Fatalf("claim while the first runs: got %v; want 409 in progress, with Retry-After", err)
	}
	if _, err := first.Idempotency.Claim(ctx, "user-1", "plain", "hash", false); err != nil {
		t.Fatal(err)
	}
	first.Stop() // killed while both run: no answer

	second := run()
	c2, err := second.Idempotency.Claim(ctx, "user-1", "k", "hash", true)
	if err != nil || c2.Stamp == nil || c2.Stamp.Reply != nil || c2.Token == c1.Token {
		t.Fatalf("retry after the first run died: got %+v, %v; want to run it again under a new claim", c2, err)
	}
	if err := write(c1.Stamp, "first"); !persistence.IsConditionFailed(err) {
		t.Fatalf("the dead run's write after the takeover: got %v; want it refused (condition failed)", err)
	}
	var noAnswer *apierr.Error
	if _, err := second.Idempotency.Claim(ctx, "user-1", "plain", "hash", false); !errors.As(err, &noAnswer) || noAnswer.Status != 409 ||
		!strings.Contains(err.Error(), "ended without an answer") || noAnswer.RetryAfterS != 0 {
		t.Fatalf("retry of an unstamped request after a restart: got %v; want 409 without Retry-After, it may have applied", err)
	}
	if err := write(c2.Stamp, "second"); err != nil {
		t.Fatal(err)
	}
	second.Stop() // killed after the write, before the answer

	third := run()
	defer third.Stop()
	c3, err := third.Idempotency.Claim(ctx, "user-1", "k", "hash", true)
	if err != nil || c3.Stamp == nil || c3.Stamp.Reply == nil {
		t.Fatalf("retry after a write that applied unanswered: got %+v, %v; want its recorded reply", c3, err)
	}
	if _, ok, err := kit.Recorded[kit.Done](c3.Stamp); !ok || err != nil {
		t.Fatalf("recorded reply: ok %v, %v", ok, err)
	}
	if err := third.Idempotency.Complete(ctx, "user-1", "k", c2.Token, &Answer{RequestHash: "hash", Status: 201}, false); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("settling a claim taken over: got %v; want 409", err)
	}
	if err := third.Idempotency.Complete(ctx, "user-1", "k", c3.Token, &Answer{RequestHash: "hash", Status: 201, Body: []byte(`{}`)}, false); err != nil {
		t.Fatal(err)
	}
	if c, err := third.Idempotency.Claim(ctx, "user-1", "k", "hash", true); err != nil || c.Replay == nil || c.Replay.Status != 201 {
		t.Fatalf("claim after the answer: got %+v, %v; want the 201 replayed", c, err)
	}

	// A claim whose keeper died before its owner, which lives, heard it was its own:
	// the owner never settles it, so a retry runs it.
	orphan, err := persistence.Encode(answerVersion, &Answer{RequestHash: "hash", Owner: third.rt.Owner(), Keeper: "run:earlier",
		Token: "t", Stamped: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, new(persistence.Batch).Put(answerKey("user-1", "orphan"), orphan)); err != nil {
		t.Fatal(err)
	}
	if c, err := third.Idempotency.Claim(ctx, "user-1", "orphan", "hash", true); err != nil || c.Stamp == nil {
		t.Fatalf("retry of a claim whose keeper died: got %+v, %v; want to run it", c, err)
	}

	// A stamped request that ended in a 500 or a 504 on a live process: a retry runs it.
	c4, err := third.Idempotency.Claim(ctx, "user-1", "ended", "hash", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := third.Idempotency.Complete(ctx, "user-1", "ended", c4.Token, nil, true); err != nil {
		t.Fatal(err)
	}
	if c, err := third.Idempotency.Claim(ctx, "user-1", "ended", "hash", true); err != nil || c.Stamp == nil || c.Replay != nil {
		t.Fatalf("retry of a stamped request that ended unanswered: got %+v, %v; want to run it", c, err)
	}
}
