package app

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestFullDiskIsVisible: when the data directory's disk is full, /api/health answers
// 503 degraded with the reason, a write answers 507 insufficient_storage and leaves
// nothing behind, reads keep working, and writes heal by themselves when there is room.
func TestFullDiskIsVisible(t *testing.T) {
	t.Parallel()
	var free atomic.Uint64
	free.Store(1 << 40)
	s := startServer(t, func(c *Config) {
		c.StoreFreeSpace = func() (uint64, error) { return free.Load(), nil }
	})
	tok := s.adminToken()
	expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")

	free.Store(1 << 20)
	r := s.do(req{method: "GET", path: "/api/health"})
	var h HealthBody
	r.decode(t, &h)
	if r.Status != 503 || h.Status != "degraded" || !strings.Contains(h.Checks.Storage, "disk is full") {
		t.Fatalf("got health %s; want degraded with the reason in checks.storage", r.Body)
	}
	w := s.do(req{method: "POST", path: "/api/resources/tenants", token: tok, body: map[string]any{"name": "Full"}})
	expect(t, w, 507, "insufficient_storage")
	tenants := listOf[struct{ Name string }](s, tok, "/api/resources/tenants")
	for _, tn := range tenants {
		if tn.Name == "Full" {
			t.Fatal("a write answered 507 left its tenant behind")
		}
	}

	free.Store(1 << 40)
	expect(t, s.do(req{method: "POST", path: "/api/resources/tenants", token: tok, body: map[string]any{"name": "Full"}}), 201, "")
	expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")
}

// HealthBody is the body of GET /api/health as a client reads it.
type HealthBody struct {
	Status string
	Checks struct{ Storage, Hypervisor string }
}

// TestOperatorResetsAnotherOperatorsPassword: an operator who lost their password gets
// a new one from another operator through PATCH /api/resources/users/{id}; the old
// password and the old logins stop working.
func TestOperatorResetsAnotherOperatorsPassword(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tok := s.adminToken()
	r := s.do(req{method: "POST", path: "/api/resources/users", token: tok,
		body: map[string]any{"email": "ops2@example.test", "name": "Ops Two", "role": "admin", "password": "forgotten-pass"}})
	expect(t, r, 201, "")
	var u struct{ ID string }
	r.decode(t, &u)
	old := s.login("ops2@example.test", "forgotten-pass")

	expect(t, s.do(req{method: "PATCH", path: "/api/resources/users/" + u.ID, token: tok,
		body: map[string]any{"password": "given-by-a-colleague"}}), 200, "")
	s.login("ops2@example.test", "given-by-a-colleague")
	expect(t, s.do(req{method: "POST", path: "/api/auth/login",
		body: map[string]string{"email": "ops2@example.test", "password": "forgotten-pass"}}), 401, "invalid_credentials")
	expect(t, s.do(req{method: "POST", path: "/api/auth/refresh",
		body: map[string]string{"refresh_token": old.RefreshToken}}), 401, "invalid_refresh_token")
}

// TestUnreachableProxmoxRaisesAlert: a Proxmox that stops answering raises the critical
// hypervisor_unavailable alert (and health turns 503); when it answers again the alert
// resolves.
func TestUnreachableProxmoxRaisesAlert(t *testing.T) {
	t.Parallel()
	f := pvefake.New(pvefake.Config{})
	t.Cleanup(f.Close)
	cfg := testConfig(t)
	cfg.Driver = "proxmox"
	cfg.HypervisorCheckInterval = 20 * time.Millisecond
	// A periodic sync may take its interval: long enough that one gets through on a
	// loaded machine once Proxmox is back.
	cfg.SyncInterval = 100 * time.Millisecond
	cfg.Proxmox = ProxmoxConfig{URL: f.URL(), TokenID: f.TokenID(), TokenSecret: f.TokenSecret(), Fingerprint: f.Fingerprint(),
		RequestTimeout: 5 * time.Second, PollEvery: 5 * time.Millisecond, Storage: "local-lvm", Bridge: "vmbr0", BackupPool: "local"}
	d, err := NewDriver(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.InfoLevel)
	s := &testServer{t: t, cfg: cfg, driver: d, client: &http.Client{Timeout: 30 * time.Second}}
	app, err := Start(cfg, zap.New(core), d)
	if err != nil {
		t.Fatal(err)
	}
	s.app, s.base = app, "http://"+app.Addr()
	t.Cleanup(s.stop)
	admin := s.adminToken()
	path := "/api/monitoring/alerts/events?kind=hypervisor_unavailable"

	heal := f.Inject(pvefake.Fault{Status: 503, Message: "proxy: no route to host"})
	testwait.Eventually(t, "hypervisor_unavailable to fire", func() bool {
		ev := s.alertsOf(admin, path, "proxmox")
		return len(ev) == 1 && ev[0].Status == alerts.AlertFiring
	})
	a := s.alertsOf(admin, path, "proxmox")[0]
	if a.Severity != alerts.SeverityCritical || !strings.Contains(a.Message, "does not answer") {
		t.Fatalf("got %+v; want a critical alert saying the hypervisor does not answer", a)
	}
	if r := s.do(req{method: "GET", path: "/api/health"}); r.Status != 503 {
		t.Fatalf("health with Proxmox down: %d; want 503", r.Status)
	}
	// The periodic sync fails at every interval, but says so once (then every 10 min):
	// no new line while five more fail. On a loaded machine a sync that overran its
	// interval before the outage may have been logged, and a success may follow it,
	// before or after the count starts, and then the outage's own line. So the lines
	// are counted from one reading of the log, and a new failing line is allowed only
	// after a success, or once if the sync was working when the count started.
	syncLines := func() (failed, worked int, failing bool) {
		for _, e := range logs.All() {
			switch e.Message {
			case "periodic sync failed":
				failed, failing = failed+1, true
			case "periodic sync works again":
				worked, failing = worked+1, false
			}
		}
		return failed, worked, failing
	}
	testwait.Eventually(t, "the failing sync to be logged", func() bool { n, _, _ := syncLines(); return n > 0 })
	logged, worked, failing := syncLines()
	base := f.Count("GET", "/cluster/resources")
	testwait.Eventually(t, "more periodic syncs", func() bool { return f.Count("GET", "/cluster/resources") >= base+5 })
	allowed := 0
	if !failing {
		allowed = 1
	}
	if nowFailed, nowWorked, _ := syncLines(); nowFailed-logged > nowWorked-worked+allowed || nowWorked-worked > 1 {
		t.Fatalf("the failing periodic sync was logged %d more times (after %d successes) while it kept failing; want none",
			nowFailed-logged, nowWorked-worked)
	}
	if n := logs.FilterMessage("the hypervisor does not answer").Len(); n != 1 {
		t.Fatalf("the outage was logged %d times; want once", n)
	}
	again := logs.FilterMessage("periodic sync works again").Len()
	heal()
	testwait.Eventually(t, "hypervisor_unavailable to resolve", func() bool {
		ev := s.alertsOf(admin, path, "proxmox")
		return len(ev) == 1 && ev[0].Status == alerts.AlertResolved
	})
	// At least once: on a loaded machine a sync that overruns its interval fails, and
	// the next says it works again.
	testwait.Eventually(t, "the sync to say it works again", func() bool { return logs.FilterMessage("periodic sync works again").Len() > again })
}

