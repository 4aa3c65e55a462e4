package inventory

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// Syncs asked at once run one after another (on the member where the sync entity is
// active): the first adopts every machine, the others find nothing new.
func TestSyncsAskedAtOnceAdoptOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 2, Machines: 10}))
	added, total := atOnce(3, func(int) int {
		res, err := s.Inventory.Sync(ctx)
		if err != nil {
			t.Error(err)
		}
		return res.Machines.Added
	})
	if ms, _, err := s.Machines.List(ctx, "", 0, nil); err != nil || total != 10 || len(ms) != 10 {
		t.Fatalf("syncs added %v (%d records, %v); want 10 machines in all", added, len(ms), err)
	}
}

// A sync asked after Stop is refused, not left waiting.
func TestSyncAfterStopIsRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 1}))
	s.Inventory.Stop()
	if _, err := s.Inventory.Sync(ctx); err == nil {
		t.Fatal("a sync after Stop succeeded")
	}
}

// A second sync finds what changed on the hypervisor since the first: a machine
// stopped is updated, one destroyed removed, and the templates and nodes are on record.
func TestSyncFindsChanges(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 2, Machines: 3}))
	res, err := s.Inventory.Sync(ctx)
	if err != nil || res.Nodes != 2 || res.Machines.Added != 3 {
		t.Fatalf("first sync: %+v, %v; want 2 nodes, 3 machines added", res, err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 3 {
		t.Fatalf("got %d machines, %v; want 3", len(ms), err)
	}
	var running, other *machines.Machine
	for i := range ms {
		if ms[i].Status == machines.StatusRunning && running == nil {
			running = &ms[i]
		} else if other == nil {
			other = &ms[i]
		}
	}
	if running == nil || other == nil {
		t.Fatalf("machines %+v: want a running one and another", ms)
	}
	if err := s.driver.Power(ctx, hypervisor.Ref{VMID: running.VMID, Node: running.Node}, hypervisor.ActionStop); err != nil {
		t.Fatal(err)
	}
	if err := s.driver.Destroy(ctx, hypervisor.Ref{VMID: other.VMID, Node: other.Node}); err != nil {
		t.Fatal(err)
	}
	res, err = s.Inventory.Sync(ctx)
	if err != nil || res.Machines != (SyncMachines{Updated: 1, Removed: 1}) {
		t.Fatalf("second sync: %+v, %v; want one machine updated, one removed", res, err)
	}
	if m, err := s.Machines.Get(ctx, running.ID, nil); err != nil || m.Status != machines.StatusStopped {
		t.Fatalf("the stopped machine: %+v, %v; want stopped", m, err)
	}
	if _, err := s.Machines.Get(ctx, other.ID, nil); err == nil {
		t.Fatal("the destroyed machine is still on record")
	}
	if tpls, err := s.Inventory.Templates(ctx); err != nil || len(tpls) == 0 {
		t.Fatalf("templates: %v, %v; want the sim's", tpls, err)
	}
	if ids, err := s.Nodes.Known(ctx); err != nil || len(ids) != 2 {
		t.Fatalf("nodes: %v, %v; want 2", ids, err)
	}
}

// atOnce runs fn(0..n-1) on n goroutines at once and returns what each added, and
// their sum.
func atOnce(n int, fn func(i int) int) ([]int, int) {
	added := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			added[i] = fn(i)
		}()
	}
	wg.Wait()
	total := 0
	for _, a := range added {
		total += a
	}
	return added, total
}

