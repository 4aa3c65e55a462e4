package app

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/httpedge/token"
)

func TestLogin(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	p := s.login(testAdminEmail, testAdminPassword)
	if p.Token == "" || p.RefreshToken == "" || p.TokenType != "Bearer" || p.ExpiresIn != 900 {
		t.Fatalf("got %+v; want a token pair of type Bearer expiring in 900 s", p)
	}
	if p.User == nil || p.User.Email != testAdminEmail || p.User.Role != "admin" || p.User.TenantID != nil {
		t.Fatalf("got user %+v; want the admin without tenant", p.User)
	}
	// E-mail is matched case-insensitively.
	s.login(strings.ToUpper(testAdminEmail), testAdminPassword)

	wrong := s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": testAdminEmail, "password": "wrong password"}})
	unknown := s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": "nobody@example.test", "password": "wrong password"}})
	expect(t, wrong, 401, "invalid_credentials")
	expect(t, unknown, 401, "invalid_credentials")
	// An unknown e-mail is answered exactly as a wrong password: same body but the request id.
	strip := func(r *response) string {
		var m map[string]any
		r.decode(t, &m)
		delete(m, "request_id")
		b, _ := json.Marshal(m)
		return string(b)
	}
	if a, b := strip(wrong), strip(unknown); a != b {
		t.Fatalf("got wrong-password body %s and unknown-e-mail body %s; want them equal", a, b)
	}
	// A request without a password is malformed, not a wrong password (issue 16.8): 400
	// naming the field, for login and refresh alike.
	for _, c := range []struct {
		path, field string
		body        map[string]string
	}{
		{"/api/auth/login", "password", map[string]string{"email": testAdminEmail}},
		{"/api/auth/login", "email", map[string]string{"password": testAdminPassword}},
		{"/api/auth/login", "password", map[string]string{"email": testAdminEmail, "password": ""}},
		{"/api/auth/refresh", "refresh_token", map[string]string{}},
	} {
		r := s.do(req{method: "POST", path: c.path, body: c.body})
		expect(t, r, 400, "invalid_request")
		var p problemBody
		r.decode(t, &p)
		if len(p.Errors) != 1 || p.Errors[0].Field != c.field {
			t.Fatalf("POST %s %v: got errors %+v; want one on %s", c.path, c.body, p.Errors, c.field)
		}
	}
}

func TestLoginResponseHidesPassword(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	r := s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": testAdminEmail, "password": testAdminPassword}})
	expect(t, r, 200, "")
	if bytes.Contains(r.Body, []byte("password")) || bytes.Contains(r.Body, []byte("$2a$")) {
		t.Fatalf("got %s; want no password or hash in the answer", r.Body)
	}
}

func refresh(s *testServer, rt string) *response {
	s.t.Helper()
	return s.do(req{method: "POST", path: "/api/auth/refresh", body: map[string]string{"refresh_token": rt}})
}

func TestRefreshRotates(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	first := s.login(testAdminEmail, testAdminPassword)
	r := refresh(s, first.RefreshToken)
	expect(t, r, 200, "")
	var second tokenPair
	r.decode(t, &second)
	if second.Token == "" || second.RefreshToken == "" || second.RefreshToken == first.RefreshToken {
		t.Fatalf("got %+v; want a new token pair", second)
	}
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: second.Token}), 200, "")
	// The spent token is refused.
	expect(t, refresh(s, first.RefreshToken), 401, "invalid_refresh_token")
	for _, bad := range []string{"garbage", "a.b.c.d", "x.y.1.AAAA", strings.Repeat("a", 300)} {
		expect(t, refresh(s, bad), 401, "invalid_refresh_token")
	}
	// An empty token is no token: a malformed request, not a bad credential.
	expect(t, refresh(s, ""), 400, "invalid_request")
}

func TestRefreshReuseRevokesFamily(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	login := s.login(testAdminEmail, testAdminPassword)
	other := s.login(testAdminEmail, testAdminPassword) // another login: another family
	var gen2, gen3 tokenPair
	r := refresh(s, login.RefreshToken)
	expect(t, r, 200, "")
	r.decode(t, &gen2)
	r = refresh(s, gen2.RefreshToken)
	expect(t, r, 200, "")
	r.decode(t, &gen3)
	// gen2 is replayed: the whole family dies, the newest token too.
	expect(t, refresh(s, gen2.RefreshToken), 401, "invalid_refresh_token")
	expect(t, refresh(s, gen3.RefreshToken), 401, "invalid_refresh_token")
	expect(t, refresh(s, login.RefreshToken), 401, "invalid_refresh_token")
	// The other login is untouched.
	expect(t, refresh(s, other.RefreshToken), 200, "")
	// Revocation is durable.
	s.restart()
	expect(t, refresh(s, gen3.RefreshToken), 401, "invalid_refresh_token")
}

