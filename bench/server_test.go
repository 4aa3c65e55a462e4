package bench_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/bench"
)

// Credentials of the test server's first admin.
const (
	adminEmail    = "admin@example.test"
	adminPassword = "correct horse battery staple"
)

// startServer starts a real vmplane server on a loopback port over a real store in a
// temporary directory, configured like the app's integration tests: fast hashing, a
// near-zero simulated operation time, every rate limit off unless mutate sets one.
func startServer(t *testing.T, mutate ...func(*app.Config)) string {
	t.Helper()
	cfg := app.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.AdminEmail, cfg.AdminPassword = adminEmail, adminPassword
	cfg.JWTKey = "0123456789abcdef0123456789abcdef-bench-test"
	cfg.BcryptCost = 4
	cfg.RateGlobal, cfg.RateGlobalBurst = 0, 0
	cfg.RateAuth, cfg.RateAuthBurst = 0, 0
	cfg.RateLogin, cfg.RateLoginBurst = 0, 0
	cfg.SimOpDelay = time.Millisecond
	cfg.SimMachines = 4
	cfg.SyncInterval = 0 // the power scenario syncs when it finds no machine
	cfg.StoreCacheMB = 8
	for _, m := range mutate {
		m(&cfg)
	}
	a, err := app.Start(cfg, nil, nil)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return "http://" + a.Addr()
}

// opts is a short run with the test admin.
func opts(base, scenario string) bench.Options {
	return bench.Options{BaseURL: base, Scenario: scenario, Connections: 4, Duration: 500 * time.Millisecond,
		Warmup: 100 * time.Millisecond, AdminEmail: adminEmail, AdminPassword: adminPassword,
		Tenants: 2, Machines: 1, SetupTimeout: 20 * time.Second, CleanupTimeout: 20 * time.Second}
}

