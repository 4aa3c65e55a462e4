package app

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/internal/etcdtest"
)

// startClusterSlowM2 starts three members on one embedded etcd, m2 reaching it
// through a proxy that the test can slow (its answers and its watch: slow.Delay), as a
// member whose view of the others' writes lags.
func startClusterSlowM2(t *testing.T) ([]*testServer, *etcdtest.Proxy) {
	t.Helper()
	srv := etcdtest.Start(t)
	slow := etcdtest.NewProxy(t, srv)
	ms := startClusterOn(t, srv, 3, func(c *Config) {
		if c.NodeName == "m2" {
			c.EtcdEndpoints = strings.Join(slow.Endpoints(), ",")
		}
	})
	return ms, slow
}

// TestClusterMachineListNeverStale: every member keeps tenants' first list pages in
// memory, and a machine created through one member (its 202 answered) is in the very
// next list of the tenant on every other member, though each had the page cached just
// before and m2 hears from etcd 300 ms late (its answers and its watch): a member that
// served its cached page without catching up with its watch first fails here.
func TestClusterMachineListNeverStale(t *testing.T) {
	t.Parallel()
	ms, slow := startClusterSlowM2(t)
	admin := ms[0].adminToken()
	ms[0].sync(admin) // the templates
	ten := ms[1].tenant(admin, "Listed", nil)
	list := func(m *testServer) map[string]bool {
		ids := map[string]bool{}
		for _, mc := range listOf[machines.Machine](m, ten.Token, "/api/client/machines") {
			ids[mc.ID] = true
		}
		return ids
	}
	slow.Delay(300 * time.Millisecond)
	var made []string
	for i := 0; i < 6; i++ {
		for _, m := range ms {
			if got := list(m); len(got) != len(made) { // and now the page is cached there
				t.Fatalf("%s lists %d machines; want %d", m.cfg.NodeName, len(got), len(made))
			}
		}
		w := ms[i%3]
		spec := map[string]any{"name": fmt.Sprintf("listed-%d", i), "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10}
		r := w.do(req{method: "POST", path: "/api/client/machines", token: ten.Token, body: spec})
		expect(t, r, 202, "")
		var p tenants.Provisioned
		r.decode(t, &p)
		made = append(made, p.Machine.ID)
		for j := 1; j < 3; j++ {
			m := ms[(i+j)%3]
			got := list(m)
			for _, id := range made {
				if !got[id] {
					t.Fatalf("round %d: %s's list right after %s answered the create of %s lacks %s (it lists %d of %d)",
						i, m.cfg.NodeName, w.cfg.NodeName, p.Machine.ID, id, len(got), len(made))
				}
			}
		}
	}
}

// TestClusterKeyRevocationNeverStale: every member keeps the records of API keys in use
// in memory, and a key revoked through one member (its 204 answered) is refused from
// the very next request on every other member, though each had just served the key
// from its cache and m2 hears from etcd 300 ms late.
func TestClusterKeyRevocationNeverStale(t *testing.T) {
	t.Parallel()
	ms, slow := startClusterSlowM2(t)
	admin := ms[0].adminToken()
	slow.Delay(300 * time.Millisecond)
	for i := 0; i < 3; i++ {
		key := ms[i%3].newKey(admin, map[string]any{"name": fmt.Sprintf("revoked-%d", i), "scopes": []string{"read"}})
		for _, m := range ms {
			for range 2 { // the first use writes its last use; the second is cached
				expect(t, m.do(req{method: "GET", path: "/api/resources/tenants", token: key.Secret}), 200, "")
			}
		}
		w := ms[(i+1)%3]
		expect(t, w.do(req{method: "DELETE", path: "/api/resources/api-keys/" + key.ID, token: admin}), 204, "")
		for j := 1; j < 3; j++ {
			m := ms[(i+1+j)%3]
			r := m.do(req{method: "GET", path: "/api/resources/tenants", token: key.Secret})
			if r.Status != 401 {
				t.Fatalf("round %d: %s served the key %s revoked by %s just before: got %d; want 401", i, m.cfg.NodeName, key.ID, w.cfg.NodeName, r.Status)
			}
		}
	}
}

// TestClusterIndexedListReadsAcrossMembers: a user's API keys, listed a page of two at a
// time (the index read, then the page's records in one etcd transaction:
// kit.ScanIndexMany), hold every key made through another member just before, with m2
// hearing from etcd 300 ms late, and each key once across the pages.
func TestClusterIndexedListReadsAcrossMembers(t *testing.T) {
	t.Parallel()
	ms, slow := startClusterSlowM2(t)
	admin := ms[0].adminToken()
	ten := ms[1].tenant(admin, "Keyed", nil)
	slow.Delay(300 * time.Millisecond)
	var made []string
	for i := 0; i < 5; i++ {
		w := ms[i%3]
		made = append(made, w.newKey(ten.Token, map[string]any{"name": fmt.Sprintf("key-%d", i), "scopes": []string{"read"}}).ID)
		for j := 1; j < 3; j++ {
			m := ms[(i+j)%3]
			seen := map[string]int{}
			cursor := ""
			for {
				r := m.do(req{method: "GET", path: "/api/resources/api-keys?limit=2&cursor=" + url.QueryEscape(cursor), token: ten.Token})
				expect(t, r, 200, "")
				var p struct {
					Items []struct{ ID string }
					Next  *string `json:"next_cursor"`
				}
				r.decode(t, &p)
				for _, k := range p.Items {
					seen[k.ID]++
				}
				if p.Next == nil || *p.Next == "" {
					break
				}
				cursor = *p.Next
			}
			if len(seen) != len(made) {
				t.Fatalf("round %d: %s lists %d keys right after %s made %s; want %d", i, m.cfg.NodeName, len(seen), w.cfg.NodeName, made[i], len(made))
			}
			for _, id := range made {
				if seen[id] != 1 {
					t.Fatalf("round %d: %s lists key %s %d times; want once", i, m.cfg.NodeName, id, seen[id])
				}
			}
		}
	}
}

// TestClusterSuspensionNeverStale: every member keeps its active tenants' standing in
// memory (the check before each of a tenant user's writes), and a suspension answered
// through one member refuses the tenant's very next write on every other member, though
// each had just let one through and m2 hears from etcd 300 ms late; the unsuspension
// answered next lets the very next write through everywhere (a suspended tenant is
// never kept, so no member refuses from memory).
func TestClusterSuspensionNeverStale(t *testing.T) {
	t.Parallel()
	ms, slow := startClusterSlowM2(t)
	admin := ms[0].adminToken()
	ten := ms[1].tenant(admin, "Standing", nil)
	slow.Delay(300 * time.Millisecond)
	rule := func(m *testServer, i int) *response {
		return m.do(req{method: "POST", path: "/api/client/firewall/rules", token: ten.Token,
			body: map[string]any{"direction": "in", "action": "accept", "protocol": "tcp", "port": fmt.Sprint(1000 + i)}})
	}
	n := 0
	for i := 0; i < 3; i++ {
		for _, m := range ms {
			for range 2 { // the first check asks the tenant's entity; the second is served from memory
				n++
				expect(t, rule(m, n), 201, "")
			}
		}
		w := ms[(i+1)%3]
		expect(t, w.do(req{method: "POST", path: "/api/resources/tenants/" + ten.ID + "/suspend", token: admin,
			body: map[string]any{"reason": "unpaid", "action": "none"}}), 200, "")
		for j := 1; j < 3; j++ {
			m := ms[(i+1+j)%3]
			n++
			if r := rule(m, n); r.Status != 403 {
				t.Fatalf("round %d: %s let a write of tenant %s through right after %s suspended it: got %d; want 403", i, m.cfg.NodeName, ten.ID, w.cfg.NodeName, r.Status)
			}
		}
		u := ms[(i+2)%3]
		expect(t, u.do(req{method: "POST", path: "/api/resources/tenants/" + ten.ID + "/unsuspend", token: admin, body: map[string]any{}}), 200, "")
		for j := 1; j < 3; j++ {
			m := ms[(i+2+j)%3]
			n++
			if r := rule(m, n); r.Status != 201 {
				t.Fatalf("round %d: %s refused a write of tenant %s right after %s unsuspended it: got %d; want 201", i, m.cfg.NodeName, ten.ID, u.cfg.NodeName, r.Status)
			}
		}
	}
}

// TestClusterKeyUserNeverStale: every member keeps the users its API keys act as in
// memory, and a user disabled through one member has its key refused by the very next
// request on every other member, though each had just served it and m2 hears from etcd
// 300 ms late; enabled again through another member, the key works at once everywhere.
func TestClusterKeyUserNeverStale(t *testing.T) {
	t.Parallel()
	ms, slow := startClusterSlowM2(t)
	admin := ms[0].adminToken()
	ten := ms[1].tenant(admin, "KeyUser", nil)
	r := ms[0].do(req{method: "GET", path: "/api/auth/me", token: ten.Token})
	expect(t, r, 200, "")
	var me struct {
		ID string `json:"id"`
	}
	r.decode(t, &me)
	key := ms[0].newKey(ten.Token, map[string]any{"name": "reader", "scopes": []string{"read"}})
	slow.Delay(300 * time.Millisecond)
	use := func(m *testServer) int {
		return m.do(req{method: "GET", path: "/api/client/firewall/rules", token: key.Secret}).Status
	}
	disable := func(m *testServer, disabled bool) {
		expect(t, m.do(req{method: "PATCH", path: "/api/resources/users/" + me.ID, token: admin,
			body: map[string]any{"disabled": disabled}}), 200, "")
	}
	for i := 0; i < 3; i++ {
		for _, m := range ms {
			for range 2 { // the first use asks the user's entity (and writes its last use); the second is served from memory
				if got := use(m); got != 200 {
					t.Fatalf("round %d: %s refused the key of an enabled user: %d", i, m.cfg.NodeName, got)
				}
			}
		}
		// Through member by, then the very next use on each of the two others.
		change := func(by int, disabled bool, want int) {
			disable(ms[by], disabled)
			for j := 1; j < 3; j++ {
				m := ms[(by+j)%3]
				if got := use(m); got != want {
					t.Fatalf("round %d: %s answered %d for the key of a user %s set disabled=%v just before; want %d", i, m.cfg.NodeName, got, ms[by].cfg.NodeName, disabled, want)
				}
			}
		}
		change((i+1)%3, true, 401)
		change((i+2)%3, false, 200)
	}
}
