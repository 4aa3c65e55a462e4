package app

import (
	"strconv"
	"testing"

	"github.com/vmplane/vmplane/actors/machines"
)

// clientList is what GET /api/client/machines answers now, under the given query.
func (s *testServer) clientList(tok, query string) []machines.Machine {
	s.t.Helper()
	return listOf[machines.Machine](s, tok, "/api/client/machines"+query)
}

// TestTenantListFollowsEveryChange: the tenant machine list is served from a cache of
// first pages; every kind of write to a machine or to a tenant's index must show in the
// next list, read right after the write is acknowledged, through every cached page size.
func TestTenantListFollowsEveryChange(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Lister", nil)
	b := s.tenant(admin, "Other", nil)
	queries := []string{"", "?limit=1", "?limit=500"}
	check := func(what string, tok string, want map[string]string) {
		t.Helper()
		for _, q := range queries {
			got := map[string]string{}
			for _, m := range s.clientList(tok, q) {
				got[m.ID] = m.Status
			}
			if q == "?limit=1" && len(want) > 1 {
				if len(got) != 1 {
					t.Fatalf("%s: limit=1 gave %d machines", what, len(got))
				}
				for id, st := range got {
					if want[id] != st {
						t.Fatalf("%s: limit=1 gave %s %s; want %v", what, id, st, want)
					}
				}
				continue
			}
			if len(got) != len(want) {
				t.Fatalf("%s: list%s gave %v; want %v", what, q, got, want)
			}
			for id, st := range want {
				if got[id] != st {
					t.Fatalf("%s: list%s gave %v; want %v", what, q, got, want)
				}
			}
		}
	}
	check("empty tenant", a.Token, map[string]string{})
	check("empty tenant", b.Token, map[string]string{})

	m1 := s.provision(a.Token, smallMachine)
	check("after a create", a.Token, map[string]string{m1.ID: machines.StatusRunning})

	s.run(req{method: "POST", path: "/api/virt/vms/" + m1.ID + "/actions/stop", token: admin})
	check("after a stop", a.Token, map[string]string{m1.ID: machines.StatusStopped})

	m2 := s.provision(a.Token, map[string]any{"name": "app-2", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10})
	check("after a second create", a.Token, map[string]string{m1.ID: machines.StatusStopped, m2.ID: machines.StatusRunning})

	// A change behind vmplane's back, seen by the sync.
	if err := s.sim.CrashMachine(m2.VMID); err != nil {
		t.Fatal(err)
	}
	s.sync(admin)
	check("after a sync saw a crash", a.Token, map[string]string{m1.ID: machines.StatusStopped, m2.ID: machines.StatusStopped})

	// An operator moves a machine to another tenant: both lists change.
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/machines/" + m2.ID, token: admin, body: map[string]any{"tenant_id": b.ID}}), 200, "")
	check("after a move, the old tenant", a.Token, map[string]string{m1.ID: machines.StatusStopped})
	check("after a move, the new tenant", b.Token, map[string]string{m2.ID: machines.StatusStopped})

	s.run(req{method: "DELETE", path: "/api/resources/machines/" + m1.ID, token: a.Token})
	check("after a destroy", a.Token, map[string]string{})
	check("after another tenant's destroy", b.Token, map[string]string{m2.ID: machines.StatusStopped})
}

// TestTenantPowersItsMachines: a tenant runs power actions on its own machines through
// the client area, and another tenant's machine is not found.
func TestTenantPowersItsMachines(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Powered", nil)
	b := s.tenant(admin, "Bystander", nil)
	m := s.provision(a.Token, smallMachine)
	path := "/api/client/machines/" + m.ID + "/actions/"
	task := s.run(req{method: "POST", path: path + "stop", token: a.Token})
	if task.Type != "vm.stop" || task.TargetID != m.ID {
		t.Fatalf("got task %+v; want a vm.stop of %s", task, m.ID)
	}
	if got := s.clientList(a.Token, ""); len(got) != 1 || got[0].Status != machines.StatusStopped {
		t.Fatalf("got %+v; want the machine stopped", got)
	}
	expect(t, s.do(req{method: "POST", path: path + "stop", token: a.Token}), 409, "invalid_state")
	expect(t, s.do(req{method: "POST", path: path + "explode", token: a.Token}), 400, "invalid_request")
	// Another tenant's machine, by id and by vmid, is not found; nothing happens to it.
	expect(t, s.do(req{method: "POST", path: path + "start", token: b.Token}), 404, "not_found")
	expect(t, s.do(req{method: "POST", path: "/api/client/machines/" + strconv.Itoa(m.VMID) + "/actions/start", token: b.Token}), 404, "not_found")
	s.run(req{method: "POST", path: path + "start", token: a.Token})
	if got := s.clientList(a.Token, ""); got[0].Status != machines.StatusRunning {
		t.Fatalf("got %s; want running again", got[0].Status)
	}
	// An operator acts for a tenant by naming it.
	s.run(req{method: "POST", path: path + "reboot?tenant_id=" + a.ID, token: admin})
}
