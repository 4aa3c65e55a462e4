package app

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// startCluster starts n members in this process on one embedded etcd, each on its own
// loopback ports, as a load balancer's backends: m0, m1, ... Each member has its own
// simulated-cluster driver over the shared store. mutate changes every member's
// configuration.
func startCluster(t *testing.T, n int, mutate ...func(*Config)) ([]*testServer, *etcdtest.Server) {
	t.Helper()
	srv := etcdtest.Start(t)
	return startClusterOn(t, srv, n, mutate...), srv
}

// startClusterOn is startCluster on a running etcd.
func startClusterOn(t *testing.T, srv *etcdtest.Server, n int, mutate ...func(*Config)) []*testServer {
	t.Helper()
	members := make([]*testServer, n)
	for i := range members {
		members[i] = startServer(t, func(c *Config) {
			c.EtcdEndpoints = strings.Join(srv.Endpoints(), ",")
			c.NodeName = fmt.Sprintf("m%d", i)
			c.ClusterAddr = "127.0.0.1:0"
			// The key lives in etcd, created once by the first member.
			c.JWTKey = ""
			// Generous: the embedded etcd fsyncs on a shared test machine's disk, where
			// one write now and then takes seconds; the outage tests cut etcd off,
			// which the probe notices whatever this is.
			c.EtcdRequestTimeout = 10 * time.Second
			for _, m := range mutate {
				m(c)
			}
		})
	}
	for _, m := range members {
		testwait.Eventually(t, "every member sees "+fmt.Sprint(n), func() bool {
			var h HealthReplyForTest
			r := m.do(req{method: "GET", path: "/api/health"})
			if r.Status != 200 {
				return false
			}
			r.decode(t, &h)
			return h.Cluster != nil && len(h.Cluster.Members) == n
		})
	}
	return members
}

// HealthReplyForTest is /api/health's body as a client reads it.
type HealthReplyForTest struct {
	Status  string `json:"status"`
	Cluster *struct {
		Node    string `json:"node"`
		Store   string `json:"store"`
		Lease   string `json:"lease"`
		Members []struct {
			Name, Addr, Status string
		} `json:"members"`
	} `json:"cluster"`
}

func TestClusterHealthNamesEveryMember(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	for i, m := range ms {
		var h HealthReplyForTest
		r := m.do(req{method: "GET", path: "/api/health"})
		expect(t, r, 200, "")
		r.decode(t, &h)
		if h.Cluster.Node != fmt.Sprintf("m%d", i) || h.Cluster.Store != "etcd" || h.Cluster.Lease != "held" {
			t.Fatalf("member %d reports %+v", i, h.Cluster)
		}
		for j, mem := range h.Cluster.Members {
			if mem.Name != fmt.Sprintf("m%d", j) || mem.Status != "alive" || mem.Addr == "" {
				t.Fatalf("member %d lists %+v", i, h.Cluster.Members)
			}
		}
	}
	// Every member of a healthy cluster serves its caches under a read lease.
	for i, m := range ms {
		testwait.Eventually(t, fmt.Sprintf("member %d holds its read lease", i), func() bool {
			return bytes.Contains(m.do(req{method: "GET", path: "/metrics"}).Body, []byte("\nvmplane_cluster_read_lease 1\n"))
		})
	}
}

func TestClusterTokensReadsAndRetriesCrossMembers(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	// A token issued by one member is valid on all.
	admin := ms[0].adminToken()
	for _, m := range ms {
		expect(t, m.do(req{method: "GET", path: "/api/resources/tenants", token: admin}), 200, "")
	}
	// A read that starts after a write's 2xx sees it, on every member.
	for i := 0; i < 5; i++ {
		w := ms[i%3]
		r := w.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": fmt.Sprintf("Acme %d", i)}})
		expect(t, r, 201, "")
		var ten tenants.Tenant
		r.decode(t, &ten)
		for _, m := range ms {
			expect(t, m.do(req{method: "GET", path: "/api/resources/tenants/" + ten.ID, token: admin}), 200, "")
		}
		// Tenant names are unique across members.
		expect(t, ms[(i+1)%3].do(req{method: "POST", path: "/api/resources/tenants", token: admin,
			body: map[string]any{"name": fmt.Sprintf("Acme %d", i)}}), 409, "conflict")
	}
	// A tenant's user logs in on one member and works on another.
	ten := ms[1].tenant(admin, "Retries", nil)
	// A POST retried with the same Idempotency-Key on another member is applied once
	// and gets the first answer.
	status, first, replayed := createRuleWithKey(ms[2].client, ms[2].base, ten.Token, "cross-member-1")
	if status != 201 || replayed {
		t.Fatalf("first create: %d (replayed %v)", status, replayed)
	}
	for _, m := range ms {
		status, id, replayed := createRuleWithKey(m.client, m.base, ten.Token, "cross-member-1")
		if status != 201 || id != first || !replayed {
			t.Fatalf("retry on %s: %d rule %s replayed %v; want 201 rule %s replayed", m.base, status, id, replayed, first)
		}
	}
	if n := len(allRules(ms[0], ten.Token)); n != 1 {
		t.Fatalf("%d rules after retries on every member; want 1", n)
	}
	// One audit entry of the create, read on any member, whichever member held the
	// tenant's entity (its write carried the entry; the serving member's own record
	// of it, made when it cannot tell, writes nothing over it); the replays add none.
	for _, m := range ms {
		var got []string
		for _, e := range m.auditLog(admin, "&action=POST+/api/client/firewall/rules") {
			if e.TenantID == ten.ID {
				got = append(got, e.TargetID)
			}
		}
		if len(got) != 1 || got[0] != first {
			t.Fatalf("audit entries of the rule's create on %s: %v; want one, on rule %s", m.base, got, first)
		}
	}
}

