package app

import (
	"testing"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
)

// An operator restores a tenant's backup into a new machine on the sim: refused while
// the tenant's quota has no room (409), to a tenant's user (403), for an unknown backup
// (404); then made, running, with the backup's disks, and counted in the tenant's
// usage; the restore's end is in the audit log under the request that asked for it.
func TestRestoreNewMachine(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Restorer", map[string]int{"machines": 1})
	src := s.provision(a.Token, smallMachine)
	r := s.do(req{method: "POST", path: "/api/client/machines/" + src.ID + "/backups", token: a.Token, body: map[string]any{"note": "n"}})
	expect(t, r, 202, "")
	var started struct{ Task tasks.Task }
	r.decode(t, &started)
	if done := s.waitTask(a.Token, started.Task.ID); done.Status != tasks.TaskSucceeded {
		t.Fatalf("backup: %+v", done)
	}
	var bk struct{ Items []backups.Backup }
	get(t, s, a.Token, "/api/client/machines/"+src.ID+"/backups", &bk)
	path := "/api/virt/backups/" + bk.Items[0].ID + "/restore"

	expect(t, s.do(req{method: "POST", path: path, token: admin, body: map[string]any{"name": "copy"}}), 409, "quota_exceeded")
	expect(t, s.do(req{method: "POST", path: path, token: a.Token, body: map[string]any{}}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/virt/backups/01NOSUCHBACKUP/restore", token: admin, body: map[string]any{}}), 404, "not_found")
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/tenants/" + a.ID, token: admin, body: map[string]any{"quota": map[string]int{"machines": 2}}}), 200, "")

	r = s.do(audited(req{method: "POST", path: path, token: admin, body: map[string]any{"name": "copy", "start_after": true}}, "restore-new-1"))
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	if done := s.waitTask(admin, p.Task.ID); done.Status != tasks.TaskSucceeded || done.Type != "vm.restore_new" {
		t.Fatalf("restore: %+v", done)
	}
	if ends := s.taskEnds(admin, "restore-new-1"); len(ends) != 1 || ends[0].Action != "task vm.restore_new" || ends[0].Result != "ok" {
		t.Fatalf("the restore's end in the audit log: %+v; want one entry, ok", ends)
	}
	var got machines.Machine
	get(t, s, a.Token, "/api/client/machines/"+p.Machine.ID, &got)
	if got.Status != machines.StatusRunning || got.Name != "copy" || got.VMID == src.VMID || len(got.Disks) != len(src.Disks) || got.DiskGB != src.DiskGB {
		t.Fatalf("restored machine %+v; want a running copy of %+v", got, src)
	}
	var o tenants.Overview
	get(t, s, a.Token, "/api/client/overview", &o)
	if o.Usage.Machines != 2 || o.Usage.DiskGB != 2*src.DiskGB {
		t.Fatalf("usage %+v; want both machines counted", o.Usage)
	}
}

// get reads path as tok into v, which must answer 200.
func get(t *testing.T, s *testServer, tok, path string, v any) {
	t.Helper()
	r := s.do(req{method: "GET", path: path, token: tok})
	expect(t, r, 200, "")
	r.decode(t, v)
}
