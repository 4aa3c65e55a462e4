package machines

import (
	"context"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/media"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// A task its member left while it ran is settled from what the hypervisor shows: a
// resize or a create whose result is all in place succeeded (the member that takes
// the machine over used to fail both, though the machine had what was asked); one
// half done, and a reboot (which leaves no trace), failed.
func TestReachedTellsResizesAndCreatesDone(t *testing.T) {
	t.Parallel()
	vm := hypervisor.Machine{VMID: 101, Name: "web", State: hypervisor.StateRunning, CPUCores: 2, MemoryMB: 2048,
		Disks: []hypervisor.Disk{{ID: "scsi0", SizeGB: 30}}}
	resize := func(cores, mem *int, grow int) Operation {
		op := Operation{Type: OpResize, DiskGrowGB: grow}
		if cores != nil || mem != nil {
			op.Config = &hypervisor.ConfigChange{CPUCores: cores, MemoryMB: mem}
		}
		return op
	}
	create := func(c hypervisor.CreateSpec) Operation { return Operation{Type: OpCreate, Create: &c} }
	stopped := vm
	stopped.State = hypervisor.StateStopped
	for name, c := range map[string]struct {
		hm         hypervisor.Machine
		op         Operation
		diskBefore int
		want       bool
	}{
		"resize in place":              {vm, resize(kit.Ptr(2), kit.Ptr(2048), 10), 20, true},
		"resize of cores only":         {vm, resize(kit.Ptr(2), nil, 0), 30, true},
		"resize with the disk not yet": {vm, resize(kit.Ptr(2), nil, 10), 30, false},
		"resize with other cores":      {vm, resize(kit.Ptr(4), nil, 0), 30, false},
		"create in place":              {vm, create(hypervisor.CreateSpec{Name: "web", CPUCores: 2, MemoryMB: 2048, DiskGB: 30, Start: true}), 0, true},
		"create not started yet":       {stopped, create(hypervisor.CreateSpec{Name: "web", CPUCores: 2, MemoryMB: 2048, DiskGB: 30, Start: true}), 0, false},
		"create not grown yet":         {vm, create(hypervisor.CreateSpec{Name: "web", CPUCores: 2, MemoryMB: 2048, DiskGB: 40, Start: true}), 0, false},
		"create not configured yet":    {vm, create(hypervisor.CreateSpec{Name: "web", CPUCores: 4, MemoryMB: 2048, Start: true}), 0, false},
		"create with no machine":       {hypervisor.Machine{}, create(hypervisor.CreateSpec{Name: "web"}), 0, false},
		"reboot":                       {vm, Operation{Type: OpPower, Action: hypervisor.ActionReboot}, 0, false},
		"start":                        {vm, Operation{Type: OpPower, Action: hypervisor.ActionStart}, 0, true},
	} {
		if got := reached(c.hm, c.op, c.diskBefore); got != c.want {
			t.Errorf("%s: reached = %v; want %v", name, got, c.want)
		}
	}
}

// The tasks of the client area's operations are told done from the machine's drive
// and boot order (media, rescue) or from its snapshot list; a rollback, which leaves
// no trace in either, is not.
func TestReachedTellsMediaAndSnapshotsDone(t *testing.T) {
	t.Parallel()
	iso := &MountedISO{ISOID: "I1", Name: "rescue", File: "rescue.iso"}
	on, off := true, false
	rescued := hypervisor.Machine{State: hypervisor.StateRunning, Media: "rescue.iso", BootOrder: []string{"cdrom", "disk"}}
	plain := hypervisor.Machine{State: hypervisor.StateRunning, BootOrder: []string{"disk", "net"}}
	for name, c := range map[string]struct {
		hm   hypervisor.Machine
		op   Operation
		want bool
	}{
		"mount in place":         {rescued, Operation{Type: OpMountISO, Change: media.Change{ISO: iso}}, true},
		"mount not yet":          {plain, Operation{Type: OpMountISO, Change: media.Change{ISO: iso}}, false},
		"eject done":             {plain, Operation{Type: OpEjectISO}, true},
		"eject not yet":          {rescued, Operation{Type: OpEjectISO}, false},
		"boot order set":         {plain, Operation{Type: OpBootOrder, Change: media.Change{BootOrder: []string{"disk", "net"}}}, true},
		"boot order not yet":     {plain, Operation{Type: OpBootOrder, Change: media.Change{BootOrder: []string{"net", "disk"}}}, false},
		"rescue on":              {rescued, Operation{Type: OpRescue, Change: media.Change{Rescue: &on, ISO: iso}}, true},
		"rescue on, not started": {func() hypervisor.Machine { m := rescued; m.State = hypervisor.StateStopped; return m }(), Operation{Type: OpRescue, Change: media.Change{Rescue: &on, ISO: iso}}, false},
		"rescue off":             {plain, Operation{Type: OpRescue, Change: media.Change{Rescue: &off, BootOrder: []string{"disk", "net"}}}, true},
		"rescue off, not yet":    {rescued, Operation{Type: OpRescue, Change: media.Change{Rescue: &off, BootOrder: []string{"disk", "net"}}}, false},
		"restore":                {plain, Operation{Type: OpRestore, BackupID: "B", Archive: "a"}, false},
	} {
		if got := reached(c.hm, c.op, 0); got != c.want {
			t.Errorf("%s: reached = %v; want %v", name, got, c.want)
		}
	}
	list := []hypervisor.Snapshot{{Name: "before"}}
	for name, c := range map[string]struct {
		op   Operation
		want bool
	}{
		"snapshot taken":     {Operation{Type: OpSnapshot, Snapshot: &hypervisor.SnapshotSpec{Name: "before"}}, true},
		"snapshot not taken": {Operation{Type: OpSnapshot, Snapshot: &hypervisor.SnapshotSpec{Name: "after"}}, false},
		"snapshot deleted":   {Operation{Type: OpSnapshotDelete, SnapshotName: "after"}, true},
		"delete not yet":     {Operation{Type: OpSnapshotDelete, SnapshotName: "before"}, false},
		"rollback":           {Operation{Type: OpSnapshotRollback, SnapshotName: "before"}, false},
	} {
		if got := reachedSnapshot(list, c.op); got != c.want {
			t.Errorf("%s: reachedSnapshot = %v; want %v", name, got, c.want)
		}
	}
}

// heldBackups takes each backup and then holds its task until the context ends, as a
// process stopped just after vzdump finished.
type heldBackups struct {
	hypervisor.Driver
	taken chan struct{}
}

func (d *heldBackups) Backup(ctx context.Context, ref hypervisor.Ref, mode hypervisor.BackupMode) (hypervisor.Backup, error) {
	b, err := d.Driver.Backup(ctx, ref, mode)
	if err != nil {
		return b, err
	}
	close(d.taken)
	<-ctx.Done()
	return hypervisor.Backup{}, ctx.Err()
}

// A task left open by a process that stopped is settled by the next one from the
// hypervisor: an on-demand backup whose archive is on the storage succeeded, with its
// record written (not left an orphan archive off record).
func TestSettleAdoptsOnDemandBackup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sim := onSim(t)
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	held := &heldBackups{Driver: sim, taken: make(chan struct{})}
	s, m := tenantMachineOn(t, ctx, held, nil, nil, func(o *testOptions) { o.Store, o.KeepOpen = store, true })
	task, err := s.Machines.BackupNow(ctx, m.ID, kit.Ptr("T1"), BackupRequest{Note: "cut"})
	if err != nil {
		t.Fatal(err)
	}
	<-held.taken
	s.stop()

	open := 0
	if err := tasks.ScanOpen(ctx, store, func(string, string) error { open++; return nil }); err != nil || open != 1 {
		t.Fatalf("%d open tasks, %v; want the backup's", open, err)
	}

	s2 := newTestSystem(t, func(o *testOptions) { o.Driver, o.Store = sim, store })
	if err := s2.Machines.SettleOpenTasks(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := s2.Tasks.Wait(ctx, task.ID)
	if err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("settled backup task %+v, %v; want succeeded", got, err)
	}
	list, _, err := s2.Backups.OfMachineNewest(ctx, m.ID, nil, "", 0)
	if err != nil || len(list) != 1 || list[0].Note != "cut" || list[0].ID != task.ID {
		t.Fatalf("got %+v, %v; want the archive the cut task took, on record", list, err)
	}
}
