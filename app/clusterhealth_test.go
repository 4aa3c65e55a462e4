package app

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestClusterHealthAnswersWhileEtcdIsAway is a load balancer's health check during an
// etcd outage, the two ways a member can meet one: etcd stopped (connections refused)
// and etcd hung (a proxy that takes connections and never answers). Every health
// request must be answered within the check's deadline: 503 degraded while etcd is
// away, 200 once it is back. A request that does not answer in time fails the test.
// The answer says what the member knows: its lease unconfirmed while etcd is away.
func TestClusterHealthAnswersWhileEtcdIsAway(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	proxy := etcdtest.NewProxy(t, srv)
	member := func(name string, endpoints []string) *testServer {
		return startServer(t, func(c *Config) {
			c.EtcdEndpoints = strings.Join(endpoints, ",")
			c.NodeName = name
			c.ClusterAddr = "127.0.0.1:0"
			c.JWTKey = ""
		})
	}
	direct := member("direct", srv.Endpoints())
	proxied := member("proxied", proxy.Endpoints())

	// The load balancer's check: a deadline, beyond which the member counts as down.
	lb := &http.Client{Timeout: 3 * time.Second}
	health := func(m *testServer) string {
		r := doWith(t, lb, m.base, req{method: "GET", path: "/api/health"})
		var h HealthReplyForTest
		r.decode(t, &h)
		if r.Status == 503 && h.Status != "degraded" || r.Status == 200 && (h.Status != "ok" || h.Cluster.Lease != "held") ||
			r.Status != 200 && r.Status != 503 {
			t.Fatalf("health on %s: %d %s", m.cfg.NodeName, r.Status, r.Body)
		}
		if h.Status == "degraded" && h.Cluster.Lease != "held" {
			return "degraded, lease " + h.Cluster.Lease
		}
		return h.Status
	}
	outage := func(what string, ms []*testServer, cut, heal func()) {
		t.Helper()
		for _, m := range ms {
			testwait.Eventually(t, "health ok on "+m.cfg.NodeName+" before "+what, func() bool { return health(m) == "ok" })
		}
		cut()
		for _, m := range ms {
			testwait.Eventually(t, fmt.Sprintf("health degraded, lease unconfirmed, on %s with %s", m.cfg.NodeName, what),
				func() bool { return health(m) == "degraded, lease unconfirmed" })
			// It stays answered while etcd is away.
			for range 3 {
				if s := health(m); !strings.HasPrefix(s, "degraded") {
					t.Fatalf("health on %s with %s: %s", m.cfg.NodeName, what, s)
				}
			}
		}
		heal()
		for _, m := range ms {
			testwait.Eventually(t, fmt.Sprintf("health back on %s after %s", m.cfg.NodeName, what), func() bool {
				select {
				case <-m.app.Lost():
					// A member whose lease ran out meanwhile exits and systemd starts
					// it again: here the test does.
					m.restart()
				default:
				}
				return health(m) == "ok"
			})
		}
	}
	outage("etcd stopped", []*testServer{direct, proxied}, srv.Stop, srv.Restart)
	outage("etcd hung", []*testServer{proxied}, proxy.Hang, proxy.Heal)
}
