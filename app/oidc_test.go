package app

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/sso/ssotest"
)

// signIn is a sign-in walked to its callback: the URL the provider sent the browser
// back to, and the secret the start set as a cookie, which the callback wants back.
type signIn struct{ url, secret string }

// withURL is the sign-in with its callback URL changed (a parameter added or
// altered).
func (si signIn) withURL(u string) signIn { return signIn{url: u, secret: si.secret} }

// browser walks a sign-in with provider from s's start to its callback, as user of
// the provider.
func browser(t *testing.T, s *testServer, provider, user string) signIn {
	t.Helper()
	return signInAt(t, s.base+"/api/auth/oidc/"+provider+"/start?redirect_to=/machines", s.base, user)
}

// signInAt starts a sign-in at start, keeps the secret its answer sets as a cookie,
// and walks the provider's login as user (ssotest.Browse) to the callback of base.
func signInAt(t *testing.T, start, base, user string) signIn {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(start)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("GET %s: %d; want 302", start, res.StatusCode)
	}
	var si signIn
	for _, ck := range res.Cookies() {
		if ck.Name == "vmplane_oidc_secret" {
			si.secret = ck.Value
		}
	}
	if si.secret == "" {
		t.Fatalf("GET %s set no secret: %v", start, res.Header["Set-Cookie"])
	}
	si.url = ssotest.Browse(t, base, res.Header.Get("Location"), user)
	return si
}

// page GETs vmplane's callback URL as the browser that started the sign-in: with
// the cookie the start set, which holds the secret.
func page(s *testServer, si signIn) *response {
	return s.do(req{method: "GET", path: strings.TrimPrefix(si.url, s.base), header: map[string]string{"Cookie": "vmplane_oidc_secret=" + si.secret}})
}

// callback GETs vmplane's callback URL as the program that started the sign-in
// (asking for JSON, and sending the secret back).
func callback(s *testServer, si signIn) *response {
	return s.do(req{method: "GET", path: strings.TrimPrefix(si.url, s.base),
		header: map[string]string{"Accept": "application/json", "Cookie": "vmplane_oidc_secret=" + si.secret}})
}

