package sim

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/internal/testwait"
)

func TestPowerStateMachine(t *testing.T) {
	d, _ := newTest(t, Config{})
	hypervisortest.PowerMatrix(t, d, func(from hypervisor.State) int {
		m, err := d.AddMachine(hypervisor.Machine{State: from}, time.Time{})
		if err != nil {
			t.Fatalf("AddMachine: %v", err)
		}
		return m.VMID
	}, nil)
}

func TestPowerBadInput(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{})
	err := d.Power(bg, hypervisor.Ref{VMID: m.VMID}, "explode")
	wantErr(t, "unknown action", err, apierr.ErrInvalidRequest)
	var ae *apierr.Error
	if errors.As(err, &ae) && len(ae.Allowed) != len(hypervisor.PowerActions) {
		t.Errorf("unknown action: got allowed %v; want the %d power actions", ae.Allowed, len(hypervisor.PowerActions))
	}
	wantErr(t, "unknown machine", d.Power(bg, hypervisor.Ref{VMID: 999}, hypervisor.ActionStart), hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
}

func TestCreate(t *testing.T) {
	d, _ := newTest(t, Config{})
	a := create(t, d, hypervisor.CreateSpec{Name: "web", DiskGB: 4})
	b := create(t, d, hypervisor.CreateSpec{DiskGB: 40, Start: true})
	c := create(t, d, hypervisor.CreateSpec{})

	if got := []int{a.VMID, b.VMID, c.VMID}; !slices.Equal(got, []int{100, 101, 102}) {
		t.Errorf("vmids: got %v; want [100 101 102]", got)
	}
	// Equal machines spread over equal nodes: the least loaded node wins each time.
	if got := []string{a.Node, b.Node, c.Node}; !slices.Equal(got, []string{"pve1", "pve2", "pve3"}) {
		t.Errorf("nodes: got %v; want [pve1 pve2 pve3]", got)
	}
	if a.State != hypervisor.StateStopped || b.State != hypervisor.StateRunning {
		t.Errorf("states: got %s, %s; want stopped, running (spec.Start)", a.State, b.State)
	}
	if a.Name != "web" || b.Name != "vm-101" {
		t.Errorf("names: got %q, %q; want web, vm-101", a.Name, b.Name)
	}
	// The system disk is the larger of the request and the template minimum (10 GB).
	if got := []hypervisor.Disk{a.Disks[0], b.Disks[0]}; !reflect.DeepEqual(got, []hypervisor.Disk{{ID: "scsi0", Storage: "local-lvm", SizeGB: 10}, {ID: "scsi0", Storage: "local-lvm", SizeGB: 40}}) {
		t.Errorf("system disks: got %+v; want scsi0 10 GB and 40 GB on local-lvm", got)
	}
	seenMAC, seenIP := map[string]bool{}, map[string]bool{}
	for _, m := range []hypervisor.Machine{a, b, c} {
		if len(m.Interfaces) != 1 {
			t.Fatalf("machine %d: got %d interfaces; want 1", m.VMID, len(m.Interfaces))
		}
		nic := m.Interfaces[0]
		if nic.ID != "net0" || nic.Bridge != "vmbr0" || !strings.HasPrefix(nic.MAC, "BC:24:11:") || len(nic.IPAddresses) != 1 || !strings.HasPrefix(nic.IPAddresses[0], "192.0.2.") {
			t.Errorf("machine %d: got interface %+v; want net0 on vmbr0, a BC:24:11 MAC and a 10.0/16 address", m.VMID, nic)
		}
		if seenMAC[nic.MAC] || seenIP[nic.IPAddresses[0]] {
			t.Errorf("machine %d: MAC %s or address %v repeats", m.VMID, nic.MAC, nic.IPAddresses)
		}
		seenMAC[nic.MAC], seenIP[nic.IPAddresses[0]] = true, true
	}

	explicit := create(t, d, hypervisor.CreateSpec{VMID: 500, Node: "pve3"})
	if explicit.VMID != 500 || explicit.Node != "pve3" {
		t.Errorf("explicit: got vmid %d on %s; want 500 on pve3", explicit.VMID, explicit.Node)
	}
	if err := d.SetNodeStatus("pve2", hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	f := func(name string, spec hypervisor.CreateSpec, targets ...error) {
		t.Helper()
		if spec.TemplateID == "" {
			spec.TemplateID = "tpl-debian-12"
		}
		_, err := d.Create(bg, spec)
		wantErr(t, name, err, targets...)
	}
	f("vmid in use", hypervisor.CreateSpec{VMID: 500}, hypervisor.ErrVMIDInUse, apierr.ErrConflict)
	f("unknown template", hypervisor.CreateSpec{TemplateID: "tpl-windows"}, hypervisor.ErrTemplateNotFound, apierr.ErrInvalidRequest)
	f("unknown node", hypervisor.CreateSpec{Node: "pve9"}, hypervisor.ErrNodeNotFound, apierr.ErrInvalidRequest)
	f("offline node", hypervisor.CreateSpec{Node: "pve2"}, hypervisor.ErrNodeOffline, apierr.ErrInvalidState)
	f("bad cores", hypervisor.CreateSpec{CPUCores: -1}, apierr.ErrInvalidRequest)
	f("bad vmid", hypervisor.CreateSpec{VMID: 7}, apierr.ErrInvalidRequest)
	if m := create(t, d, hypervisor.CreateSpec{}); m.Node == "pve2" || m.VMID != 103 {
		t.Errorf("placement with pve2 offline: got vmid %d on %s; want 103 on an online node", m.VMID, m.Node)
	}
}

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
	d, _ := newTest(t, Config{OpDelay: 10 * time.Second})
	m, _ := d.AddMachine(hypervisor.Machine{State: hypervisor.StateStopped}, time.Time{})
	ref := hypervisor.Ref{VMID: m.VMID}

	cctx, cancel := context.WithCancel(bg)
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	err := d.Power(cctx, ref, hypervisor.ActionStart)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancelled start took %v; want it to return promptly", took)
	}
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

