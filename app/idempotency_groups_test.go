package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
)

// cutShort does what a POST of body to path made with key does up to the moment its
// process dies: the edge's claim of the key (the hashes the edge makes of the request)
// and, when apply is given, the request's stamped write (apply makes it with the
// context it is given and returns the id of what it made), without the answer the edge
// would then have stored. It returns what apply returned.
func cutShort(t *testing.T, s *testServer, tok, path, body, key string, apply func(context.Context) (string, error)) string {
	t.Helper()
	me := s.do(req{method: "GET", path: "/api/auth/me", token: tok})
	expect(t, me, 200, "")
	var user struct{ ID string }
	me.decode(t, &user)
	keyHash := sha256.Sum256([]byte(key))
	h := sha256.New()
	h.Write([]byte("POST\x00" + path + "\x00"))
	h.Write([]byte(body))
	sys := s.app.System()
	ctx := context.Background()
	c, err := sys.Idempotency.Claim(ctx, user.ID, hex.EncodeToString(keyHash[:]), hex.EncodeToString(h.Sum(nil)), true)
	if err != nil || c.Stamp == nil {
		t.Fatalf("claim of %s: got %+v, %v; want a stamped claim", key, c, err)
	}
	if apply == nil {
		return ""
	}
	id, err := apply(kit.WithStamp(ctx, c.Stamp))
	if err != nil {
		t.Fatalf("the stamped write of %s: %v", key, err)
	}
	return id
}

// stampCase is a POST route's request, cut short by a dead run, and how to read it.
type stampCase struct {
	name       string
	admin      bool // made by the operator, else by the tenant's user
	applied    bool // the dead run's write had applied
	path, body string
	status     int
	// apply makes the request's write as the route's handler does.
	apply func(context.Context) (string, error)
	// id is the id of what the answer names; count is how many records or tasks the
	// request made (after the retry: exactly one).
	id    func(t *testing.T, body []byte) string
	count func(t *testing.T, s *testServer, tok string) int
}

// stampCases are a representative of each kind of POST route, each twice: cut short
// before its write applied, and after. Their writes are made through sys, as the
// route's handler makes them, for the tenant tenantID and its running machines m1
// and m2.
func stampCases(sys *actors.System, tenantID, m1, m2 string) []stampCase {
	decodeID := func(path ...string) func(t *testing.T, body []byte) string {
		return func(t *testing.T, body []byte) string {
			var v any
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatalf("answer %s: %v", body, err)
			}
			for _, k := range path {
				m, _ := v.(map[string]any)
				v = m[k]
			}
			id, _ := v.(string)
			return id
		}
	}
	list := func(t *testing.T, s *testServer, tok, path string) []map[string]any {
		r := s.do(req{method: "GET", path: path, token: tok})
		expect(t, r, 200, "")
		var p struct{ Items []map[string]any }
		r.decode(t, &p)
		return p.Items
	}
	countWhere := func(path string, match map[string]any) func(t *testing.T, s *testServer, tok string) int {
		return func(t *testing.T, s *testServer, tok string) int {
			n := 0
		items:
			for _, it := range list(t, s, tok, path) {
				for k, v := range match {
					if it[k] != v {
						continue items
					}
				}
				n++
			}
			return n
		}
	}
	var cases []stampCase
	for _, applied := range []bool{false, true} {
		suffix := "not-applied"
		if applied {
			suffix = "applied"
		}
		tenantName := "Crash " + suffix
		cron := "1 4 * * *"
		machine := m1
		vmName := "crash-" + suffix
		email := "crash-" + suffix + "@example.test"
		checkName := "crash " + suffix
		if applied {
			cron, machine = "2 4 * * *", m2
		}
		cases = append(cases,
			stampCase{name: "tenant-" + suffix, admin: true, applied: applied, path: "/api/resources/tenants", body: `{"name":"` + tenantName + `"}`, status: 201,
				apply: func(ctx context.Context) (string, error) {
					r, err := sys.Tenants.Create(ctx, tenantName, nil)
					return r.ID, err
				},
				id: decodeID("id"), count: countWhere("/api/resources/tenants?limit=500", map[string]any{"name": tenantName})},
			stampCase{name: "schedule-" + suffix, applied: applied, path: "/api/client/machines/" + m1 + "/power-schedules",
				body: `{"action":"start","cron":"` + cron + `"}`, status: 201,
				apply: func(ctx context.Context) (string, error) {
					r, err := sys.Schedules.Power().Create(ctx, tenantID, schedules.ScheduleInput{MachineID: &m1,
						Action: kit.Ptr("start"), Cron: kit.Ptr(cron)})
					return r.ID, err
				},
				id: decodeID("id"), count: countWhere("/api/resources/power-schedules?limit=500", map[string]any{"cron": cron})},
			stampCase{name: "action-" + suffix, applied: applied, path: "/api/client/machines/" + machine + "/actions/stop", status: 202,
				apply: func(ctx context.Context) (string, error) {
					r, err := sys.Machines.Start(ctx, machine, machines.Operation{Type: machines.OpPower, Action: hypervisor.ActionStop}, &tenantID)
					return r.ID, err
				},
				id: decodeID("task", "id"), count: countWhere("/api/resources/tasks?limit=500", map[string]any{"target_id": machine, "type": "vm.stop"})},
			stampCase{name: "machine-" + suffix, applied: applied, path: "/api/client/machines",
				body:   `{"name":"` + vmName + `","template_id":"tpl-debian-12","cpu_cores":1,"memory_mb":1024,"disk_gb":10}`,
				status: 202,
				apply: func(ctx context.Context) (string, error) {
					r, err := sys.Tenants.CreateMachine(ctx, tenantID, tenants.MachineSpec{Name: vmName, TemplateID: "tpl-debian-12",
						CPUCores: 1, MemoryMB: 1024, DiskGB: 10})
					return r.Machine.ID, err
				},
				id: decodeID("machine", "id"), count: countWhere("/api/resources/machines?limit=500", map[string]any{"name": vmName})},
			stampCase{name: "user-" + suffix, admin: true, applied: applied, path: "/api/resources/users",
				body:   `{"email":"` + email + `","name":"Crash","role":"user","password":"tenant-password","tenant_id":"` + tenantID + `"}`,
				status: 201,
				apply: func(ctx context.Context) (string, error) {
					r, err := sys.Users.Create(ctx, email, "Crash", "user", "tenant-password", &tenantID)
					return r.ID, err
				},
				id: decodeID("id"), count: countWhere("/api/resources/users?limit=500", map[string]any{"email": email})},
			stampCase{name: "check-" + suffix, admin: true, applied: applied, path: "/api/monitoring/health-checks",
				body: `{"name":"` + checkName + `","type":"tcp","target":"127.0.0.1:9","interval_s":3600}`, status: 201,
				apply: func(ctx context.Context) (string, error) {
					r, err := sys.HealthChecks.Create(ctx, monitoring.HealthCheckSpec{Name: checkName, Type: "tcp", Target: "127.0.0.1:9", IntervalS: 3600}, nil)
					return r.ID, err
				},
				id: decodeID("id"), count: countWhere("/api/monitoring/health-checks?limit=500", map[string]any{"name": checkName})},
		)
	}
	return cases
}

