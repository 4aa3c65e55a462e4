package app

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/internal/etcdtest"
)

// Users, tenants and consoles across the members of a cluster: what one member does,
// every other member holds to at once.

// raceOnMembers sends r to every member n times at once and returns the statuses.
func raceOnMembers(t *testing.T, ms []*testServer, n int, r func(i int) req) []int {
	t.Helper()
	statuses := make([]int, n*len(ms))
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := ms[i%len(ms)]
			statuses[i] = doWith(t, m.client, m.base, r(i)).Status
		}()
	}
	wg.Wait()
	return statuses
}

// oneCreated fails unless exactly one status is 201 and the others 409.
func oneCreated(t *testing.T, what string, statuses []int) {
	t.Helper()
	created := 0
	for _, s := range statuses {
		switch s {
		case 201:
			created++
		case 409:
		default:
			t.Fatalf("%s: statuses %v; want one 201 and 409s", what, statuses)
		}
	}
	if created != 1 {
		t.Fatalf("%s: statuses %v; want exactly one 201", what, statuses)
	}
}

// TestClusterUniqueEmailsAndTenantNames: creates of one e-mail, or of one tenant name
// in any case, sent to three members at once make one record; the rest are 409.
func TestClusterUniqueEmailsAndTenantNames(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	for round := 0; round < 3; round++ {
		statuses := raceOnMembers(t, ms, 2, func(i int) req {
			return req{method: "POST", path: "/api/resources/users", token: admin, body: map[string]any{
				"email": fmt.Sprintf("Same-%d@Example.test", round), "name": "Same", "role": "admin", "password": "same-password"}}
		})
		oneCreated(t, fmt.Sprintf("users, round %d", round), statuses)
		spellings := []string{"Shared %d", "SHARED %d", " shared %d"}
		statuses = raceOnMembers(t, ms, 2, func(i int) req {
			return req{method: "POST", path: "/api/resources/tenants", token: admin,
				body: map[string]any{"name": fmt.Sprintf(spellings[i%3], round)}}
		})
		oneCreated(t, fmt.Sprintf("tenants, round %d", round), statuses)
	}
	// Each e-mail names one user, seen alike from every member.
	for _, m := range ms {
		n := 0
		for _, u := range listOf[auth.User](m, admin, "/api/resources/users") {
			if strings.HasPrefix(u.Email, "same-") {
				n++
			}
		}
		if n != 3 {
			t.Fatalf("%s lists %d users same-*; want 3", m.base, n)
		}
	}
}

// TestClusterFirstAdminOnce: three members started at once on one empty etcd create
// one admin; only the member that created it logs its generated password, and the
// password logs in on every member.
func TestClusterFirstAdminOnce(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	const n = 3
	ms := make([]*testServer, n)
	logs := make([]*observer.ObservedLogs, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range ms {
		cfg := testConfig(t)
		cfg.EtcdEndpoints = strings.Join(srv.Endpoints(), ",")
		cfg.NodeName = fmt.Sprintf("m%d", i)
		cfg.ClusterAddr = "127.0.0.1:0"
		cfg.JWTKey = ""
		cfg.AdminPassword = "" // generated, by the one member that creates the admin
		core, observed := observer.New(zapcore.InfoLevel)
		logs[i] = observed
		ms[i] = &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}, log: zap.New(core)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := NewDriver(cfg, nil)
			if err != nil {
				errs[i] = err
				return
			}
			a, err := Start(cfg, ms[i].log, d)
			if err != nil {
				errs[i] = err
				return
			}
			ms[i].app, ms[i].base = a, "http://"+a.Addr()
		}()
	}
	wg.Wait()
	for i, m := range ms {
		t.Cleanup(m.stop)
		if errs[i] != nil {
			t.Fatalf("member %d: %v", i, errs[i])
		}
	}
	var password string
	shown := 0
	for _, l := range logs {
		for _, e := range l.FilterMessageSnippet("the first admin has a generated password").All() {
			shown++
			for _, f := range e.Context {
				if f.Key == "password" {
					password = f.String
				}
			}
		}
	}
	if shown != 1 || password == "" {
		t.Fatalf("the generated password was logged %d times; want once, by the member that created the admin", shown)
	}
	for _, m := range ms {
		tok := m.login(testAdminEmail, password).Token
		admins := 0
		for _, u := range listOf[auth.User](m, tok, "/api/resources/users") {
			if u.Role == auth.RoleAdmin {
				admins++
			}
		}
		if admins != 1 {
			t.Fatalf("%s lists %d admins; want 1", m.base, admins)
		}
	}
}