func TestOIDCLogin(t *testing.T) {
	t.Parallel()
	idp := ssotest.Start(t,
		ssotest.User{ID: "alice", Email: "alice@acme.test", Groups: []string{"acme-staff", "everyone"}},
		ssotest.User{ID: "root", Email: testAdminEmail, Groups: []string{"ops"}},
		ssotest.User{ID: "stranger", Email: "stranger@else.test", Groups: []string{"everyone"}},
		ssotest.User{ID: "bob", Email: "bob@acme.test", Unverified: true, Groups: []string{"acme-staff"}})
	addr := idp.Serve()
	s, admin := synced(t, func(c *Config) { c.Addr = addr })
	acme := s.tenant(admin, "Acme", nil)

	// No provider yet: the list is empty and a start is 404.
	var list struct{ Providers []struct{ ID, Name string } }
	r := s.do(req{method: "GET", path: "/api/auth/oidc/providers"})
	expect(t, r, 200, "")
	r.decode(t, &list)
	if len(list.Providers) != 0 {
		t.Fatalf("providers %s; want none", r.Body)
	}
	expect(t, s.do(req{method: "GET", path: "/api/auth/oidc/corp/start"}), 404, "not_found")

	file := idp.File(addr, map[string]string{"acme-staff": acme.ID, "ops": "operator"})
	s.stop()
	s.cfg.OIDCProvidersFile = file
	s.start()

	r = s.do(req{method: "GET", path: "/api/auth/oidc/providers"})
	expect(t, r, 200, "")
	r.decode(t, &list)
	if len(list.Providers) != 2 || list.Providers[0].ID != "confused" || list.Providers[1].Name != "Corp SSO" {
		t.Fatalf("providers %s", r.Body)
	}
	expect(t, s.do(req{method: "GET", path: "/api/auth/oidc/nope/start"}), 404, "not_found")
	expect(t, s.do(req{method: "GET", path: "/api/auth/oidc/corp/start?redirect_to=https://evil.test/"}), 400, "invalid_request")
	expect(t, s.do(req{method: "GET", path: "/api/auth/oidc/corp/start?redirect_to=//evil.test/"}), 400, "invalid_request")

	// A new user, created on its first sign-in in the tenant its claim maps to.
	cb := browser(t, s, "corp", "alice")
	if q, _ := url.Parse(cb.url); q.Query().Get("code") == "" || q.Query().Get("state") == "" || q.Query().Get("state") == cb.secret {
		t.Fatalf("callback %s (secret %s); want a code and a state, not the secret", cb.url, cb.secret)
	}
	// A wrong state is refused, and leaves the right one to its callback.
	u, _ := url.Parse(cb.url)
	q := u.Query()
	q.Set("state", auth.RandomToken(32))
	u.RawQuery = q.Encode()
	expect(t, callback(s, cb.withURL(u.String())), 400, "oidc_state_invalid")
	// So does the callback's URL without the secret the start set (one that leaked
	// from a log or a history), or with another sign-in's secret, as a program or as
	// a browser: whoever started the sign-in can still complete it.
	another := browser(t, s, "corp", "alice")
	for _, secret := range []string{"", another.secret} {
		r = callback(s, signIn{url: cb.url, secret: secret})
		expect(t, r, 400, "oidc_state_invalid")
		if !strings.Contains(string(r.Body), "not started in this browser or program") {
			t.Fatalf("the refusal of a callback without its secret: %s", r.Body)
		}
		expect(t, page(s, signIn{url: cb.url, secret: secret}), 400, "oidc_state_invalid")
	}
	expect(t, s.do(req{method: "GET", path: strings.TrimPrefix(cb.url, s.base), header: map[string]string{"Accept": "application/json"}}), 400, "oidc_state_invalid")
	// Parameters a provider adds of its own (RFC 9207's iss, Keycloak's session_state)
	// are ignored.
	r = callback(s, cb.withURL(cb.url+"&iss="+url.QueryEscape(idp.URL)+"&session_state=abc"))
	expect(t, r, 200, "")
	var tok struct {
		Token string
		User  auth.User
	}
	r.decode(t, &tok)
	if tok.User.Email != "alice@acme.test" || tok.User.Role != auth.RoleUser || tok.User.TenantID == nil || *tok.User.TenantID != acme.ID {
		t.Fatalf("signed in %+v; want a new user of tenant %s", tok.User, acme.ID)
	}
	var me auth.User
	r = s.do(req{method: "GET", path: "/api/auth/me", token: tok.Token})
	expect(t, r, 200, "")
	r.decode(t, &me)
	if me.ID != tok.User.ID {
		t.Fatalf("me %+v", me)
	}
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: tok.Token}), 200, "")
	sessions := listOf[auth.SessionInfo](s, tok.Token, "/api/auth/sessions")
	if len(sessions) != 1 || sessions[0].Method != auth.MethodOIDC {
		t.Fatalf("sessions %+v; want one of method oidc", sessions)
	}
	// The same code and state again: the state is spent.
	expect(t, callback(s, cb), 400, "oidc_state_invalid")

	// Signing in again finds the user the first sign-in created.
	r = callback(s, browser(t, s, "corp", "alice"))
	expect(t, r, 200, "")
	var again struct{ User auth.User }
	r.decode(t, &again)
	if again.User.ID != tok.User.ID {
		t.Fatalf("second sign-in %s; want user %s", again.User.ID, tok.User.ID)
	}

	// An operator that exists, matched by e-mail, placed among the operators.
	r = callback(s, browser(t, s, "corp", "root"))
	expect(t, r, 200, "")
	var root struct {
		Token string
		User  auth.User
	}
	r.decode(t, &root)
	if root.User.Email != testAdminEmail || root.User.Role != auth.RoleAdmin {
		t.Fatalf("signed in %+v; want the admin", root.User)
	}
	expect(t, s.do(req{method: "GET", path: "/api/resources/tenants", token: root.Token}), 200, "")

	// Refused: a claim mapped nowhere, an e-mail the provider has not verified, an
	// ID token for another audience.
	expect(t, callback(s, browser(t, s, "corp", "stranger")), 403, "oidc_not_mapped")
	expect(t, callback(s, browser(t, s, "corp", "bob")), 401, "oidc_login_failed")
	expect(t, callback(s, browser(t, s, "confused", "alice")), 401, "oidc_login_failed")
	// An ID token whose nonce is not the sign-in's.
	idp.WrongNonce(true)
	r = callback(s, browser(t, s, "corp", "alice"))
	idp.WrongNonce(false)
	expect(t, r, 401, "oidc_login_failed")
	if !strings.Contains(string(r.Body), "nonce") {
		t.Fatalf("a wrong nonce's refusal: %s; want it named", r.Body)
	}
	// The provider's own refusal comes back as an error with the state.
	cb = browser(t, s, "corp", "alice")
	u, _ = url.Parse(cb.url)
	q = u.Query()
	q.Del("code")
	q.Set("error", "access_denied")
	u.RawQuery = q.Encode()
	expect(t, callback(s, cb.withURL(u.String())), 401, "oidc_login_failed")

	// A browser gets the page, which carries the session to the tab: never in a URL.
	// Only the browser that started the sign-in gets it (the start's cookie): a link
	// to someone else's callback signs nobody in, and spends nothing.
	start := doWith(t, &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		s.base, req{method: "GET", path: "/api/auth/oidc/corp/start"})
	expect(t, start, 302, "")
	if ck := start.Header.Get("Set-Cookie"); !strings.HasPrefix(ck, "vmplane_oidc_secret=") || !strings.Contains(ck, "HttpOnly") ||
		!strings.Contains(ck, "SameSite=Lax") || !strings.Contains(ck, "path=/api/auth/oidc/corp/callback") {
		t.Fatalf("the start's cookie: %q", ck)
	}
	// The authorization code flow with PKCE (S256), the state and the nonce in the
	// provider's URL; the secret in none.
	if to, err := url.Parse(start.Header.Get("Location")); err != nil || to.Query().Get("code_challenge_method") != "S256" || to.Query().Get("code_challenge") == "" ||
		to.Query().Get("response_type") != "code" || to.Query().Get("state") == "" || to.Query().Get("nonce") == "" ||
		strings.Contains(to.String(), strings.TrimPrefix(strings.Split(start.Header.Get("Set-Cookie"), ";")[0], "vmplane_oidc_secret=")) {
		t.Fatalf("the start's redirect %q (%v); want a code flow with an S256 challenge, a state and a nonce, and no secret", start.Header.Get("Location"), err)
	}
	cb = browser(t, s, "corp", "alice")
	expect(t, s.do(req{method: "GET", path: strings.TrimPrefix(cb.url, s.base)}), 400, "oidc_state_invalid")
	r = page(s, cb)
	expect(t, r, 200, "")
	if ck := r.Header.Get("Set-Cookie"); !strings.HasPrefix(ck, "vmplane_oidc_secret=;") {
		t.Fatalf("the callback's cookie: %q; want it ended", ck)
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.Body), `"refresh_token":`) ||
		!strings.Contains(string(r.Body), `"redirect_to":"/machines"`) || r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("page %v: %s", r.Header, r.Body)
	}

	// Each callback is audited as a login is: a success under the user it signed in,
	// a refusal with its reason and no actor.
	cb = browser(t, s, "corp", "alice")
	asProgram := func(si signIn, rid string) req {
		return audited(req{method: "GET", path: strings.TrimPrefix(si.url, s.base),
			header: map[string]string{"Accept": "application/json", "Cookie": "vmplane_oidc_secret=" + si.secret}}, rid)
	}
	expect(t, s.do(asProgram(cb, "oidc-ok")), 200, "")
	s.oneEntry(admin, "oidc-ok", kit.AuditEntry{Actor: tok.User.ID, ActorKind: "user", Action: "GET /api/auth/oidc/{provider}/callback",
		TargetID: tok.User.ID, Result: "ok", TenantID: acme.ID})
	expect(t, s.do(asProgram(cb, "oidc-replayed")), 400, "oidc_state_invalid")
	if e := s.oneEntry(admin, "oidc-replayed", kit.AuditEntry{Action: "GET /api/auth/oidc/{provider}/callback", Result: "oidc_state_invalid"}); e.Actor != "" || e.Reason == "" {
		t.Fatalf("a refused sign-in: %+v; want no actor and the reason", e)
	}
	expect(t, s.do(asProgram(browser(t, s, "corp", "stranger"), "oidc-unmapped")), 403, "oidc_not_mapped")
	s.oneEntry(admin, "oidc-unmapped", kit.AuditEntry{Action: "GET /api/auth/oidc/{provider}/callback", Result: "oidc_not_mapped"})

	// The second factor stays the user's: with one, the sign-in asks for a code.
	var enr struct{ Secret string }
	r = s.do(req{method: "POST", path: "/api/auth/totp", token: tok.Token})
	expect(t, r, 201, "")
	r.decode(t, &enr)
	var rc struct {
		Codes []string `json:"recovery_codes"`
	}
	r = s.do(req{method: "POST", path: "/api/auth/totp/confirm", token: tok.Token, body: map[string]string{"code": totpCode(t, enr.Secret, time.Now())}})
	expect(t, r, 200, "")
	r.decode(t, &rc)
	r = callback(s, browser(t, s, "corp", "alice"))
	expect(t, r, 401, "totp_required")
	var p totpProblem
	r.decode(t, &p)
	r = s.do(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": p.Challenge, "code": rc.Codes[0]}})
	expect(t, r, 200, "")
	// A browser's page asks for the code, with the challenge.
	r = page(s, browser(t, s, "corp", "alice"))
	expect(t, r, 200, "")
	if !strings.Contains(string(r.Body), `"challenge":"`) || strings.Contains(string(r.Body), `"refresh_token":`) {
		t.Fatalf("page of a user with a second factor: %s", r.Body)
	}
}