// cutShortAll leaves every case as a dead run leaves it (cutShort), through s, and
// returns what the writes that applied made, by case.
func cutShortAll(t *testing.T, s *testServer, cases []stampCase, admin, tok string) map[string]string {
	t.Helper()
	made := map[string]string{}
	for _, c := range cases {
		who := tok
		if c.admin {
			who = admin
		}
		apply := c.apply
		if !c.applied {
			apply = nil
		}
		made[c.name] = cutShort(t, s, who, c.path, c.body, c.name, apply)
	}
	return made
}

// retryAll retries every case with its key through s, twice: the first retry of a
// request whose write had applied answers with what it made (replayed), that of one
// whose had not runs it now; the second replays the first's answer; and each request
// made exactly one record or task.
func retryAll(t *testing.T, s *testServer, cases []stampCase, made map[string]string, admin, tok string) {
	t.Helper()
	for _, c := range cases {
		who := tok
		if c.admin {
			who = admin
		}
		post := func() (string, bool) {
			r := s.do(req{method: "POST", path: c.path, token: who, body: c.body, header: map[string]string{"Idempotency-Key": c.name}})
			if r.Status != c.status {
				t.Fatalf("%s: retry got %d %s; want %d", c.name, r.Status, r.Body, c.status)
			}
			return c.id(t, r.Body), r.Header.Get("Idempotent-Replayed") == "true"
		}
		id, replayed := post()
		if want := made[c.name]; want != "" && (id != want || !replayed) {
			t.Fatalf("%s: retry of the request that had applied answered %s (replayed %v); want %s, replayed", c.name, id, replayed, want)
		} else if want == "" && (id == "" || replayed) {
			t.Fatalf("%s: retry of the request that had not applied answered %q (replayed %v); want it run now", c.name, id, replayed)
		}
		if again, replayed := post(); again != id || !replayed {
			t.Fatalf("%s: second retry answered %s (replayed %v); want %s, replayed", c.name, again, replayed, id)
		}
		if n := c.count(t, s, who); n != 1 {
			t.Fatalf("%s: the request made %d; want exactly 1", c.name, n)
		}
	}
}

// TestIdempotencyRetryAfterCrashEveryGroup: a representative of each kind of POST
// route (a tenant, user or health check create by an operator, a schedule create, a
// machine power action, a machine create), cut short by the end of its process, gets
// its one answer from a retry with its key after the restart: the request whose write
// had not applied runs, the one whose had answers with what it made, and each made
// exactly one record or task.
func TestIdempotencyRetryAfterCrashEveryGroup(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.tenant(admin, "Groups", nil)
	m1 := s.provision(ten.Token, map[string]any{"name": "g-1", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10})
	m2 := s.provision(ten.Token, map[string]any{"name": "g-2", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10})
	cases := stampCases(s.app.System(), ten.ID, m1.ID, m2.ID)
	made := cutShortAll(t, s, cases, admin, ten.Token)
	s.restart() // the claims' run is gone
	retryAll(t, s, cases, made, s.adminToken(), s.login("groups@example.test", "tenant-password").Token)
}

// TestClusterRetryAfterMemberDiedCompletesEveryGroup: the same requests, cut short on
// a member whose lease then ends (as a killed member's does), get their one answer
// from a retry through a member that lives.
func TestClusterRetryAfterMemberDiedCompletesEveryGroup(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	ms[0].sync(admin)
	ten := ms[0].tenant(admin, "Groups", nil)
	m1 := ms[0].provision(ten.Token, map[string]any{"name": "g-1", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10})
	m2 := ms[0].provision(ten.Token, map[string]any{"name": "g-2", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10})
	cases := stampCases(ms[0].app.System(), ten.ID, m1.ID, m2.ID)
	made := cutShortAll(t, ms[0], cases, admin, ten.Token)

	endLease(t, ms[0])
	retryAll(t, ms[1], cases, made, admin, ten.Token)
}
