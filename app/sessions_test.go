package app

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
)

// sessionUser is a tenant user created for a sessions test, with its password.
type sessionUser struct {
	ID, Email, Password string
}

func (s *testServer) sessionUser(admin, tenantID, email string) sessionUser {
	s.t.Helper()
	u := sessionUser{Email: email, Password: "session-password"}
	r := s.do(req{method: "POST", path: "/api/resources/users", token: admin, body: map[string]any{
		"email": email, "name": "Session user", "role": "user", "password": u.Password, "tenant_id": tenantID}})
	expect(s.t, r, 201, "")
	var usr auth.User
	r.decode(s.t, &usr)
	u.ID = usr.ID
	return u
}

func (s *testServer) newTenant(admin, name string) string {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": name}})
	expect(s.t, r, 201, "")
	var ten tenants.Tenant
	r.decode(s.t, &ten)
	return ten.ID
}

// reads checks that tok reads its tenant's data (200), or is refused (401).
func (s *testServer) reads(tok string, want int) {
	s.t.Helper()
	r := s.do(req{method: "GET", path: "/api/client/machines", token: tok})
	if want == 200 {
		expect(s.t, r, 200, "")
		return
	}
	expect(s.t, r, 401, "unauthorized")
}

func (s *testServer) patchUser(admin, id string, body map[string]any) *response {
	s.t.Helper()
	return s.do(req{method: "PATCH", path: "/api/resources/users/" + id, token: admin, body: body})
}

var firewallRule = map[string]any{"direction": "in", "action": "accept", "protocol": "tcp", "port": "22"}

// TestDeletedUserTokensEnd: after DELETE of a user, its access tokens (even one whose
// verification the edge remembers) neither read nor write, its refresh tokens are
// refused, and it cannot log in; also after a restart.
func TestDeletedUserTokensEnd(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	u := s.sessionUser(admin, s.newTenant(admin, "Gone"), "gone@example.test")
	first, second := s.login(u.Email, u.Password), s.login(u.Email, u.Password)
	s.reads(first.Token, 200) // verified and remembered
	expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: second.Token, body: firewallRule}), 201, "")

	expect(t, s.do(req{method: "DELETE", path: "/api/resources/users/" + u.ID, token: admin}), 204, "")
	s.reads(first.Token, 401)
	s.reads(second.Token, 401)
	expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: second.Token, body: firewallRule}), 401, "unauthorized")
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: first.Token}), 401, "unauthorized")
	expect(t, refresh(s, first.RefreshToken), 401, "invalid_refresh_token")
	expect(t, s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": u.Email, "password": u.Password}}), 401, "invalid_credentials")

	s.restart()
	s.reads(second.Token, 401)
	expect(t, refresh(s, second.RefreshToken), 401, "invalid_refresh_token")
}

// TestPasswordChangeEndsTokens: a new password ends every login of the user, access
// and refresh tokens alike, in each of its sessions; the new password works.
func TestPasswordChangeEndsTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	u := s.sessionUser(admin, s.newTenant(admin, "Pw"), "pw@example.test")
	a, b := s.login(u.Email, u.Password), s.login(u.Email, u.Password)
	s.reads(a.Token, 200)
	s.reads(b.Token, 200)
	// A name change is not a reason to end anything.
	expect(t, s.patchUser(admin, u.ID, map[string]any{"name": "Renamed"}), 200, "")
	s.reads(a.Token, 200)

	expect(t, s.patchUser(admin, u.ID, map[string]any{"password": "another-password"}), 200, "")
	s.reads(a.Token, 401)
	s.reads(b.Token, 401)
	expect(t, refresh(s, a.RefreshToken), 401, "invalid_refresh_token")
	expect(t, refresh(s, b.RefreshToken), 401, "invalid_refresh_token")
	s.reads(s.login(u.Email, "another-password").Token, 200)
	s.restart()
	s.reads(a.Token, 401)
}

