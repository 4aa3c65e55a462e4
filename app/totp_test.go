package app

import (
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// totpCode is the code of secret for the time step at.
func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type totpProblem struct {
	Code      string `json:"code"`
	Challenge string `json:"challenge"`
}

// A second factor over HTTP: enrol and confirm, a login that answers totp_required with
// a challenge, completed by a code once; a session that only gave the password gets
// nothing; an operator's reset ends every session and logins need no code again.
func TestTOTPOverHTTP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	tenant := s.newTenant(admin, "totp-tenant")
	u := s.sessionUser(admin, tenant, "careful@example.test")
	tok := s.login(u.Email, u.Password).Token

	r := s.do(req{method: "POST", path: "/api/auth/totp", token: tok})
	expect(t, r, 201, "")
	var enr struct{ Secret, URI string }
	r.decode(t, &enr)
	if enr.Secret == "" || enr.URI == "" {
		t.Fatalf("enrolment %s", r.Body)
	}
	r = s.do(req{method: "POST", path: "/api/auth/totp/confirm", token: tok, body: map[string]any{"code": "000000"}})
	if r.Status != 400 {
		// 000000 may be the current code, once in a million.
		expect(t, r, 200, "")
	} else {
		r = s.do(req{method: "POST", path: "/api/auth/totp/confirm", token: tok, body: map[string]any{"code": totpCode(t, enr.Secret, time.Now())}})
		expect(t, r, 200, "")
	}
	var rc struct {
		Codes []string `json:"recovery_codes"`
	}
	r.decode(t, &rc)
	if len(rc.Codes) != 10 {
		t.Fatalf("recovery codes: %s", r.Body)
	}
	r = s.do(req{method: "GET", path: "/api/auth/me", token: tok})
	expect(t, r, 200, "")
	if !strings.Contains(string(r.Body), `"totp_enabled":true`) {
		t.Fatalf("me: %s", r.Body)
	}

	// The password alone: 401 totp_required with a challenge, no token.
	r = s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": u.Email, "password": u.Password}})
	expect(t, r, 401, "totp_required")
	var p totpProblem
	r.decode(t, &p)
	if p.Challenge == "" {
		t.Fatalf("no challenge: %s", r.Body)
	}
	r = s.do(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": p.Challenge, "code": "12345"}})
	expect(t, r, 400, "invalid_request")
	r = s.do(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": "x", "code": "123456"}})
	expect(t, r, 401, "unauthorized")
	code := totpCode(t, enr.Secret, time.Now().Add(30*time.Second))
	r = s.do(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": p.Challenge, "code": code}})
	expect(t, r, 200, "")
	var pair tokenPair
	r.decode(t, &pair)
	s.reads(pair.Token, 200)
	// The same code again, with a new challenge: refused.
	r = s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": u.Email, "password": u.Password}})
	expect(t, r, 401, "totp_required")
	r.decode(t, &p)
	r = s.do(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": p.Challenge, "code": code}})
	expect(t, r, 400, "invalid_request")
	// A recovery code works once.
	r = s.do(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": p.Challenge, "code": rc.Codes[0]}})
	expect(t, r, 200, "")

	// Another user cannot reset it; an operator can, and every session ends.
	other := s.login(s.sessionUser(admin, tenant, "other@example.test").Email, "session-password").Token
	r = s.do(req{method: "DELETE", path: "/api/resources/users/" + u.ID + "/totp", token: other})
	expect(t, r, 403, "forbidden")
	r = s.do(req{method: "DELETE", path: "/api/resources/users/" + u.ID + "/totp", token: admin})
	expect(t, r, 204, "")
	s.reads(pair.Token, 401)
	s.reads(tok, 401)
	s.login(u.Email, u.Password)
	r = s.do(req{method: "DELETE", path: "/api/resources/users/" + u.ID + "/totp", token: admin})
	expect(t, r, 409, "conflict")
}

// wrongCode is a six-digit code that is none of secret's codes within the skew of now
// (a step either side, and one more for a step that turns during the test).
func wrongCode(t *testing.T, secret string) string {
	t.Helper()
	near := map[string]bool{}
	for d := -2; d <= 2; d++ {
		near[totpCode(t, secret, time.Now().Add(time.Duration(d)*30*time.Second))] = true
	}
	for _, c := range []string{"000000", "111111", "222222", "333333", "444444", "555555"} {
		if !near[c] {
			return c
		}
	}
	t.Fatal("no wrong code found")
	return ""
}

// TestTOTPCodeGuessesAreLimited: wrong codes of the second factor count against the
// login limits of the user's e-mail, as wrong passwords do: a stolen password does not
// make guessing the code cheap. Past the limit the guessing address is refused the
// right code too, and a login; another address is not.
func TestTOTPCodeGuessesAreLimited(t *testing.T) {
	t.Parallel()
	s := startServer(t, defaultLimits)
	u := s.victim()
	tok := s.login(u.Email, u.Password).Token
	r := s.do(req{method: "POST", path: "/api/auth/totp", token: tok})
	expect(t, r, 201, "")
	var enr struct{ Secret string }
	r.decode(t, &enr)
	expect(t, s.do(req{method: "POST", path: "/api/auth/totp/confirm", token: tok, body: map[string]any{"code": totpCode(t, enr.Secret, time.Now())}}), 200, "")

	r = s.do(req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, u.Password)})
	expect(t, r, 401, "totp_required")
	var p totpProblem
	r.decode(t, &p)
	// The guesses from an address of their own (the tests' other requests spend
	// 127.0.0.1's budget of /api/auth/ requests): five, then that address is refused
	// for the e-mail, the right code too, while the owner's address still logs in.
	guesser := clientFrom("127.0.0.2")
	guess := wrongCode(t, enr.Secret)
	for range 5 {
		refused(t, doWith(t, guesser, s.base, req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": p.Challenge, "code": guess}}), "code")
	}
	r = doWith(t, guesser, s.base, req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": p.Challenge, "code": totpCode(t, enr.Secret, time.Now().Add(30*time.Second))}})
	expect(t, r, 429, "rate_limited")
	if !strings.Contains(string(r.Body), "too many failed logins for this e-mail") {
		t.Fatalf("got %s; want the login limit named", r.Body)
	}
	expect(t, doWith(t, guesser, s.base, req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, u.Password)}), 429, "rate_limited")
	expect(t, doWith(t, clientFrom("127.0.0.3"), s.base, req{method: "POST", path: "/api/auth/login", body: loginBody(u.Email, u.Password)}), 401, "totp_required")
}
