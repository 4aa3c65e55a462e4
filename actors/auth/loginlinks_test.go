package auth

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A login link signs its tenant user in once, without the password or the second
// factor, as a session of its own method; operators get none, a change of the user
// ends the links made before it, and an expired link signs nobody in.
func TestLoginLinks(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	usr, err := s.Users.Create(ctx, "customer@example.test", "Customer", RoleUser, "the-password", new("t1"))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := s.Users.Create(ctx, "staff@example.test", "Staff", RoleAdmin, "the-password", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.CreateLoginLink(ctx, admin.ID); !errors.Is(err, apierr.ErrForbidden) {
		t.Fatalf("a link for an operator: %v; want 403", err)
	}
	if _, err := s.Users.CreateLoginLink(ctx, "no-such-user"); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("a link for an unknown user: %v; want 404", err)
	}
	// A second factor does not stop a link: the billing system signed the customer in.
	enr, err := s.Users.EnrolTOTP(ctx, usr.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.ConfirmTOTP(ctx, usr.ID, "", codeAt(t, enr.Secret, time.Now())); err != nil {
		t.Fatal(err)
	}

	link, err := s.Users.CreateLoginLink(ctx, usr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(link.ExpiresAt); d <= 0 || d > signin.LoginLinkTTL {
		t.Fatalf("expires in %v; want within %v", d, signin.LoginLinkTTL)
	}
	if email, err := s.Users.LoginLinkEmail(ctx, link.Token); err != nil || email != usr.Email {
		t.Fatalf("link's e-mail %q, %v", email, err)
	}
	sess, err := s.Users.RedeemLoginLink(ctx, link.Token, Client{Addr: "192.0.2.7", Agent: "browser"})
	if err != nil {
		t.Fatal(err)
	}
	if sess.User.ID != usr.ID {
		t.Fatalf("signed in %s; want %s", sess.User.ID, usr.ID)
	}
	list, _, err := s.Users.Sessions(ctx, usr.ID, sess.ID, "", 10)
	if err != nil || len(list) != 1 || list[0].Method != MethodLoginLink || list[0].ClientAddr != "192.0.2.7" {
		t.Fatalf("sessions %+v, %v; want one opened by the link", list, err)
	}
	if _, err := s.Users.RedeemLoginLink(ctx, link.Token, Client{}); !errors.Is(err, apierr.ErrUnauthorized) {
		t.Fatalf("the link used again: %v; want 401", err)
	}

	// A change of the user (here a new password) ends the links made before it.
	stale, err := s.Users.CreateLoginLink(ctx, usr.ID)
	if err != nil {
		t.Fatal(err)
	}
	pw := "another-password"
	if _, err := s.Users.Update(ctx, usr.ID, UserChange{Password: &pw}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.RedeemLoginLink(ctx, stale.Token, Client{}); !errors.Is(err, apierr.ErrUnauthorized) {
		t.Fatalf("a link from before a password change: %v; want 401", err)
	}

	// An expired link whose record outlives its time (etcd's leases round up).
	token := RandomToken(32)
	val, err := persistence.Encode(linkRecordVersion, &signin.Link{UserID: usr.ID, Email: usr.Email, Gen: 2, ExpiresAt: time.Now().Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Commit(ctx, new(persistence.Batch).Put(linkKey(token), val)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.RedeemLoginLink(ctx, token, Client{}); !errors.Is(err, apierr.ErrUnauthorized) {
		t.Fatalf("an expired link: %v; want 401", err)
	}
	if _, err := s.Users.RedeemLoginLink(ctx, "short", Client{}); !errors.Is(err, apierr.ErrUnauthorized) {
		t.Fatalf("a malformed link: %v; want 401", err)
	}

	off := true
	if _, err := s.Users.Update(ctx, usr.ID, UserChange{Disabled: &off}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users.CreateLoginLink(ctx, usr.ID); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("a link for a disabled user: %v; want 409", err)
	}
}

// Two browsers racing with one link: exactly one is signed in.
func TestLoginLinkRace(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	usr, err := s.Users.Create(ctx, "racer@example.test", "Racer", RoleUser, "the-password", new("t1"))
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 20; round++ {
		link, err := s.Users.CreateLoginLink(ctx, usr.ID)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.Users.RedeemLoginLink(ctx, link.Token, Client{})
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, apierr.ErrUnauthorized):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d redeems signed in; want exactly 1", round, won)
		}
	}
}
