package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
)

// TestLoginRacingPasswordChange: a login whose password was checked before a password
// change lands opens no session after it, since the change ends every login; before,
// the session opened under the new generation and the old password kept access.
func TestLoginRacingPasswordChange(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	usr, err := s.Users.Create(ctx, "race@example.test", "Race", RoleAdmin, "old-password-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The login's first half: the credentials, checked outside the mailbox.
	cred, err := kit.Ask[credentials](ctx, s.Users.kind, usr.ID, &getCredentials{})
	if err != nil {
		t.Fatal(err)
	}
	newPassword := "new-password-2"
	if _, err := s.Users.Update(ctx, usr.ID, UserChange{Password: &newPassword}); err != nil {
		t.Fatal(err)
	}
	// Its second half, after the change.
	_, err = kit.Ask[Session](ctx, s.Users.kind, usr.ID, &openFamily{TTL: time.Hour, Gen: cred.Gen})
	if !errors.Is(err, apierr.ErrInvalidCredentials) {
		t.Fatalf("a login checked against the old password, opened after the change: got %v; want invalid credentials", err)
	}
	if _, err := s.Users.Login(ctx, "race@example.test", newPassword, Client{}); err != nil {
		t.Fatalf("a login with the new password: %v", err)
	}
}
