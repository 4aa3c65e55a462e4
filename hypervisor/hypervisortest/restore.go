package hypervisortest

import (
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// restoreNew: a backup restored into a new machine makes a second machine, stopped,
// with the backup's resources and a new vmid and MACs, named as asked; the source is
// left as it is. A backup of a destroyed machine restores too; a vmid taken, an
// unknown backup and an unknown node are refused and make nothing.
func (c *suite) restoreNew(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{Name: "app"}, hypervisor.StateRunning)
	ref := hypervisor.Ref{VMID: m.VMID}
	b, err := c.d.Backup(bg, ref, "")
	WantErr(t, "backup", err)
	if _, err := c.d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(4)}); err != nil {
		t.Fatal(err)
	}

	got, err := c.d.RestoreNew(bg, ref, b.ID, hypervisor.RestoreSpec{Name: "app-copy"})
	WantErr(t, "restore to a new machine", err)
	if got.VMID == 0 || got.VMID == m.VMID || got.Name != "app-copy" || got.State != hypervisor.StateStopped ||
		got.CPUCores != m.CPUCores || got.MemoryMB != m.MemoryMB || got.DiskGB() != m.DiskGB() {
		t.Errorf("restored: got %+v; want a new stopped machine named app-copy with the sizes of %+v", got, m)
	}
	if len(got.Interfaces) == 0 || got.Interfaces[0].MAC == "" || got.Interfaces[0].MAC == m.Interfaces[0].MAC {
		t.Errorf("restored interfaces %+v; want a new MAC beside the source's %+v", got.Interfaces, m.Interfaces)
	}
	if src := c.machine(m.VMID); src.State != hypervisor.StateRunning || src.CPUCores != 4 {
		t.Errorf("source after the restore: got %+v; want it running with 4 cores, untouched", src)
	}
	if listed := c.machine(got.VMID); listed.Name != "app-copy" {
		t.Errorf("the new machine as read back: got %+v", listed)
	}

	_, err = c.d.RestoreNew(bg, ref, b.ID, hypervisor.RestoreSpec{VMID: got.VMID})
	WantErr(t, "restore onto a vmid taken", err, hypervisor.ErrVMIDInUse)
	_, err = c.d.RestoreNew(bg, ref, b.ID+"-no-such", hypervisor.RestoreSpec{})
	WantErr(t, "restore an unknown backup", err, hypervisor.ErrBackupNotFound, apierr.ErrNotFound)
	_, err = c.d.RestoreNew(bg, ref, b.ID, hypervisor.RestoreSpec{Node: "no-such-node"})
	WantErr(t, "restore to an unknown node", err, apierr.ErrInvalidRequest)
	_, err = c.d.RestoreNew(bg, ref, b.ID, hypervisor.RestoreSpec{Name: "not a name"})
	WantErr(t, "restore with a bad name", err, apierr.ErrInvalidRequest)

	// The source destroyed, its backup still restores, named as the backup holds it.
	if err := c.d.Destroy(bg, ref); err != nil {
		t.Fatal(err)
	}
	again, err := c.d.RestoreNew(bg, ref, b.ID, hypervisor.RestoreSpec{})
	WantErr(t, "restore of a destroyed machine's backup", err)
	if again.Name != "app" || again.VMID == got.VMID || again.State != hypervisor.StateStopped {
		t.Errorf("restored from a destroyed machine's backup: got %+v; want a stopped app", again)
	}
}