// TestRoleAndTenantChangeEndTokens: moving a user to another tenant, or making it an
// operator, ends the tokens that carry its old tenant and role; a new login carries the
// new ones.
func TestRoleAndTenantChangeEndTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	t1, t2 := s.newTenant(admin, "One"), s.newTenant(admin, "Two")
	u := s.sessionUser(admin, t1, "mover@example.test")
	old := s.login(u.Email, u.Password)
	s.reads(old.Token, 200)

	r := s.patchUser(admin, u.ID, map[string]any{"tenant_id": t2})
	expect(t, r, 200, "")
	var moved auth.User
	r.decode(t, &moved)
	if moved.TenantID == nil || *moved.TenantID != t2 {
		t.Fatalf("got tenant %v; want %s", moved.TenantID, t2)
	}
	s.reads(old.Token, 401)
	expect(t, refresh(s, old.RefreshToken), 401, "invalid_refresh_token")
	now := s.login(u.Email, u.Password)
	if now.User.TenantID == nil || *now.User.TenantID != t2 {
		t.Fatalf("got tenant %v after a new login; want %s", now.User.TenantID, t2)
	}
	s.reads(now.Token, 200)
	// Users are listed by their new tenant only.
	if us := listOf[auth.User](s, admin, "/api/resources/users?tenant_id="+t1); len(us) != 0 {
		t.Fatalf("got %d users of the old tenant; want 0", len(us))
	}

	// An operator now: the tenant user's token ends; the tenant is dropped.
	expect(t, s.patchUser(admin, u.ID, map[string]any{"role": "admin", "tenant_id": t2}), 400, "invalid_request")
	r = s.patchUser(admin, u.ID, map[string]any{"role": "admin"})
	expect(t, r, 200, "")
	r.decode(t, &moved)
	if moved.Role != "admin" || moved.TenantID != nil {
		t.Fatalf("got %+v; want an admin without tenant", moved)
	}
	s.reads(now.Token, 401)
	op := s.login(u.Email, u.Password)
	expect(t, s.do(req{method: "GET", path: "/api/resources/tenants", token: op.Token}), 200, "")
	// And back: a user needs its tenant in the same change.
	expect(t, s.patchUser(admin, u.ID, map[string]any{"role": "user"}), 400, "invalid_request")
	expect(t, s.patchUser(admin, u.ID, map[string]any{"role": "user", "tenant_id": "no-such-tenant"}), 400, "invalid_request")
	expect(t, s.patchUser(admin, u.ID, map[string]any{"role": "user", "tenant_id": t1}), 200, "")
	expect(t, s.do(req{method: "GET", path: "/api/resources/tenants", token: op.Token}), 401, "unauthorized")
	// The first admin stays one.
	me := s.login(testAdminEmail, testAdminPassword)
	expect(t, s.patchUser(admin, me.User.ID, map[string]any{"role": "user", "tenant_id": t1}), 409, "conflict")
	expect(t, s.patchUser(admin, me.User.ID, map[string]any{"disabled": true}), 409, "conflict")
}

