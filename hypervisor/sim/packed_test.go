package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
)

// openAll opens every machine of d: what the driver was before machines were packed.
func openAll(t *testing.T, d *Driver) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, vmid := range d.machines.VMIDs() {
		d.machines.Get(vmid)
	}
	if n := d.machines.Packed(); n != 0 {
		t.Fatalf("%d machines packed after opening every one", n)
	}
}

// packedCount is how many of d's machines are packed.
func packedCount(d *Driver) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.machines.Packed()
}

// Packed machines answer as open ones do: the inventory (machines, the nodes' usage,
// the traffic counters, over days), each machine, the usage graphs, the operations on
// them and the world written to a store, against the same seeded world with every
// machine opened, before and after changes.
func TestPackedMachinesAnswerAsOpenOnes(t *testing.T) {
	cfg := Config{Seed: 11, Machines: 60, Nodes: 3}
	packed, clk := newTest(t, cfg)
	open, clk2 := newTest(t, cfg)
	openAll(t, open)
	if n := packedCount(packed); n != 60 {
		t.Fatalf("%d of 60 seeded machines packed; want all", n)
	}
	same := func(step string) {
		t.Helper()
		a, err := packed.Inventory(bg)
		if err != nil {
			t.Fatal(err)
		}
		b, err := open.Inventory(bg)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: the inventories differ:\npacked %+v\n  open %+v", step, a, b)
		}
		for i, m := range b.Machines[:6] {
			ref := hypervisor.Ref{VMID: m.VMID}
			pm, err := packed.Machine(bg, ref)
			if err != nil || !reflect.DeepEqual(pm, m) {
				t.Fatalf("%s: machine %d packed %+v (%v); open %+v", step, m.VMID, pm, err, m)
			}
			qs := []hypervisor.UsageQuery{{Scope: hypervisor.ScopeMachine, Ref: ref, Timeframe: hypervisor.TimeframeWeek}}
			if i < 2 {
				qs = append(qs, hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: m.Node}, Timeframe: hypervisor.TimeframeDay})
			}
			for _, q := range qs {
				ga, errA := packed.Usage(bg, q)
				gb, errB := open.Usage(bg, q)
				if errA != nil || errB != nil || !reflect.DeepEqual(ga, gb) {
					t.Fatalf("%s: usage %+v differs (%v, %v)", step, q, errA, errB)
				}
			}
		}
	}
	same("seeded")
	if n := packedCount(packed); n != 60 {
		t.Fatalf("reads opened %d machines; want none", 60-n)
	}
	// The traffic marks the inventory moved are kept in the packed entries, as the
	// open machines keep theirs.
	packed.mu.Lock()
	open.mu.Lock()
	marked := 0
	for _, vmid := range packed.machines.VMIDs() {
		p, _ := packed.machines.Peek(vmid)
		o, _ := open.machines.Peek(vmid)
		if p.Traffic != o.Traffic {
			t.Errorf("machine %d: traffic mark %+v packed; %+v open", vmid, p.Traffic, o.Traffic)
		}
		if p.Traffic.UpTo > p.Traffic.From {
			marked++
		}
	}
	open.mu.Unlock()
	packed.mu.Unlock()
	if marked == 0 {
		t.Error("no packed machine's traffic marked past its start")
	}

	vmids := packed.sortedVMIDs()
	running := runningVMID(t, packed)
	for _, d := range []*Driver{packed, open} {
		if err := d.Power(bg, hypervisor.Ref{VMID: running}, hypervisor.ActionStop); err != nil {
			t.Fatal(err)
		}
		name, cores := "renamed", 6
		if _, err := d.Configure(bg, hypervisor.Ref{VMID: vmids[7]}, hypervisor.ConfigChange{Name: &name, CPUCores: &cores}); err != nil {
			t.Fatal(err)
		}
		if err := d.Destroy(bg, hypervisor.Ref{VMID: vmids[len(vmids)-1]}); err != nil {
			t.Fatal(err)
		}
	}
	if n := packedCount(packed); n != 57 {
		t.Fatalf("%d machines packed after changing three; want 57", n)
	}
	clk.Advance(50 * time.Hour)
	clk2.Advance(50 * time.Hour)
	same("changed, two days later")
}

// runningVMID is the lowest vmid of a running machine of d.
func runningVMID(t *testing.T, d *Driver) int {
	t.Helper()
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range inv.Machines {
		if m.State == hypervisor.StateRunning {
			return m.VMID
		}
	}
	t.Fatal("no machine runs")
	return 0
}

// sortedVMIDs lists d's vmids.
func (d *Driver) sortedVMIDs() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sortedVMIDsLocked()
}

// A restart packs the machines it reads, and they answer as before it.
func TestRestartPacksMachines(t *testing.T) {
	store := openStore(t, t.TempDir())
	clk := hypervisortest.NewClock(t0)
	d, err := open(bg, Config{Seed: 3, Machines: 50, OpDelay: -1, Now: clk.Now}, store)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Power(bg, hypervisor.Ref{VMID: runningVMID(t, d)}, hypervisor.ActionStop); err != nil {
		t.Fatal(err)
	}
	again, err := open(bg, Config{Seed: 3, OpDelay: -1, Now: clk.Now}, store)
	if err != nil {
		t.Fatal(err)
	}
	if n := packedCount(again); n != 50 {
		t.Fatalf("%d of 50 machines packed after the restart", n)
	}
	a, _ := d.Inventory(bg)
	b, _ := again.Inventory(bg)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the inventories before and after the restart differ:\n%+v\n%+v", a, b)
	}
}
