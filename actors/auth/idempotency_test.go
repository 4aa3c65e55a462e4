package auth

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
)

// TestIdempotencySettling: a released key runs again; a key left claimed (a request
// that ended in a 500, a 504 or a panic) answers 409 and never runs twice; a stored
// answer replays; and a Complete that never arrived would leave the key claimed in
// memory, which the edge avoids by settling with a context of its own.
func TestIdempotencySettling(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	claim := func(key string) (*Answer, error) { return s.Idempotency.Claim(ctx, "user-1", key, "hash") }

	if a, err := claim("released"); a != nil || err != nil {
		t.Fatalf("first claim: got %v, %v; want to run", a, err)
	}
	if err := s.Idempotency.Complete(ctx, "user-1", "released", nil, false); err != nil {
		t.Fatal(err)
	}
	if a, err := claim("released"); a != nil || err != nil {
		t.Fatalf("claim after a release: got %v, %v; want to run again", a, err)
	}

	if _, err := claim("kept"); err != nil {
		t.Fatal(err)
	}
	if err := s.Idempotency.Complete(ctx, "user-1", "kept", nil, true); err != nil {
		t.Fatal(err)
	}
	_, err := claim("kept")
	if !errors.Is(err, apierr.ErrConflict) || !strings.Contains(err.Error(), "ended without an answer") {
		t.Fatalf("claim after a kept claim: got %v; want 409 saying the first ended without an answer", err)
	}

	if _, err := claim("answered"); err != nil {
		t.Fatal(err)
	}
	if err := s.Idempotency.Complete(ctx, "user-1", "answered", &Answer{RequestHash: "hash", Status: 201, Body: []byte(`{}`)}, false); err != nil {
		t.Fatal(err)
	}
	if a, err := claim("answered"); err != nil || a == nil || a.Status != 201 {
		t.Fatalf("claim after an answer: got %v, %v; want the 201 replayed", a, err)
	}
}
