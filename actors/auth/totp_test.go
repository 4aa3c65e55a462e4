package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/apierr"
)

func codeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: signin.Period, Digits: signin.Digits, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// challengeOf is the challenge of a totp_required login error.
func challengeOf(t *testing.T, err error) string {
	t.Helper()
	if !errors.Is(err, apierr.ErrTOTPRequired) || apierr.From(err).Challenge == "" {
		t.Fatalf("login: %v; want totp_required with a challenge", err)
	}
	return apierr.From(err).Challenge
}

// The second factor's whole life: enrol, confirm with a first code (recovery codes
// given), logins that need a code, each code good once, recovery codes used up, turned
// off with a code, and an operator's reset that ends every session.
func TestTOTP(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	usr, err := s.Users.Create(ctx, "two@example.test", "Two", RoleUser, "the-password", new("t1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.ConfirmTOTP(ctx, usr.ID, "", "123456"); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("confirm with no enrolment: %v; want 409", err)
	}
	enr, err := s.Users.EnrolTOTP(ctx, usr.ID, "vmplane test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(enr.URI, "otpauth://totp/") || !strings.Contains(enr.URI, "secret="+enr.Secret) {
		t.Fatalf("uri %q", enr.URI)
	}
	// Until confirmed, a login needs no code.
	if _, err := s.Users.Login(ctx, usr.Email, "the-password", Client{}); err != nil {
		t.Fatalf("login before the confirmation: %v", err)
	}
	if _, err := s.Users.ConfirmTOTP(ctx, usr.ID, "", "000000x"); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("a wrong code: %v; want 400", err)
	}
	// Codes of the steps next to now count (clocks drift); codes are computed for a
	// step and checked a moment later, which may be the next step.
	rec, err := s.Users.ConfirmTOTP(ctx, usr.ID, "", codeAt(t, enr.Secret, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Codes) != signin.RecoveryCodes {
		t.Fatalf("%d recovery codes", len(rec.Codes))
	}
	if got, _ := s.Users.Get(ctx, usr.ID); !got.TOTPEnabled {
		t.Fatal("the user does not say its second factor is on")
	}
	if _, err := s.Users.EnrolTOTP(ctx, usr.ID, "vmplane test"); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("enrolling again while on: %v; want 409", err)
	}

	// A login now answers a challenge; a wrong code keeps it, a right one opens the
	// session, and the same code again is refused (single use within its window).
	_, err = s.Users.Login(ctx, usr.Email, "the-password", Client{Addr: "192.0.2.7"})
	ch := challengeOf(t, err)
	if email, err := s.Users.ChallengeEmail(ctx, ch); err != nil || email != usr.Email {
		t.Fatalf("challenge's e-mail: %q, %v", email, err)
	}
	if _, err := s.Users.LoginTOTP(ctx, ch, "abcdef"); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("wrong code: %v; want 400", err)
	}
	code := codeAt(t, enr.Secret, time.Now().Add(signin.Period*time.Second)) // a later step than the confirmation's
	sess, err := s.Users.LoginTOTP(ctx, ch, code)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Users.Authorize(ctx, usr.ID, sess.ID, sess.Gen); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.LoginTOTP(ctx, ch, code); !errors.Is(err, apierr.ErrUnauthorized) {
		t.Fatalf("the challenge used again: %v; want 401", err)
	}
	_, err = s.Users.Login(ctx, usr.Email, "the-password", Client{})
	ch = challengeOf(t, err)
	if _, err := s.Users.LoginTOTP(ctx, ch, code); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("a code used again: %v; want 400", err)
	}
	// A recovery code, in any spelling, once.
	rc := strings.ToUpper(strings.ReplaceAll(rec.Codes[3], "-", " "))
	sess2, err := s.Users.LoginTOTP(ctx, ch, rc)
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := s.Users.Sessions(ctx, usr.ID, sess2.ID, "", 10)
	if err != nil || list[0].Method != signin.MethodRecoveryCode || list[1].Method != signin.MethodTOTP {
		t.Fatalf("sessions %+v, %v; want methods recovery_code and totp", list, err)
	}
	_, err = s.Users.Login(ctx, usr.Email, "the-password", Client{})
	if _, err := s.Users.LoginTOTP(ctx, challengeOf(t, err), rec.Codes[3]); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("a recovery code used again: %v; want 400", err)
	}
	// A wrong password never reaches the second factor.
	if _, err := s.Users.Login(ctx, usr.Email, "not-the-password", Client{}); !errors.Is(err, apierr.ErrInvalidCredentials) {
		t.Fatalf("wrong password: %v", err)
	}

	// Off with a recovery code; logins need no code again.
	if err := s.Users.DisableTOTP(ctx, usr.ID, "nope"); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("off with a wrong code: %v; want 400", err)
	}
	if err := s.Users.DisableTOTP(ctx, usr.ID, rec.Codes[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.Login(ctx, usr.Email, "the-password", Client{}); err != nil {
		t.Fatalf("login after off: %v", err)
	}
	if err := s.Users.DisableTOTP(ctx, usr.ID, rec.Codes[1]); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("off twice: %v; want 409", err)
	}

	// On again, then an operator's reset: off, and every session ended.
	enr, _ = s.Users.EnrolTOTP(ctx, usr.ID, "vmplane test")
	if _, err := s.Users.ConfirmTOTP(ctx, usr.ID, "", codeAt(t, enr.Secret, time.Now())); err != nil {
		t.Fatal(err)
	}
	_, err = s.Users.Login(ctx, usr.Email, "the-password", Client{})
	pending := challengeOf(t, err)
	if err := s.Users.ResetTOTP(ctx, usr.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Users.Authorize(ctx, usr.ID, sess.ID, sess.Gen); err == nil {
		t.Fatal("a session survived the reset of the second factor")
	}
	if _, err := s.Users.LoginTOTP(ctx, pending, codeAt(t, enr.Secret, time.Now().Add(signin.Period*time.Second))); !errors.Is(err, apierr.ErrUnauthorized) {
		t.Fatalf("a challenge from before the reset: %v; want 401", err)
	}
}