// TestOperatorLogLines: what an operator needs is in the log at info (a failed login
// with e-mail, client and reason but never the password; who changed what; a failed
// task with its reason; a deleted machine), and protoactor's internal lines are not.
func TestOperatorLogLines(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	cfg := testConfig(t)
	d, err := NewDriver(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{t: t, cfg: cfg, sim: d.(*sim.Driver), client: &http.Client{Timeout: 30 * time.Second}}
	a, err := Start(cfg, zap.New(core), d)
	if err != nil {
		t.Fatal(err)
	}
	s.app, s.base = a, "http://"+a.Addr()
	t.Cleanup(s.stop)
	tok := s.adminToken()
	s.sync(tok)

	const wrong = "not-the-password-4711"
	expect(t, s.do(req{method: "POST", path: "/api/auth/login",
		body: map[string]string{"email": testAdminEmail, "password": wrong}}), 401, "invalid_credentials")
	ms := s.machines(tok)
	failing, doomed := ms[0], ms[1]
	s.sim.FailNext(failing.VMID, "reboot", errors.New("guest did not come back"))
	task := s.waitTask(tok, s.startTask(req{method: "POST", path: "/api/virt/vms/" + failing.ID + "/actions/reboot", token: tok}).ID)
	if task.Status != tasks.TaskFailed {
		t.Fatalf("got %+v; want a failed task", task)
	}
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + doomed.ID, token: tok})
	expect(t, s.do(req{method: "DELETE", path: "/api/client/firewall/rules/no-such-rule", token: tok}), 400, "invalid_request")
	ten := s.tenant(tok, "Logs", nil)
	pm := s.provision(ten.Token, smallMachine)
	s.sim.FailNext(pm.VMID, "reboot", errors.New("scheduled reboot refused"))
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + pm.ID + "/power-schedules", token: ten.Token,
		body: map[string]any{"action": "reboot", "cron": everySecond}}), 201, "")

	one := func(msg string, want map[string]string) {
		t.Helper()
		defer func() {
			if t.Failed() {
				for _, e := range logs.FilterMessage(msg).All() {
					t.Logf("%s %v", e.Message, e.ContextMap())
				}
			}
		}()
		testwait.Eventually(t, "a log line "+msg, func() bool {
			for _, e := range logs.FilterMessage(msg).All() {
				ok := true
				for k, v := range want {
					if got := fmt.Sprint(e.ContextMap()[k]); !strings.Contains(got, v) {
						ok = false
					}
				}
				if ok {
					return true
				}
			}
			return false
		})
	}
	one("login failed", map[string]string{"email": testAdminEmail, "client": "127.0.0.1", "reason": "invalid_credentials"})
	one("change", map[string]string{"user": testAdminEmail, "method": "DELETE", "path": "/api/resources/machines/" + doomed.ID, "status": "202"})
	one("change refused", map[string]string{"user": testAdminEmail, "method": "DELETE", "path": "/api/client/firewall/rules/no-such-rule",
		"status": "400", "code": "invalid_request"})
	one("task failed", map[string]string{"machine_id": failing.ID, "error": "guest did not come back"})
	one("machine deleted", map[string]string{"machine_id": doomed.ID})
	one("schedule run failed", map[string]string{"machine_id": pm.ID, "status": "scheduled reboot refused"})
	for _, e := range logs.All() {
		if strings.Contains(fmt.Sprint(e.ContextMap()), wrong) || strings.Contains(e.Message, wrong) {
			t.Fatalf("the password is in the log: %+v", e)
		}
		if e.LoggerName == "protoactor" || strings.Contains(e.Message, "DeadLetter") {
			t.Fatalf("protoactor's internal line at info: %+v", e)
		}
	}
}
