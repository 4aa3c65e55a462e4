package sim

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
)

// snapshotsOf lists a machine's snapshots or fails the test.
func snapshotsOf(t *testing.T, d *Driver, vmid int) []hypervisor.Snapshot {
	t.Helper()
	list, err := d.Snapshots(bg, hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatalf("Snapshots(%d): %v", vmid, err)
	}
	return list
}

// Snapshots live in the machine's record: they survive a restart with the parent the
// machine is at, and go with the machine when it is destroyed.
func TestSnapshotsSurviveReopen(t *testing.T) {
	clk := hypervisortest.NewClock(t0)
	store := openStore(t, t.TempDir())
	d, err := open(bg, Config{Seed: 3, OpDelay: -1, Now: clk.Now}, store)
	if err != nil {
		t.Fatal(err)
	}
	m := create(t, d, hypervisor.CreateSpec{Name: "db", Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	if _, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "one", Description: "first", IncludeMemory: true}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(60e9)
	if _, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(6)}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "two"}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.RollbackSnapshot(bg, ref, "one"); err != nil {
		t.Fatal(err)
	}
	reopened := func() *Driver {
		t.Helper()
		r, err := open(bg, Config{OpDelay: -1, Now: clk.Now}, store)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := reopened()
	if got, want := snapshotsOf(t, r, m.VMID), snapshotsOf(t, d, m.VMID); !reflect.DeepEqual(got, want) || len(got) != 2 {
		t.Errorf("snapshots after a restart:\n got %+v\nwant %+v", got, want)
	}
	if got, want := machineOf(t, r, m.VMID), machineOf(t, d, m.VMID); !reflect.DeepEqual(got, want) || got.CPUCores != 2 {
		t.Errorf("machine after a rollback and a restart:\n got %+v\nwant %+v, 2 cores", got, want)
	}
	// The machine is at "one": a new snapshot's parent is "one", in the restarted world.
	s, err := r.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "three"})
	wantErr(t, "snapshot after a restart", err)
	if s.Parent != "one" {
		t.Errorf("parent after rollback and restart: got %q; want one", s.Parent)
	}

	wantErr(t, "destroy", r.Destroy(bg, ref))
	r2 := reopened()
	_, err = r2.Snapshots(bg, ref)
	wantErr(t, "snapshots of a destroyed machine", err, hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	again, err := r2.Create(bg, hypervisor.CreateSpec{VMID: m.VMID, TemplateID: "tpl-debian-12"})
	wantErr(t, "create on the vmid again", err)
	if list := snapshotsOf(t, r2, again.VMID); len(list) != 0 {
		t.Errorf("a new machine on a destroyed one's vmid: got snapshots %+v; want none", list)
	}
}

// A restore over the machine and a reinstall replace its disks: its snapshots go, as
// they do on Proxmox. A failed snapshot (injected) leaves none behind.
func TestSnapshotsGoWithTheDisks(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	d.FailNext(m.VMID, OpSnapshot, nil)
	_, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "failed"})
	wantErr(t, "injected failure", err, hypervisor.ErrTaskFailed)
	if list := snapshotsOf(t, d, m.VMID); len(list) != 0 {
		t.Errorf("after a failed snapshot: got %+v; want none", list)
	}
	b, err := d.Backup(bg, ref, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.RestoreBackup(bg, ref, b.ID); err != nil {
		t.Fatal(err)
	}
	if list := snapshotsOf(t, d, m.VMID); len(list) != 0 {
		t.Errorf("after a restore: got %+v; want none", list)
	}
	if _, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s2"}); err != nil {
		t.Fatal(err)
	}
	if list := snapshotsOf(t, d, m.VMID); len(list) != 1 || list[0].Parent != "" {
		t.Errorf("the first snapshot after a restore: got %+v; want one without a parent", list)
	}
	if _, err := d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-rocky-9"}); err != nil {
		t.Fatal(err)
	}
	if list := snapshotsOf(t, d, m.VMID); len(list) != 0 {
		t.Errorf("after a reinstall: got %+v; want none", list)
	}
}

// On a shared store a snapshot taken through one member is listed and rolled back
// through another at once: snapshots live in the machine's record, which every
// operation reads from the store.
func TestSharedSnapshots(t *testing.T) {
	clk := hypervisortest.NewClock(t0)
	ms := members(t, 2, Config{Seed: 1, OpDelay: -1, Now: clk.Now})
	m := create(t, ms[0], hypervisor.CreateSpec{Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	s, err := ms[0].CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "before"})
	wantErr(t, "snapshot on member 0", err)
	if list := snapshotsOf(t, ms[1], m.VMID); !reflect.DeepEqual(list, []hypervisor.Snapshot{s}) {
		t.Errorf("member 1's list: got %+v; want [%+v]", list, s)
	}
	if _, err := ms[0].Configure(bg, ref, hypervisor.ConfigChange{MemoryMB: new(8192)}); err != nil {
		t.Fatal(err)
	}
	got, err := ms[1].RollbackSnapshot(bg, ref, "before")
	wantErr(t, "rollback on member 1", err)
	if got.MemoryMB != m.MemoryMB || got.State != hypervisor.StateStopped {
		t.Errorf("rollback on member 1: got %+v; want %d MB, stopped", got, m.MemoryMB)
	}
	if now := machineOf(t, ms[0], m.VMID); now.MemoryMB != m.MemoryMB || now.State != hypervisor.StateStopped {
		t.Errorf("member 0 after member 1's rollback: got %+v", now)
	}
	wantErr(t, "delete on member 0", ms[0].DeleteSnapshot(bg, ref, "before"))
	if list := snapshotsOf(t, ms[1], m.VMID); len(list) != 0 {
		t.Errorf("member 1's list after member 0's delete: got %+v; want none", list)
	}
}

// While another operation holds the machine's lock, every snapshot operation is
// refused with ErrLocked, as Proxmox answers "VM is locked"; and a snapshot holds the
// lock against other operations while it runs.
func TestSnapshotsLocked(t *testing.T) {
	d, _ := newTest(t, Config{OpDelay: -1})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	if _, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s1"}); err != nil {
		t.Fatal(err)
	}
	var errs []error
	d.applying = func(op string, vmid int) {
		switch op {
		case "reboot":
			_, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s2"})
			errs = append(errs, err)
			_, err = d.RollbackSnapshot(bg, ref, "s1")
			errs = append(errs, err)
			errs = append(errs, d.DeleteSnapshot(bg, ref, "s1"))
		case OpSnapshot:
			errs = append(errs, d.Power(bg, ref, hypervisor.ActionStop))
		}
	}
	if err := d.Power(bg, ref, hypervisor.ActionReboot); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s3"}); err != nil {
		t.Fatal(err)
	}
	d.applying = nil
	if len(errs) != 4 {
		t.Fatalf("got %d refusals; want 4", len(errs))
	}
	for i, err := range errs {
		wantErr(t, "operation "+strconv.Itoa(i)+" under another's lock", err, hypervisor.ErrLocked, apierr.ErrConflict)
	}
	if list := snapshotsOf(t, d, m.VMID); len(list) != 2 || list[0].Name != "s1" || list[1].Name != "s3" {
		t.Errorf("after refused operations: got %+v; want s1 and s3", list)
	}
}