// TestSigningKeyIsCreatedOnce starts the key's creation from many members at once on
// one store: every one must come back with the same key, the one stored.
func TestSigningKeyIsCreatedOnce(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	store, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints(), Prefix: "/jwt/"})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := signingKey(Config{}, store)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	stored, err := store.Get(context.Background(), persistence.Key("meta", "jwt-key"))
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if !bytes.Equal(k, stored) {
			t.Fatalf("member %d signs with %x; the stored key is %x", i, k, stored)
		}
	}
}

// TestClusterEtcdOutageIsA503AndHeals stops etcd under a running cluster: health turns
// 503 degraded, writes are refused with 503 (never a 500, nothing half-written), and
// everything works again once etcd is back, with no member restarted.
func TestClusterEtcdOutageIsA503AndHeals(t *testing.T) {
	t.Parallel()
	ms, srv := startCluster(t, 2)
	admin := ms[0].adminToken()
	srv.Stop()
	for _, m := range ms {
		testwait.Eventually(t, "health degraded on "+m.base, func() bool {
			var h HealthReplyForTest
			r := m.do(req{method: "GET", path: "/api/health"})
			if r.Status != 503 {
				return false
			}
			r.decode(t, &h)
			return h.Status == "degraded"
		})
		r := m.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": "During the outage " + m.base}})
		if r.Status != 503 {
			t.Fatalf("a write during the outage got %d %s; want 503", r.Status, r.Body)
		}
	}
	srv.Restart()
	for i, m := range ms {
		// A member whose lease etcd let expire during the outage exits, and systemd
		// starts it again (Restart=on-failure): here the test does.
		testwait.Eventually(t, "health back on "+m.base, func() bool {
			select {
			case <-m.app.Lost():
				t.Logf("%s lost its lease in the outage: restarted, as systemd would", m.cfg.NodeName)
				m.restart()
			default:
			}
			return m.do(req{method: "GET", path: "/api/health"}).Status == 200
		})
		r := m.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": fmt.Sprintf("After the outage %d", i)}})
		expect(t, r, 201, "")
	}
	// Nothing the refused writes tried is there.
	for _, ten := range listOf[tenants.Tenant](ms[1], admin, "/api/resources/tenants?limit=100") {
		if strings.HasPrefix(ten.Name, "During the outage") {
			t.Fatalf("tenant %q, refused during the outage, exists", ten.Name)
		}
	}
}

// TestClusterEventsAcrossMembers: a client following GET /api/events on one member
// gets the events of a change made through another, and resumes on a third with
// Last-Event-ID, getting exactly what it missed.
func TestClusterEventsAcrossMembers(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	ms[0].sync(admin)
	m := byStatus(t, ms[0].machines(admin), machines.StatusRunning)
	// The whole story, as a client that never disconnects sees it on m0.
	ref := ms[0].subscribe(admin, 0)
	onM2 := ms[2].subscribe(admin, 0)

	first := ms[0].startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: admin})
	seen := onM2.until(t, taskDone(first.ID))
	onM2.res.Body.Close() // the client goes away
	last := seen[len(seen)-1].ID

	// While it is away, the machine reboots again through m0.
	again := ms[0].run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: admin})
	all := ref.until(t, taskDone(again.ID))
	var want []uint64
	for i, ev := range all {
		if i > 0 && ev.ID <= all[i-1].ID {
			t.Fatalf("event ids do not increase on m0: %d after %d", ev.ID, all[i-1].ID)
		}
		if ev.ID > last {
			want = append(want, ev.ID)
		}
	}
	if len(want) == 0 {
		t.Fatal("no event after the client left")
	}
	// It resumes on m1.
	resumed := ms[1].subscribe(admin, last).until(t, func(ev sseEvent) bool { return ev.ID == want[len(want)-1] })
	var got []uint64
	for _, ev := range resumed {
		got = append(got, ev.ID)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("resumed on m1 after %d: events %v; want what m0 sent after it, %v", last, got, want)
	}
	// m2 sent m0's events, ids included.
	for _, ev := range seen {
		if !slices.ContainsFunc(all, func(a sseEvent) bool { return a.ID == ev.ID && a.Type == ev.Type && a.Data == ev.Data }) {
			t.Fatalf("m2 sent event %d (%s) that m0 did not", ev.ID, ev.Type)
		}
	}
}
