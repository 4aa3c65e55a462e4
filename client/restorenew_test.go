package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// testRestoreAsNew restores one of tenant A's backups into a new machine of A (the
// operator's call; a tenant's user is refused), which runs with the backup's disks,
// and deletes it again.
func testRestoreAsNew(t *testing.T, ctx context.Context, w *world, bk client.Backup) {
	if _, _, err := w.a.RestoreBackupAsNew(ctx, bk.ID, client.RestoreNewSpec{}); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a tenant's user restores into a new machine: got %v; want forbidden", err)
	}
	_, _, err := w.admin.RestoreBackupAsNew(ctx, "01NOSUCHBACKUP", client.RestoreNewSpec{})
	isNotFound(t, "restore of an unknown backup", err)
	m, task, err := w.admin.RestoreBackupAsNew(ctx, bk.ID, client.RestoreNewSpec{Name: "restored", StartAfter: true})
	if err != nil || m.TenantID == nil || *m.TenantID != w.tenA.ID || task.Type != "vm.restore_new" {
		t.Fatalf("restore as new: %+v %+v %v; want a machine of tenant A and its vm.restore_new task", m, task, err)
	}
	if task, err = w.admin.WaitTask(ctx, task.ID); err != nil || task.Status != client.TaskSucceeded {
		t.Fatalf("restore task: %+v %v", task, err)
	}
	got, err := w.a.GetMachine(ctx, m.ID)
	if err != nil || got.VMID == 0 || got.VMID == w.m.VMID || got.Name != "restored" || got.Status != "running" || len(got.Disks) == 0 {
		t.Fatalf("restored machine: %+v %v; want tenant A's, running, with its own vmid and the backup's disks", got, err)
	}
	del, err := w.admin.DeleteMachine(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.admin.WaitTask(ctx, del.ID); err != nil {
		t.Fatal(err)
	}
}
