package sim

import (
	"context"
	"encoding/binary"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
	"github.com/vmplane/vmplane/persistence"
)

// openStore opens a Badger store in dir; Close is the caller's (or the cleanup's).
func openStore(t *testing.T, dir string) *persistence.Badger {
	t.Helper()
	s, err := persistence.Open(persistence.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// open is a new driver attached to store, as the server makes its simulated cluster.
func open(ctx context.Context, cfg Config, store persistence.Store) (*Driver, error) {
	d := New(cfg)
	if _, err := d.Attach(ctx, store); err != nil {
		return nil, err
	}
	return d, nil
}

// visible is everything a caller can read of a simulated cluster.
type visible struct {
	Inventory hypervisor.Inventory
	Backups   map[int][]hypervisor.Backup
	Firewall  map[int][]hypervisor.FirewallRule
	Usage     map[string]hypervisor.UsageGraph
}

// worldOf reads a cluster's world through its public methods. vmids lists the machines
// whose backups to read (destroyed ones included).
func worldOf(t *testing.T, d *Driver, vmids ...int) visible { return readWorld(t, d, true, vmids) }

// readWorld is worldOf, with the usage graphs only when usage is set.
func readWorld(t *testing.T, d *Driver, usage bool, vmids []int) visible {
	t.Helper()
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatal(err)
	}
	w := visible{Inventory: inv, Backups: map[int][]hypervisor.Backup{}, Firewall: map[int][]hypervisor.FirewallRule{}, Usage: map[string]hypervisor.UsageGraph{}}
	for _, vmid := range vmids {
		list, err := d.Backups(bg, hypervisor.Ref{VMID: vmid})
		if err == nil {
			w.Backups[vmid] = list
		}
	}
	for _, m := range inv.Machines {
		w.Firewall[m.VMID] = d.Firewall(m.VMID)
		if !usage {
			continue
		}
		g, err := d.Usage(bg, hypervisor.UsageQuery{Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: hypervisor.TimeframeWeek})
		if err != nil {
			t.Fatal(err)
		}
		w.Usage[fmt.Sprintf("vm%010d", m.VMID)] = g
	}
	for _, n := range inv.Nodes {
		if !usage {
			break
		}
		g, err := d.Usage(bg, hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: n.ID}, Timeframe: hypervisor.TimeframeDay})
		if err != nil {
			t.Fatal(err)
		}
		w.Usage["node"+n.ID] = g
	}
	return w
}

