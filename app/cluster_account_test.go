package app

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/mailer/mailtest"
)

// A user's own account (sessions, password, reset, login links), second factor, API
// keys and a task's audited end across the members of a cluster: each step on another
// member than the one before.

// TestClusterTOTPAcrossMembers: a factor enrolled on m0 is asked for by a login on m1,
// whose challenge a code completes on m2; the same code is refused on m0 with a new
// challenge, and the spent challenge on every member.
func TestClusterTOTPAcrossMembers(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	u := ms[0].sessionUser(admin, ms[0].newTenant(admin, "Two factors"), "two@example.test")
	tok := ms[0].login(u.Email, u.Password).Token

	r := ms[0].do(req{method: "POST", path: "/api/auth/totp", token: tok})
	expect(t, r, 201, "")
	var enr struct{ Secret string }
	r.decode(t, &enr)
	expect(t, ms[0].do(req{method: "POST", path: "/api/auth/totp/confirm", token: tok,
		body: map[string]any{"code": totpCode(t, enr.Secret, time.Now())}}), 200, "")

	challenge := func(m *testServer) string {
		t.Helper()
		r := m.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": u.Email, "password": u.Password}})
		expect(t, r, 401, "totp_required")
		var p totpProblem
		r.decode(t, &p)
		if p.Challenge == "" {
			t.Fatalf("no challenge from %s: %s", m.base, r.Body)
		}
		return p.Challenge
	}
	first := challenge(ms[1])
	// A later step's code than the confirmation's, which is spent.
	code := totpCode(t, enr.Secret, time.Now().Add(30*time.Second))
	r = ms[2].do(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": first, "code": code}})
	expect(t, r, 200, "")
	var pair tokenPair
	r.decode(t, &pair)
	for _, m := range ms {
		m.reads(pair.Token, 200)
	}
	r = ms[0].do(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": challenge(ms[0]), "code": code}})
	expect(t, r, 400, "invalid_request")
	for _, m := range ms {
		expect(t, m.do(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": first, "code": code}}), 401, "unauthorized")
	}
}

// TestClusterAPIKeyAcrossMembers: a key made on m0 works on m1, where its use is
// recorded for every member to read; revoked on m2, it is refused on m0 and m1.
func TestClusterAPIKeyAcrossMembers(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	k := ms[0].newKey(admin, map[string]any{"name": "billing panel", "scopes": []string{"read"}})
	expect(t, ms[1].do(req{method: "GET", path: "/api/resources/tenants", token: k.Secret}), 200, "")
	testwait.Until(t, func() error {
		var got auth.APIKey
		r := ms[2].do(req{method: "GET", path: "/api/resources/api-keys/" + k.ID, token: admin})
		expect(t, r, 200, "")
		r.decode(t, &got)
		if got.LastUsedAt == nil {
			return fmt.Errorf("m2 reads the key %s unused after its use on m1", k.ID)
		}
		return nil
	})
	expect(t, ms[2].do(req{method: "DELETE", path: "/api/resources/api-keys/" + k.ID, token: admin}), 204, "")
	for _, m := range ms[:2] {
		testwait.Eventually(t, "the key revoked on m2 refused on "+m.base, func() bool {
			return m.do(req{method: "GET", path: "/api/resources/tenants", token: k.Secret}).Status == 401
		})
	}
}

// TestClusterTaskEndAuditedByTheNextOwner: a task whose machine's member leaves while
// it runs is ended by the member that takes the machine over, and its end is audited
// there, under the request that started it on the member that left.
func TestClusterTaskEndAuditedByTheNextOwner(t *testing.T) {
	t.Parallel()
	// Long enough that the task is still running when its member leaves.
	ms, srv := startCluster(t, 3, func(c *Config) { c.SimOpDelay = 20 * time.Second })
	admin := ms[0].adminToken()
	ms[0].sync(admin)
	m := byStatus(t, ms[0].machines(admin), machines.StatusRunning)
	// Woken, so that a member holds it; asked through that member, which starts the
	// task.
	expect(t, ms[0].do(req{method: "GET", path: "/api/virt/vms/" + m.ID, token: admin}), 200, "")
	owner := ms[0]
	var rest []*testServer
	for _, s := range ms {
		if s.cfg.NodeName == ownerOf(t, srv, "machines", m.ID) {
			owner = s
		} else {
			rest = append(rest, s)
		}
	}
	if len(rest) != 2 {
		t.Fatalf("machine %s is held by %q, no member of the three", m.ID, ownerOf(t, srv, "machines", m.ID))
	}
	task := owner.startTask(audited(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: admin}, "stop-moved"))
	owner.stop()

	tok := rest[0].adminToken()
	ended := rest[0].waitTask(tok, task.ID)
	if ended.Status != tasks.TaskFailed {
		t.Fatalf("the task its member left: %+v; want it settled as interrupted", ended)
	}
	if o := ownerOf(t, srv, "machines", m.ID); o == owner.cfg.NodeName || o == "" {
		t.Fatalf("machine %s is held by %q after %s left", m.ID, o, owner.cfg.NodeName)
	}
	ends := rest[1].taskEnds(tok, "stop-moved")
	if len(ends) != 1 || ends[0].Action != machines.TaskAuditPrefix+"vm.stop" || ends[0].Result != machines.TaskFailedResult ||
		ends[0].TargetID != m.ID || ends[0].Reason == "" {
		t.Fatalf("the end of a task another member started: %+v; want one task vm.stop, task_failed, under its request", ends)
	}
	if got := rest[1].entriesOf(tok, "stop-moved"); len(got) != 1 || got[0].Result != "ok" {
		t.Fatalf("the request's own entry: %+v; want one", got)
	}
}

// TestClusterOwnAccountAcrossMembers: a user's own account on three members. Sessions
// listed on m2 and one ended there is refused on m0; a password changed on m0 ends the
// sessions held on m1 and m2 but the caller's; a reset asked for on m0 (the mail's
// link) is confirmed on m1 and ends every session on m2; a login link made on m2 signs
// in once on m0 and is refused on m1; each request's audit entry, written wherever it
// was answered, is read on m1.
func TestClusterOwnAccountAcrossMembers(t *testing.T) {
	t.Parallel()
	smtpd := mailtest.Start(t, mailtest.Options{User: "relay", Password: "relay-password"})
	ms, _ := startCluster(t, 3, withMail(smtpd))
	admin := ms[0].adminToken()
	u := ms[0].sessionUser(admin, ms[1].newTenant(admin, "Own account"), "own@example.test")

	// Sessions.
	onM0, onM1 := ms[0].login(u.Email, u.Password), ms[1].login(u.Email, u.Password)
	sessions := listOf[auth.SessionInfo](ms[2], onM1.Token, "/api/auth/sessions")
	if len(sessions) != 2 || !sessions[0].Current || sessions[1].Current {
		t.Fatalf("m2 lists %+v; want m1's session (current) and m0's", sessions)
	}
	expect(t, ms[2].do(req{method: "DELETE", path: "/api/auth/sessions/" + sessions[1].ID, token: onM1.Token}), 204, "")
	ms[0].reads(onM0.Token, 401)
	expect(t, refresh(ms[1], onM0.RefreshToken), 401, "invalid_refresh_token")

	// The password, changed on m0 by the session opened on m1.
	onM2 := ms[2].login(u.Email, u.Password)
	r := ms[0].do(req{method: "POST", path: "/api/auth/password", token: onM1.Token,
		body: map[string]string{"current_password": u.Password, "new_password": "changed-on-m0"}})
	expect(t, r, 200, "")
	var kept tokenPair
	r.decode(t, &kept)
	u.Password = "changed-on-m0"
	for _, m := range ms {
		m.reads(onM2.Token, 401)
		m.reads(kept.Token, 200)
	}
	expect(t, refresh(ms[2], kept.RefreshToken), 200, "")

	// A forgotten password: asked for on m0, confirmed on m1.
	expect(t, ms[0].do(req{method: "POST", path: "/api/auth/password-reset", body: map[string]any{"email": u.Email}}), 202, "")
	mail := smtpd.Wait(t, 1, 30*time.Second)
	match := resetLinkRe.FindStringSubmatch(mail.Body)
	if match == nil {
		t.Fatalf("no link in the mail:\n%s", mail.Body)
	}
	token, err := url.QueryUnescape(match[1])
	if err != nil {
		t.Fatal(err)
	}
	expect(t, ms[1].do(req{method: "POST", path: "/api/auth/password-reset/confirm", body: map[string]any{"token": token, "new_password": "reset-on-m1"}}), 204, "")
	ms[2].reads(kept.Token, 401)
	expect(t, refresh(ms[2], kept.RefreshToken), 401, "invalid_refresh_token")
	expect(t, ms[2].do(req{method: "POST", path: "/api/auth/password-reset/confirm", body: map[string]any{"token": token, "new_password": "again-on-m2"}}), 400, "invalid_request")
	ms[0].login(u.Email, "reset-on-m1")

	// A login link: made on m2, used once on m0, refused on m1.
	r = ms[2].do(audited(req{method: "POST", path: "/api/resources/users/" + u.ID + "/login-links", token: admin}, "link-made"))
	expect(t, r, 201, "")
	var link struct{ Token string }
	r.decode(t, &link)
	expect(t, ms[0].do(audited(req{method: "POST", path: "/api/auth/login-link", body: map[string]any{"token": link.Token}}, "link-used")), 200, "")
	expect(t, ms[1].do(req{method: "POST", path: "/api/auth/login-link", body: map[string]any{"token": link.Token}}), 401, "unauthorized")

	// The audit log, read on m1: the entries of requests m2 and m0 answered.
	ms[1].oneEntry(admin, "link-made", kit.AuditEntry{TargetID: u.ID, Result: "ok"})
	ms[1].oneEntry(admin, "link-used", kit.AuditEntry{Actor: u.ID, Result: "ok"})
}
