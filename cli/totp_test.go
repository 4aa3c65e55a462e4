package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

func codeOf(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The second factor from the command line: enrol and confirm, a login that reads the
// code from the next line of stdin (and one refused without it), off with a recovery
// code; an operator's reset; and the reset verbs, which need no login (this server
// sends no mail, so the request is refused, and a made-up token too).
func TestTOTPVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var tenant struct{ ID string }
	w.okJSON(&tenant, "tenant", "create", "Two")
	r := w.run("user-password\n", "user", "create", "--tenant", tenant.ID, "--email", "two@example.test", "--name", "Two", "--password-stdin", "-o", "json")
	if r.code != 0 {
		t.Fatalf("user create: %s", r.err)
	}
	w.ok("remote", "add", "two", w.base)
	if r := w.run("user-password\n", "login", "two", "--email", "two@example.test", "--password-stdin"); r.code != 0 {
		t.Fatalf("login: %s", r.err)
	}
	var enr struct{ Secret, URI string }
	w.okJSON(&enr, "totp", "enrol", "--remote", "two")
	if !strings.HasPrefix(enr.URI, "otpauth://") {
		t.Fatalf("enrol: %+v", enr)
	}
	var rc struct {
		Codes []string `json:"recovery_codes"`
	}
	w.okJSON(&rc, "totp", "confirm", codeOf(t, enr.Secret, time.Now()), "--remote", "two")
	if len(rc.Codes) != 10 {
		t.Fatalf("recovery codes: %v", rc.Codes)
	}
	if r := w.run("user-password\n", "login", "two", "--email", "two@example.test", "--password-stdin"); r.code != 2 || !strings.Contains(r.err, "second factor") {
		t.Fatalf("login without a code: exit %d, %q; want 2 and the reason", r.code, r.err)
	}
	in := "user-password\n" + codeOf(t, enr.Secret, time.Now().Add(30*time.Second)) + "\n"
	if r := w.run(in, "login", "two", "--email", "two@example.test", "--password-stdin"); r.code != 0 {
		t.Fatalf("login with a code: exit %d: %s", r.code, r.err)
	}
	if r := w.run("user-password\n", "login", "two", "--email", "two@example.test", "--password-stdin", "--totp-code", rc.Codes[2]); r.code != 0 {
		t.Fatalf("login with a recovery code: exit %d: %s", r.code, r.err)
	}
	w.ok("totp", "disable", rc.Codes[0], "--remote", "two")
	w.fails(1, "conflict", "user", "reset-totp", userID(t, w, tenant.ID))
	w.fails(1, "forbidden", "password", "reset", "two@example.test", "--remote", "two")
	if r := w.run("a-new-password\n", "password", "reset-confirm", "--token", strings.Repeat("x", 43), "--password-stdin", "--remote", "two"); r.code != 1 || !strings.Contains(r.err, "token") {
		t.Fatalf("reset-confirm with a made-up token: exit %d, %q; want 1 naming the token", r.code, r.err)
	}
}

// userID is the id of the first user of tenant.
func userID(t *testing.T, w *world, tenant string) string {
	t.Helper()
	var users []struct{ ID string }
	w.okJSON(&users, "user", "list", "--tenant", tenant)
	if len(users) == 0 {
		t.Fatal("no users")
	}
	return users[0].ID
}

// A login link from the command line: an operator makes one for a tenant user, and
// 'login --link' signs in with it once (the URL or the bare token both do).
func TestLoginLinkVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var tenant struct{ ID string }
	w.okJSON(&tenant, "tenant", "create", "Linked")
	if r := w.run("user-password\n", "user", "create", "--tenant", tenant.ID, "--email", "linked@example.test", "--name", "Linked", "--password-stdin"); r.code != 0 {
		t.Fatalf("user create: %s", r.err)
	}
	var link struct {
		URL   *string
		Token string
	}
	w.okJSON(&link, "user", "login-link", userID(t, w, tenant.ID))
	if link.Token == "" || link.URL != nil {
		t.Fatalf("link %+v; want a token and no URL (no public URL set)", link)
	}
	w.ok("remote", "add", "customer", w.base)
	r := w.run("", "login", "customer", "--link", w.base+"/login-link?token="+link.Token)
	if r.code != 0 || !strings.Contains(r.out, "linked@example.test") {
		t.Fatalf("login --link: exit %d, %q %q", r.code, r.out, r.err)
	}
	var sessions []struct {
		Method  string
		Current bool
	}
	w.okJSON(&sessions, "session", "list", "--remote", "customer")
	if len(sessions) != 1 || sessions[0].Method != "login_link" || !sessions[0].Current {
		t.Fatalf("sessions: %+v; want the link's", sessions)
	}
	if r := w.run("", "login", "customer", "--link", link.Token); r.code != 1 || !strings.Contains(r.err, "login link") {
		t.Fatalf("the link used twice: exit %d, %q; want 1 and the reason", r.code, r.err)
	}
	w.fails(2, "", "login", "customer", "--link", link.Token, "--email", "x@example.test")
}

// A tenant that requires a second factor, from the command line: its user's login
// says what to do, nothing but the enrolment works until it is done, and then all does.
func TestTOTPRequiredVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var tenant struct {
		ID          string
		RequireTOTP bool `json:"require_totp"`
	}
	w.okJSON(&tenant, "tenant", "create", "Strict", "--require-totp")
	if !tenant.RequireTOTP {
		t.Fatalf("tenant %+v; want require_totp", tenant)
	}
	if r := w.run("user-password\n", "user", "create", "--tenant", tenant.ID, "--email", "strict@example.test", "--name", "Strict", "--password-stdin"); r.code != 0 {
		t.Fatalf("user create: %s", r.err)
	}
	w.ok("remote", "add", "strict", w.base)
	r := w.run("user-password\n", "login", "strict", "--email", "strict@example.test", "--password-stdin")
	if r.code != 0 || !strings.Contains(r.err, "totp enrol") {
		t.Fatalf("login: exit %d, %q; want 0 and the hint", r.code, r.err)
	}
	w.fails(1, "totp_enrolment_required", "machine", "list", "--remote", "strict")
	var enr struct{ Secret string }
	w.okJSON(&enr, "totp", "enrol", "--remote", "strict")
	w.ok("totp", "confirm", codeOf(t, enr.Secret, time.Now()), "--remote", "strict")
	w.ok("machine", "list", "--remote", "strict")
	w.ok("tenant", "update", tenant.ID, "--require-totp=false")
}