// The whole simulated world, changed by every kind of call and hook, comes back from
// the store with a driver whose Config would have made a different one. After each
// step the world read back from the store is the one in memory: every call made what
// it changed durable before it returned.
func TestWorldSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	clk := hypervisortest.NewClock(t0)
	store := openStore(t, dir)
	d, err := open(bg, Config{Seed: 7, Machines: 4, OpDelay: -1, Now: clk.Now}, store)
	if err != nil {
		t.Fatal(err)
	}
	if d.Restored() {
		t.Fatal("a world from an empty store reports itself restored")
	}
	var vmids []int // every vmid the test may use, for reading backups
	for v := minVMID; v < minVMID+10; v++ {
		vmids = append(vmids, v)
	}
	step := func(what string, err error) {
		t.Helper()
		wantErr(t, what, err)
		stored, err := open(bg, Config{OpDelay: -1, Now: clk.Now}, store)
		if err != nil {
			t.Fatalf("after %s: reading the stored world: %v", what, err)
		}
		// The final check compares the usage graphs; here their inputs.
		got, want := readWorld(t, stored, false, vmids), readWorld(t, d, false, vmids)
		for _, vmid := range d.machines.VMIDs() {
			m, _ := d.machines.Peek(vmid)
			s, _ := stored.machines.Peek(vmid)
			if s == nil || !s.CreatedAt.Equal(m.CreatedAt) || !reflect.DeepEqual(s.History, m.History) {
				t.Fatalf("after %s machine %d's creation and power history differ in the store", what, vmid)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after %s the stored world differs from the one in memory:\n got %+v\nwant %+v", what, got.Inventory, want.Inventory)
		}
	}
	step("open", nil)
	inv, _ := d.Inventory(bg)
	demo := inv.Machines
	m := create(t, d, hypervisor.CreateSpec{Name: "web", Start: true, DiskGB: 20})
	step("create", nil)
	ref := hypervisor.Ref{VMID: m.VMID}
	clk.Advance(3 * time.Hour)
	step("stop", d.Power(bg, ref, hypervisor.ActionStop))
	clk.Advance(time.Hour)
	step("start", d.Power(bg, ref, hypervisor.ActionStart))
	_, err = d.AddDisk(bg, ref, 50, "")
	step("add disk", err)
	_, err = d.ResizeDisk(bg, ref, "scsi0", 30)
	step("resize", err)
	cores := 4
	_, err = d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: &cores})
	step("configure", err)
	vlan := 42
	_, err = d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: &vlan}})
	step("set network", err)
	rules := []hypervisor.FirewallRule{{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Enabled: true}}
	step("firewall", d.SetFirewall(bg, ref, rules))
	step("empty firewall", d.SetFirewall(bg, hypervisor.Ref{VMID: demo[0].VMID}, nil))
	step("set addresses", d.SetAddresses(bg, ref, []hypervisor.Address{{Address: "198.51.100.20", Prefix: 24, Version: 4},
		{Address: "198.51.100.21", Prefix: 24, Version: 4}, {Address: "2001:db8:7::", Prefix: 64, Version: 6}}))
	b1, err := d.Backup(bg, ref, "")
	step("backup", err)
	b2, err := d.Backup(bg, ref, hypervisor.BackupStop) // same second: suffixed -2
	step("second backup", err)
	clk.Advance(time.Minute)
	b3, err := d.Backup(bg, ref, "")
	step("third backup", err)
	step("delete backup", d.DeleteBackup(bg, ref, b2.ID))
	_, err = d.AddDisk(bg, ref, 10, "")
	step("another disk", err)
	_, err = d.RestoreBackup(bg, ref, b1.ID) // back to two disks
	step("restore in place", err)
	_, err = d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-rocky-9"})
	step("reinstall", err)
	// What changes nothing writes nothing.
	commits := store.Stats().Commits
	wantErr(t, "reboot", d.Power(bg, ref, hypervisor.ActionReboot))
	if got := store.Stats().Commits; got != commits {
		t.Errorf("a reboot wrote %d batches; want none, it changes no record", got-commits)
	}
	target := "pve1"
	if m.Node == target {
		target = "pve2"
	}
	_, err = d.Migrate(bg, ref, target, true)
	step("migrate", err)
	// A destroyed machine's backups outlive it.
	gone := create(t, d, hypervisor.CreateSpec{Name: "gone"})
	_, err = d.Backup(bg, hypervisor.Ref{VMID: gone.VMID}, "")
	step("backup of the doomed", err)
	step("destroy", d.Destroy(bg, hypervisor.Ref{VMID: gone.VMID}))
	// Hooks: behind vmplane's back.
	for _, dm := range demo {
		if dm.State == hypervisor.StateRunning {
			step("crash", d.CrashMachine(dm.VMID))
			break
		}
	}
	step("remove", d.RemoveMachine(demo[len(demo)-1].VMID))
	_, err = d.AddMachine(hypervisor.Machine{Name: "stray", State: hypervisor.StateSuspended}, t0.Add(-48*time.Hour))
	step("add machine", err)
	step("node offline", d.SetNodeStatus("pve3", hypervisor.NodeOffline))
	clk.Advance(10 * time.Minute)

	before := worldOf(t, d, vmids...)
	if got := before.Backups[m.VMID]; len(got) != 2 || got[0].ID != b1.ID || got[1].ID != b3.ID {
		t.Fatalf("backups before the restart: got %+v; want %s and %s", got, b1.ID, b3.ID)
	}
	web := machineOf(t, d, m.VMID)
	if len(web.Disks) != 2 || web.TemplateID != "tpl-rocky-9" || web.CPUCores != 4 || web.Node != target || web.Interfaces[0].VLAN != 42 {
		t.Fatalf("before the restart got %+v; want it restored to two disks, reinstalled, 4 cores, migrated, on vlan 42", web)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	// A different seed, node count and demo count: the stored world wins.
	d2, err := open(bg, Config{Seed: 99, Nodes: 5, Machines: 9, OpDelay: -1, Now: clk.Now}, openStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if !d2.Restored() {
		t.Error("a world read from the store does not report itself restored")
	}
	after := worldOf(t, d2, vmids...)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("world after reopening differs:\n got %+v\nwant %+v", after.Inventory, before.Inventory)
		for k := range before.Usage {
			if !reflect.DeepEqual(before.Usage[k], after.Usage[k]) {
				t.Errorf("usage graph %s differs", k)
			}
		}
	}

	// The restored world goes on as the old one would have: restores work, the next
	// machine takes the lowest free vmid and repeats no MAC or address.
	_, err = d2.RestoreBackup(bg, hypervisor.Ref{VMID: gone.VMID}, before.Backups[gone.VMID][0].ID)
	wantErr(t, "restore a destroyed machine", err)
	// 100..103 demo (103 removed, then taken by the stray), 104 web, 105 restored.
	next := create(t, d2, hypervisor.CreateSpec{})
	if next.VMID != 106 {
		t.Errorf("next vmid: got %d; want the lowest free, 106", next.VMID)
	}
	inv2, _ := d2.Inventory(bg)
	macs, ips := map[string]int{}, map[string]int{}
	for _, vm := range inv2.Machines {
		for _, nic := range vm.Interfaces {
			macs[nic.MAC]++
			for _, ip := range nic.IPAddresses {
				ips[ip]++
			}
		}
	}
	for k, n := range macs {
		if n > 1 {
			t.Errorf("MAC %s used %d times", k, n)
		}
	}
	for k, n := range ips {
		if n > 1 {
			t.Errorf("address %s used %d times", k, n)
		}
	}
}

