package machines

import (
	"context"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// A restore into a new machine is told done by the machine it made: restored (a vmid)
// under the name asked for, and running when it was to be started.
func TestReachedTellsRestoresIntoNewMachinesDone(t *testing.T) {
	t.Parallel()
	restored := hypervisor.Machine{VMID: 120, Name: "copy", State: hypervisor.StateStopped}
	running := restored
	running.State = hypervisor.StateRunning
	op := func(name string, start bool) Operation {
		return Operation{Type: OpRestoreNew, Restore: &RestoreTarget{BackupID: "B", Archive: "a", Name: name, StartAfter: start}}
	}
	for name, c := range map[string]struct {
		hm   hypervisor.Machine
		op   Operation
		want bool
	}{
		"restored":                  {restored, op("copy", false), true},
		"restored under its name":   {restored, op("", false), true},
		"restored, not started yet": {restored, op("copy", true), false},
		"restored and started":      {running, op("copy", true), true},
		"another name":              {restored, op("other", false), false},
		"no machine":                {hypervisor.Machine{}, op("", false), false},
		"no target":                 {restored, Operation{Type: OpRestoreNew}, false},
	} {
		if got := reached(c.hm, c.op, 0); got != c.want {
			t.Errorf("%s: reached = %v; want %v", name, got, c.want)
		}
	}
}

// heldRestores restores each backup into a new machine and then holds the task until
// its context ends, as a process stopped just after the restore finished.
type heldRestores struct {
	hypervisor.Driver
	done chan struct{}
}

func (d *heldRestores) RestoreNew(ctx context.Context, from hypervisor.Ref, backupID string, spec hypervisor.RestoreSpec) (hypervisor.Machine, error) {
	if _, err := d.Driver.RestoreNew(ctx, from, backupID, spec); err != nil {
		return hypervisor.Machine{}, err
	}
	close(d.done)
	<-ctx.Done()
	return hypervisor.Machine{}, ctx.Err()
}

// A restore into a new machine cut by a stop (its record has no vmid yet) is settled by
// the next process from the inventory: the one unrecorded machine of its name is the
// restore's, so the task succeeds and the record takes its vmid, rather than the sync
// adopting it as a tenantless stranger.
func TestSettleFindsTheMachineARestoreMade(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := onSim(t)
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	held := &heldRestores{Driver: d, done: make(chan struct{})}
	s, m := tenantMachineOn(t, ctx, held, nil, nil, func(o *testOptions) { o.Store, o.KeepOpen = store, true })
	b, err := d.Backup(ctx, hypervisor.Ref{VMID: m.VMID, Node: m.Node}, hypervisor.BackupSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	batch := new(persistence.Batch)
	c, err := s.Machines.AddRestore(ctx, batch, "T1", RestoreTarget{From: hypervisor.Ref{VMID: m.VMID, Node: m.Node}, BackupID: "B1",
		Archive: b.ID, Name: "copy"}, "copy", m.Node, RestoreSizes{CPUCores: m.CPUCores, MemoryMB: m.MemoryMB, DiskGB: m.DiskGB})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rt.Commit(batch); err != nil {
		t.Fatal(err)
	}
	s.Machines.Created(c)
	<-held.done
	s.stop()

	s2 := newTestSystem(t, func(o *testOptions) { o.Driver, o.Store = d, store })
	if n, err := s2.adopt(ctx); err != nil || n != 0 {
		t.Fatalf("a sync with the restore open adopted %d, %v; want none", n, err)
	}
	if err := s2.Machines.SettleOpenTasks(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := s2.Tasks.Wait(ctx, c.Task.ID)
	if err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("settled restore task %+v, %v; want succeeded", got, err)
	}
	rec, err := s2.Machines.Get(ctx, c.Machine.ID, kit.Ptr("T1"))
	if err != nil || rec.VMID == 0 || rec.VMID == m.VMID || rec.Name != "copy" || len(rec.Disks) == 0 {
		t.Fatalf("got %+v, %v; want the restored machine on record with its own vmid", rec, err)
	}
	if n, err := s2.adopt(ctx); err != nil || n != 0 {
		t.Fatalf("the next sync adopted %d, %v; want none: the restored machine is on record", n, err)
	}
}

// A backup restored into a new machine on each driver (the sim and the Proxmox fake):
// the task calls the driver's RestoreNew, starts the machine as asked, and the record
// takes the machine's vmid, node, disks and state; the source stays as it was.
func TestRestoreNewOnEachDriver(t *testing.T) {
	for _, drv := range drivers {
		t.Run(drv.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			d := drv.new(t)
			s, m := tenantMachineOn(t, ctx, d, nil, nil)
			from := hypervisor.Ref{VMID: m.VMID, Node: m.Node}
			b, err := d.Backup(ctx, from, hypervisor.BackupSnapshot)
			if err != nil {
				t.Fatal(err)
			}
			batch := new(persistence.Batch)
			c, err := s.Machines.AddRestore(ctx, batch, "T1", RestoreTarget{From: from, BackupID: "B1", Archive: b.ID, Name: "copy", StartAfter: true},
				"copy", m.Node, RestoreSizes{CPUCores: m.CPUCores, MemoryMB: m.MemoryMB, DiskGB: m.DiskGB})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.rt.Commit(batch); err != nil {
				t.Fatal(err)
			}
			s.Machines.Created(c)
			if got, err := s.Tasks.Wait(ctx, c.Task.ID); err != nil || got.Status != tasks.TaskSucceeded {
				t.Fatalf("restore task %+v, %v; want succeeded", got, err)
			}
			rec, err := s.Machines.Get(ctx, c.Machine.ID, kit.Ptr("T1"))
			if err != nil || rec.VMID == 0 || rec.VMID == m.VMID || rec.Name != "copy" || rec.Status != StatusRunning ||
				len(rec.Disks) != len(m.Disks) || rec.DiskGB != m.DiskGB {
				t.Fatalf("got %+v, %v; want a running copy of %+v with its own vmid", rec, err, m)
			}
			src, err := s.Machines.Get(ctx, m.ID, nil)
			if err != nil || src.VMID != m.VMID || src.Name != m.Name {
				t.Fatalf("source: %+v, %v; want it as it was", src, err)
			}
		})
	}
}

// heldCreates makes the machine, then holds the create until its context ends, as a
// process stopped mid-create leaves it.
type heldCreates struct {
	hypervisor.Driver
	done chan struct{}
}

func (d *heldCreates) Create(ctx context.Context, spec hypervisor.CreateSpec) (hypervisor.Machine, error) {
	if _, err := d.Driver.Create(ctx, spec); err != nil {
		return hypervisor.Machine{}, err
	}
	close(d.done)
	<-ctx.Done()
	return hypervisor.Machine{}, ctx.Err()
}

// A create cut by a stop after the hypervisor made the machine (its record has no
// vmid yet) is settled by the next process as a restore is: the one unrecorded
// machine of its name is the create's, so the task succeeds and the record takes its
// vmid, rather than failing and leaving the machine to the sync as a stranger.
func TestSettleFindsTheMachineACreateMade(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := onSim(t)
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	held := &heldCreates{Driver: d, done: make(chan struct{})}
	s, _ := tenantMachineOn(t, ctx, held, nil, nil, func(o *testOptions) { o.Store, o.KeepOpen = store, true })
	batch := new(persistence.Batch)
	c, err := s.Machines.AddCreate(ctx, batch, "T1", hypervisor.CreateSpec{Name: "made", TemplateID: "tpl-debian-12",
		CPUCores: 1, MemoryMB: 512, DiskGB: 10, Start: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rt.Commit(batch); err != nil {
		t.Fatal(err)
	}
	s.Machines.Created(c)
	<-held.done
	s.stop()

	s2 := newTestSystem(t, func(o *testOptions) { o.Driver, o.Store = d, store })
	if err := s2.Machines.SettleOpenTasks(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := s2.Tasks.Wait(ctx, c.Task.ID)
	if err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("settled create task %+v, %v; want succeeded", got, err)
	}
	rec, err := s2.Machines.Get(ctx, c.Machine.ID, kit.Ptr("T1"))
	if err != nil || rec.VMID == 0 || rec.Name != "made" || rec.Status != StatusRunning {
		t.Fatalf("got %+v, %v; want the created machine on record, running, with its vmid", rec, err)
	}
	if n, err := s2.adopt(ctx); err != nil || n != 0 {
		t.Fatalf("the next sync adopted %d, %v; want none: the created machine is on record", n, err)
	}
}