// The sync adopts the archives taken outside vmplane (a vzdump job of Proxmox's own)
// for the machines of tenants, never those vmplane took, and drops an adopted record
// whose archive went away.
func TestSyncAdoptsExternalBackups(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 2}))
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 2 {
		t.Fatalf("machines %+v, %v", ms, err)
	}
	owned, loose := ms[0], ms[1]
	tenant := "t1"
	if _, err := s.Machines.Assign(ctx, owned.ID, &tenant); err != nil {
		t.Fatal(err)
	}
	ext, err := s.driver.Backup(ctx, hypervisor.Ref{VMID: owned.VMID, Node: owned.Node}, hypervisor.BackupSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.driver.Backup(ctx, hypervisor.Ref{VMID: loose.VMID, Node: loose.Node}, hypervisor.BackupSnapshot); err != nil {
		t.Fatal(err)
	}
	res, err := s.Inventory.Sync(ctx)
	if err != nil || res.Backups != (SyncBackups{Adopted: 1}) {
		t.Fatalf("sync: %+v, %v; want the tenant machine's archive adopted, the other left", res, err)
	}
	recs, _, err := s.Backups.List(ctx, &tenant, owned.ID, "", 0)
	if err != nil || len(recs) != 1 || recs[0].BackupID != ext.ID || recs[0].Origin != "external" || recs[0].SizeBytes != ext.SizeBytes {
		t.Fatalf("records %+v, %v; want the archive %s, origin external", recs, err, ext.ID)
	}

	// A backup vmplane takes is recorded by its taker, not adopted a second time.
	task, err := s.Machines.BackupNow(ctx, owned.ID, &tenant, machines.BackupRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if done, err := s.Tasks.Wait(ctx, task.ID); err != nil || done.Status != tasks.TaskSucceeded {
		t.Fatalf("backup task %+v, %v", done, err)
	}
	if res, err := s.Inventory.Sync(ctx); err != nil || res.Backups != (SyncBackups{}) {
		t.Fatalf("sync after a backup on demand: %+v, %v; want nothing adopted", res, err)
	}
	if recs, _, _ := s.Backups.List(ctx, &tenant, owned.ID, "", 0); len(recs) != 2 {
		t.Fatalf("records %+v; want the adopted one and the one on demand", recs)
	}

	// The adopted archive deleted outside vmplane: its record goes.
	if err := s.driver.DeleteBackup(ctx, hypervisor.Ref{VMID: owned.VMID, Node: owned.Node}, ext.ID); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Inventory.Sync(ctx); err != nil || res.Backups != (SyncBackups{Removed: 1}) {
		t.Fatalf("sync after the delete: %+v, %v; want the adopted record removed", res, err)
	}
	if recs, _, _ := s.Backups.List(ctx, &tenant, owned.ID, "", 0); len(recs) != 1 || recs[0].Origin != "on_demand" {
		t.Fatalf("records %+v; want the one on demand alone", recs)
	}
}

// pagedOnly is the simulator whose whole inventory the sync must not read: it counts
// the pages of machines handed over and the largest.
type pagedOnly struct {
	*sim.Driver
	t             *testing.T
	pages, widest int
}

func (d *pagedOnly) Inventory(ctx context.Context) (hypervisor.Inventory, error) {
	d.t.Error("the sync read the whole inventory, every machine at once")
	return d.Driver.Inventory(ctx)
}

func (d *pagedOnly) MachinePages(ctx context.Context, n int, page func([]hypervisor.Machine) error) error {
	return d.Driver.MachinePages(ctx, n, func(ms []hypervisor.Machine) error {
		d.pages++
		d.widest = max(d.widest, len(ms))
		return page(ms)
	})
}

// A driver that pages its machines is synced a page at a time, never from a copy of
// every machine at once, and what changed anywhere in its pages is found: machines
// adopted from every page, one stopped (first page), one destroyed (last page), one
// made after the first sync (in the last page), in one sync each.
func TestSyncReadsMachinesInPages(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	defer func(n int) { syncPage = n }(syncPage)
	syncPage = 3
	d := &pagedOnly{Driver: sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 2, Machines: 10}), t: t}
	s := newTestSystem(t, d)
	res, err := s.Inventory.Sync(ctx)
	if err != nil || res.Machines != (SyncMachines{Added: 10}) {
		t.Fatalf("first sync: %+v, %v; want 10 machines added", res.Machines, err)
	}
	if d.pages != 4 || d.widest != 3 {
		t.Fatalf("the first sync read %d pages, the largest of %d machines; want 4 of at most 3", d.pages, d.widest)
	}
	inv, err := d.Driver.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first, last := inv.Machines[0], inv.Machines[len(inv.Machines)-1]
	if first.State == hypervisor.StateRunning {
		err = d.Power(ctx, hypervisor.Ref{VMID: first.VMID, Node: first.Node}, hypervisor.ActionStop)
	} else {
		err = d.Power(ctx, hypervisor.Ref{VMID: first.VMID, Node: first.Node}, hypervisor.ActionStart)
	}
	if err != nil {
		t.Fatal(err)
	}
	// Made before the destroy, so that it does not take the destroyed machine's vmid.
	made, err := d.Create(ctx, hypervisor.CreateSpec{Name: "made-outside", TemplateID: inv.Templates[0].ID,
		CPUCores: 1, MemoryMB: 512, DiskGB: inv.Templates[0].DiskGB})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Destroy(ctx, hypervisor.Ref{VMID: last.VMID, Node: last.Node}); err != nil {
		t.Fatal(err)
	}
	d.pages, d.widest = 0, 0
	res, err = s.Inventory.Sync(ctx)
	if err != nil || res.Machines != (SyncMachines{Added: 1, Updated: 1, Removed: 1}) {
		t.Fatalf("second sync: %+v, %v; want one machine added, one updated, one removed", res.Machines, err)
	}
	if d.pages != 4 || d.widest != 3 {
		t.Fatalf("the second sync read %d pages, the largest of %d machines; want 4 of at most 3", d.pages, d.widest)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 10 {
		t.Fatalf("got %d machines, %v; want 10", len(ms), err)
	}
	found := map[int]machines.Machine{}
	for _, m := range ms {
		found[m.VMID] = m
	}
	if _, ok := found[last.VMID]; ok {
		t.Error("the destroyed machine is still on record")
	}
	if m, ok := found[made.VMID]; !ok || m.Name != "made-outside" {
		t.Errorf("the machine made outside: %+v (found %v); want adopted", m, ok)
	}
	if m := found[first.VMID]; (m.Status == machines.StatusRunning) == (first.State == hypervisor.StateRunning) {
		t.Errorf("the machine powered: status %s, was %s on the hypervisor; want it changed", m.Status, first.State)
	}
}