// TestClusterRevocationHoldsOnEveryMember: a logout, a password change or a disable
// answered by one member refuses the old tokens on every other member at once, access
// and refresh alike.
func TestClusterRevocationHoldsOnEveryMember(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	u := ms[1].sessionUser(admin, ms[2].newTenant(admin, "Revoked"), "revoked@example.test")
	for round := 0; round < 3; round++ {
		// Each round starts from another member, so the user's entity is sometimes on
		// the member that answers the change and sometimes not.
		a, b, c := ms[round%3], ms[(round+1)%3], ms[(round+2)%3]

		// Logout on a.
		p := b.login(u.Email, u.Password)
		for _, m := range ms {
			m.reads(p.Token, 200)
		}
		expect(t, a.do(req{method: "POST", path: "/api/auth/logout", token: p.Token, body: map[string]string{"refresh_token": p.RefreshToken}}), 204, "")
		b.reads(p.Token, 401)
		c.reads(p.Token, 401)
		expect(t, refresh(b, p.RefreshToken), 401, "invalid_refresh_token")
		expect(t, refresh(c, p.RefreshToken), 401, "invalid_refresh_token")

		// A password change on a.
		p = c.login(u.Email, u.Password)
		b.reads(p.Token, 200)
		u.Password = fmt.Sprintf("changed-password-%d", round)
		expect(t, a.patchUser(admin, u.ID, map[string]any{"password": u.Password}), 200, "")
		b.reads(p.Token, 401)
		c.reads(p.Token, 401)
		expect(t, refresh(c, p.RefreshToken), 401, "invalid_refresh_token")

		// A disable on a, then an enable.
		p = b.login(u.Email, u.Password)
		c.reads(p.Token, 200)
		expect(t, a.patchUser(admin, u.ID, map[string]any{"disabled": true}), 200, "")
		b.reads(p.Token, 401)
		c.reads(p.Token, 401)
		expect(t, refresh(b, p.RefreshToken), 401, "invalid_refresh_token")
		expect(t, c.patchUser(admin, u.ID, map[string]any{"disabled": false}), 200, "")
	}
}

// TestClusterConsoleTicketOnce: a console ticket issued by one member opens the
// console on another, once; the ticket is then refused on every member.
func TestClusterConsoleTicketOnce(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	ms[0].sync(admin)
	m := byStatus(t, ms[1].machines(admin), machines.StatusRunning)
	var c struct{ Path string }
	r := ms[0].do(req{method: "GET", path: "/api/virt/vms/" + m.ID + "/console", token: admin})
	expect(t, r, 200, "")
	r.decode(t, &c)
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+ms[1].app.Addr()+c.Path, nil)
	if err != nil {
		t.Fatalf("a ticket from m0 on m1: %v", err)
	}
	ws.Close()
	for _, other := range ms {
		_, res, err := websocket.DefaultDialer.Dial("ws://"+other.app.Addr()+c.Path, nil)
		if err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("the spent ticket again on %s: %v; want 401", other.base, err)
		}
	}
}

// TestClusterStandingNeverStale: each member checks tokens against its own cache of
// the users' standing; while clients read with a token on every member, a logout, a
// password change and a disable answered by one member refuse every read that starts
// after that answer, on every member. (Reads that start before it may go either way.)
// m2 hears from etcd late (its answers and its watch), so its cache still holds the
// old standing well after the change is durable: 300 ms late, a change answered before
// every member's cache has heard of it fails; 900 ms late (longer than the change
// waits), a cache that serves while its watch lags fails.
func TestClusterStandingNeverStale(t *testing.T) {
	t.Parallel()
	ms, slow := startClusterSlowM2(t)
	admin := ms[0].adminToken()
	u := ms[1].sessionUser(admin, ms[2].newTenant(admin, "Never stale"), "never-stale@example.test")

	// during reads with tok on every member, two clients each, while change runs, and
	// until each client has made three reads that started after change was answered;
	// it fails if one of those was let through.
	during := func(what, tok string, change func()) {
		t.Helper()
		for _, m := range ms {
			m.reads(tok, 200) // the caches hold the user
		}
		var answered atomic.Pointer[time.Time]
		var wg sync.WaitGroup
		errs := make(chan string, 6)
		for i := 0; i < 6; i++ {
			m := ms[i%3]
			wg.Add(1)
			go func() {
				defer wg.Done()
				after := 0
				for after < 3 {
					start := time.Now()
					status := doWith(t, m.client, m.base, req{method: "GET", path: "/api/auth/me", token: tok}).Status
					if a := answered.Load(); a != nil && start.After(*a) {
						after++
						if status != 401 {
							errs <- fmt.Sprintf("%s: a read on %s that started after the change was answered got %d; want 401", what, m.cfg.NodeName, status)
							return
						}
					}
				}
			}()
		}
		change()
		now := time.Now()
		answered.Store(&now)
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}

	slow.Delay(300 * time.Millisecond)
	p := ms[0].login(u.Email, u.Password)
	during("a logout on m1", p.Token, func() {
		expect(t, ms[1].do(req{method: "POST", path: "/api/auth/logout", token: p.Token, body: map[string]string{"refresh_token": p.RefreshToken}}), 204, "")
	})
	slow.Delay(900 * time.Millisecond)
	p = ms[1].login(u.Email, u.Password)
	during("a password change on m0", p.Token, func() {
		u.Password = "changed-never-stale"
		expect(t, ms[0].patchUser(admin, u.ID, map[string]any{"password": u.Password}), 200, "")
	})
	slow.Delay(300 * time.Millisecond)
	p = ms[2].login(u.Email, u.Password)
	during("a disable on m0", p.Token, func() {
		expect(t, ms[0].patchUser(admin, u.ID, map[string]any{"disabled": true}), 200, "")
	})
}
