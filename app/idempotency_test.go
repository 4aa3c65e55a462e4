package app

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/internal/testwait"
)

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Retry", nil)
	key := map[string]string{"Idempotency-Key": "create-web-1"}
	first := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine, header: key})
	expect(t, first, 202, "")
	again := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine, header: key})
	if again.Status != 202 || string(again.Body) != string(first.Body) || again.Header.Get("Location") != first.Header.Get("Location") {
		t.Fatalf("got %d %s; want the first answer again", again.Status, again.Body)
	}
	if again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("got no Idempotent-Replayed header on the replay")
	}
	if n := countMachines(t, s, a.Token); n != 1 {
		t.Fatalf("got %d machines; want 1", n)
	}
	// The same key with another body.
	other := map[string]any{"name": "app-2", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: other, header: key}), 422, "idempotency_key_reused")
	// Errors are answers too: a refused request is refused again, identically.
	bad := map[string]string{"Idempotency-Key": "bad-one"}
	r1 := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{"protocol": "sctp"}, header: bad})
	r2 := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token, body: map[string]any{"protocol": "sctp"}, header: bad})
	if r1.Status != 400 || r2.Status != 400 || string(r1.Body) != string(r2.Body) {
		t.Fatalf("got %d %s then %d %s; want the same 400 twice", r1.Status, r1.Body, r2.Status, r2.Body)
	}
	// Keys belong to a user: another tenant's user with the same key runs its own request.
	b := s.tenant(admin, "Other", nil)
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: b.Token, body: smallMachine, header: key}), 202, "")
	if n := countMachines(t, s, b.Token); n != 1 {
		t.Fatalf("got %d machines for the other tenant; want 1", n)
	}
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine,
		header: map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}}), 400, "invalid_request")
	// Answers survive a restart.
	s.restart()
	tok := s.login("retry@example.test", "tenant-password").Token
	again = s.do(req{method: "POST", path: "/api/client/machines", token: tok, body: smallMachine, header: key})
	if again.Status != 202 || string(again.Body) != string(first.Body) {
		t.Fatalf("got %d %s after restart; want the first answer", again.Status, again.Body)
	}
}

func TestIdempotencyKeyConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Burst", nil)
	key := map[string]string{"Idempotency-Key": "burst-1"}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		bodies = map[string]int{}
		status = map[int]int{}
	)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := doWith(t, s.client, s.base, req{method: "POST", path: "/api/client/machines", token: a.Token, body: smallMachine, header: key})
			mu.Lock()
			defer mu.Unlock()
			status[r.Status]++
			if r.Status == 202 {
				bodies[string(r.Body)]++
			}
		}()
	}
	wg.Wait()
	if status[202]+status[409] != 20 || status[202] < 1 || len(bodies) != 1 {
		t.Fatalf("got statuses %v and %d distinct 202 bodies; want only 202 and 409, one body", status, len(bodies))
	}
	if n := countMachines(t, s, a.Token); n != 1 {
		t.Fatalf("got %d machines; want exactly 1", n)
	}
}

func countMachines(t *testing.T, s *testServer, tok string) int {
	t.Helper()
	r := s.do(req{method: "GET", path: "/api/client/machines?limit=500", token: tok})
	expect(t, r, 200, "")
	var p struct{ Items []machines.Machine }
	r.decode(t, &p)
	return len(p.Items)
}

// claimAsCutShort does what a firewall rule create made with key does up to the moment
// its process dies: the edge's claim of the key (the hashes the edge makes of the
// request that createRuleWithKey sends) and, when applied, the create's stamped write,
// without the answer the edge would then have stored. It returns the rule created.
func claimAsCutShort(t *testing.T, s *testServer, tok, tenantID, key string, applied bool) string {
	t.Helper()
	var apply func(context.Context) (string, error)
	if applied {
		apply = func(ctx context.Context) (string, error) {
			in := tenants.RuleInput{Direction: kit.Ptr("in"), Action: kit.Ptr("accept"), Protocol: kit.Ptr("tcp"), Port: kit.Ptr("443"), Comment: kit.Ptr(key)}
			r, err := s.app.System().Tenants.Firewall().Create(ctx, tenantID, in)
			return r.ID, err
		}
	}
	return cutShort(t, s, tok, "/api/client/firewall/rules",
		`{"direction":"in","action":"accept","protocol":"tcp","port":"443","comment":"`+key+`"}`, key, apply)
}

