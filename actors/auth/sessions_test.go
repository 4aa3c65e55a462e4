package auth

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
)

// A user's sessions: each login listed newest first with where it came from, ended one
// at a time; a password change ends every other session, keeps the asking one (with a
// new generation), and takes the new password for the next login.
func TestSessionsAndPasswordChange(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	usr, err := s.Users.Create(ctx, "own@example.test", "Own", RoleUser, "first-password", new("t1"))
	if err != nil {
		t.Fatal(err)
	}
	login := func(pw, addr string) Session {
		t.Helper()
		sess, err := s.Users.Login(ctx, usr.Email, pw, Client{Addr: addr, Agent: strings.Repeat("a", 300)})
		if err != nil {
			t.Fatal(err)
		}
		return sess
	}
	laptop, phone, tablet := login("first-password", "192.0.2.1"), login("first-password", "192.0.2.2"), login("first-password", "2001:db8::3")
	list, next, err := s.Users.Sessions(ctx, usr.ID, phone.ID, "", 50)
	if err != nil || next != "" {
		t.Fatal(err, next)
	}
	if len(list) != 3 || list[0].ID != tablet.ID || list[2].ID != laptop.ID {
		t.Fatalf("got %+v; want the three sessions, newest first", list)
	}
	if !list[1].Current || list[0].Current || list[1].ClientAddr != "192.0.2.2" || list[1].Method != MethodPassword ||
		len(list[1].UserAgent) != maxAgentLen || list[1].LastUsedAt.IsZero() {
		t.Fatalf("got %+v; want the phone's session current, its address, method and clipped agent", list[1])
	}
	// Pages of one.
	first, cur, err := s.Users.Sessions(ctx, usr.ID, "", "", 1)
	if err != nil || len(first) != 1 || first[0].ID != tablet.ID || cur == "" {
		t.Fatalf("first page: %+v, %q, %v", first, cur, err)
	}
	second, _, err := s.Users.Sessions(ctx, usr.ID, "", cur, 1)
	if err != nil || len(second) != 1 || second[0].ID != phone.ID {
		t.Fatalf("second page: %+v, %v; want the phone's", second, err)
	}

	// Ending one: its tokens stop at once; ending it again, or another user's, is 404.
	if err := s.Users.EndSession(ctx, usr.ID, tablet.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Users.Authorize(ctx, usr.ID, tablet.ID, tablet.Gen); err == nil {
		t.Fatal("the ended session's access token still authorizes")
	}
	if err := s.Users.EndSession(ctx, usr.ID, tablet.ID); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("ending it again: %v; want not found", err)
	}
	admin, err := s.Users.Login(ctx, "admin@localhost", "initial-password", Client{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Users.EndSession(ctx, usr.ID, admin.ID); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("ending another user's session: %v; want not found", err)
	}

	// A wrong current password changes nothing.
	if _, err := s.Users.ChangePassword(ctx, usr.ID, phone.ID, "not-it", "second-password"); !errors.Is(err, ErrWrongPassword) || !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("wrong current password: %v; want ErrWrongPassword, a 400", err)
	}
	if _, err := s.Users.ChangePassword(ctx, usr.ID, phone.ID, "first-password", "short"); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("short new password: %v; want invalid", err)
	}
	if err := s.Users.Authorize(ctx, usr.ID, laptop.ID, laptop.Gen); err != nil {
		t.Fatalf("after refused changes the laptop's session: %v", err)
	}

	kept, err := s.Users.ChangePassword(ctx, usr.ID, phone.ID, "first-password", "second-password")
	if err != nil {
		t.Fatal(err)
	}
	if kept.ID != phone.ID || kept.Gen == phone.Gen {
		t.Fatalf("got session %s gen %d; want the phone's (%s) at a new generation", kept.ID, kept.Gen, phone.ID)
	}
	if err := s.Users.Authorize(ctx, usr.ID, phone.ID, kept.Gen); err != nil {
		t.Fatalf("the kept session's new token: %v", err)
	}
	if err := s.Users.Authorize(ctx, usr.ID, phone.ID, phone.Gen); err == nil {
		t.Fatal("an access token from before the change still authorizes")
	}
	if err := s.Users.Authorize(ctx, usr.ID, laptop.ID, kept.Gen); err == nil {
		t.Fatal("another session survived the password change")
	}
	if _, err := s.Users.Refresh(ctx, laptop.RefreshToken); !errors.Is(err, apierr.ErrInvalidRefreshToken) {
		t.Fatalf("the other session's refresh token: %v; want refused", err)
	}
	if _, err := s.Users.Refresh(ctx, phone.RefreshToken); err != nil {
		t.Fatalf("the kept session's refresh token: %v", err)
	}
	if _, err := s.Users.Login(ctx, usr.Email, "first-password", Client{}); !errors.Is(err, apierr.ErrInvalidCredentials) {
		t.Fatalf("the old password: %v; want refused", err)
	}
	login("second-password", "192.0.2.9")
	if list, _, _ := s.Users.Sessions(ctx, usr.ID, "", "", 50); len(list) != 2 {
		t.Fatalf("got %d sessions; want the kept one and the new login", len(list))
	}
	// A session that ended cannot change the password.
	if _, err := s.Users.ChangePassword(ctx, usr.ID, laptop.ID, "second-password", "third-password"); !errors.Is(err, apierr.ErrUnauthorized) {
		t.Fatalf("change from an ended session: %v; want unauthorized", err)
	}
}

// A user holds at most MaxSessions sessions: the login beyond ends the oldest, whose
// tokens stop at once, and the others go on.
func TestSessionsAreBounded(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	usr, err := s.Users.Create(ctx, "many@example.test", "Many", RoleUser, "many-password", new("t1"))
	if err != nil {
		t.Fatal(err)
	}
	var all []Session
	for range MaxSessions + 2 {
		sess, err := s.Users.Login(ctx, usr.Email, "many-password", Client{})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, sess)
	}
	list, _, err := s.Users.Sessions(ctx, usr.ID, "", "", 500)
	if err != nil || len(list) != MaxSessions {
		t.Fatalf("got %d sessions, %v; want %d", len(list), err, MaxSessions)
	}
	for i, sess := range all {
		err := s.Users.Authorize(ctx, usr.ID, sess.ID, sess.Gen)
		if ended := i < 2; (err != nil) != ended {
			t.Fatalf("session %d of %d: Authorize = %v; want ended %v", i, len(all), err, ended)
		}
	}
	if _, err := s.Users.Refresh(ctx, all[0].RefreshToken); !errors.Is(err, apierr.ErrInvalidRefreshToken) {
		t.Fatalf("the oldest session's refresh token: %v; want refused", err)
	}
}