func TestMigrate(t *testing.T) {
	d, _ := newTest(t, Config{Nodes: 4})
	if err := d.SetNodeStatus("pve4", hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	running, _ := d.AddMachine(hypervisor.Machine{Node: "pve1", State: hypervisor.StateRunning}, time.Time{})
	stopped, _ := d.AddMachine(hypervisor.Machine{Node: "pve1", State: hypervisor.StateStopped}, time.Time{})
	stranded, _ := d.AddMachine(hypervisor.Machine{Node: "pve4", State: hypervisor.StateStopped}, time.Time{})

	f := func(name string, vmid int, target string, online bool, wantNode string, targets ...error) {
		t.Helper()
		m, err := d.Migrate(bg, hypervisor.Ref{VMID: vmid}, target, online)
		wantErr(t, name, err, targets...)
		if wantNode == "" {
			return
		}
		if got := machineOf(t, d, vmid).Node; got != wantNode {
			t.Errorf("%s: got node %s; want %s", name, got, wantNode)
		}
		if err == nil && m.Node != wantNode {
			t.Errorf("%s: returned machine on %s; want %s", name, m.Node, wantNode)
		}
	}
	f("same node", running.VMID, "pve1", true, "pve1", hypervisor.ErrSameNode, apierr.ErrInvalidRequest)
	f("unknown node", running.VMID, "pve9", true, "pve1", hypervisor.ErrNodeNotFound, apierr.ErrInvalidRequest)
	f("no target", running.VMID, "", true, "pve1", apierr.ErrInvalidRequest)
	f("offline target", running.VMID, "pve4", true, "pve1", hypervisor.ErrNodeOffline, apierr.ErrInvalidState)
	f("running, offline migrate", running.VMID, "pve2", false, "pve1", hypervisor.ErrWrongState, apierr.ErrInvalidState)
	f("running, online migrate", running.VMID, "pve2", true, "pve2")
	f("stopped, offline migrate", stopped.VMID, "pve3", false, "pve3")
	f("from an offline node", stranded.VMID, "pve1", false, "pve4", hypervisor.ErrNodeOffline)
	f("unknown machine", 999, "pve1", false, "", hypervisor.ErrMachineNotFound)
}

func TestConfigure(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "a", CPUCores: 2, MemoryMB: 2048})
	ref := hypervisor.Ref{VMID: m.VMID}
	got, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(8)})
	wantErr(t, "configure cores", err)
	if got.CPUCores != 8 || got.MemoryMB != 2048 || got.Name != "a" {
		t.Errorf("configure cores: got %d cores %d MB %q; want 8, 2048 unchanged, a unchanged", got.CPUCores, got.MemoryMB, got.Name)
	}
	got, err = d.Configure(bg, ref, hypervisor.ConfigChange{Name: new("b"), MemoryMB: new(4096)})
	wantErr(t, "configure name and memory", err)
	if got.CPUCores != 8 || got.MemoryMB != 4096 || got.Name != "b" {
		t.Errorf("configure name and memory: got %d cores %d MB %q; want 8, 4096, b", got.CPUCores, got.MemoryMB, got.Name)
	}
	for name, c := range map[string]hypervisor.ConfigChange{
		"zero cores": {CPUCores: new(0)},
		"tiny mem":   {MemoryMB: new(1)},
		"empty name": {Name: new("")},
	} {
		_, err := d.Configure(bg, ref, c)
		wantErr(t, name, err, apierr.ErrInvalidRequest)
	}
}

