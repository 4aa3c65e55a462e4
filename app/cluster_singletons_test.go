package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// ownerOf names the member that holds kind/id in the cluster on srv (its claim's
// value is "<member>@<lease>"), "" when no member does.
func ownerOf(t *testing.T, srv *etcdtest.Server, kind, id string) string {
	t.Helper()
	store, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	v, err := store.Get(context.Background(), persistence.Key("owners", kind, id))
	if err != nil {
		return ""
	}
	name, _, _ := strings.Cut(string(v), "@")
	return name
}

// removeAtEnd deletes path through m when the test ends, before the members stop: a
// member that leaves makes the others wake every stored schedule and health check, and
// a wake still on its way to a member that stopped meanwhile retries until kit's tell
// gives up (30 s), past the package's leak check.
func removeAtEnd(t *testing.T, m *testServer, tok, path string) {
	t.Cleanup(func() { expect(t, m.do(req{method: "DELETE", path: path, token: tok}), 204, "") })
}

// memberNot returns a member other than the one named name.
func memberNot(ms []*testServer, name string) (*testServer, string) {
	for i, m := range ms {
		if n := fmt.Sprintf("m%d", i); n != name {
			return m, n
		}
	}
	return nil, ""
}

// A schedule active on one member whose machine is active on another runs, and its
// run records the task's outcome: the run waits for the task on the schedule's member,
// which learns of the end only through the store.
func TestClusterScheduleRunsMachineOfAnotherMember(t *testing.T) {
	t.Parallel()
	ms, srv := startCluster(t, 3)
	admin := ms[0].adminToken()
	ms[0].sync(admin)
	ten := ms[0].tenant(admin, "Crossing", nil)
	m := ms[0].provision(ten.Token, smallMachine)
	owner := ownerOf(t, srv, "machines", m.ID)
	if owner == "" {
		t.Fatalf("machine %s has no owner after its provisioning", m.ID)
	}
	other, otherName := memberNot(ms, owner)
	// Due once, a little ahead, so its one run's status stays to be read.
	at := time.Now().Add(3 * time.Second).Truncate(time.Second).UTC()
	daily := fmt.Sprintf("%d %d %d * * *", at.Second(), at.Minute(), at.Hour())
	r := other.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/power-schedules", token: ten.Token,
		body: map[string]any{"action": "stop", "cron": daily, "timezone": "UTC"}})
	expect(t, r, 201, "")
	var p schedules.PowerSchedule
	r.decode(t, &p)
	if o := ownerOf(t, srv, "schedules", p.ID); o != otherName {
		t.Fatalf("schedule %s is held by %q; the test needs it on %s, away from its machine's %s", p.ID, o, otherName, owner)
	}
	removeAtEnd(t, other, ten.Token, "/api/resources/power-schedules/"+p.ID)
	var done schedules.PowerSchedule
	testwait.Eventually(t, "the schedule recorded its run's end", func() bool {
		done = other.powerSchedule(ten.Token, p.ID)
		return done.LastStatus != nil && *done.LastStatus != schedules.RunRunning
	})
	if *done.LastStatus != schedules.RunSucceeded || done.Runs != 1 || done.LastTaskID == nil {
		t.Fatalf("got %+v (status %s); want one succeeded run", done, status(done.LastStatus))
	}
	for _, mem := range ms {
		if got := mem.powerSchedule(ten.Token, p.ID); got.LastStatus == nil || *got.LastStatus != schedules.RunSucceeded {
			t.Fatalf("member %s reads status %s; want succeeded", mem.base, status(got.LastStatus))
		}
		if got := mem.resourceMachine(ten.Token, m.ID); got.Status != machines.StatusStopped {
			t.Fatalf("member %s reads the machine %s; want stopped", mem.base, got.Status)
		}
	}
}

// A health check read on any member shows what its owner knows: the same latest result
// and recent results everywhere, in the check's read and in the list.
func TestClusterHealthCheckReadsAgree(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer target.Close()
	hc := ms[1].createCheck(admin, "/api/monitoring/health-checks", map[string]any{"name": "web", "type": "http",
		"target": target.URL, "interval_s": 1, "timeout_ms": 500})
	removeAtEnd(t, ms[2], admin, "/api/monitoring/health-checks/"+hc.ID)
	testwait.Eventually(t, "every member reads the same third (or later) result", func() bool {
		var first monitoring.HealthCheck
		for i, m := range ms {
			got := m.check(admin, hc.ID)
			if len(got.Results) < 3 || got.Last.Status != monitoring.CheckPassing || got.Last.CheckedAt == nil {
				return false
			}
			if i == 0 {
				first = got
			} else if !got.Last.CheckedAt.Equal(*first.Last.CheckedAt) || len(got.Results) != len(first.Results) {
				return false
			}
		}
		return true
	})
	testwait.Eventually(t, "every member lists the same latest result", func() bool {
		var at *time.Time
		for _, m := range ms {
			var found bool
			for _, c := range listOf[monitoring.HealthCheck](m, admin, "/api/monitoring/health-checks?limit=500") {
				if c.ID != hc.ID {
					continue
				}
				found = true
				if c.Last.CheckedAt == nil || len(c.Results) != 0 {
					return false
				}
				if at == nil {
					at = c.Last.CheckedAt
				} else if !c.Last.CheckedAt.Equal(*at) {
					return false
				}
			}
			if !found {
				return false
			}
		}
		return true
	})
}

// POST /api/virt/sync on every member at once adopts each hypervisor machine once:
// every sync runs on the member where the sync entity is active, one at a time.
func TestClusterSyncsAtOnceAdoptOnce(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	results := make([]*response, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = doWith(t, m.client, m.base, req{method: "POST", path: "/api/virt/sync", token: admin})
		}()
	}
	wg.Wait()
	added := 0
	for i, r := range results {
		expect(t, r, 200, "")
		var res syncResult
		r.decode(t, &res)
		added += res.Machines.Added
		t.Logf("member m%d's sync added %d", i, res.Machines.Added)
	}
	for _, m := range ms {
		list := m.machines(admin)
		vmids := map[int]bool{}
		for _, vm := range list {
			if vmids[vm.VMID] {
				t.Fatalf("member %s lists vmid %d twice", m.base, vm.VMID)
			}
			vmids[vm.VMID] = true
		}
		if len(list) != ms[0].cfg.SimMachines || added != len(list) {
			t.Fatalf("member %s lists %d machines after syncs that added %d; want the hypervisor's %d, each once",
				m.base, len(list), added, ms[0].cfg.SimMachines)
		}
	}
}