// A driver built in memory and attached to a store writes its world there; another one
// attached to that store takes that world over in place of its own.
func TestAttach(t *testing.T) {
	store := openStore(t, t.TempDir())
	clk := hypervisortest.NewClock(t0)
	a := New(Config{Seed: 1, Machines: 3, OpDelay: -1, Now: clk.Now})
	restored, err := a.Attach(bg, store)
	if err != nil || restored {
		t.Fatalf("Attach to an empty store: restored %v, %v; want false, nil", restored, err)
	}
	m := create(t, a, hypervisor.CreateSpec{Start: true})
	want := worldOf(t, a, m.VMID)

	b := New(Config{Seed: 2, Machines: 6, Nodes: 2, OpDelay: -1, Now: clk.Now})
	restored, err = b.Attach(bg, store)
	if err != nil || !restored {
		t.Fatalf("Attach to a store with a world: restored %v, %v; want true, nil", restored, err)
	}
	if got := worldOf(t, b, m.VMID); !reflect.DeepEqual(got, want) {
		t.Errorf("attached world:\n got %+v\nwant %+v", got.Inventory, want.Inventory)
	}
	var keys []string
	if err := store.Scan(context.Background(), persistence.Prefix(KeyPrefix), nil, 0, func(k, _ []byte) error {
		keys = append(keys, string(k))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 5 { // world + 4 machines
		t.Errorf("stored keys: got %q; want the world and 4 machines", keys)
	}
}

// With SeedOnAttach the demo machines are made by Attach, only for a store that holds
// no world: the same ones New would have made, and none at all before a stored world.
func TestSeedOnAttach(t *testing.T) {
	store := openStore(t, t.TempDir())
	clk := hypervisortest.NewClock(t0)
	eager := New(Config{Seed: 1, Machines: 3, OpDelay: -1, Now: clk.Now})
	lazy := New(Config{Seed: 1, Machines: 3, SeedOnAttach: true, OpDelay: -1, Now: clk.Now})
	if n := lazy.machines.Len(); n != 0 {
		t.Fatalf("before Attach: %d machines; want none", n)
	}
	if _, err := lazy.Attach(bg, store); err != nil {
		t.Fatal(err)
	}
	want, got := worldOf(t, eager), worldOf(t, lazy)
	if !reflect.DeepEqual(got.Inventory.Machines, want.Inventory.Machines) || len(got.Inventory.Machines) != 3 {
		t.Errorf("seeded at Attach:\n got %+v\nwant %+v", got.Inventory.Machines, want.Inventory.Machines)
	}

	again := New(Config{Seed: 2, Machines: 1000, SeedOnAttach: true, OpDelay: -1, Now: clk.Now})
	restored, err := again.Attach(bg, store)
	if err != nil || !restored {
		t.Fatalf("Attach to a store with a world: restored %v, %v; want true, nil", restored, err)
	}
	if got := worldOf(t, again); !reflect.DeepEqual(got.Inventory.Machines, want.Inventory.Machines) {
		t.Errorf("restored world:\n got %+v\nwant %+v", got.Inventory.Machines, want.Inventory.Machines)
	}
}

// failingStore refuses the next n writes handed to it.
type failingStore struct {
	persistence.Store
	fail atomic.Int32
}

func (s *failingStore) Enqueue(b *persistence.Batch, then func(error)) *persistence.Pending {
	if s.fail.Add(-1) >= 0 {
		// A batch the store refuses: the real failure path, without a broken disk.
		return s.Store.Enqueue(new(persistence.Batch).Put(nil, nil), then)
	}
	return s.Store.Enqueue(b, then)
}

// A change whose write fails fails the call; what it changed is written with the next
// change, so memory and store meet again.
func TestFailedWriteFailsTheCallAndIsRetried(t *testing.T) {
	dir := t.TempDir()
	clk := hypervisortest.NewClock(t0)
	base := openStore(t, dir)
	store := &failingStore{Store: base}
	d, err := open(bg, Config{Seed: 1, Machines: 1, OpDelay: -1, Now: clk.Now}, store)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := d.Inventory(bg)
	other := inv.Machines[0]

	store.fail.Store(1)
	_, err = d.Create(bg, hypervisor.CreateSpec{Name: "unsaved", TemplateID: "tpl-debian-12"})
	wantErr(t, "create with a failing store", err, apierr.ErrInternal)

	wantErr(t, "a later change", d.SetFirewall(bg, hypervisor.Ref{VMID: other.VMID}, nil))
	want := worldOf(t, d)
	if len(want.Inventory.Machines) != 2 {
		t.Fatalf("got %d machines; want the demo machine and the one whose write failed", len(want.Inventory.Machines))
	}
	base.Close()
	d2, err := open(bg, Config{OpDelay: -1, Now: clk.Now}, openStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := worldOf(t, d2); !reflect.DeepEqual(got, want) {
		t.Errorf("reopened world:\n got %+v\nwant %+v", got.Inventory, want.Inventory)
	}
}

// A world written by a newer vmplane is refused, not half read.
func TestNewerWorldRefused(t *testing.T) {
	store := openStore(t, t.TempDir())
	val, _ := persistence.Encode(world.WorldVersion+1, world.World{Seed: 1, Nodes: []hypervisor.Node{{ID: "pve1"}}})
	if err := store.Commit(bg, new(persistence.Batch).Put(world.WorldKey(), val)); err != nil {
		t.Fatal(err)
	}
	_, err := open(bg, Config{}, store)
	wantErr(t, "open a newer world", err, apierr.ErrInternal)
}

// Power histories are bounded, so a machine's record stays far below the store's value
// limit however often it is switched.
func TestHistoryBounded(t *testing.T) {
	m := &fleet.Machine{}
	for i := range 3 * world.MaxHistory {
		s := hypervisor.StateRunning
		if i%2 == 1 {
			s = hypervisor.StateStopped
		}
		m.RecordState(t0.Add(time.Duration(i)*time.Second), s)
	}
	if n := len(m.History); n > world.MaxHistory {
		t.Fatalf("history of %d entries; want at most %d", n, world.MaxHistory)
	}
	if last := m.History[len(m.History)-1]; last.At != t0.Add(time.Duration(3*world.MaxHistory-1)*time.Second).UnixNano() {
		t.Errorf("the newest change was dropped: %+v", last)
	}
	val, err := persistence.Encode(world.MachineVersion, world.Machine{History: m.History})
	if err != nil || len(val) > persistence.MaxValueSize/2 {
		t.Errorf("record of a full history: %d bytes, %v; want well below %d", len(val), err, persistence.MaxValueSize)
	}
}

// Concurrent calls each wait for their own write, and the store ends up with the world
// in memory, whatever order the writes were grouped in.
func TestConcurrentChangesAllDurable(t *testing.T) {
	dir := t.TempDir()
	clk := hypervisortest.NewClock(t0)
	store := openStore(t, dir)
	d, err := open(bg, Config{Seed: 3, OpDelay: time.Millisecond, Now: clk.Now}, store)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := d.Create(bg, hypervisor.CreateSpec{Name: fmt.Sprintf("c%d", i), TemplateID: "tpl-debian-12", Start: i%2 == 0})
			if err != nil {
				errs <- err
				return
			}
			ref := hypervisor.Ref{VMID: m.VMID}
			if i%2 == 0 {
				errs <- d.Power(bg, ref, hypervisor.ActionStop)
			} else {
				_, err = d.AddDisk(bg, ref, 5, "")
				errs <- err
			}
			_, err = d.Backup(bg, ref, "")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		wantErr(t, "concurrent change", err)
	}
	var vmids []int
	for v := minVMID; v < minVMID+16; v++ {
		vmids = append(vmids, v)
	}
	want := worldOf(t, d, vmids...)
	store.Close()
	d2, err := open(bg, Config{OpDelay: -1, Now: clk.Now}, openStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := worldOf(t, d2, vmids...); !reflect.DeepEqual(got, want) {
		t.Errorf("reopened world:\n got %+v\nwant %+v", got.Inventory, want.Inventory)
	}
}

// recordingStore keeps the batches handed to it.
type recordingStore struct {
	persistence.Store
	mu      sync.Mutex
	batches []*persistence.Batch
}

func (s *recordingStore) Enqueue(b *persistence.Batch, then func(error)) *persistence.Pending {
	s.mu.Lock()
	s.batches = append(s.batches, b)
	s.mu.Unlock()
	return s.Store.Enqueue(b, then)
}

// A world too big for one store transaction (thousands of demo machines) is written
// in bounded batches, the world record last, so a crash halfway leaves no world.
func TestLargeWorldIsSplit(t *testing.T) {
	dir := t.TempDir()
	clk := hypervisortest.NewClock(t0)
	base := openStore(t, dir)
	store := &recordingStore{Store: base}
	d, err := open(bg, Config{Seed: 5, Machines: 700, OpDelay: -1, Now: clk.Now}, store)
	if err != nil {
		t.Fatal(err)
	}
	if len(store.batches) < 3 {
		t.Fatalf("a world of 700 machines went out in %d batches; want it split", len(store.batches))
	}
	for i, b := range store.batches {
		size := 0
		for _, op := range b.Ops {
			size += len(op.Key) + len(op.Value)
			if string(op.Key) == "sim/world" && i != len(store.batches)-1 {
				t.Errorf("sim/world is in batch %d of %d; want it in the last", i+1, len(store.batches))
			}
		}
		if len(b.Ops) > world.BatchOps || size > world.BatchBytes {
			t.Errorf("batch %d: %d records, %d bytes; want at most %d and %d", i+1, len(b.Ops), size, world.BatchOps, world.BatchBytes)
		}
	}
	if last := store.batches[len(store.batches)-1].Ops; string(last[len(last)-1].Key) != "sim/world" {
		t.Errorf("the last record written is %s; want sim/world", last[len(last)-1].Key)
	}
	want := readWorld(t, d, false, nil)
	base.Close()
	d2, err := open(bg, Config{OpDelay: -1, Now: clk.Now}, openStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := readWorld(t, d2, false, nil); !d2.Restored() || !reflect.DeepEqual(got, want) {
		t.Errorf("reopened: restored %v, %d machines; want the 700", d2.Restored(), len(got.Inventory.Machines))
	}
}

// Records of a first write that a crash cut short (machines and backups, no world yet)
// are not a world: the next start writes a whole one and drops what it does not have.
func TestHalfWrittenWorldIsReplaced(t *testing.T) {
	store := openStore(t, t.TempDir())
	val, _ := persistence.Encode(world.MachineVersion, world.Machine{Machine: hypervisor.Machine{VMID: 999, Node: "pve1"}})
	bval, _ := persistence.Encode(world.BackupVersion, world.Backup{Backup: hypervisor.Backup{ID: "vzdump-qemu-999-x", VMID: 999}})
	if err := store.Commit(bg, new(persistence.Batch).Put(world.MachineKey(999), val).Put(world.BackupKey(999, "vzdump-qemu-999-x"), bval)); err != nil {
		t.Fatal(err)
	}
	d, err := open(bg, Config{Seed: 1, Machines: 2, OpDelay: -1}, store)
	if err != nil || d.Restored() {
		t.Fatalf("Open over a half-written world: restored %v, %v; want a new world", d != nil && d.Restored(), err)
	}
	var keys []string
	if err := store.Scan(context.Background(), persistence.Prefix(KeyPrefix), nil, 0, func(k, _ []byte) error {
		keys = append(keys, string(k))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"sim/vm/0000000100", "sim/vm/0000000101", "sim/world"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("stored keys: got %q; want %q", keys, want)
	}
}

// gatedStore holds every Get until gate is closed.
type gatedStore struct {
	persistence.Store
	gate chan struct{}
}

func (s *gatedStore) Get(ctx context.Context, key []byte) ([]byte, error) {
	<-s.gate
	return s.Store.Get(ctx, key)
}

// AttachInBackground returns before the world is read, Ping answers meanwhile, and
// the other calls wait for the stored world rather than answer from the driver's own.
func TestAttachInBackground(t *testing.T) {
	dir := t.TempDir()
	store := openStore(t, dir)
	clk := hypervisortest.NewClock(t0)
	first := New(Config{Seed: 1, Machines: 3, OpDelay: -1, Now: clk.Now})
	if r := <-first.AttachInBackground(bg, store); r.Err != nil || r.Restored {
		t.Fatalf("attach to an empty store: %+v; want a new world", r)
	}
	want := worldOf(t, first)

	gated := &gatedStore{Store: store, gate: make(chan struct{})}
	d := New(Config{Seed: 2, Machines: 7, SeedOnAttach: true, OpDelay: -1, Now: clk.Now})
	done := d.AttachInBackground(bg, gated)
	if err := d.Ping(bg); err != nil {
		t.Fatalf("ping while the world is read: %v", err)
	}
	listed := make(chan hypervisor.Inventory, 1)
	go func() {
		inv, _ := d.Inventory(bg)
		listed <- inv
	}()
	select {
	case inv := <-listed:
		t.Fatalf("Inventory answered before the world was read: %d machines", len(inv.Machines))
	case r := <-done:
		t.Fatalf("attached before the store answered: %+v", r)
	default:
	}
	close(gated.gate)
	if r := <-done; r.Err != nil || !r.Restored {
		t.Fatalf("attach: %+v; want the stored world", r)
	}
	if inv := <-listed; !reflect.DeepEqual(inv.Machines, want.Inventory.Machines) {
		t.Errorf("Inventory during the read:\n got %+v\nwant %+v", inv.Machines, want.Inventory.Machines)
	}
}

// A data directory whose machines were written as JSON (every vmplane before the
// compact record) reads back as the same world, and a machine written again on a
// single node is written in the compact form; the others stay JSON until they are.
func TestJSONWorldStillReads(t *testing.T) {
	dir := t.TempDir()
	store := openStore(t, dir)
	clk := hypervisortest.NewClock(t0)
	d, err := open(bg, Config{Seed: 7, Machines: 40, OpDelay: -1, Now: clk.Now}, store)
	if err != nil {
		t.Fatal(err)
	}
	want := readWorld(t, d, false, nil)
	// Rewrite every machine's record as the JSON of schema version 1.
	got, _, err := world.ReadAll(bg, store, false)
	if err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch)
	compact := 0
	for _, f := range got {
		r, err := f.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if r.Kind != world.KindMachine {
			continue
		}
		if binary.BigEndian.Uint16(f.Val) == world.CompactMachineVersion {
			compact++
		}
		val, err := persistence.Encode(world.MachineVersion, *r.Machine)
		if err != nil {
			t.Fatal(err)
		}
		b.Put([]byte(f.Key), val)
	}
	if compact != 40 {
		t.Fatalf("%d of 40 machines written in the compact form on a single node", compact)
	}
	if err := store.Commit(bg, b); err != nil {
		t.Fatal(err)
	}
	store.Close()
	store = openStore(t, dir)
	d2, err := open(bg, Config{OpDelay: -1, Now: clk.Now}, store)
	if err != nil {
		t.Fatal(err)
	}
	if got := readWorld(t, d2, false, nil); !d2.Restored() || !reflect.DeepEqual(got, want) {
		t.Fatalf("the JSON world reopened: restored %v, %d machines; want the 40 as they were", d2.Restored(), len(got.Inventory.Machines))
	}
	m := want.Inventory.Machines[0]
	vmid, action := m.VMID, hypervisor.ActionStart
	if m.State == hypervisor.StateRunning {
		action = hypervisor.ActionStop
	}
	if err := d2.Power(bg, hypervisor.Ref{VMID: vmid, Node: m.Node}, action); err != nil {
		t.Fatal(err)
	}
	val, err := store.Get(bg, world.MachineKey(vmid))
	if err != nil || binary.BigEndian.Uint16(val) != world.CompactMachineVersion {
		t.Errorf("machine %d written again: version %d, %v; want the compact form", vmid, binary.BigEndian.Uint16(val), err)
	}
}
