package app

import (
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/httpedge/api"
)

// A tenant that requires a second factor, over HTTP: its user without one signs in to
// a login that may only enrol one (the login's answer says so, and every other route
// of the table answers 403 totp_enrolment_required); the first code frees that login
// at once; the factor cannot then be turned off.
func TestTOTPRequiredByTenant(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	r := s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": "Strict", "require_totp": true}})
	expect(t, r, 201, "")
	var ten struct {
		ID          string
		RequireTOTP bool `json:"require_totp"`
	}
	r.decode(t, &ten)
	if !ten.RequireTOTP {
		t.Fatalf("tenant %s; want require_totp", r.Body)
	}
	u := s.sessionUser(admin, ten.ID, "strict@example.test")
	r = s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": u.Email, "password": u.Password}})
	expect(t, r, 200, "")
	var login struct {
		Token    string
		Required bool `json:"totp_enrolment_required"`
	}
	r.decode(t, &login)
	if !login.Required {
		t.Fatalf("login %s; want totp_enrolment_required", r.Body)
	}
	tok := login.Token

	// The walk: every route that takes a token, but the account's own few.
	open := map[string]bool{"GET /api/auth/me": true, "POST /api/auth/totp": true, "POST /api/auth/totp/confirm": true,
		"POST /api/auth/logout": true, "GET /api/auth/sessions": true, "DELETE /api/auth/sessions/{id}": true, "POST /api/auth/password": true,
		"POST /api/auth/browser/logout": true}
	fill := strings.NewReplacer("{id}", "some-id", "{vmId}", "some-id", "{action}", "stop", "{name}", "some-name")
	walked := 0
	for _, rt := range s.app.Edge().Routes() {
		if rt.Access == api.Public || open[rt.Method+" "+rt.Path] {
			continue
		}
		rq := req{method: rt.Method, path: fill.Replace(rt.Path), token: tok}
		if rt.Method == "POST" || rt.Method == "PATCH" || rt.Method == "PUT" {
			rq.body = `{}`
		}
		r := s.do(rq)
		if r.Status != 403 || !strings.Contains(string(r.Body), `"code":"totp_enrolment_required"`) {
			t.Errorf("%s %s: got %d %s; want 403 totp_enrolment_required", rt.Method, rq.path, r.Status, r.Body)
		}
		walked++
	}
	if walked == 0 {
		t.Fatal("no route walked")
	}
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: tok}), 200, "")
	expect(t, s.do(req{method: "GET", path: "/api/auth/sessions", token: tok}), 200, "")

	r = s.do(req{method: "POST", path: "/api/auth/totp", token: tok})
	expect(t, r, 201, "")
	var enr struct{ Secret string }
	r.decode(t, &enr)
	expect(t, s.do(req{method: "POST", path: "/api/auth/totp/confirm", token: tok, body: map[string]any{"code": totpCode(t, enr.Secret, time.Now())}}), 200, "")
	// The same access token, at once.
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: tok}), 200, "")
	expect(t, s.do(req{method: "POST", path: "/api/auth/totp/disable", token: tok,
		body: map[string]any{"code": totpCode(t, enr.Secret, time.Now().Add(30*time.Second))}}), 403, "forbidden")

	// Lifted by the operator: the factor may go.
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/tenants/" + ten.ID, token: admin, body: map[string]any{"require_totp": false}}), 200, "")
	expect(t, s.do(req{method: "POST", path: "/api/auth/totp/disable", token: tok,
		body: map[string]any{"code": totpCode(t, enr.Secret, time.Now().Add(30*time.Second))}}), 204, "")
}

// Operators, when the server requires it of them: the first admin signs in restricted.
func TestTOTPRequiredOfOperatorsOverHTTP(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.RequireOperatorTOTP = true })
	p := s.login(testAdminEmail, testAdminPassword)
	r := s.do(req{method: "GET", path: "/api/resources/tenants", token: p.Token})
	expect(t, r, 403, "totp_enrolment_required")
	if !strings.Contains(string(r.Body), "/api/auth/totp") {
		t.Errorf("the refusal does not say what to do: %s", r.Body)
	}
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: p.Token}), 200, "")
}