func TestSetNetwork(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{})
	ref := hypervisor.Ref{VMID: m.VMID}
	got, err := d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", Bridge: new("vmbr1"), VLAN: new(42), RateMbps: new(100), Firewall: new(true)}})
	wantErr(t, "set net0", err)
	nic := got.Interfaces[0]
	want := hypervisor.Interface{ID: "net0", MAC: m.Interfaces[0].MAC, Bridge: "vmbr1", VLAN: 42, RateMbps: 100, Firewall: true, IPAddresses: m.Interfaces[0].IPAddresses}
	if !reflect.DeepEqual(nic, want) {
		t.Errorf("set net0: got %+v; want %+v", nic, want)
	}
	// All or nothing: a known and an unknown interface change nothing.
	_, err = d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(7)}, {ID: "net5", VLAN: new(7)}})
	wantErr(t, "unknown interface", err, hypervisor.ErrInterfaceNotFound, apierr.ErrInvalidRequest)
	if v := machineOf(t, d, m.VMID).Interfaces[0].VLAN; v != 42 {
		t.Errorf("after a rejected change: got vlan %d; want 42", v)
	}
	_, err = d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(5000)}})
	wantErr(t, "bad vlan", err, apierr.ErrInvalidRequest)
}

func TestDisks(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{DiskGB: 20})
	ref := hypervisor.Ref{VMID: m.VMID}
	d1, err := d.AddDisk(bg, ref, 50, "")
	wantErr(t, "add disk", err)
	d2, err := d.AddDisk(bg, ref, 5, "ceph")
	wantErr(t, "add disk on ceph", err)
	if want := (hypervisor.Disk{ID: "scsi1", Storage: "local-lvm", SizeGB: 50}); d1 != want {
		t.Errorf("first added disk: got %+v; want %+v", d1, want)
	}
	if want := (hypervisor.Disk{ID: "scsi2", Storage: "ceph", SizeGB: 5}); d2 != want {
		t.Errorf("second added disk: got %+v; want %+v", d2, want)
	}
	_, err = d.AddDisk(bg, ref, 0, "")
	wantErr(t, "zero-size disk", err, apierr.ErrInvalidRequest)

	f := func(name, disk string, size, wantSize int, targets ...error) {
		t.Helper()
		_, err := d.ResizeDisk(bg, ref, disk, size)
		wantErr(t, name, err, targets...)
		m := machineOf(t, d, ref.VMID)
		if i := diskIndex(&machine{Machine: m}, disk); i >= 0 && m.Disks[i].SizeGB != wantSize {
			t.Errorf("%s: got %s at %d GB; want %d GB", name, disk, m.Disks[i].SizeGB, wantSize)
		}
	}
	f("grow", "scsi0", 30, 30)
	f("same size", "scsi0", 30, 30)
	f("shrink", "scsi0", 29, 30, hypervisor.ErrDiskShrink, apierr.ErrInvalidRequest)
	f("grow added", "scsi2", 6, 6)
	f("unknown disk", "scsi9", 100, 0, hypervisor.ErrDiskNotFound, apierr.ErrInvalidRequest)
	if got := machineOf(t, d, ref.VMID).DiskGB(); got != 30+50+6 {
		t.Errorf("DiskGB: got %d; want %d", got, 30+50+6)
	}
}

func TestReinstall(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "db", DiskGB: 10, CPUCores: 4, MemoryMB: 8192})
	ref := hypervisor.Ref{VMID: m.VMID}
	if _, err := d.AddDisk(bg, ref, 100, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(9)}}); err != nil {
		t.Fatal(err)
	}
	before := machineOf(t, d, m.VMID)
	got, err := d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-rocky-9", Password: "x"})
	wantErr(t, "reinstall", err)
	want := cloneMachine(before)
	want.TemplateID = "tpl-rocky-9"
	want.State = hypervisor.StateRunning
	want.Disks[0].SizeGB = 12 // grown to rocky's minimum
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reinstall:\n got %+v\nwant %+v", got, want)
	}
	_, err = d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-nope"})
	wantErr(t, "unknown template", err, hypervisor.ErrTemplateNotFound, apierr.ErrInvalidRequest)
}

func TestReadsReturnCopies(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{})
	m.Disks[0].SizeGB = 999
	m.Interfaces[0].IPAddresses[0] = "1.2.3.4"
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatal(err)
	}
	inv.Machines[0].Interfaces[0].MAC = "x"
	inv.Nodes[0].ID = "x"
	inv.Templates[0].ID = "x"
	got := machineOf(t, d, m.VMID)
	if got.Disks[0].SizeGB == 999 || got.Interfaces[0].IPAddresses[0] == "1.2.3.4" || got.Interfaces[0].MAC == "x" {
		t.Errorf("caller mutations leaked into the driver: got %+v", got)
	}
	inv2, _ := d.Inventory(bg)
	if inv2.Nodes[0].ID != "pve1" || inv2.Templates[0].ID != "tpl-debian-12" {
		t.Errorf("inventory mutations leaked: got node %s template %s", inv2.Nodes[0].ID, inv2.Templates[0].ID)
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
		for _, m := range d.machines {
			want[m.Node] += m.MemoryMB
		}
		for _, n := range d.nodes {
			if d.committed[n.ID] != want[n.ID] {
				t.Errorf("step %d, node %s: got committed %d MB; want %d", i, n.ID, d.committed[n.ID], want[n.ID])
			}
		}
		d.mu.Unlock()
	}
}
