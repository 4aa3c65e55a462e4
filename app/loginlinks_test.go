package app

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/auth"
)

// A billing system's "log in to the panel": an operator or a billing-scoped key asks
// for a tenant user's login link, and the link signs that user in once, as a session
// that says how it was opened; nobody else makes links, and no operator gets one.
func TestLoginLinks(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.PublicURL = "https://panel.example.test/" })
	a := s.tenant(admin, "Linked", nil)
	var me auth.User
	r := s.do(req{method: "GET", path: "/api/auth/me", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &me)
	var op auth.User
	r = s.do(req{method: "GET", path: "/api/auth/me", token: admin})
	expect(t, r, 200, "")
	r.decode(t, &op)

	links := "/api/resources/users/" + me.ID + "/login-links"
	var link struct {
		URL   *string
		Token string
	}
	r = s.do(req{method: "POST", path: links, token: admin})
	expect(t, r, 201, "")
	r.decode(t, &link)
	if link.URL == nil || *link.URL != "https://panel.example.test/login-link?token="+link.Token || len(link.Token) != 43 {
		t.Fatalf("link %s; want a URL on the public URL with the token", r.Body)
	}

	// Keys: billing makes links, tenants:write does not; a tenant user never does.
	billing := s.newKey(admin, map[string]any{"name": "whmcs", "scopes": []string{"billing"}})
	expect(t, s.do(req{method: "POST", path: links, token: billing.Secret}), 201, "")
	writer := s.newKey(admin, map[string]any{"name": "crm", "scopes": []string{"read", "tenants:write"}})
	expect(t, s.do(req{method: "POST", path: links, token: writer.Secret}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: links, token: a.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/resources/users/" + op.ID + "/login-links", token: billing.Secret}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/resources/users/no-such-user/login-links", token: admin}), 404, "not_found")

	// The link signs the user in once.
	r = s.do(req{method: "POST", path: "/api/auth/login-link", body: map[string]any{"token": link.Token},
		header: map[string]string{"User-Agent": "billing-panel-browser"}})
	expect(t, r, 200, "")
	var tok struct {
		Token string
		User  auth.User
	}
	r.decode(t, &tok)
	if tok.User.ID != me.ID {
		t.Fatalf("signed in %s; want %s", tok.User.ID, me.ID)
	}
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: tok.Token}), 200, "")
	sessions := listOf[auth.SessionInfo](s, tok.Token, "/api/auth/sessions")
	found := false
	for _, si := range sessions {
		found = found || (si.Current && si.Method == auth.MethodLoginLink && si.UserAgent == "billing-panel-browser")
	}
	if !found {
		t.Fatalf("sessions %+v; want the current one opened by the link", sessions)
	}
	expect(t, s.do(req{method: "POST", path: "/api/auth/login-link", body: map[string]any{"token": link.Token}}), 401, "unauthorized")
	expect(t, s.do(req{method: "POST", path: "/api/auth/login-link", body: map[string]any{}}), 400, "invalid_request")

	// The page a link opens: the script spends it; the token never leaves by Referer.
	r = s.do(req{method: "GET", path: "/login-link?token=" + link.Token})
	expect(t, r, 200, "")
	if !strings.Contains(string(r.Body), "/api/auth/login-link") || r.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("page: %s %v", r.Body, r.Header)
	}
}

// A server without a public URL answers the token and no URL.
func TestLoginLinkWithoutPublicURL(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Bare", nil)
	var me auth.User
	r := s.do(req{method: "GET", path: "/api/auth/me", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &me)
	r = s.do(req{method: "POST", path: "/api/resources/users/" + me.ID + "/login-links", token: admin})
	expect(t, r, 201, "")
	var link map[string]any
	r.decode(t, &link)
	if link["url"] != nil || link["token"] == "" {
		t.Fatalf("link %s; want a token and url null", r.Body)
	}
}
