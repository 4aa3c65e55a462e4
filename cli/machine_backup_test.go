package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// A machine's backups and snapshots from the command line, as an operator acting for
// the machine's tenant (found from the machine): a backup with a note, listed; a
// restore, over the machine and into a new one; a snapshot taken, listed, rolled back
// and deleted.
func TestMachineBackupAndSnapshotVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var ten struct{ ID string }
	w.okJSON(&ten, "tenant", "create", "Keeper")
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "kept", "--template", "tpl-debian-12", "--wait")

	var done client.Task
	w.okJSON(&done, "machine", "backup", m.ID, "--note", "before", "--wait")
	if done.Status != "succeeded" || done.Type != "vm.backup" {
		t.Fatalf("backup: %+v", done)
	}
	var backups []client.Backup
	w.okJSON(&backups, "machine", "backups", m.ID)
	if len(backups) != 1 || backups[0].Note != "before" {
		t.Fatalf("backups: %+v", backups)
	}
	if out := w.ok("machine", "backups", m.ID); !strings.Contains(out, "on_demand") || !strings.Contains(out, "before") {
		t.Fatalf("backups table: %q", out)
	}
	w.okJSON(&done, "machine", "restore", m.ID, backups[0].ID, "--start", "--wait")
	if done.Status != "succeeded" || done.Type != "vm.restore" {
		t.Fatalf("restore: %+v", done)
	}
	// The operator restores the backup into a new machine of the backup's tenant.
	var copied client.Machine
	w.okJSON(&copied, "backup", "restore-new", backups[0].ID, "--name", "copy", "--start", "--wait")
	if copied.ID == m.ID || copied.Name != "copy" || copied.Status != "running" || copied.TenantID == nil || *copied.TenantID != ten.ID {
		t.Fatalf("restore-new: %+v", copied)
	}
	w.fails(1, "not_found", "backup", "restore-new", "NOSUCHBACKUP")

	w.okJSON(&done, "machine", "snapshot", "create", m.ID, "clean", "--description", "fresh", "--wait")
	var snaps []client.Snapshot
	w.okJSON(&snaps, "machine", "snapshot", "list", m.ID)
	if len(snaps) != 1 || snaps[0].Name != "clean" || snaps[0].Description != "fresh" {
		t.Fatalf("snapshots: %+v", snaps)
	}
	w.fails(1, "conflict", "machine", "snapshot", "create", m.ID, "clean")
	w.okJSON(&done, "machine", "snapshot", "rollback", m.ID, "clean", "--wait")
	w.okJSON(&done, "machine", "snapshot", "delete", m.ID, "clean", "--wait")
	w.fails(1, "not_found", "machine", "snapshot", "rollback", m.ID, "clean")
}

// API keys from the command line: made (the secret printed once), used as the CLI's
// token (VMPLANE_TOKEN), listed, revoked; and a machine's tasks, newest first.
func TestAPIKeyAndTasksVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var k client.NewAPIKey
	w.okJSON(&k, "api-key", "create", "--name", "reader", "--scope", "read", "--expires", "720h", "--cidr", "127.0.0.1")
	if !strings.HasPrefix(k.Secret, "vmp_") || k.ExpiresAt == nil || len(k.AllowedCIDRs) != 1 {
		t.Fatalf("created: %+v", k)
	}
	w.fails(2, "--scope", "api-key", "create", "--name", "nothing")
	w.fails(2, "--expires", "api-key", "create", "--name", "x", "--scope", "read", "--expires", "someday")
	if out := w.ok("api-key", "list"); !strings.Contains(out, k.ID) || strings.Contains(out, k.Secret) {
		t.Fatalf("list: %q", out)
	}
	w.vars["VMPLANE_TOKEN"] = k.Secret
	w.ok("tenant", "list", "--url", w.base)
	w.fails(1, "forbidden", "tenant", "create", "Nope", "--url", w.base)
	delete(w.vars, "VMPLANE_TOKEN")
	w.ok("api-key", "revoke", k.ID)
	w.vars["VMPLANE_TOKEN"] = k.Secret
	w.fails(1, "unauthorized", "tenant", "list", "--url", w.base)
	delete(w.vars, "VMPLANE_TOKEN")

	var ten struct{ ID string }
	w.okJSON(&ten, "tenant", "create", "Tasked")
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "busy", "--template", "tpl-debian-12", "--wait")
	w.ok("machine", "stop", m.ID, "--wait")
	var tasks []client.Task
	w.okJSON(&tasks, "machine", "tasks", m.ID)
	if len(tasks) != 2 || tasks[0].Type != "vm.stop" || tasks[1].Type != "vm.create" {
		t.Fatalf("tasks: %+v", tasks)
	}
}
