package app

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/auth"
)

// TestOwnSessionsAndPassword: a user lists its sessions (each with the address and
// user agent it signed in from, the asking one marked current), ends one (its tokens
// stop at once; another user's session is a 404), and changes its own password: a
// wrong current password is a 400 that changes nothing; a right one ends every other
// session and answers the caller's session a new access token, while its refresh
// token goes on working; the new password signs in, the old one does not. After a
// restart, all of it holds.
func TestOwnSessionsAndPassword(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	u := s.sessionUser(admin, s.newTenant(admin, "Own"), "own@example.test")
	signIn := func(agent, password string) tokenPair {
		t.Helper()
		r := s.do(req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, password), header: map[string]string{"User-Agent": agent}})
		expect(t, r, 200, "")
		var p tokenPair
		r.decode(t, &p)
		return p
	}
	laptop, phone := signIn("laptop-browser/1.0", u.Password), signIn("phone-app/2.0", u.Password)

	sessions := listOf[auth.SessionInfo](s, phone.Token, "/api/auth/sessions")
	if len(sessions) != 2 || sessions[0].UserAgent != "phone-app/2.0" || !sessions[0].Current || sessions[1].Current ||
		sessions[1].UserAgent != "laptop-browser/1.0" || sessions[0].ClientAddr != "127.0.0.1" || sessions[0].Method != "password" {
		t.Fatalf("got %+v; want the phone's session (current) then the laptop's, from 127.0.0.1, by password", sessions)
	}
	if other := listOf[auth.SessionInfo](s, admin, "/api/auth/sessions"); len(other) != 1 {
		t.Fatalf("the operator lists %d sessions; want its own one", len(other))
	}

	// Ending the laptop's session from the phone.
	expect(t, s.do(req{method: "DELETE", path: "/api/auth/sessions/" + sessions[1].ID, token: phone.Token}), 204, "")
	s.reads(laptop.Token, 401)
	expect(t, refresh(s, laptop.RefreshToken), 401, "invalid_refresh_token")
	expect(t, s.do(req{method: "DELETE", path: "/api/auth/sessions/" + sessions[1].ID, token: phone.Token}), 404, "not_found")
	adminSessions := listOf[auth.SessionInfo](s, admin, "/api/auth/sessions")
	expect(t, s.do(req{method: "DELETE", path: "/api/auth/sessions/" + adminSessions[0].ID, token: phone.Token}), 404, "not_found")
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: admin}), 200, "")

	// The password: a wrong current one, a short new one, then the change.
	tablet := signIn("tablet/3.0", u.Password)
	change := func(tok, current, next string) *response {
		return s.do(req{method: "POST", path: "/api/auth/password", token: tok, body: map[string]string{"current_password": current, "new_password": next}})
	}
	refused(t, change(phone.Token, "not-the-password", "brand-new-password"), "current_password")
	refused(t, change(phone.Token, u.Password, "short"), "new_password")
	s.reads(tablet.Token, 200)
	r := change(phone.Token, u.Password, "brand-new-password")
	expect(t, r, 200, "")
	var kept tokenPair
	r.decode(t, &kept)
	if kept.Token == "" || kept.Token == phone.Token || kept.RefreshToken != phone.RefreshToken || kept.User == nil || kept.User.ID != u.ID {
		t.Fatalf("got %+v; want a new access token for the phone's session, its refresh token and the user", kept)
	}
	s.reads(phone.Token, 401) // issued before the change
	s.reads(kept.Token, 200)
	s.reads(tablet.Token, 401)
	expect(t, refresh(s, tablet.RefreshToken), 401, "invalid_refresh_token")
	expect(t, s.do(req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, u.Password)}), 401, "invalid_credentials")
	if got := listOf[auth.SessionInfo](s, kept.Token, "/api/auth/sessions"); len(got) != 1 || got[0].UserAgent != "phone-app/2.0" {
		t.Fatalf("got %+v; want the phone's session alone", got)
	}
	s.restart()
	s.reads(kept.Token, 200)
	s.reads(tablet.Token, 401)
	next := refresh(s, kept.RefreshToken)
	expect(t, next, 200, "")
	s.reads(s.login(u.Email, "brand-new-password").Token, 200)
}

// TestPasswordChangeGuessesAreLimited: wrong current passwords count against the login
// limits of the caller's e-mail, as failed logins do: a stolen access token does not
// make guessing the password cheap.
func TestPasswordChangeGuessesAreLimited(t *testing.T) {
	t.Parallel()
	s := startServer(t, defaultLimits)
	u := s.victim()
	tok := s.login(u.Email, u.Password).Token
	for range 5 {
		refused(t, s.do(req{method: "POST", path: "/api/auth/password", token: tok, body: map[string]string{"current_password": "guess", "new_password": "brand-new-password"}}), "current_password")
	}
	r := s.do(req{method: "POST", path: "/api/auth/password", token: tok, body: map[string]string{"current_password": u.Password, "new_password": "brand-new-password"}})
	expect(t, r, 429, "rate_limited")
	if !strings.Contains(string(r.Body), "too many failed logins for this e-mail") {
		t.Fatalf("got %s; want the login limit named", r.Body)
	}
	expect(t, s.do(req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, u.Password)}), 429, "rate_limited")
}

// refused checks a 400 invalid_request naming field.
func refused(t *testing.T, r *response, field string) {
	t.Helper()
	expect(t, r, 400, "invalid_request")
	if !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
		t.Fatalf("got %s; want %s named", r.Body, field)
	}
}
