package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A tenant that requires a second factor: its user without one signs in to a login
// restricted to enrolling one, which the first code frees (that login only); the
// factor cannot be turned off while required; a requirement turned on or off reaches
// open logins at their next renewal; a login link opens a restricted login too.
func TestTOTPRequired(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	t.Cleanup(func() { totpTenants.Delete("t3") })
	usr, err := s.Users.Create(ctx, "strict@example.test", "Strict", RoleUser, "the-password", new("t3"))
	if err != nil {
		t.Fatal(err)
	}
	free, err := s.Users.Login(ctx, usr.Email, "the-password", Client{})
	if err != nil || free.Restricted {
		t.Fatalf("login before the requirement: %+v %v; want an unrestricted login", free, err)
	}

	totpTenants.Store("t3", true)
	first, err := s.Users.Login(ctx, usr.Email, "the-password", Client{})
	if err != nil || !first.Restricted {
		t.Fatalf("login under the requirement: %+v %v; want a restricted login", first, err)
	}
	second, err := s.Users.Login(ctx, usr.Email, "the-password", Client{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Users.Authorize(ctx, usr.ID, first.ID, first.Gen); !errors.Is(err, apierr.ErrTOTPEnrolmentRequired) {
		t.Fatalf("authorize a restricted login: %v; want totp_enrolment_required", err)
	}
	// The login opened before the requirement is restricted from its next renewal.
	if err := s.Users.Authorize(ctx, usr.ID, free.ID, free.Gen); err != nil {
		t.Fatalf("the earlier login before its renewal: %v", err)
	}
	renewed, err := s.Users.Refresh(ctx, free.RefreshToken)
	if err != nil || !renewed.Restricted {
		t.Fatalf("the earlier login renewed: %+v %v; want restricted", renewed, err)
	}

	enr, err := s.Users.EnrolTOTP(ctx, usr.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.ConfirmTOTP(ctx, usr.ID, first.ID, codeAt(t, enr.Secret, time.Now())); err != nil {
		t.Fatal(err)
	}
	if err := s.Users.Authorize(ctx, usr.ID, first.ID, first.Gen); err != nil {
		t.Fatalf("the login that confirmed: %v; want free", err)
	}
	// Another restricted login never gave a code: it stays restricted, renewed or not.
	if err := s.Users.Authorize(ctx, usr.ID, second.ID, second.Gen); !errors.Is(err, apierr.ErrTOTPEnrolmentRequired) {
		t.Fatalf("another restricted login after the confirmation: %v; want still restricted", err)
	}
	if again, err := s.Users.Refresh(ctx, second.RefreshToken); err != nil || !again.Restricted {
		t.Fatalf("that login renewed: %+v %v; want restricted", again, err)
	}
	if err := s.Users.DisableTOTP(ctx, usr.ID, codeAt(t, enr.Secret, time.Now().Add(30*time.Second))); !errors.Is(err, apierr.ErrForbidden) {
		t.Fatalf("turning a required factor off: %v; want 403", err)
	}

	// The restriction is the login's, kept with it in the store.
	if got := reloadRestricted(t, s, usr.ID, second.ID); !got {
		t.Fatal("the restriction did not survive a reload")
	}

	// The operator's reset: the user has no factor again; its next login is restricted.
	if err := s.Users.ResetTOTP(ctx, usr.ID); err != nil {
		t.Fatal(err)
	}
	link, err := s.Users.CreateLoginLink(ctx, usr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sess, err := s.Users.RedeemLoginLink(ctx, link.Token, Client{}); err != nil || !sess.Restricted {
		t.Fatalf("a login link under the requirement: %+v %v; want restricted", sess, err)
	}

	// The requirement lifted: logins are free from their next renewal.
	totpTenants.Store("t3", false)
	late, err := s.Users.Login(ctx, usr.Email, "the-password", Client{})
	if err != nil || late.Restricted {
		t.Fatalf("login after the requirement: %+v %v", late, err)
	}
}

// reloadRestricted reads the stored login id of user and says whether it is restricted.
func reloadRestricted(t *testing.T, s *testSystem, user, id string) bool {
	t.Helper()
	v, err := s.store.Get(context.Background(), persistence.Key("refresh", user, id))
	if err != nil {
		t.Fatal(err)
	}
	var f family
	if _, err := persistence.Decode(v, &f); err != nil {
		t.Fatal(err)
	}
	return f.Restricted
}

// Operators, when the server requires it of them.
func TestTOTPRequiredOfOperators(t *testing.T) {
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, err := startTestSystem(t, store, AuthOptions{BcryptCost: 4, AdminPassword: "initial-password", RequireOperatorTOTP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ctx := context.Background()
	op, err := s.Users.Create(ctx, "op@example.test", "Op", RoleAdmin, "the-password", nil)
	if err != nil {
		t.Fatal(err)
	}
	usr, err := s.Users.Create(ctx, "user@example.test", "User", RoleUser, "the-password", new("t1"))
	if err != nil {
		t.Fatal(err)
	}
	if sess, err := s.Users.Login(ctx, op.Email, "the-password", Client{}); err != nil || !sess.Restricted {
		t.Fatalf("an operator's login: %+v %v; want restricted", sess, err)
	}
	if sess, err := s.Users.Login(ctx, usr.Email, "the-password", Client{}); err != nil || sess.Restricted {
		t.Fatalf("a tenant user's login: %+v %v; want free", sess, err)
	}
}

func TestRestrictOnRenewal(t *testing.T) {
	for _, c := range []struct{ was, required, has, want bool }{
		{false, false, false, false}, {true, false, false, false}, {true, false, true, false},
		{false, true, false, true}, {true, true, false, true},
		{false, true, true, false}, {true, true, true, true},
	} {
		if got := restrictOnRenewal(c.was, c.required, c.has); got != c.want {
			t.Errorf("restrictOnRenewal(was %v, required %v, has %v) = %v; want %v", c.was, c.required, c.has, got, c.want)
		}
	}
}
