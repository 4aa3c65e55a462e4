package app

import (
	"net/http"
	"testing"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestProxmoxTaskLeftOpenIsFollowedToItsEnd: a stop and a migration whose Proxmox
// tasks are still running when vmplane restarts are not settled failed at once: the new
// process follows the machine's active tasks on Proxmox, keeps the task running
// while Proxmox does, and settles it succeeded once Proxmox has finished the work.
func TestProxmoxTaskLeftOpenIsFollowedToItsEnd(t *testing.T) {
	t.Parallel()
	s, f, tok := proxmoxServer(t)
	s.sync(tok)
	web, db := s.machine(tok, "100"), s.machine(tok, "101")

	leftOpen := func(r req, route string) tasks.Task {
		t.Helper()
		release := f.HoldTasks()
		defer release()
		before := f.Count(http.MethodPost, route)
		task := s.startTask(r)
		testwait.Eventually(t, "Proxmox to take the request", func() bool { return f.Count(http.MethodPost, route) > before })
		s.restart() // this process stops following the UPID; Proxmox goes on
		tok = s.adminToken()
		seen := f.Count(http.MethodGet, "/nodes/{node}/tasks")
		testwait.Eventually(t, "the new process to follow the machine's tasks on Proxmox", func() bool {
			r := s.do(req{method: "GET", path: "/api/tasks/" + task.ID, token: tok})
			expect(t, r, 200, "")
			var got tasks.Task
			r.decode(t, &got)
			if got.Status != tasks.TaskRunning {
				t.Fatalf("got %+v while Proxmox still runs the work; want the task running", got)
			}
			return f.Count(http.MethodGet, "/nodes/{node}/tasks") >= seen+3
		})
		release()
		settled := s.waitTask(tok, task.ID)
		if settled.Status != tasks.TaskSucceeded || settled.Error != nil {
			t.Fatalf("got %+v; want the task succeeded once Proxmox finished it", settled)
		}
		return settled
	}

	leftOpen(req{method: "POST", path: "/api/proxmox/vms/" + web.ID + "/actions/stop", token: tok},
		"/nodes/{node}/qemu/{vmid}/status/{action}")
	if _, status, _, _ := f.VM(100); status != "stopped" {
		t.Fatalf("got %s on Proxmox; want stopped", status)
	}
	if m := s.machine(tok, web.ID); m.Status != machines.StatusStopped || m.TaskID != nil {
		t.Fatalf("got %+v; want web-1 stopped and unlocked", m)
	}

	leftOpen(req{method: "POST", path: "/api/proxmox/vms/" + db.ID + "/migrate", token: tok, body: map[string]any{"target_node": "pve3"}},
		"/nodes/{node}/qemu/{vmid}/migrate")
	if node, _, _, _ := f.VM(101); node != "pve3" {
		t.Fatalf("got node %s on Proxmox; want pve3", node)
	}
	if m := s.machine(tok, db.ID); m.Node != "pve3" || m.Status != machines.StatusStopped || m.TaskID != nil {
		t.Fatalf("got %+v; want db-1 stopped on pve3 and unlocked", m)
	}
}
