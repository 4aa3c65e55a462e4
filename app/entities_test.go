package app

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// actorsLive reads vmplane_actors_live from /metrics, by kind.
func (s *testServer) actorsLive() map[string]int {
	s.t.Helper()
	r := s.do(req{method: "GET", path: "/metrics"})
	expect(s.t, r, 200, "")
	out := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	for sc.Scan() {
		var kind string
		var n int
		if _, err := fmt.Sscanf(sc.Text(), "vmplane_actors_live{kind=%q} %d", &kind, &n); err == nil {
			out[kind] = n
		}
	}
	if len(out) == 0 {
		s.t.Fatalf("no vmplane_actors_live in /metrics:\n%s", r.Body)
	}
	return out
}

// Thousands of lookups of ids that are not in the store, on every route that looks up
// an entity by id, leave the live entity actors as they were.
func TestLookupsOfUnknownIDsActivateNothing(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	// Kinds whose entities only these lookups could start (alerts come and go with the
	// monitoring's own work).
	kinds := []string{"machines", "users", "tenants", "nodes", "schedules", "healthchecks"}
	before := s.actorsLive()
	paths := []string{"/api/resources/machines/", "/api/resources/users/", "/api/resources/tenants/", "/api/resources/nodes/",
		"/api/resources/power-schedules/", "/api/resources/backup-schedules/", "/api/resources/health-checks/",
		"/api/virt/vms/", "/api/virt/vms/"}
	for i := 0; i < 3000; i++ {
		id := persistence.NewID()
		if i%len(paths) == len(paths)-1 {
			id = strconv.Itoa(100000 + i) // a vmid that does not exist
		}
		expect(t, s.do(req{method: "GET", path: paths[i%len(paths)] + id, token: admin}), 404, "not_found")
	}
	var after map[string]int
	testwait.Eventually(t, "the lookups left entity actors running", func() bool {
		after = s.actorsLive()
		for _, k := range kinds {
			if after[k] != before[k] {
				return false
			}
		}
		return true
	})
}

// With --actor-max-live, looking up many real machines keeps at most that many machine
// actors in memory, and every lookup still answers.
func TestLiveMachineActorsStayWithinTheBound(t *testing.T) {
	t.Parallel()
	const bound = 8
	s, admin := synced(t, func(c *Config) { c.SimMachines = 40; c.ActorMaxLive = bound })
	ms := s.machines(admin)
	if len(ms) < 40 {
		t.Fatalf("got %d machines; want 40", len(ms))
	}
	for round := 0; round < 2; round++ {
		for _, m := range ms {
			if got := s.machine(admin, m.ID); got.ID != m.ID || got.Name != m.Name {
				t.Fatalf("got %+v; want machine %s", got, m.ID)
			}
		}
	}
	testwait.Eventually(t, "more machine actors than the bound stay live", func() bool {
		return s.actorsLive()["machines"] <= bound
	})
}
