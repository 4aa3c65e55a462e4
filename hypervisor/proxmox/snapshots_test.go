package proxmox

import (
	"reflect"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// TestSnapshotCalls: what the driver sends to Proxmox for snapshots (vmstate only when
// asked, never force), and that a machine Proxmox holds a lock on is refused before
// any snapshot call is made.
func TestSnapshotCalls(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	base := "/nodes/" + m.Node + "/qemu/" + itoa(m.VMID) + "/snapshot"

	if err := f.SetLock(m.VMID, "backup"); err != nil {
		t.Fatal(err)
	}
	f.ResetRequests()
	_, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s1"})
	wantErr(t, "snapshot of a locked machine", err, hypervisor.ErrLocked, apierr.ErrConflict)
	_, err = d.RollbackSnapshot(bg, ref, "s1")
	wantErr(t, "rollback of a locked machine", err, hypervisor.ErrLocked)
	wantErr(t, "delete on a locked machine", d.DeleteSnapshot(bg, ref, "s1"), hypervisor.ErrLocked)
	if n := f.Count("", base) + f.Count("", base+"/s1") + f.Count("", base+"/s1/rollback"); n != 0 {
		t.Errorf("snapshot calls on a locked machine: got %d; want none", n)
	}
	if err := f.SetLock(m.VMID, ""); err != nil {
		t.Fatal(err)
	}

	s, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s1", Description: "note"})
	wantErr(t, "snapshot", err)
	if names, parent := f.Snapshots(m.VMID); !reflect.DeepEqual(names, []string{"s1"}) || parent != "s1" {
		t.Errorf("at Proxmox: got %v at %q; want [s1] at s1", names, parent)
	}
	if s.IncludesMemory || s.Description != "note" {
		t.Errorf("snapshot: got %+v; want no memory (not asked), note", s)
	}
}

// TestSnapshotTaskFailures: what another client brings about between the driver's
// checks and Proxmox's task (the name taken, the snapshot deleted, a lock taken) is
// the same typed error the checks give.
func TestSnapshotTaskFailures(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	if _, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s1"}); err != nil {
		t.Fatal(err)
	}
	base := "/nodes/{node}/qemu/{vmid}/snapshot"
	f.Inject(pvefake.Fault{Method: "POST", Path: base, TaskExit: "snapshot name 's2' already used", Times: 1})
	_, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s2"})
	wantErr(t, "name taken meanwhile", err, hypervisor.ErrSnapshotExists, apierr.ErrConflict)
	f.Inject(pvefake.Fault{Method: "POST", Path: base + "/{snapname}/rollback", TaskExit: "snapshot 's1' does not exist", Times: 1})
	_, err = d.RollbackSnapshot(bg, ref, "s1")
	wantErr(t, "deleted meanwhile", err, hypervisor.ErrSnapshotNotFound, apierr.ErrNotFound)
	f.Inject(pvefake.Fault{Method: "DELETE", Path: base + "/{snapname}", TaskExit: "VM is locked (backup)", Times: 1})
	wantErr(t, "locked meanwhile", d.DeleteSnapshot(bg, ref, "s1"), hypervisor.ErrLocked, apierr.ErrConflict)
	f.Inject(pvefake.Fault{Method: "DELETE", Path: base + "/{snapname}", TaskExit: "zfs error: dataset is busy", Times: 1})
	wantErr(t, "another failure", d.DeleteSnapshot(bg, ref, "s1"), hypervisor.ErrTaskFailed, apierr.ErrInternal)
	if names, _ := f.Snapshots(m.VMID); !reflect.DeepEqual(names, []string{"s1"}) {
		t.Errorf("after failed tasks: got %v; want [s1]", names)
	}
}
