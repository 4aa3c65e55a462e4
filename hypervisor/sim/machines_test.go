package sim

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
	"github.com/vmplane/vmplane/internal/testwait"
)

func TestDestroyFreesVMIDAndAddress(t *testing.T) {
	d, _ := newTest(t, Config{})
	a := create(t, d, hypervisor.CreateSpec{Start: true})
	create(t, d, hypervisor.CreateSpec{})
	wantErr(t, "destroy running", d.Destroy(bg, hypervisor.Ref{VMID: a.VMID}))
	if _, err := d.Machine(bg, hypervisor.Ref{VMID: a.VMID}); !errors.Is(err, hypervisor.ErrMachineNotFound) {
		t.Errorf("Machine after Destroy: got %v; want ErrMachineNotFound", err)
	}
	wantErr(t, "destroy again", d.Destroy(bg, hypervisor.Ref{VMID: a.VMID}), hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	c := create(t, d, hypervisor.CreateSpec{})
	if c.VMID != a.VMID || c.Interfaces[0].IPAddresses[0] != a.Interfaces[0].IPAddresses[0] {
		t.Errorf("after destroy: got vmid %d ip %v; want the freed %d %v", c.VMID, c.Interfaces[0].IPAddresses, a.VMID, a.Interfaces[0].IPAddresses)
	}
}

func TestConcurrentOperationsLock(t *testing.T) {
	d, _ := newTest(t, Config{OpDelay: 300 * time.Millisecond})
	m, _ := d.AddMachine(hypervisor.Machine{State: hypervisor.StateStopped}, time.Time{})
	other, _ := d.AddMachine(hypervisor.Machine{State: hypervisor.StateStopped}, time.Time{})
	ref := hypervisor.Ref{VMID: m.VMID}

	var wg sync.WaitGroup
	var firstErr, otherErr error
	wg.Add(2)
	go func() { defer wg.Done(); firstErr = d.Power(bg, ref, hypervisor.ActionStart) }()
	waitLocked(t, d, m.VMID)
	// A different machine is not held up by this one.
	go func() {
		defer wg.Done()
		otherErr = d.Power(bg, hypervisor.Ref{VMID: other.VMID}, hypervisor.ActionStart)
	}()

	wantErr(t, "second power op", d.Power(bg, ref, hypervisor.ActionStart), hypervisor.ErrLocked, apierr.ErrConflict)
	_, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(4)})
	wantErr(t, "configure while locked", err, hypervisor.ErrLocked)
	_, err = d.Migrate(bg, ref, "pve3", false)
	wantErr(t, "migrate while locked", err, hypervisor.ErrLocked)
	wantErr(t, "destroy while locked", d.Destroy(bg, ref), hypervisor.ErrLocked)
	// Reads are never locked.
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateStopped {
		t.Errorf("state during start: got %s; want stopped until the operation ends", got)
	}
	wg.Wait()
	wantErr(t, "first power op", firstErr)
	wantErr(t, "other machine", otherErr)
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateRunning {
		t.Errorf("state after start: got %s; want running", got)
	}
	wantErr(t, "op after unlock", d.Power(bg, ref, hypervisor.ActionStop))
}

// waitLocked waits until an operation holds the machine's lock.
func waitLocked(t *testing.T, d *Driver, vmid int) {
	t.Helper()
	testwait.Eventually(t, fmt.Sprintf("machine %d was never locked", vmid), func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		_, busy := d.locks[vmid]
		return busy
	})
}