func TestHealthAgainstTheServer(t *testing.T) {
	base := startServer(t)
	rep, err := bench.Run(context.Background(), opts(base, "health"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests == 0 || rep.Errors != 0 || rep.Statuses["200"] != rep.Requests {
		t.Fatalf("got %d requests, %d errors, statuses %v; want only 200s", rep.Requests, rep.Errors, rep.Statuses)
	}
}

// TestLoginStormMeetsTheAuthLimit: a login storm from one address against a low auth
// limit gets a few answers through (401: unknown addresses) and the rest refused.
func TestLoginStormMeetsTheAuthLimit(t *testing.T) {
	base := startServer(t, func(c *app.Config) { c.RateAuth, c.RateAuthBurst = 30, 5 })
	rep, err := bench.Run(context.Background(), opts(base, "login"))
	if err != nil {
		t.Fatal(err)
	}
	allowed, limited := rep.Outcomes["allowed"], rep.Outcomes["limited"]
	if limited == 0 || allowed > 5 || rep.Errors != 0 {
		t.Fatalf("got %d allowed, %d limited, %d errors (statuses %v); want at most the burst of 5 allowed and the rest limited",
			allowed, limited, rep.Errors, rep.Statuses)
	}
	if rep.Statuses["429 rate_limited"] != limited {
		t.Fatalf("got statuses %v; want %d × 429 rate_limited", rep.Statuses, limited)
	}
}

// TestPowerStorm: every answer is a 202 or a 409, reported apart.
func TestPowerStorm(t *testing.T) {
	base := startServer(t)
	rep, err := bench.Run(context.Background(), opts(base, "power"))
	if err != nil {
		t.Fatal(err)
	}
	accepted, conflict := rep.Outcomes["accepted"], rep.Outcomes["conflict"]
	if accepted == 0 || accepted+conflict != rep.Requests || rep.Errors != 0 {
		t.Fatalf("got %d accepted, %d conflicts of %d, %d errors (statuses %v); want only 202s and 409s, some 202s",
			accepted, conflict, rep.Requests, rep.Errors, rep.Statuses)
	}
	if rep.Statuses["202"] != accepted {
		t.Fatalf("got statuses %v; want %d × 202", rep.Statuses, accepted)
	}
	if rep.Setup.PowerTargets != 4 || len(rep.Ops) != 3 {
		t.Fatalf("got %d targets and %d ops; want the 4 simulated machines and reboot, start, stop", rep.Setup.PowerTargets, len(rep.Ops))
	}
}

// checkRouteScenario accepts the clear error a server without the scenario's routes
// gives, or a clean run.
func checkRouteScenario(t *testing.T, rep bench.Report, err error, scenario, wantOutcome string) {
	t.Helper()
	if err != nil {
		if !strings.Contains(err.Error(), "scenario "+scenario+" needs ") || !strings.Contains(err.Error(), "which answered 404 — is the server too old?") {
			t.Fatalf("got error %v; want a clean run or the clear error about a missing route", err)
		}
		t.Logf("the server lacks a route: %v", err)
		return
	}
	if rep.Requests == 0 || rep.Errors != 0 || rep.Outcomes[wantOutcome] != rep.Requests {
		t.Fatalf("got %d requests, %d errors, statuses %v; want only %s answers", rep.Requests, rep.Errors, rep.Statuses, wantOutcome)
	}
	if rep.Cleanup.ErrorCount != 0 {
		t.Fatalf("got cleanup errors %v; want none", rep.Cleanup.Errors)
	}
	if rep.Setup.Tenants != 2 || rep.Setup.Users != 2 || rep.Setup.Machines != 2 {
		t.Fatalf("got setup %+v; want 2 tenants, 2 users, 2 machines", rep.Setup)
	}
	if rep.Cleanup.Deleted["tenants"] != 2 || rep.Cleanup.Deleted["machines"] != 2 {
		t.Fatalf("got cleanup %+v; want the 2 tenants and 2 machines deleted", rep.Cleanup)
	}
}

func TestReadScenario(t *testing.T) {
	base := startServer(t)
	rep, err := bench.Run(context.Background(), opts(base, "read"))
	checkRouteScenario(t, rep, err, "read", "ok")
}

func TestWriteScenario(t *testing.T) {
	base := startServer(t)
	o := opts(base, "write")
	// 4 workers keeping 16 rules each: past 64 creates, the run deletes as it goes.
	// The request count ends the run, not the clock: on a loaded machine 500 ms may not
	// reach past the first 64 creates, and the test is about what comes after them.
	o.Warmup, o.MaxRequests, o.Duration = 0, 200, time.Minute
	rep, err := bench.Run(context.Background(), o)
	checkRouteScenario(t, rep, err, "write", "ok")
	if err != nil {
		return
	}
	byOp := map[string]bench.OpReport{}
	for _, op := range rep.Ops {
		byOp[op.Name] = op
	}
	created, deleted := byOp["write.rule"].Requests, byOp["write.delete"].Requests
	if deleted == 0 || created > 4*16+deleted+4 {
		t.Fatalf("%d rules created and %d deleted in the run; want the run to keep each worker's rules at 16", created, deleted)
	}
	// Every rule the run created and did not delete is deleted by the cleanup.
	if got := int64(rep.Cleanup.Deleted["firewall_rules"]); got != created-deleted {
		t.Fatalf("the cleanup deleted %d rules; want the %d the run left", got, created-deleted)
	}
}

func TestMixScenario(t *testing.T) {
	base := startServer(t)
	o := opts(base, "mix")
	o.Mix = "read=50,power=20,write=20,health=10"
	// A count, not a time: on a loaded machine half a second may hold so few requests
	// that a 10% share draws none (0.9^400 is nil in practice).
	o.Warmup, o.MaxRequests, o.Duration = 0, 400, time.Minute
	rep, err := bench.Run(context.Background(), o)
	if err != nil {
		if !strings.Contains(err.Error(), "which answered 404 — is the server too old?") {
			t.Fatalf("got error %v; want a clean run or the clear error about a missing route", err)
		}
		return
	}
	if len(rep.Scenarios) != 4 || rep.Errors != 0 {
		t.Fatalf("got %d scenario sums, %d errors (statuses %v); want 4, none", len(rep.Scenarios), rep.Errors, rep.Statuses)
	}
	for _, s := range rep.Scenarios {
		if s.Requests == 0 {
			t.Errorf("got no %s requests in the mix; want some", s.Name)
		}
	}
}

func TestWrongCredentials(t *testing.T) {
	base := startServer(t)
	o := opts(base, "power")
	o.AdminPassword = "not the password"
	_, err := bench.Run(context.Background(), o)
	if want := "admin login failed: 401 invalid_credentials"; err == nil || err.Error() != want {
		t.Fatalf("got error %v; want %q", err, want)
	}
	o.AdminPassword = ""
	_, err = bench.Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "no password") {
		t.Fatalf("got error %v; want one saying the admin password is missing", err)
	}
}

func TestTargetDownIsClear(t *testing.T) {
	base := startServer(t)
	o := opts(base, "health")
	o.BaseURL = "http://127.0.0.1:1"
	_, err := bench.Run(context.Background(), o)
	if want := "cannot reach http://127.0.0.1:1: connection refused"; err == nil || err.Error() != want {
		t.Fatalf("got error %v; want %q", err, want)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got a timeout; want refused at once")
	}
}
