package app

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// browserHeaders are the headers the console sends to the browser routes of s.
func (s *testServer) browserHeaders(cookie string) map[string]string {
	h := map[string]string{"X-Vmplane-CSRF": "1", "Origin": s.base}
	if cookie != "" {
		h["Cookie"] = "vmplane_refresh=" + cookie
	}
	return h
}

// refreshCookie is the vmplane_refresh cookie an answer sets, checked for the
// attributes that keep it from scripts and other sites.
func refreshCookie(t *testing.T, r *response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name != "vmplane_refresh" {
			continue
		}
		if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/api/auth/browser" {
			t.Errorf("cookie %s: want HttpOnly, SameSite=Strict, Path=/api/auth/browser", c.Raw)
		}
		return c
	}
	t.Fatalf("no vmplane_refresh cookie in %v", r.Header)
	return nil
}

// TestBrowserSession: the console's login keeps the refresh token out of the body, in
// a cookie that only the browser routes read; a refresh rotates it; a request without
// the CSRF header or from another origin is refused; a spent cookie is refused and
// cleared; logout ends the login and clears the cookie.
func TestBrowserSession(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	login := map[string]string{"email": testAdminEmail, "password": testAdminPassword}
	expect(t, s.do(req{method: "POST", path: "/api/auth/browser/login", body: login}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/auth/browser/login", body: login,
		header: map[string]string{"X-Vmplane-CSRF": "1", "Origin": "https://evil.example"}}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/auth/browser/login", body: login,
		header: map[string]string{"X-Vmplane-CSRF": "1"}}), 403, "forbidden")

	r := s.do(req{method: "POST", path: "/api/auth/browser/login", body: login, header: s.browserHeaders("")})
	expect(t, r, 200, "")
	if strings.Contains(string(r.Body), "refresh_token") {
		t.Errorf("the body holds the refresh token: %s", r.Body)
	}
	var reply struct {
		Token string
		User  struct{ Email string }
	}
	r.decode(t, &reply)
	if reply.Token == "" || reply.User.Email != testAdminEmail {
		t.Fatalf("login: %s", r.Body)
	}
	first := refreshCookie(t, r).Value
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: reply.Token}), 200, "")

	// The cookie without the header, or from another origin: refused.
	expect(t, s.do(req{method: "POST", path: "/api/auth/browser/refresh", header: map[string]string{"Origin": s.base, "Cookie": "vmplane_refresh=" + first}}), 403, "forbidden")
	h := s.browserHeaders(first)
	h["Origin"] = "http://127.0.0.1:1"
	expect(t, s.do(req{method: "POST", path: "/api/auth/browser/refresh", header: h}), 403, "forbidden")

	r = s.do(req{method: "POST", path: "/api/auth/browser/refresh", header: s.browserHeaders(first)})
	expect(t, r, 200, "")
	second := refreshCookie(t, r).Value
	if second == first || second == "" {
		t.Fatalf("refresh kept the cookie %q", second)
	}
	r.decode(t, &reply)
	if reply.User.Email != testAdminEmail {
		t.Errorf("refresh answers no user: %s", r.Body)
	}
	// No cookie: 401, and the answer clears the cookie.
	r = s.do(req{method: "POST", path: "/api/auth/browser/refresh", header: s.browserHeaders("")})
	expect(t, r, 401, "invalid_refresh_token")
	if c := refreshCookie(t, r); c.Value != "" || c.Expires.After(time.Now()) {
		t.Errorf("a refused refresh leaves the cookie: %s", c.Raw)
	}

	// Logout ends the login: its access token and its cookie's refresh token.
	r = s.do(req{method: "POST", path: "/api/auth/browser/logout", token: reply.Token, header: s.browserHeaders(second)})
	expect(t, r, 204, "")
	if c := refreshCookie(t, r); c.Value != "" {
		t.Errorf("logout leaves the cookie: %s", c.Raw)
	}
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: reply.Token}), 401, "unauthorized")
	expect(t, s.do(req{method: "POST", path: "/api/auth/browser/refresh", header: s.browserHeaders(second)}), 401, "invalid_refresh_token")
}

// TestBrowserSessionTOTP: a user with a second factor signs in to the console in two
// steps, the second of which sets the cookie.
func TestBrowserSessionTOTP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	u := s.sessionUser(admin, s.newTenant(admin, "browser-totp"), "careful@example.test")
	tok := s.login(u.Email, u.Password).Token
	r := s.do(req{method: "POST", path: "/api/auth/totp", token: tok})
	expect(t, r, 201, "")
	var enr struct{ Secret string }
	r.decode(t, &enr)
	now := time.Now()
	r = s.do(req{method: "POST", path: "/api/auth/totp/confirm", token: tok, body: map[string]any{"code": totpCode(t, enr.Secret, now)}})
	expect(t, r, 200, "")

	r = s.do(req{method: "POST", path: "/api/auth/browser/login", header: s.browserHeaders(""),
		body: map[string]string{"email": u.Email, "password": u.Password}})
	expect(t, r, 401, "totp_required")
	var p totpProblem
	r.decode(t, &p)
	if p.Challenge == "" {
		t.Fatalf("no challenge: %s", r.Body)
	}
	expect(t, s.do(req{method: "POST", path: "/api/auth/browser/login/totp", body: map[string]string{"challenge": p.Challenge, "code": "123456"}}), 403, "forbidden")
	r = s.do(req{method: "POST", path: "/api/auth/browser/login/totp", header: s.browserHeaders(""),
		body: map[string]string{"challenge": p.Challenge, "code": totpCode(t, enr.Secret, now.Add(30*time.Second))}})
	expect(t, r, 200, "")
	c := refreshCookie(t, r)
	expect(t, s.do(req{method: "POST", path: "/api/auth/browser/refresh", header: s.browserHeaders(c.Value)}), 200, "")
}