func TestCancelLeavesMachineUnchanged(t *testing.T) {
	// The start would take an hour: only the cancel can end it within the test.
	d, _ := newTest(t, Config{OpDelay: time.Hour})
	m, _ := d.AddMachine(hypervisor.Machine{State: hypervisor.StateStopped}, time.Time{})
	ref := hypervisor.Ref{VMID: m.VMID}

	cctx, cancel := context.WithCancel(bg)
	go func() { // cancelled while it runs
		testwait.Poll(testwait.Timeout, func() bool {
			d.mu.Lock()
			defer d.mu.Unlock()
			_, busy := d.locks[m.VMID]
			return busy
		})
		cancel()
	}()
	err := d.Power(cctx, ref, hypervisor.ActionStart)
	wantErr(t, "cancelled start", err, context.Canceled)
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateStopped {
		t.Errorf("state after cancel: got %s; want stopped", got)
	}

	dctx, cancel2 := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancel2()
	_, err = d.Create(dctx, hypervisor.CreateSpec{TemplateID: "tpl-debian-12"})
	wantErr(t, "create past deadline", err, context.DeadlineExceeded, apierr.ErrTimeout)

	// The lock and the vmid reservation are released: the machine takes new work and the
	// cancelled create's vmid is free again.
	d.mu.Lock()
	locks, pending := len(d.locks), len(d.pending)
	d.mu.Unlock()
	if locks != 0 || pending != 0 {
		t.Errorf("after cancels: got %d locks, %d pending creates; want 0, 0", locks, pending)
	}
	done, cancel3 := context.WithCancel(bg)
	cancel3()
	wantErr(t, "already cancelled", d.Destroy(done, ref), context.Canceled)
	d.mu.Lock()
	next := d.nextVMIDLocked()
	d.mu.Unlock()
	if next != 101 {
		t.Errorf("next vmid after cancelled create: got %d; want 101", next)
	}
}

func TestInventory(t *testing.T) {
	d, _ := newTest(t, Config{Machines: 30, Seed: 7})
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Nodes) != 3 || len(inv.Machines) != 30 || len(inv.Templates) != 3 {
		t.Fatalf("inventory: got %d nodes, %d machines, %d templates; want 3, 30, 3", len(inv.Nodes), len(inv.Machines), len(inv.Templates))
	}
	perNode := map[string]int{}
	for i, m := range inv.Machines {
		if m.VMID != 100+i {
			t.Errorf("machine %d: got vmid %d; want %d (ascending, dense)", i, m.VMID, 100+i)
		}
		perNode[m.Node]++
	}
	for _, n := range inv.Nodes {
		if n.CPUCores != 32 || n.MemoryMB != 128*1024 || n.DiskGB != 2000 || n.Status != hypervisor.NodeOnline {
			t.Errorf("node %s: got %+v; want 32 cores, 128 GiB, 2000 GB, online", n.ID, n)
		}
		if perNode[n.ID] == 0 || n.CPU <= 0 || n.CPU > 1 || n.MemBytes <= 0 || n.DiskBytes <= 0 {
			t.Errorf("node %s: got %d machines, cpu %v, mem %d, disk %d; want machines and usage", n.ID, perNode[n.ID], n.CPU, n.MemBytes, n.DiskBytes)
		}
	}
	if err := d.SetNodeStatus("pve2", hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	inv, _ = d.Inventory(bg)
	if n := inv.Nodes[1]; n.Status != hypervisor.NodeOffline || n.CPU != 0 || n.MemBytes != 0 {
		t.Errorf("offline node: got %+v; want offline with no usage", n)
	}
}

