package sim

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
)

func backupIDs(t *testing.T, d *Driver, vmid int) []string {
	t.Helper()
	list, err := d.Backups(bg, hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatalf("Backups(%d): %v", vmid, err)
	}
	var ids []string
	for _, b := range list {
		ids = append(ids, b.ID)
	}
	return ids
}

func TestBackups(t *testing.T) {
	d, clk := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true, DiskGB: 40})
	ref := hypervisor.Ref{VMID: m.VMID}

	b1, err := d.Backup(bg, ref, "")
	wantErr(t, "backup", err)
	want := hypervisor.Backup{ID: "vzdump-qemu-100-2025_03_12-10_30_15", VMID: 100, Node: m.Node, Storage: "local", Mode: hypervisor.BackupSnapshot, SizeBytes: b1.SizeBytes, CreatedAt: t0}
	if !reflect.DeepEqual(b1, want) {
		t.Errorf("backup:\n got %+v\nwant %+v", b1, want)
	}
	if b1.SizeBytes <= 0 || b1.SizeBytes >= 40<<30 {
		t.Errorf("backup size: got %d; want between 0 and the 40 GB of disk", b1.SizeBytes)
	}
	b2, _ := d.Backup(bg, ref, hypervisor.BackupStop) // same second
	clk.Advance(time.Hour)
	b3, _ := d.Backup(bg, ref, hypervisor.BackupSuspend)
	if got := backupIDs(t, d, m.VMID); !slices.Equal(got, []string{b1.ID, b1.ID + "-2", "vzdump-qemu-100-2025_03_12-11_30_15"}) || b2.ID != got[1] || b3.ID != got[2] {
		t.Errorf("backups: got %v; want three, oldest first, the second suffixed -2", got)
	}
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateRunning {
		t.Errorf("after stop- and suspend-mode backups: got %s; want running again", got)
	}
	// A deleted id is not handed out again within the same second.
	wantErr(t, "delete", d.DeleteBackup(bg, ref, b2.ID))
	if got := backupIDs(t, d, m.VMID); !slices.Equal(got, []string{b1.ID, b3.ID}) {
		t.Errorf("after delete: got %v; want [%s %s]", got, b1.ID, b3.ID)
	}
}

// TestRestoreBackup: the sim restores exactly the machine as it was backed up (the
// conformance suite checks what every driver restores).
func TestRestoreBackup(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "app", Start: true, CPUCores: 2})
	ref := hypervisor.Ref{VMID: m.VMID}
	b, err := d.Backup(bg, ref, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(8), Name: new("broken")}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.AddDisk(bg, ref, 100, ""); err != nil {
		t.Fatal(err)
	}

	got, err := d.RestoreBackup(bg, ref, b.ID)
	wantErr(t, "restore in place", err)
	if !reflect.DeepEqual(got, m) {
		t.Errorf("restore in place:\n got %+v\nwant %+v (the machine as backed up, still running)", got, m)
	}
	// Backups outlive their machine, and restoring one brings the machine back stopped.
	if err := d.Destroy(bg, ref); err != nil {
		t.Fatal(err)
	}
	if ids := backupIDs(t, d, m.VMID); !slices.Equal(ids, []string{b.ID}) {
		t.Errorf("backups after destroy: got %v; want [%s]", ids, b.ID)
	}
	got, err = d.RestoreBackup(bg, ref, b.ID)
	wantErr(t, "restore a destroyed machine", err)
	want := cloneMachine(m)
	want.State = hypervisor.StateStopped
	if !reflect.DeepEqual(got, want) {
		t.Errorf("restore a destroyed machine:\n got %+v\nwant %+v", got, want)
	}
}

func TestRestoreDoesNotDuplicateAddresses(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{})
	b, _ := d.Backup(bg, hypervisor.Ref{VMID: m.VMID}, "")
	_ = d.Destroy(bg, hypervisor.Ref{VMID: m.VMID})
	squatter := create(t, d, hypervisor.CreateSpec{VMID: 200}) // takes the freed address
	restored, err := d.RestoreBackup(bg, hypervisor.Ref{VMID: m.VMID}, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := restored.Interfaces[0].IPAddresses, squatter.Interfaces[0].IPAddresses; slices.Equal(a, b) {
		t.Errorf("restored machine got address %v, already held by machine 200; want a fresh one", a)
	}
}

// TestFirewall: the Firewall test hook reads what was pushed, as copies; the
// conformance suite checks the push itself.
func TestFirewall(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{})
	ref := hypervisor.Ref{VMID: m.VMID}
	if got := d.Firewall(m.VMID); got != nil {
		t.Errorf("Firewall before any push: got %v; want nil", got)
	}
	rules := []hypervisor.FirewallRule{{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Enabled: true}}
	wantErr(t, "set firewall", d.SetFirewall(bg, ref, rules))
	got := d.Firewall(m.VMID)
	got[0].Action = "reject"
	if d.Firewall(m.VMID)[0].Action != "accept" {
		t.Errorf("Firewall returned the driver's own slice; want a copy")
	}
	wantErr(t, "clear", d.SetFirewall(bg, ref, nil))
	if got := d.Firewall(m.VMID); got == nil || len(got) != 0 {
		t.Errorf("after clearing: got %v; want an empty, non-nil rule set", got)
	}
	if got := d.Firewall(999); got != nil {
		t.Errorf("Firewall of an unknown machine: got %v; want nil", got)
	}
}
