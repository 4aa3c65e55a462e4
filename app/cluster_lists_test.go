package app

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/internal/etcdtest"
)

// TestClusterMachineListNeverStale: every member keeps tenants' first list pages in
// memory, and a machine created through one member (its 202 answered) is in the very
// next list of the tenant on every other member, though each had the page cached just
// before and m2 hears from etcd 300 ms late (its answers and its watch): a member that
// served its cached page without catching up with its watch first fails here.
func TestClusterMachineListNeverStale(t *testing.T) {
	srv := etcdtest.Start(t)
	slow := etcdtest.NewProxy(t, srv)
	ms := startClusterOn(t, srv, 3, func(c *Config) {
		if c.NodeName == "m2" {
			c.EtcdEndpoints = strings.Join(slow.Endpoints(), ",")
		}
	})
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