// MachinePages hands over what Inventory lists, n at a time in ascending vmid order,
// as copies the caller may change; InventoryHead is the rest of Inventory. A machine
// destroyed before its page is read is left out; a page's error ends the pages, and
// an unavailable hypervisor is refused like Inventory.
func TestMachinePages(t *testing.T) {
	d, _ := newTest(t, Config{Machines: 10, Seed: 7})
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatal(err)
	}
	head, err := d.InventoryHead(bg)
	if err != nil {
		t.Fatal(err)
	}
	if head.Machines != nil || !reflect.DeepEqual(head.Nodes, inv.Nodes) || !reflect.DeepEqual(head.Traffic, inv.Traffic) ||
		!reflect.DeepEqual(head.Templates, inv.Templates) || len(head.Traffic) == 0 {
		t.Fatalf("head: %+v; want the inventory without its machines (%+v)", head, inv)
	}
	var got []hypervisor.Machine
	var sizes []int
	err = d.MachinePages(bg, 4, func(ms []hypervisor.Machine) error {
		sizes = append(sizes, len(ms))
		got = append(got, ms...)
		ms[0].Interfaces[0].IPAddresses[0] = "changed by the caller"
		ms[0].Disks[0].ID = "changed by the caller"
		return nil
	})
	if err != nil || !slices.Equal(sizes, []int{4, 4, 2}) {
		t.Fatalf("pages of %v, %v; want 4, 4, 2", sizes, err)
	}
	again, _ := d.Inventory(bg)
	if !reflect.DeepEqual(again.Machines, inv.Machines) {
		t.Fatal("a change to a page reached the driver's machines")
	}
	for _, i := range []int{0, 4, 8} {
		got[i] = inv.Machines[i] // the caller's own changes above
	}
	if !reflect.DeepEqual(got, inv.Machines) {
		t.Fatalf("pages: %+v; want the inventory's machines %+v", got, inv.Machines)
	}

	got = got[:0]
	stop := errors.New("stop")
	err = d.MachinePages(bg, 4, func(ms []hypervisor.Machine) error {
		if len(got) == 0 {
			// Destroyed after the vmids were listed, before its page is read.
			if err := d.Destroy(bg, hypervisor.Ref{VMID: inv.Machines[5].VMID}); err != nil && !errors.Is(err, hypervisor.ErrMachineNotFound) {
				t.Error(err)
			}
		}
		got = append(got, ms...)
		if len(got) == 7 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || len(got) != 7 {
		t.Fatalf("pages after a page's error: %d machines, %v; want 7 and its error", len(got), err)
	}
	if got[4].VMID != inv.Machines[4].VMID || got[5].VMID != inv.Machines[6].VMID {
		t.Errorf("second page %v; want the destroyed vmid %d left out", got[4:], inv.Machines[5].VMID)
	}

	d.SetAvailable(false)
	defer d.SetAvailable(true)
	wantErr(t, "pages while unavailable", d.MachinePages(bg, 4, func([]hypervisor.Machine) error {
		t.Error("a page while unavailable")
		return nil
	}), hypervisor.ErrUnavailable)
	if _, err := d.InventoryHead(bg); !errors.Is(err, hypervisor.ErrUnavailable) {
		t.Errorf("head while unavailable: %v; want ErrUnavailable", err)
	}
}

func TestDeterministic(t *testing.T) {
	build := func(seed int64) hypervisor.Inventory {
		d, _ := newTest(t, Config{Seed: seed, Machines: 12})
		m := create(t, d, hypervisor.CreateSpec{Start: true})
		if _, err := d.AddDisk(bg, hypervisor.Ref{VMID: m.VMID}, 10, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Migrate(bg, hypervisor.Ref{VMID: 100}, "pve3", true); err != nil && !errors.Is(err, hypervisor.ErrSameNode) {
			t.Fatal(err)
		}
		inv, err := d.Inventory(bg)
		if err != nil {
			t.Fatal(err)
		}
		return inv
	}
	a, b, c := build(42), build(42), build(43)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed: inventories differ:\n%+v\n%+v", a, b)
	}
	macs := func(inv hypervisor.Inventory) []string {
		var out []string
		for _, m := range inv.Machines {
			out = append(out, m.Interfaces[0].MAC)
		}
		return out
	}
	if slices.Equal(macs(a), macs(c)) {
		t.Errorf("seeds 42 and 43: got the same MACs %v; want different", macs(a))
	}
}

func TestCommittedMemoryBookkeeping(t *testing.T) {
	// Placement reads a per-node running total; it must match the machines after every
	// kind of change that moves or resizes memory.
	d, _ := newTest(t, Config{Machines: 6})
	a := create(t, d, hypervisor.CreateSpec{MemoryMB: 4096})
	ref := hypervisor.Ref{VMID: a.VMID}
	b, _ := d.Backup(bg, ref, "")
	steps := []func() error{
		func() error {
			_, err := d.Configure(bg, ref, hypervisor.ConfigChange{MemoryMB: new(16384)})
			return err
		},
		func() error { _, err := d.Migrate(bg, ref, "pve3", false); return err },
		func() error { _, err := d.RestoreBackup(bg, ref, b.ID); return err },
		func() error { return d.RemoveMachine(101) },
		func() error { _, err := d.AddMachine(hypervisor.Machine{MemoryMB: 777}, time.Time{}); return err },
		func() error { return d.Destroy(bg, ref) },
		func() error { _, err := d.RestoreBackup(bg, ref, b.ID); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil && !errors.Is(err, hypervisor.ErrSameNode) {
			t.Fatalf("step %d: %v", i, err)
		}
		d.mu.Lock()
		want := map[string]int{}
		d.machines.Each(func(m *fleet.Machine) { want[m.Node] += m.MemoryMB })
		for _, n := range d.nodes {
			if d.committed[n.ID] != want[n.ID] {
				t.Errorf("step %d, node %s: got committed %d MB; want %d", i, n.ID, d.committed[n.ID], want[n.ID])
			}
		}
		d.mu.Unlock()
	}
}