// A tenant that requires a second factor: a user without one signs in through a
// provider to a login that may only enrol one, as with a password.
func TestOIDCLoginTOTPRequired(t *testing.T) {
	t.Parallel()
	idp := ssotest.Start(t, ssotest.User{ID: "carol", Email: "carol@strict.test", Groups: []string{"strict"}})
	addr := idp.Serve()
	s, admin := synced(t, func(c *Config) { c.Addr = addr })
	strict := s.tenant(admin, "Strict", nil)
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/tenants/" + strict.ID, token: admin, body: map[string]any{"require_totp": true}}), 200, "")
	s.stop()
	s.cfg.OIDCProvidersFile = idp.File(addr, map[string]string{"strict": strict.ID})
	s.start()

	r := callback(s, browser(t, s, "corp", "carol"))
	expect(t, r, 200, "")
	var tok struct {
		Token                 string
		TOTPEnrolmentRequired bool `json:"totp_enrolment_required"`
	}
	r.decode(t, &tok)
	if !tok.TOTPEnrolmentRequired {
		t.Fatalf("sign-in %s; want a login restricted to enrolling a factor", r.Body)
	}
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: tok.Token}), 403, "totp_enrolment_required")
	expect(t, s.do(req{method: "POST", path: "/api/auth/totp", token: tok.Token}), 201, "")
}