// TestDisabledUserTokensEnd: a disabled user's tokens end and it cannot log in, with
// the answer a wrong password gets; enabled again, it logs in anew.
func TestDisabledUserTokensEnd(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	u := s.sessionUser(admin, s.newTenant(admin, "Off"), "off@example.test")
	p := s.login(u.Email, u.Password)
	s.reads(p.Token, 200)
	r := s.patchUser(admin, u.ID, map[string]any{"disabled": true})
	expect(t, r, 200, "")
	var usr auth.User
	r.decode(t, &usr)
	if !usr.Disabled {
		t.Fatalf("got %+v; want disabled", usr)
	}
	s.reads(p.Token, 401)
	expect(t, refresh(s, p.RefreshToken), 401, "invalid_refresh_token")
	expect(t, s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": u.Email, "password": u.Password}}), 401, "invalid_credentials")
	expect(t, s.patchUser(admin, u.ID, map[string]any{"disabled": false}), 200, "")
	s.reads(p.Token, 401)
	s.reads(s.login(u.Email, u.Password).Token, 200)
}

// TestLogoutEndsItsSession: logging out ends that login's access tokens, those
// issued by its refreshes too, and its refresh tokens; the user's other logins go on.
func TestLogoutEndsItsSession(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	u := s.sessionUser(admin, s.newTenant(admin, "Out"), "out@example.test")
	a, b := s.login(u.Email, u.Password), s.login(u.Email, u.Password)
	r := refresh(s, a.RefreshToken)
	expect(t, r, 200, "")
	var a2 tokenPair
	r.decode(t, &a2)
	s.reads(a.Token, 200)
	s.reads(a2.Token, 200)

	expect(t, s.do(req{method: "POST", path: "/api/auth/logout", token: a2.Token, body: map[string]string{"refresh_token": a2.RefreshToken}}), 204, "")
	s.reads(a.Token, 401)
	s.reads(a2.Token, 401)
	expect(t, refresh(s, a2.RefreshToken), 401, "invalid_refresh_token")
	// The other login is untouched.
	s.reads(b.Token, 200)
	r = refresh(s, b.RefreshToken)
	expect(t, r, 200, "")
	var b2 tokenPair
	r.decode(t, &b2)
	s.reads(b2.Token, 200)
	// Ended is ended after a restart too.
	s.restart()
	s.reads(a.Token, 401)
	s.reads(b2.Token, 200)
}

// TestLogoutEndsEventStream: an event stream opened with a session's token delivers
// nothing after the session ends: the next event ends the stream instead.
func TestLogoutEndsEventStream(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	p := s.login(testAdminEmail, testAdminPassword)
	st := s.subscribe(p.Token, 0)
	m := byStatus(t, s.machines(admin), machines.StatusRunning)
	before := s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: admin})
	st.until(t, taskDone(before.ID)) // the stream works

	expect(t, s.do(req{method: "POST", path: "/api/auth/logout", token: p.Token, body: map[string]string{"refresh_token": p.RefreshToken}}), 204, "")
	after := s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: admin})
	// Events published before the logout may still come; then the end, and nothing of
	// the task started after it.
	var got []sseEvent
	timeout := time.After(30 * time.Second)
	for open := true; open; {
		select {
		case ev, ok := <-st.events:
			if ok {
				got = append(got, ev)
			}
			open = ok
		case <-timeout:
			t.Fatalf("the stream is still open after the logout; got %+v", got)
		}
	}
	if len(got) == 0 || got[len(got)-1].Type != "end" {
		t.Fatalf("got %+v after the logout; want the stream to end with an end event", got)
	}
	for _, ev := range got {
		if strings.Contains(ev.Data, after.ID) {
			t.Fatalf("got %+v of a task started after the logout", ev)
		}
	}
}

// TestLogoutEndsConsole: a console opened with a login's ticket closes once that login
// ends, and a ticket issued before a logout no longer opens one.
func TestLogoutEndsConsole(t *testing.T) {
	t.Parallel()
	s, _ := synced(t)
	op := s.login(testAdminEmail, testAdminPassword)
	m := byStatus(t, s.machines(op.Token), machines.StatusRunning)
	spare := s.consoleURL(op.Token, m.ID)
	ws := s.dialConsole(op.Token, m.ID)

	expect(t, s.do(req{method: "POST", path: "/api/auth/logout", token: op.Token,
		body: map[string]string{"refresh_token": op.RefreshToken}}), 204, "")
	// The open console is closed by the server: reading ends with its close frame.
	ws.SetReadDeadline(time.Now().Add(15 * time.Second))
	for {
		_, _, err := ws.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation {
			t.Fatalf("got %v; want the server to close the console with 1008 session ended", err)
		}
		break
	}
	if _, res, err := websocket.DefaultDialer.Dial(spare, nil); err == nil || res == nil || res.StatusCode != 401 {
		t.Fatalf("a ticket of the ended login: got %v, %v; want 401", res, err)
	}
}

// TestInitialPasswordFile: a first start with no admin password leaves the generated
// one in DATA_DIR/initial-admin-password (0600) for an appliance's console; it opens
// the admin's account, and goes once that password is changed through the API.
func TestInitialPasswordFile(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.AdminPassword = "" })
	file := InitialPasswordFile(s.cfg.DataDir)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the first start left no password file: %v", err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the password file: %v, %v; want mode 0600", fi, err)
	}
	admin := s.login(s.cfg.AdminEmail, strings.TrimSuffix(string(data), "\n"))
	var me auth.User
	r := s.do(req{method: "GET", path: "/api/auth/me", token: admin.Token})
	expect(t, r, 200, "")
	r.decode(t, &me)
	// Another user's password change leaves it.
	other := s.sessionUser(admin.Token, s.newTenant(admin.Token, "Other"), "other@example.test")
	expect(t, s.patchUser(admin.Token, other.ID, map[string]any{"password": "other-password-2"}), 200, "")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("after another user's password change: %v; want the file kept", err)
	}
	expect(t, s.patchUser(admin.Token, me.ID, map[string]any{"password": "a-chosen-password"}), 200, "")
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after the admin's password change: %v; want the file removed", err)
	}
}
