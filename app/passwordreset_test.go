package app

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/mailer/mailtest"
)

// withMail points a test server's reset mail at a real SMTP server on loopback.
func withMail(srv *mailtest.Server) func(*Config) {
	return func(c *Config) {
		c.SMTPHost, c.SMTPPort, c.SMTPSecurity = srv.Host, srv.Port, "none"
		c.SMTPUser, c.SMTPPassword = "relay", "relay-password"
		c.SMTPFrom = "Example Hosting <panel@example.test>"
		c.PublicURL = "https://panel.example.test/"
	}
}

var resetLinkRe = regexp.MustCompile(`https://panel\.example\.test/reset-password\?token=(\S+)`)

// A forgotten password, end to end: the request answers 202 alike for an address with
// an account and one without, a real SMTP server receives one mail (for the account),
// its link sets the new password once, and every session of the user ends.
func TestPasswordResetByMail(t *testing.T) {
	t.Parallel()
	smtpd := mailtest.Start(t, mailtest.Options{User: "relay", Password: "relay-password"})
	s := startServer(t, withMail(smtpd))
	admin := s.adminToken()
	tenant := s.newTenant(admin, "reset-tenant")
	u := s.sessionUser(admin, tenant, "forgetful@example.test")
	old := s.login(u.Email, u.Password)

	for _, email := range []string{"nobody@example.test", "Forgetful@Example.test"} {
		r := s.do(req{method: "POST", path: "/api/auth/password-reset", body: map[string]any{"email": email}})
		expect(t, r, 202, "")
		if string(r.Body) != string(mustBody(t, s, "nobody@example.test")) {
			t.Fatalf("answers differ: %s", r.Body)
		}
	}
	m := smtpd.Wait(t, 1, 30*time.Second)
	if len(m.To) != 1 || m.To[0] != u.Email || !strings.Contains(m.Header.Get("From"), "panel@example.test") {
		t.Fatalf("mail from %q to %q; want to the account's address", m.Header.Get("From"), m.To)
	}
	match := resetLinkRe.FindStringSubmatch(m.Body)
	if match == nil {
		t.Fatalf("no link in the mail:\n%s", m.Body)
	}
	token, err := url.QueryUnescape(match[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Body, "--token "+token) {
		t.Fatalf("the mail does not give the token for the CLI:\n%s", m.Body)
	}

	// The link's page is served, and the confirmation sets the password once.
	r := s.do(req{method: "GET", path: "/reset-password?token=" + url.QueryEscape(token)})
	if r.Status != 200 || !strings.Contains(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.Body), "/api/auth/password-reset/confirm") {
		t.Fatalf("reset page: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	r = s.do(req{method: "POST", path: "/api/auth/password-reset/confirm", body: map[string]any{"token": token, "new_password": "short"}})
	expect(t, r, 400, "invalid_request")
	r = s.do(req{method: "POST", path: "/api/auth/password-reset/confirm", body: map[string]any{"token": token, "new_password": "a-new-password"}})
	expect(t, r, 204, "")
	s.reads(old.Token, 401)
	r = s.do(req{method: "POST", path: "/api/auth/refresh", body: map[string]any{"refresh_token": old.RefreshToken}})
	expect(t, r, 401, "invalid_refresh_token")
	s.login(u.Email, "a-new-password")
	r = s.do(req{method: "POST", path: "/api/auth/password-reset/confirm", body: map[string]any{"token": token, "new_password": "a-third-password"}})
	expect(t, r, 400, "invalid_request")
	if n := len(smtpd.Messages()); n != 1 {
		t.Fatalf("%d mails; want the account's one", n)
	}
}

// mustBody is the answer to a reset request for email, for comparing answers.
func mustBody(t *testing.T, s *testServer, email string) []byte {
	t.Helper()
	r := s.do(req{method: "POST", path: "/api/auth/password-reset", body: map[string]any{"email": email}})
	expect(t, r, 202, "")
	return r.Body
}

// Without an SMTP server a reset is refused as such; reset requests spend the login
// limits of the address they name.
func TestPasswordResetOffAndLimited(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	r := s.do(req{method: "POST", path: "/api/auth/password-reset", body: map[string]any{"email": "any@example.test"}})
	expect(t, r, 403, "forbidden")

	smtpd := mailtest.Start(t, mailtest.Options{})
	limited := startServer(t, withMail(smtpd), func(c *Config) {
		c.SMTPUser, c.SMTPPassword = "", ""
		c.RateLoginAddr, c.RateLoginAddrBurst = 1, 2
	})
	for i := 0; i < 2; i++ {
		r := limited.do(req{method: "POST", path: "/api/auth/password-reset", body: map[string]any{"email": "victim@example.test"}})
		expect(t, r, 202, "")
	}
	r = limited.do(req{method: "POST", path: "/api/auth/password-reset", body: map[string]any{"email": "victim@example.test"}})
	expect(t, r, 429, "rate_limited")
	r = limited.do(req{method: "POST", path: "/api/auth/password-reset", body: map[string]any{"email": "not an address"}})
	expect(t, r, 400, "invalid_request")
}