func TestLogout(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	p := s.login(testAdminEmail, testAdminPassword)
	body := map[string]string{"refresh_token": p.RefreshToken}
	expect(t, s.do(req{method: "POST", path: "/api/auth/logout", body: body}), 401, "unauthorized")
	expect(t, s.do(req{method: "POST", path: "/api/auth/logout", token: p.Token, body: map[string]string{"refresh_token": "nope"}}), 401, "invalid_refresh_token")
	r := s.do(req{method: "POST", path: "/api/auth/logout", token: p.Token, body: body})
	expect(t, r, 204, "")
	if len(r.Body) != 0 {
		t.Fatalf("got body %q; want none", r.Body)
	}
	expect(t, refresh(s, p.RefreshToken), 401, "invalid_refresh_token")
	// The login's access token ended with it: logging out again is refused.
	expect(t, s.do(req{method: "POST", path: "/api/auth/logout", token: p.Token, body: body}), 401, "unauthorized")
}

func TestMe(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	p := s.login(testAdminEmail, testAdminPassword)
	r := s.do(req{method: "GET", path: "/api/auth/me", token: p.Token})
	expect(t, r, 200, "")
	var me struct {
		ID, Email, Role string
		TenantID        *string `json:"tenant_id"`
	}
	r.decode(t, &me)
	if me.ID != p.User.ID || me.Email != testAdminEmail || me.Role != "admin" {
		t.Fatalf("got %+v; want the admin", me)
	}

	// The claims of p's own token, to sign otherwise.
	mine := claimsOf(t, p.Token)
	otherKey, _ := token.New([]byte("another-key-another-key-another-key!"), time.Minute)
	forged, _ := otherKey.Issue(mine)
	sameKeyExpired, _ := token.New([]byte(testJWTKey), -time.Minute)
	expired, _ := sameKeyExpired.Issue(mine)
	// Correctly signed, with a claim of the wrong JSON type: "exp" as a string.
	stringExp := signWithTestKey(t, `{"alg":"HS256","typ":"JWT"}`, map[string]any{"iss": "vmplane", "aud": []string{"vmplane"},
		"sub": p.User.ID, "role": "admin", "exp": "9999999999", "sid": mine.SessionID, "gen": mine.Gen})
	b64 := base64.RawURLEncoding.EncodeToString
	claims := strings.Split(p.Token, ".")[1]
	algNone := b64([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + claims + "."
	hs512 := b64([]byte(`{"alg":"HS512","typ":"JWT"}`)) + "." + claims + "." + strings.Split(p.Token, ".")[2]
	tampered := strings.Split(p.Token, ".")[0] + "." + b64([]byte(`{"sub":"`+p.User.ID+`","role":"admin","exp":9999999999,"iss":"vmplane","aud":"vmplane"}`)) + "." + strings.Split(p.Token, ".")[2]

	for name, tok := range map[string]string{
		"forged": forged, "expired": expired, "alg none": algNone, "other alg": hs512, "exp a string": stringExp,
		"tampered claims": tampered, "malformed": "not-a-jwt", "empty claims": "eyJ.eyJ.",
	} {
		t.Run(name, func(t *testing.T) {
			r := s.do(req{method: "GET", path: "/api/auth/me", token: tok})
			expect(t, r, 401, "unauthorized")
			if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("got WWW-Authenticate %q; want Bearer", r.Header.Get("WWW-Authenticate"))
			}
		})
	}
	expect(t, s.do(req{method: "GET", path: "/api/auth/me"}), 401, "unauthorized")
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", header: map[string]string{"Authorization": "Basic YTpi"}}), 401, "unauthorized")
}

// claimsOf reads an access token's claims, unverified.
func claimsOf(t *testing.T, tok string) token.Claims {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Sub, Role, Email, Sid string
		TenantID              *string `json:"tenant_id"`
		Gen                   uint64
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return token.Claims{Subject: c.Sub, Role: c.Role, Email: c.Email, TenantID: c.TenantID, SessionID: c.Sid, Gen: c.Gen}
}

// signWithTestKey signs claims under header with the test servers' key, as vmplane
// would: the signature is good whatever the claims say.
func signWithTestKey(t *testing.T, header string, claims map[string]any) string {
	t.Helper()
	raw, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	payload := b64([]byte(header)) + "." + b64(raw)
	mac := hmac.New(sha256.New, []byte(testJWTKey))
	mac.Write([]byte(payload))
	return payload + "." + b64(mac.Sum(nil))
}

func TestTokensSurviveRestart(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.JWTKey = "" }) // key generated and kept in the store
	p := s.login(testAdminEmail, testAdminPassword)
	s.restart()
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: p.Token}), 200, "")
	expect(t, refresh(s, p.RefreshToken), 200, "")
}

func TestAuthRateLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.RateAuth, c.RateAuthBurst = 3, 3 })
	body := map[string]string{"email": testAdminEmail, "password": "wrong password"}
	for i := 0; i < 3; i++ {
		r := s.do(req{method: "POST", path: "/api/auth/login", body: body})
		expect(t, r, 401, "invalid_credentials")
		if got, want := r.Header.Get("RateLimit-Remaining"), strconv.Itoa(2-i); got != want {
			t.Fatalf("request %d: got RateLimit-Remaining %q; want %q", i, got, want)
		}
	}
	r := s.do(req{method: "POST", path: "/api/auth/login", body: body})
	expect(t, r, 429, "rate_limited")
	checkLimited(t, r, "3")
	// The detail says what refused: the request rate, not failed logins.
	var p problemBody
	r.decode(t, &p)
	if !strings.HasPrefix(p.Detail, "too many requests to /api/auth/ from this address") {
		t.Fatalf("got detail %q; want it to name the request rate on /api/auth/", p.Detail)
	}
	// Non-auth routes are not under the auth limit.
	expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")
	// Another client address is unaffected.
	other := doWith(t, clientFrom("127.0.0.2"), s.base, req{method: "POST", path: "/api/auth/login",
		body: map[string]string{"email": testAdminEmail, "password": testAdminPassword}})
	expect(t, other, 200, "")
}

func TestLoginPerEmailLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.RateLogin, c.RateLoginBurst = 2, 2 })
	body := map[string]string{"email": testAdminEmail, "password": "wrong password"}
	expect(t, s.do(req{method: "POST", path: "/api/auth/login", body: body}), 401, "invalid_credentials")
	expect(t, s.do(req{method: "POST", path: "/api/auth/login", body: body}), 401, "invalid_credentials")
	// The e-mail's bucket is shared by every address.
	r := doWith(t, clientFrom("127.0.0.3"), s.base, req{method: "POST", path: "/api/auth/login", body: body})
	expect(t, r, 429, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("got no Retry-After; want one")
	}
}

func TestGlobalRateLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.RateGlobal, c.RateGlobalBurst = 0.01, 5 })
	for i := 0; i < 5; i++ {
		expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")
	}
	r := s.do(req{method: "GET", path: "/api/health"})
	expect(t, r, 429, "rate_limited")
	checkLimited(t, r, "5")
	expect(t, doWith(t, clientFrom("127.0.0.4"), s.base, req{method: "GET", path: "/api/health"}), 200, "")
}

// TestGlobalRateLimitLeased: a burst large enough for the edge to lease its tokens
// (limiter leases) still refuses after exactly the burst, and each answer's
// RateLimit-Remaining counts down by one.
func TestGlobalRateLimitLeased(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.RateGlobal, c.RateGlobalBurst = 0.01, 40 })
	for i := 0; i < 40; i++ {
		r := s.do(req{method: "GET", path: "/api/health"})
		expect(t, r, 200, "")
		if got, want := r.Header.Get("RateLimit-Remaining"), strconv.Itoa(39-i); got != want {
			t.Fatalf("request %d: got RateLimit-Remaining %q; want %q", i, got, want)
		}
	}
	r := s.do(req{method: "GET", path: "/api/health"})
	expect(t, r, 429, "rate_limited")
	checkLimited(t, r, "40")
	expect(t, doWith(t, clientFrom("127.0.0.4"), s.base, req{method: "GET", path: "/api/health"}), 200, "")
}

func checkLimited(t *testing.T, r *response, limit string) {
	t.Helper()
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || retry < 1 {
		t.Fatalf("got Retry-After %q; want a positive number of seconds", r.Header.Get("Retry-After"))
	}
	if got := r.Header.Get("RateLimit-Limit"); got != limit {
		t.Fatalf("got RateLimit-Limit %q; want %q", got, limit)
	}
	if got := r.Header.Get("RateLimit-Remaining"); got != "0" {
		t.Fatalf("got RateLimit-Remaining %q; want 0", got)
	}
	if reset, err := strconv.Atoi(r.Header.Get("RateLimit-Reset")); err != nil || reset < 1 {
		t.Fatalf("got RateLimit-Reset %q; want a positive number of seconds", r.Header.Get("RateLimit-Reset"))
	}
}

// Ended logins do not pile up in the store: a new login drops the revoked ones.
func TestEndedLoginsArePruned(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for i := 0; i < 5; i++ {
		p := s.login(testAdminEmail, testAdminPassword)
		expect(t, s.do(req{method: "POST", path: "/api/auth/logout", token: p.Token, body: map[string]string{"refresh_token": p.RefreshToken}}), 204, "")
	}
	live := s.login(testAdminEmail, testAdminPassword)
	n := 0
	if err := s.app.System().Store().Scan(context.Background(), []byte("refresh/"), nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("got %d stored logins; want only the live one", n)
	}
	expect(t, refresh(s, live.RefreshToken), 200, "")
}