// A sign-in is the cluster's, not a member's: started on one member, its callback
// lands on another and signs in, and a replay on a third finds the state spent.
func TestClusterOIDCCallbackOnAnotherMember(t *testing.T) {
	t.Parallel()
	idp := ssotest.Start(t, ssotest.User{ID: "root", Email: testAdminEmail, Groups: []string{"ops"}})
	addr := idp.Serve()
	file := idp.File(addr, map[string]string{"ops": "operator"})
	ms, _ := startCluster(t, 3, func(c *Config) {
		c.OIDCProvidersFile = file
		if c.NodeName == "m0" {
			c.Addr = addr // the redirect base of the providers file
		}
	})
	cb := signInAt(t, ms[1].base+"/api/auth/oidc/corp/start", ms[0].base, "root")
	on2 := cb.withURL(ms[2].base + strings.TrimPrefix(cb.url, ms[0].base))
	expect(t, callback(ms[2], signIn{url: on2.url}), 400, "oidc_state_invalid") // the secret stays with its starter
	r := callback(ms[2], on2)
	expect(t, r, 200, "")
	var tok struct {
		Token string
		User  auth.User
	}
	r.decode(t, &tok)
	if tok.User.Email != testAdminEmail {
		t.Fatalf("signed in %+v", tok.User)
	}
	expect(t, ms[0].do(req{method: "GET", path: "/api/auth/me", token: tok.Token}), 200, "")
	expect(t, callback(ms[1], cb.withURL(ms[1].base+strings.TrimPrefix(cb.url, ms[0].base))), 400, "oidc_state_invalid")
}
