package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// TestAuthorizeEndsWithRequest: Authorize waits for the user's entity no longer than
// the request's context lasts, and a check the request gave up on decides nothing
// about the user.
func TestAuthorizeEndsWithRequest(t *testing.T) {
	s := newTestSystem(t)
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	// A user never checked before: the check has to ask its entity.
	if err := s.Users.Authorize(expired, "01JNOSUCHUSER0000000000000", "s", 0); !errors.Is(err, apierr.ErrTimeout) {
		t.Fatalf("Authorize with the request's deadline passed: %v; want apierr.ErrTimeout", err)
	}
	// Asked in time, the entity answers: no such user, so the token has ended.
	if err := s.Users.Authorize(context.Background(), "01JNOSUCHUSER0000000000000", "s", 0); !errors.Is(err, errSessionEnded) {
		t.Fatalf("Authorize in time: %v; want the session ended", err)
	}
}