// TestIdempotencyRetryAfterCrashCompletes: a firewall rule create cut short by the end
// of its process (claimed, never answered) gets its one answer from a retry with its
// key after the restart: the create that had not applied runs, the one that had
// applied answers with the rule it created, and neither is applied twice.
func TestIdempotencyRetryAfterCrashCompletes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	ten := s.tenant(admin, "Cut", nil)
	claimAsCutShort(t, s, ten.Token, ten.ID, "not-applied", false)
	appliedID := claimAsCutShort(t, s, ten.Token, ten.ID, "applied", true)
	s.restart() // the claims' run is gone

	tok := s.login("cut@example.test", "tenant-password").Token
	status, notAppliedID, replayed := createRuleWithKey(s.client, s.base, tok, "not-applied")
	if status != 201 || replayed {
		t.Fatalf("retry of the create that had not applied: got %d (replayed %v); want 201, run now", status, replayed)
	}
	status, id, replayed := createRuleWithKey(s.client, s.base, tok, "applied")
	if status != 201 || id != appliedID || !replayed {
		t.Fatalf("retry of the create that had applied: got %d, rule %s (replayed %v); want 201 with rule %s, replayed",
			status, id, replayed, appliedID)
	}
	// The answers are stored now: retries replay them.
	for key, want := range map[string]string{"not-applied": notAppliedID, "applied": appliedID} {
		if status, id, replayed := createRuleWithKey(s.client, s.base, tok, key); status != 201 || id != want || !replayed {
			t.Fatalf("second retry of %s: got %d, rule %s (replayed %v); want 201 with rule %s, replayed", key, status, id, replayed, want)
		}
	}
	checkAppliedOnce(t, s, tok, 1, []ruleTry{{key: "not-applied", ruleID: notAppliedID}, {key: "applied", ruleID: appliedID}})
}

// TestClusterRetryAfterMemberDiedCompletes: the creates a member claimed, one whose
// write applied and one whose did not, and which it never answered because its lease
// ended (as a killed member's does), get their one answer from a retry through another
// member: 409 in progress while the member lives, then the create that had not applied
// runs, the one that had answers with its rule, and each is applied once. The user's
// claims are kept by the member that died, or by a member that lives (which then holds
// them as in flight for the dead one).
func TestClusterRetryAfterMemberDiedCompletes(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	type cut struct {
		ten       tenantFixture
		appliedID string
	}
	var cuts []cut
	for i, keptOn := range []*testServer{ms[0], ms[1]} {
		ten := ms[0].tenant(admin, fmt.Sprintf("Failover%d", i), nil)
		// The first keyed request of a user places the entity that keeps its keys.
		if status, _, _ := createRuleWithKey(keptOn.client, keptOn.base, ten.Token, "warm-up"); status != 201 {
			t.Fatalf("warm-up create: got %d", status)
		}
		claimAsCutShort(t, ms[0], ten.Token, ten.ID, "not-applied", false)
		cuts = append(cuts, cut{ten: ten, appliedID: claimAsCutShort(t, ms[0], ten.Token, ten.ID, "applied", true)})
		if status, _, _ := createRuleWithKey(ms[2].client, ms[2].base, ten.Token, "not-applied"); status != 409 {
			t.Fatalf("retry while the claiming member lives: got %d; want 409 (in progress)", status)
		}
	}
	// The member's lease ends, as it does seconds after a kill -9: from now on every
	// write of the member fails its fence.
	endLease(t, ms[0])

	for _, c := range cuts {
		tok := c.ten.Token
		status, notAppliedID, replayed := createRuleWithKey(ms[1].client, ms[1].base, tok, "not-applied")
		if status != 201 || replayed {
			t.Fatalf("retry of the create that had not applied: got %d (replayed %v); want 201, run now", status, replayed)
		}
		status, id, replayed := createRuleWithKey(ms[2].client, ms[2].base, tok, "applied")
		if status != 201 || id != c.appliedID || !replayed {
			t.Fatalf("retry of the create that had applied: got %d, rule %s (replayed %v); want 201 with rule %s, replayed",
				status, id, replayed, c.appliedID)
		}
		for _, m := range ms[1:] {
			for key, want := range map[string]string{"not-applied": notAppliedID, "applied": c.appliedID} {
				if status, id, replayed := createRuleWithKey(m.client, m.base, tok, key); status != 201 || id != want || !replayed {
					t.Fatalf("second retry of %s: got %d, rule %s (replayed %v); want 201 with rule %s, replayed", key, status, id, replayed, want)
				}
			}
		}
		checkAppliedOnce(t, ms[1], tok, 1, []ruleTry{{key: "warm-up"}, {key: "not-applied", ruleID: notAppliedID}, {key: "applied", ruleID: c.appliedID}})
	}
}

// endLease revokes the member's lease, as etcd lets it expire seconds after a kill -9,
// and waits until the member knows: from then on every write of the member fails its
// fence.
func endLease(t *testing.T, m *testServer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := m.app.member.store.Client().Revoke(ctx, m.app.member.cluster.Lease()); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the member learning its lease is gone", func() bool {
		select {
		case <-m.app.Lost():
			return true
		default:
			return false
		}
	})
}
