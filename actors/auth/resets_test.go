package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// resetLink is a reset mail as the fake mailer saw it.
type resetLink struct {
	User    User
	Token   string
	Expires time.Time
}

// newResetSystem is a test system whose reset mails go to the returned channel; the
// mailer fails the first fails tries.
func newResetSystem(t *testing.T, fails int) (*testSystem, chan resetLink) {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	links := make(chan resetLink, 10)
	s, err := startTestSystem(t, store, AuthOptions{BcryptCost: 4, AdminPassword: "initial-password",
		ResetMail: func(_ context.Context, u User, token string, expires time.Time) error {
			if fails > 0 {
				fails--
				return errors.New("mail server away")
			}
			links <- resetLink{u, token, expires}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	s.Users.resets.Pause = time.Millisecond
	t.Cleanup(func() {
		s.Stop()
		store.Close()
	})
	return s, links
}

func nextLink(t *testing.T, links chan resetLink) resetLink {
	t.Helper()
	select {
	case l := <-links:
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("no reset mail")
		return resetLink{}
	}
}

// A reset link sets the password once, ends every session of the user, and ends the
// user's other links; addresses with no account and disabled users get no mail.
func TestPasswordReset(t *testing.T) {
	s, links := newResetSystem(t, 1) // the first try fails: the mail is tried again
	ctx := context.Background()
	usr, err := s.Users.Create(ctx, "forgot@example.test", "Forgot", RoleUser, "first-password", new("t1"))
	if err != nil {
		t.Fatal(err)
	}
	off, err := s.Users.Create(ctx, "off@example.test", "Off", RoleUser, "first-password", new("t1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.Update(ctx, off.ID, UserChange{Disabled: new(true)}); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Users.Login(ctx, usr.Email, "first-password", Client{})
	if err != nil {
		t.Fatal(err)
	}
	// The sender takes requests in order: the unknown address's and the disabled
	// user's come first, and the only mails are the account's two.
	for _, email := range []string{"nobody@example.test", "off@example.test", " FORGOT@example.test", "forgot@example.test"} {
		if err := s.Users.RequestPasswordReset(email); err != nil {
			t.Fatal(err)
		}
	}
	first, second := nextLink(t, links), nextLink(t, links)
	if first.User.ID != usr.ID || second.User.ID != usr.ID || first.Token == second.Token {
		t.Fatalf("mails to %s and %s; want two links of %s", first.User.ID, second.User.ID, usr.ID)
	}
	if d := time.Until(first.Expires); d <= 0 || d > signin.PasswordResetTTL {
		t.Fatalf("link expires in %s", d)
	}

	for _, bad := range []struct{ token, password, field string }{
		{first.Token, "short", "new_password"},
		{"not-a-token", "second-password", "token"},
		{otherToken(first.Token), "second-password", "token"},
	} {
		err := s.Users.ResetPassword(ctx, bad.token, bad.password)
		if !errors.Is(err, apierr.ErrInvalidRequest) || apierr.From(err).Fields[0].Field != bad.field {
			t.Fatalf("reset with %+v: %v; want 400 naming %s", bad, err, bad.field)
		}
	}
	if err := s.Users.ResetPassword(ctx, first.Token, "second-password"); err != nil {
		t.Fatal(err)
	}
	if err := s.Users.Authorize(ctx, usr.ID, sess.ID, sess.Gen); err == nil {
		t.Fatal("a session opened before the reset still authorizes")
	}
	if _, err := s.Users.Login(ctx, usr.Email, "first-password", Client{}); err == nil {
		t.Fatal("the old password still logs in")
	}
	if _, err := s.Users.Login(ctx, usr.Email, "second-password", Client{}); err != nil {
		t.Fatal(err)
	}
	// The link is spent, and the other one ended with it.
	for _, l := range []resetLink{first, second} {
		if err := s.Users.ResetPassword(ctx, l.Token, "third-password"); !errors.Is(err, apierr.ErrInvalidRequest) {
			t.Fatalf("a link used again or after another: %v; want 400", err)
		}
	}
	if _, err := s.rt.Store.Get(ctx, resetKey(first.Token)); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("the used link's record: %v; want it deleted", err)
	}
}

// An expired link, and a link of a user changed or deleted since, set nothing.
func TestPasswordResetLinkEnds(t *testing.T) {
	s, links := newResetSystem(t, 0)
	ctx := context.Background()
	usr, err := s.Users.Create(ctx, "late@example.test", "Late", RoleUser, "first-password", new("t1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Users.RequestPasswordReset(usr.Email); err != nil {
		t.Fatal(err)
	}
	l := nextLink(t, links)
	// Expired: the record's time is past (a TTL on etcd may keep it a little
	// longer), and nothing else of it changed.
	var rec signin.Reset
	if _, err := persistence.Decode(mustGet(t, s, resetKey(l.Token)), &rec); err != nil {
		t.Fatal(err)
	}
	rec.ExpiresAt = time.Now().Add(-time.Second)
	val, err := persistence.Encode(resetRecordVersion, &rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rt.Store.Commit(ctx, new(persistence.Batch).Put(resetKey(l.Token), val)); err != nil {
		t.Fatal(err)
	}
	if err := s.Users.ResetPassword(ctx, l.Token, "second-password"); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("expired link: %v; want 400", err)
	}

	// A change of the user after the link was made (here its role's tenant) ends it.
	if err := s.Users.RequestPasswordReset(usr.Email); err != nil {
		t.Fatal(err)
	}
	l = nextLink(t, links)
	if _, err := s.Users.Update(ctx, usr.ID, UserChange{TenantID: new("t2")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Users.ResetPassword(ctx, l.Token, "second-password"); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("link of a changed user: %v; want 400", err)
	}

	// The user deleted.
	if err := s.Users.RequestPasswordReset(usr.Email); err != nil {
		t.Fatal(err)
	}
	l = nextLink(t, links)
	if err := s.Users.Delete(ctx, usr.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Users.ResetPassword(ctx, l.Token, "second-password"); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("link of a deleted user: %v; want 400", err)
	}
}

// Without a mailer, a reset is refused as such (not as an unknown address).
func TestPasswordResetOff(t *testing.T) {
	s := newTestSystem(t)
	if err := s.Users.RequestPasswordReset("any@example.test"); !errors.Is(err, apierr.ErrForbidden) || s.Users.resets != nil {
		t.Fatalf("got %v; want 403: resets are off", err)
	}
}

func mustGet(t *testing.T, s *testSystem, key []byte) []byte {
	t.Helper()
	v, err := s.rt.Store.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// otherToken is token with its last character changed.
func otherToken(token string) string {
	last := byte('A')
	if token[len(token)-1] == last {
		last = 'B'
	}
	return token[:len(token)-1] + string(last)
}
