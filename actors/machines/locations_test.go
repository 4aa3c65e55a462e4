package machines

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// TestVMIDIndexPerLocation: two locations whose clusters hand out the same vmids get
// a record each for every machine, indexed per location (vm-vmid/ for the default,
// vm-vmid-at/<loc>/ for the other); a machine's operation goes to its own location's
// driver; an observation of the other location's twin changes nothing; and a vanished
// machine releases its own location's index key alone.
func TestVMIDIndexPerLocation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	def := sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 2})
	lab := sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 2})
	disp := hvloc.New(def)
	disp.Set("lab", lab)
	s := newTestSystem(t, func(o *testOptions) { o.Driver = disp.Driver() })
	for _, li := range disp.Inventories(ctx) {
		if li.Err != nil {
			t.Fatal(li.Err)
		}
		if n, err := s.Machines.Adopt(ctx, li.Inventory.Machines); err != nil || n != 2 {
			t.Fatalf("adopt %q: %d, %v; want 2", li.Location, n, err)
		}
	}
	inDef, err := s.Machines.VMIDs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	inL, err := s.Machines.VMIDs(ctx, "lab")
	if err != nil {
		t.Fatal(err)
	}
	inDefault, inLab := maps.Collect(inDef.All()), maps.Collect(inL.All())
	if len(inDefault) != 2 || len(inLab) != 2 {
		t.Fatalf("vmids: default %v, lab %v; want 2 each", inDefault, inLab)
	}
	if n := countKeys(t, s.store, persistence.Prefix("vm-vmid-at", "lab")); n != 2 {
		t.Fatalf("vm-vmid-at/lab/ holds %d keys; want 2", n)
	}
	var vmid int
	for v, id := range inLab {
		if inDefault[v] == "" || inDefault[v] == id {
			t.Fatalf("vmid %d: default %q, lab %q; want the same vmid in both, two records", v, inDefault[v], id)
		}
		vmid = v
	}
	labID, defID := inLab[vmid], inDefault[vmid]
	m, err := s.Machines.Stored(ctx, labID)
	if err != nil || m.Location != "lab" {
		t.Fatalf("lab's machine: %+v, %v; want location lab", m, err)
	}

	// Its operation reaches lab's driver, not the default's twin.
	before, err := def.Machine(ctx, hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatal(err)
	}
	op := Operation{Type: OpPower, Action: hypervisor.ActionStop}
	if m.Status != StatusRunning {
		op.Action = hypervisor.ActionStart
	}
	runToEnd(t, ctx, s, labID, op)
	after, err := lab.Machine(ctx, hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatal(err)
	}
	if string(after.State) == m.Status {
		t.Errorf("lab's machine stayed %s after %s", after.State, op.Action)
	}
	if twin, err := def.Machine(ctx, hypervisor.Ref{VMID: vmid}); err != nil || twin.State != before.State {
		t.Errorf("the default location's vmid %d: %s, %v; want it untouched (%s)", vmid, twin.State, err, before.State)
	}

	// The default location's twin, observed, does not change lab's record.
	twin := before
	twin.Name = "twin"
	if changed, err := s.Machines.Observe(ctx, labID, twin, time.Time{}); err != nil || changed {
		t.Errorf("observing the default's twin on lab's record: changed %v, %v; want nothing", changed, err)
	}

	// Vanished from lab: its lab key goes, the default's of the same vmid stays.
	if gone, err := s.Machines.Vanish(ctx, labID, time.Time{}); err != nil || !gone {
		t.Fatalf("vanish: %v, %v; want the record removed", gone, err)
	}
	if _, err := s.store.Get(ctx, vmidKey("lab", vmid)); err == nil {
		t.Errorf("lab's vmid %d still indexed after its machine vanished", vmid)
	}
	if v, err := s.store.Get(ctx, vmidKey("", vmid)); err != nil || string(v) != defID {
		t.Errorf("the default's vmid %d: %q, %v; want it still naming %s", vmid, v, err, defID)
	}
	if id, err := s.Machines.Resolve(ctx, "100"); err == nil && id == labID {
		t.Errorf("vmid 100 resolved to lab's machine; want the default location's")
	}
}

// TestNodeRecordsPerLocation: a node name in two locations is two records, the
// default's under its name and the other's under name@location, each named as its
// hypervisor names it; Known tells their locations apart, and a node's usage graph is
// read from its own location's driver.
func TestNodeRecordsPerLocation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	disp := hvloc.New(sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1}))
	lab := sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1})
	disp.Set("lab", lab)
	s := newTestSystem(t, func(o *testOptions) { o.Driver = disp.Driver() })
	var name string
	for _, li := range disp.Inventories(ctx) {
		for _, n := range li.Inventory.Nodes {
			name = n.ID
			if _, err := s.Nodes.Observe(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	known, err := s.Nodes.Known(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{name: "", name + "@lab": "lab"}
	if len(known) != 2 || known[name] != "" || known[name+"@lab"] != "lab" {
		t.Fatalf("known nodes %v; want %v", known, want)
	}
	for id, loc := range want {
		n, err := s.Nodes.Get(ctx, id)
		if err != nil || n.ID != id || n.Name != name || string(n.Location) != loc {
			t.Errorf("node %s: %+v, %v; want name %s in location %q", id, n, err, name, loc)
		}
	}
	lab.SetAvailable(false)
	if _, err := s.Nodes.Usage(ctx, name, hypervisor.TimeframeHour, time.Time{}); err != nil {
		t.Errorf("the default's node's usage with lab down: %v", err)
	}
	if _, err := s.Nodes.Usage(ctx, name+"@lab", hypervisor.TimeframeHour, time.Time{}); err == nil {
		t.Errorf("lab's node's usage with lab down: no error; want lab's driver asked")
	}
}
