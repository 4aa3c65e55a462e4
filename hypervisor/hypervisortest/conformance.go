package hypervisortest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// Subject is one driver under test with the hooks that reach behind it, as an
// operator or the hardware would. The suite checks what a caller can see through the
// Driver; the hooks let it set up what only the hypervisor's side can (a dead node)
// and read what the driver sent (the firewall rules the hypervisor now holds).
type Subject struct {
	// Driver is a fresh driver of a fresh cluster: at least two online nodes, the
	// templates Options names, and no machines.
	Driver hypervisor.Driver
	// Clock is the clock the driver and its hypervisor read; the suite moves it and
	// expects backups to carry its time.
	Clock *Clock
	// SetNodeOnline takes a node offline, or brings it back, behind the driver's back.
	SetNodeOnline func(node string, online bool) error
	// Rules reads the firewall rules the hypervisor holds for a machine, in order,
	// translated back to the driver's model.
	Rules func(vmid int) []hypervisor.FirewallRule
	// Peer, optional, is another client of the same cluster: the driver another
	// member of a vmplane cluster runs. Without one, CreatesOfTwoClients is skipped.
	Peer hypervisor.Driver
	// AddHeadless, optional, makes a running machine without a display behind the
	// driver's back and answers its vmid. Without it, Display skips that part.
	AddHeadless func() (int, error)
}

// Options are where drivers legitimately differ: the names of their templates and
// storages, and checks only one driver can make.
type Options struct {
	// Template is the template machines are created from, OtherTemplate the one a
	// reinstall switches to. Both must be clonable to every node (on shared storage,
	// in Proxmox's terms) and their inventory DiskGB must be the size a machine's
	// system disk grows to at least.
	Template, OtherTemplate string
	// DefaultStorage is the storage AddDisk uses when the caller names none;
	// OtherStorage is another storage AddDisk accepts.
	DefaultStorage, OtherStorage string
	// PowerSpy, when set, is called for each case of the power matrix once its
	// machine is in its state, just before the action; the function it returns is
	// called after the action, to look further at what the action alone did (what the
	// driver sent to the hypervisor, for one: nothing for a forbidden action).
	PowerSpy func(t *testing.T, s Subject, vmid int) (after func(from hypervisor.State, action hypervisor.PowerAction, allowed bool))
}

// Conformance runs the behaviours every hypervisor.Driver shares against fresh
// subjects from newSubject, one per subtest: inventory, create, destroy, the power
// matrix (WantPower), migrate, configure, network, disks, reinstall, firewall push,
// backups and restore, snapshots and rollback, ISO images and boot order, usage graphs, the console, typed errors for missing things,
// and cancelled contexts. Driver-specific behaviour (persistence, Proxmox parsing,
// transport, locks, injected failures) stays in the drivers' own tests.
func Conformance(t *testing.T, newSubject func(t *testing.T) Subject, opts Options) {
	cases := []struct {
		name string
		run  func(c *suite, t *testing.T)
	}{
		{"Inventory", (*suite).inventory},
		{"Create", (*suite).create},
		{"CreateRefusals", (*suite).createRefusals},
		{"CreateWithAddresses", (*suite).createWithAddresses},
		{"CreatesOfTwoClients", (*suite).createsOfTwoClients},
		{"Destroy", (*suite).destroy},
		{"PowerMatrix", (*suite).powerMatrix},
		{"PowerRefusals", (*suite).powerRefusals},
		{"OfflineNode", (*suite).offlineNode},
		{"Migrate", (*suite).migrate},
		{"Configure", (*suite).configure},
		{"SetNetwork", (*suite).setNetwork},
		{"Disks", (*suite).disks},
		{"Reinstall", (*suite).reinstall},
		{"Firewall", (*suite).firewall},
		{"Backups", (*suite).backups},
		{"RestoreNew", (*suite).restoreNew},
		{"RestoreNewWithAddresses", (*suite).restoreNewWithAddresses},
		{"SetAddresses", (*suite).setAddresses},
		{"Snapshots", (*suite).snapshots},
		{"SnapshotRefusals", (*suite).snapshotRefusals},
		{"Media", (*suite).media},
		{"Usage", (*suite).usage},
		{"Console", (*suite).console},
		{"Display", (*suite).display},
		{"MissingMachine", (*suite).missingMachine},
		{"CancelledContext", (*suite).cancelled},
		{"ReadsReturnCopies", (*suite).copies},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSubject(t)
			if s.Driver == nil || s.Clock == nil || s.SetNodeOnline == nil || s.Rules == nil {
				t.Fatalf("newSubject: every field of Subject but Peer is required")
			}
			tc.run(&suite{t: t, s: s, d: s.Driver, o: opts}, t)
		})
	}
}

// suite is one subtest's state.
type suite struct {
	t *testing.T
	s Subject
	d hypervisor.Driver
	o Options
}

var bg = context.Background()

// make creates a machine (2 cores, 2 GiB, Options.Template unless spec names one) and
// brings it to state, or fails the test.
func (c *suite) make(spec hypervisor.CreateSpec, state hypervisor.State) hypervisor.Machine {
	c.t.Helper()
	if spec.TemplateID == "" {
		spec.TemplateID = c.o.Template
	}
	if spec.CPUCores == 0 {
		spec.CPUCores = 2
	}
	if spec.MemoryMB == 0 {
		spec.MemoryMB = 2048
	}
	spec.Start = state != hypervisor.StateStopped
	m, err := c.d.Create(bg, spec)
	if err != nil {
		c.t.Fatalf("Create(%+v): %v", spec, err)
	}
	if state == hypervisor.StateSuspended {
		if err := c.d.Power(bg, hypervisor.Ref{VMID: m.VMID}, hypervisor.ActionSuspend); err != nil {
			c.t.Fatalf("suspend %d: %v", m.VMID, err)
		}
		m.State = state
	}
	return m
}

// createsOfTwoClients: creates at once through two clients of one cluster, each left
// to pick the vmid, all succeed with their own vmids. A vmid the hypervisor offered
// one client and the other took first is a hint that failed, never the create's
// failure (Proxmox's /cluster/nextid hands two callers the same id).
func (c *suite) createsOfTwoClients(t *testing.T) {
	if c.s.Peer == nil {
		t.Skip("the subject has no second client")
	}
	const n = 12
	clients := []hypervisor.Driver{c.d, c.s.Peer}
	made := make([]hypervisor.Machine, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			made[i], errs[i] = clients[i%2].Create(bg, hypervisor.CreateSpec{TemplateID: c.o.Template, CPUCores: 1, MemoryMB: 512})
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for i, m := range made {
		if errs[i] != nil {
			t.Errorf("create %d: %v; want it to take another vmid when the other client took its pick", i, errs[i])
			continue
		}
		if seen[m.VMID] {
			t.Errorf("create %d: got vmid %d, which another create got too", i, m.VMID)
		}
		seen[m.VMID] = true
		for _, d := range clients {
			if got, err := d.Machine(bg, hypervisor.Ref{VMID: m.VMID}); err != nil || got.Name != m.Name {
				t.Errorf("machine %d read through either client: got %+v, %v; want %q", m.VMID, got, err, m.Name)
			}
		}
	}
}

// machine reads a machine or fails the test.
func (c *suite) machine(vmid int) hypervisor.Machine {
	c.t.Helper()
	m, err := c.d.Machine(bg, hypervisor.Ref{VMID: vmid})
	if err != nil {
		c.t.Fatalf("Machine(%d): %v", vmid, err)
	}
	return m
}

// inventory reads the inventory or fails the test.
func (c *suite) inv() hypervisor.Inventory {
	c.t.Helper()
	inv, err := c.d.Inventory(bg)
	if err != nil {
		c.t.Fatalf("Inventory: %v", err)
	}
	return inv
}

// template finds a template in the inventory or fails the test.
func (c *suite) template(id string) hypervisor.Template {
	c.t.Helper()
	for _, tp := range c.inv().Templates {
		if tp.ID == id {
			return tp
		}
	}
	c.t.Fatalf("inventory lists no template %q", id)
	return hypervisor.Template{}
}

// onlineNodes lists the online nodes in inventory order; the suite needs two.
func (c *suite) onlineNodes() []string {
	c.t.Helper()
	var out []string
	for _, n := range c.inv().Nodes {
		if n.Status == hypervisor.NodeOnline {
			out = append(out, n.ID)
		}
	}
	if len(out) < 2 {
		c.t.Fatalf("the suite needs two online nodes; got %v", out)
	}
	return out
}

// otherNode is an online node the machine is not on.
func (c *suite) otherNode(m hypervisor.Machine) string {
	c.t.Helper()
	for _, n := range c.onlineNodes() {
		if n != m.Node {
			return n
		}
	}
	c.t.Fatalf("no online node besides %s", m.Node)
	return ""
}

func (c *suite) inventory(t *testing.T) {
	inv := c.inv()
	if len(inv.Machines) != 0 {
		t.Fatalf("a fresh cluster: got %d machines; want none (templates are not machines)", len(inv.Machines))
	}
	for _, n := range inv.Nodes {
		if n.ID == "" || n.CPUCores <= 0 || n.MemoryMB <= 0 || n.DiskGB <= 0 {
			t.Errorf("node %+v: want a name and capacities", n)
		}
	}
	c.onlineNodes()
	c.template(c.o.Template)
	c.template(c.o.OtherTemplate)
	b := c.make(hypervisor.CreateSpec{}, hypervisor.StateRunning)
	a := c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped)
	inv = c.inv()
	if len(inv.Machines) != 2 || inv.Machines[0].VMID > inv.Machines[1].VMID {
		t.Fatalf("inventory: got %+v; want the two machines by ascending vmid", inv.Machines)
	}
	for _, m := range inv.Machines {
		want := a
		if m.VMID == b.VMID {
			want = b
		}
		if m.Node != want.Node || m.State != want.State || m.Name != want.Name || m.CPUCores != want.CPUCores || m.MemoryMB != want.MemoryMB || m.DiskGB() != want.DiskGB() {
			t.Errorf("inventory machine %d: got %+v; want %+v", m.VMID, m, want)
		}
	}
}

func (c *suite) create(t *testing.T) {
	tpl := c.template(c.o.Template)
	nodes := c.onlineNodes()
	a := c.make(hypervisor.CreateSpec{Name: "web", DiskGB: 1}, hypervisor.StateStopped)
	b := c.make(hypervisor.CreateSpec{DiskGB: tpl.DiskGB + 30, CPUCores: 3, MemoryMB: 3072}, hypervisor.StateRunning)
	if a.VMID != 100 || b.VMID != 101 {
		t.Errorf("vmids: got %d, %d; want 100, 101 (the lowest free from 100)", a.VMID, b.VMID)
	}
	// Equal machines spread over equal, empty nodes: the least loaded node wins.
	if a.Node == b.Node || !slices.Contains(nodes, a.Node) || !slices.Contains(nodes, b.Node) {
		t.Errorf("nodes: got %s, %s; want two different online nodes of %v", a.Node, b.Node, nodes)
	}
	if a.State != hypervisor.StateStopped || b.State != hypervisor.StateRunning {
		t.Errorf("states: got %s, %s; want stopped, running (spec.Start)", a.State, b.State)
	}
	if a.Name != "web" || b.Name != "vm-101" {
		t.Errorf("names: got %q, %q; want web and vm-101 (the default)", a.Name, b.Name)
	}
	if a.CPUCores != 2 || a.MemoryMB != 2048 || b.CPUCores != 3 || b.MemoryMB != 3072 || a.TemplateID != c.o.Template {
		t.Errorf("resources: got %d/%d and %d/%d, template %q; want 2/2048 and 3/3072 from %s", a.CPUCores, a.MemoryMB, b.CPUCores, b.MemoryMB, a.TemplateID, c.o.Template)
	}
	// The system disk is the larger of the request and the template's size.
	if len(a.Disks) != 1 || len(b.Disks) != 1 || a.Disks[0].ID != "scsi0" || a.Disks[0].SizeGB != tpl.DiskGB || b.Disks[0].SizeGB != tpl.DiskGB+30 {
		t.Errorf("system disks: got %+v and %+v; want scsi0 at %d GB and %d GB", a.Disks, b.Disks, tpl.DiskGB, tpl.DiskGB+30)
	}
	if len(a.Interfaces) != 1 || len(b.Interfaces) != 1 {
		t.Fatalf("interfaces: got %+v and %+v; want net0 each", a.Interfaces, b.Interfaces)
	}
	for _, nic := range []hypervisor.Interface{a.Interfaces[0], b.Interfaces[0]} {
		if nic.ID != "net0" || nic.Bridge == "" || !strings.HasPrefix(nic.MAC, "BC:24:11:") {
			t.Errorf("interface %+v: want net0 on a bridge with a Proxmox (BC:24:11) MAC", nic)
		}
	}
	if a.Interfaces[0].MAC == b.Interfaces[0].MAC {
		t.Errorf("MAC %s repeats", a.Interfaces[0].MAC)
	}
	if got := c.machine(a.VMID); !reflect.DeepEqual(got, a) {
		t.Errorf("Machine after Create:\n got %+v\nwant %+v (what Create returned)", got, a)
	}
	other := c.otherNode(a)
	x := c.make(hypervisor.CreateSpec{VMID: 500, Node: other}, hypervisor.StateStopped)
	if x.VMID != 500 || x.Node != other {
		t.Errorf("explicit vmid and node: got %d on %s; want 500 on %s", x.VMID, x.Node, other)
	}
}

func (c *suite) createRefusals(t *testing.T) {
	nodes := c.onlineNodes()
	c.make(hypervisor.CreateSpec{VMID: 500}, hypervisor.StateStopped)
	if err := c.s.SetNodeOnline(nodes[1], false); err != nil {
		t.Fatal(err)
	}
	f := func(name string, spec hypervisor.CreateSpec, targets ...error) {
		t.Helper()
		if spec.TemplateID == "" {
			spec.TemplateID = c.o.Template
		}
		_, err := c.d.Create(bg, spec)
		WantErr(t, name, err, targets...)
	}
	f("vmid in use", hypervisor.CreateSpec{VMID: 500}, hypervisor.ErrVMIDInUse, apierr.ErrConflict)
	f("unknown template", hypervisor.CreateSpec{TemplateID: "tpl-no-such-os"}, hypervisor.ErrTemplateNotFound, apierr.ErrInvalidRequest)
	f("unknown node", hypervisor.CreateSpec{Node: "no-such-node"}, hypervisor.ErrNodeNotFound, apierr.ErrInvalidRequest)
	f("offline node", hypervisor.CreateSpec{Node: nodes[1]}, hypervisor.ErrNodeOffline, apierr.ErrInvalidState)
	f("negative cores", hypervisor.CreateSpec{CPUCores: -1}, apierr.ErrInvalidRequest)
	f("memory below Proxmox's 16 MiB", hypervisor.CreateSpec{MemoryMB: hypervisor.MinMemoryMB - 1}, apierr.ErrInvalidRequest)
	f("vmid below 100", hypervisor.CreateSpec{VMID: 7}, apierr.ErrInvalidRequest)
	f("name with a space", hypervisor.CreateSpec{Name: "no spaces"}, apierr.ErrInvalidRequest)
	f("name with an empty label", hypervisor.CreateSpec{Name: "a..b"}, apierr.ErrInvalidRequest)
	if inv := c.inv(); len(inv.Machines) != 1 {
		t.Errorf("after refused creates: got %d machines; want 1", len(inv.Machines))
	}
	// Placement skips the offline node.
	if m := c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped); m.Node == nodes[1] {
		t.Errorf("create with %s offline: placed on it", nodes[1])
	}
	// A driver refuses what Proxmox does, no copy of the API's tighter bounds: 1024
	// cores and 64 TiB are a shape Proxmox configures (more than a node has fails at
	// start), 1025 cores one it refuses.
	if m := c.make(hypervisor.CreateSpec{CPUCores: 1024, MemoryMB: 64 << 20}, hypervisor.StateStopped); m.CPUCores != 1024 || m.MemoryMB != 64<<20 {
		t.Errorf("create with 1024 cores and 64 TiB: got %d cores, %d MB; want them", m.CPUCores, m.MemoryMB)
	}
	f("1025 cores", hypervisor.CreateSpec{CPUCores: 1025}, apierr.ErrInvalidRequest)
}

func (c *suite) destroy(t *testing.T) {
	a := c.make(hypervisor.CreateSpec{}, hypervisor.StateRunning)
	keep := c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped)
	ref := hypervisor.Ref{VMID: a.VMID}
	WantErr(t, "destroy a running machine", c.d.Destroy(bg, ref))
	_, err := c.d.Machine(bg, ref)
	WantErr(t, "Machine after Destroy", err, hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	WantErr(t, "destroy again", c.d.Destroy(bg, ref), hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	if inv := c.inv(); len(inv.Machines) != 1 || inv.Machines[0].VMID != keep.VMID {
		t.Errorf("inventory after Destroy: got %+v; want only %d", inv.Machines, keep.VMID)
	}
}

func (c *suite) powerMatrix(t *testing.T) {
	after := map[int]func(hypervisor.State, hypervisor.PowerAction, bool){}
	PowerMatrix(t, c.d, func(from hypervisor.State) int {
		vmid := c.make(hypervisor.CreateSpec{}, from).VMID
		if c.o.PowerSpy != nil {
			after[vmid] = c.o.PowerSpy(t, c.s, vmid)
		}
		return vmid
	}, func(from hypervisor.State, a hypervisor.PowerAction, vmid int, allowed bool) {
		if f := after[vmid]; f != nil {
			f(from, a, allowed)
		}
	})
}

func (c *suite) powerRefusals(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped)
	err := c.d.Power(bg, hypervisor.Ref{VMID: m.VMID}, "explode")
	WantErr(t, "unknown action", err, apierr.ErrInvalidRequest)
	var ae *apierr.Error
	if errors.As(err, &ae) && len(ae.Allowed) != len(hypervisor.PowerActions) {
		t.Errorf("unknown action: got allowed %v; want the %d power actions", ae.Allowed, len(hypervisor.PowerActions))
	}
	if got := c.machine(m.VMID).State; got != hypervisor.StateStopped {
		t.Errorf("after an unknown action: got %s; want stopped", got)
	}
}

func (c *suite) offlineNode(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped)
	target := c.otherNode(m)
	if err := c.s.SetNodeOnline(m.Node, false); err != nil {
		t.Fatal(err)
	}
	ref := hypervisor.Ref{VMID: m.VMID}
	// Still readable, where it was; nothing runs on a dead host.
	if got := c.machine(m.VMID); got.Node != m.Node {
		t.Errorf("Machine on an offline node: got node %s; want %s", got.Node, m.Node)
	}
	WantErr(t, "start on an offline node", c.d.Power(bg, ref, hypervisor.ActionStart), hypervisor.ErrNodeOffline, apierr.ErrInvalidState)
	_, err := c.d.Migrate(bg, ref, target, false)
	WantErr(t, "migrate from an offline node", err, hypervisor.ErrNodeOffline)
	_, err = c.d.Snapshots(bg, ref)
	WantErr(t, "snapshots on an offline node", err, hypervisor.ErrNodeOffline, apierr.ErrInvalidState)
	_, err = c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s1"})
	WantErr(t, "snapshot on an offline node", err, hypervisor.ErrNodeOffline)
	if node := c.inv().Nodes; !slices.ContainsFunc(node, func(n hypervisor.Node) bool { return n.ID == m.Node && n.Status == hypervisor.NodeOffline }) {
		t.Errorf("inventory: got nodes %+v; want %s offline", node, m.Node)
	}
	if err := c.s.SetNodeOnline(m.Node, true); err != nil {
		t.Fatal(err)
	}
	WantErr(t, "start once the node is back", c.d.Power(bg, ref, hypervisor.ActionStart))
}

func (c *suite) migrate(t *testing.T) {
	running := c.make(hypervisor.CreateSpec{}, hypervisor.StateRunning)
	stopped := c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped)
	nodes := c.onlineNodes()
	var offline string
	for _, n := range nodes {
		if n != running.Node && n != stopped.Node {
			offline = n
		}
	}
	if offline != "" {
		if err := c.s.SetNodeOnline(offline, false); err != nil {
			t.Fatal(err)
		}
	}
	f := func(name string, m hypervisor.Machine, target string, online bool, wantNode string, targets ...error) {
		t.Helper()
		got, err := c.d.Migrate(bg, hypervisor.Ref{VMID: m.VMID, Node: m.Node}, target, online)
		WantErr(t, name, err, targets...)
		if now := c.machine(m.VMID); now.Node != wantNode || now.State != m.State {
			t.Errorf("%s: got %s on %s; want %s on %s", name, now.State, now.Node, m.State, wantNode)
		}
		if err == nil && got.Node != wantNode {
			t.Errorf("%s: returned the machine on %s; want %s", name, got.Node, wantNode)
		}
	}
	f("same node", running, running.Node, true, running.Node, hypervisor.ErrSameNode, apierr.ErrInvalidRequest)
	f("unknown node", running, "no-such-node", true, running.Node, hypervisor.ErrNodeNotFound, apierr.ErrInvalidRequest)
	f("no target", running, "", true, running.Node, apierr.ErrInvalidRequest)
	if offline != "" {
		f("offline target", running, offline, true, running.Node, hypervisor.ErrNodeOffline, apierr.ErrInvalidState)
	}
	f("running, offline migration", running, stopped.Node, false, running.Node, hypervisor.ErrWrongState, apierr.ErrInvalidState)
	f("running, live migration", running, stopped.Node, true, stopped.Node)
	f("stopped, offline migration", stopped, running.Node, false, running.Node)
}

func (c *suite) configure(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{Name: "a"}, hypervisor.StateStopped)
	ref := hypervisor.Ref{VMID: m.VMID}
	got, err := c.d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(8)})
	WantErr(t, "configure cores", err)
	if got.CPUCores != 8 || got.MemoryMB != 2048 || got.Name != "a" {
		t.Errorf("configure cores: got %d cores %d MB %q; want 8, 2048 and a unchanged", got.CPUCores, got.MemoryMB, got.Name)
	}
	got, err = c.d.Configure(bg, ref, hypervisor.ConfigChange{Name: new("b"), MemoryMB: new(4096)})
	WantErr(t, "configure name and memory", err)
	if got.CPUCores != 8 || got.MemoryMB != 4096 || got.Name != "b" {
		t.Errorf("configure name and memory: got %d cores %d MB %q; want 8, 4096, b", got.CPUCores, got.MemoryMB, got.Name)
	}
	if now := c.machine(m.VMID); now.CPUCores != 8 || now.MemoryMB != 4096 || now.Name != "b" {
		t.Errorf("Machine after Configure: got %+v", now)
	}
	for name, ch := range map[string]hypervisor.ConfigChange{
		"zero cores":     {CPUCores: new(0)},
		"tiny memory":    {MemoryMB: new(1)},
		"empty name":     {Name: new("")},
		"name, a space":  {Name: new("a b")},
		"too many cores": {CPUCores: new(100_000)},
	} {
		_, err := c.d.Configure(bg, ref, ch)
		WantErr(t, name, err, apierr.ErrInvalidRequest)
	}
	if now := c.machine(m.VMID); now.CPUCores != 8 || now.MemoryMB != 4096 || now.Name != "b" {
		t.Errorf("after refused changes: got %+v; want 8 cores, 4096 MB, b", now)
	}
}

func (c *suite) setNetwork(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{}, hypervisor.StateRunning)
	ref := hypervisor.Ref{VMID: m.VMID}
	got, err := c.d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", Bridge: new("vmbr1"), VLAN: new(42), RateMbps: new(100), Firewall: new(true)}})
	WantErr(t, "set net0", err)
	want := m.Interfaces[0]
	want.Bridge, want.VLAN, want.RateMbps, want.Firewall = "vmbr1", 42, 100, true
	if len(got.Interfaces) != 1 || !reflect.DeepEqual(got.Interfaces[0], want) {
		t.Errorf("set net0: got %+v; want %+v", got.Interfaces, want)
	}
	got, err = c.d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(0), RateMbps: new(0), Firewall: new(false)}})
	WantErr(t, "clear vlan, rate and firewall", err)
	if nic := got.Interfaces[0]; nic.VLAN != 0 || nic.RateMbps != 0 || nic.Firewall || nic.Bridge != "vmbr1" {
		t.Errorf("clear vlan, rate and firewall: got %+v; want untagged, unlimited, no firewall, still on vmbr1", nic)
	}
	// All or nothing: a known and an unknown interface change nothing.
	_, err = c.d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(7)}, {ID: "net5", VLAN: new(7)}})
	WantErr(t, "unknown interface", err, hypervisor.ErrInterfaceNotFound, apierr.ErrInvalidRequest)
	_, err = c.d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(5000)}})
	WantErr(t, "vlan 5000", err, apierr.ErrInvalidRequest)
	if v := c.machine(m.VMID).Interfaces[0].VLAN; v != 0 {
		t.Errorf("after refused changes: got vlan %d; want 0", v)
	}
}

func (c *suite) disks(t *testing.T) {
	tpl := c.template(c.o.Template)
	m := c.make(hypervisor.CreateSpec{DiskGB: tpl.DiskGB + 10}, hypervisor.StateStopped)
	ref := hypervisor.Ref{VMID: m.VMID}
	d1, err := c.d.AddDisk(bg, ref, 50, "")
	WantErr(t, "add a disk", err)
	d2, err := c.d.AddDisk(bg, ref, 5, c.o.OtherStorage)
	WantErr(t, "add a disk on "+c.o.OtherStorage, err)
	if want := (hypervisor.Disk{ID: "scsi1", Storage: c.o.DefaultStorage, SizeGB: 50}); d1 != want {
		t.Errorf("first added disk: got %+v; want %+v", d1, want)
	}
	if want := (hypervisor.Disk{ID: "scsi2", Storage: c.o.OtherStorage, SizeGB: 5}); d2 != want {
		t.Errorf("second added disk: got %+v; want %+v", d2, want)
	}
	_, err = c.d.AddDisk(bg, ref, 0, "")
	WantErr(t, "zero-size disk", err, apierr.ErrInvalidRequest)

	sys := tpl.DiskGB + 10
	f := func(name, disk string, size, wantSize int, targets ...error) {
		t.Helper()
		_, err := c.d.ResizeDisk(bg, ref, disk, size)
		WantErr(t, name, err, targets...)
		for _, dk := range c.machine(m.VMID).Disks {
			if dk.ID == disk && dk.SizeGB != wantSize {
				t.Errorf("%s: got %s at %d GB; want %d GB", name, disk, dk.SizeGB, wantSize)
			}
		}
	}
	f("grow", "scsi0", sys+20, sys+20)
	f("same size", "scsi0", sys+20, sys+20)
	f("shrink", "scsi0", sys+19, sys+20, hypervisor.ErrDiskShrink, apierr.ErrInvalidRequest)
	f("grow an added disk", "scsi2", 6, 6)
	f("unknown disk", "scsi9", 100, 0, hypervisor.ErrDiskNotFound, apierr.ErrInvalidRequest)
	f("zero size", "scsi0", 0, sys+20, apierr.ErrInvalidRequest)
	if got := c.machine(m.VMID).DiskGB(); got != sys+20+50+6 {
		t.Errorf("DiskGB: got %d; want %d", got, sys+20+50+6)
	}
}

func (c *suite) reinstall(t *testing.T) {
	other := c.template(c.o.OtherTemplate)
	m := c.make(hypervisor.CreateSpec{Name: "db", DiskGB: 1, CPUCores: 4, MemoryMB: 8192}, hypervisor.StateStopped)
	ref := hypervisor.Ref{VMID: m.VMID}
	if _, err := c.d.AddDisk(bg, ref, 20, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(9)}}); err != nil {
		t.Fatal(err)
	}
	before := c.machine(m.VMID)
	got, err := c.d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: c.o.OtherTemplate, Password: "new-root-pw"})
	WantErr(t, "reinstall", err)
	// vmid, node, name, resources, disks and interfaces stay; the system disk is at
	// least the new template's size; the machine runs.
	want := before
	want.Disks = slices.Clone(before.Disks)
	want.TemplateID = c.o.OtherTemplate
	want.State = hypervisor.StateRunning
	want.Disks[0].SizeGB = max(before.Disks[0].SizeGB, other.DiskGB)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reinstall:\n got %+v\nwant %+v", got, want)
	}
	if now := c.machine(m.VMID); !reflect.DeepEqual(now, want) {
		t.Errorf("Machine after reinstall:\n got %+v\nwant %+v", now, want)
	}
	_, err = c.d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-no-such-os"})
	WantErr(t, "unknown template", err, hypervisor.ErrTemplateNotFound, apierr.ErrInvalidRequest)
	if st := c.machine(m.VMID).State; st != hypervisor.StateRunning {
		t.Errorf("after a refused reinstall: got %s; want the machine untouched, running", st)
	}
}

func (c *suite) firewall(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{}, hypervisor.StateRunning)
	ref := hypervisor.Ref{VMID: m.VMID}
	// Rules there before are replaced, not added to.
	WantErr(t, "first push", c.d.SetFirewall(bg, ref, []hypervisor.FirewallRule{
		{Direction: "out", Action: "reject", Protocol: "udp", Port: "53", Enabled: false, Comment: "old"},
	}))
	rules := []hypervisor.FirewallRule{
		{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Source: "10.0.0.0/8", Enabled: true, Comment: "ssh"},
		{Direction: "in", Action: "accept", Protocol: "tcp", Port: "80,443", Enabled: true},
		{Direction: "out", Action: "reject", Protocol: "udp", Port: "1000:2000", Destination: "192.0.2.0/24", Enabled: false},
		{Direction: "in", Action: "accept", Protocol: "ipv6-icmp", Source: "2001:db8::/32", Enabled: true},
		{Direction: "in", Action: "drop", Protocol: "any", Enabled: true, Comment: "default deny"},
	}
	sent := slices.Clone(rules)
	WantErr(t, "push", c.d.SetFirewall(bg, ref, sent))
	sent[0].Port = "23" // the caller's slice is not the driver's
	if got := c.s.Rules(m.VMID); !reflect.DeepEqual(got, rules) {
		t.Errorf("rules at the hypervisor:\n got %+v\nwant %+v", got, rules)
	}
	for _, nic := range c.machine(m.VMID).Interfaces {
		if !nic.Firewall {
			t.Errorf("interface %s after a push: firewall off; want on", nic.ID)
		}
	}
	// Invalid rule sets are refused whole, by the shared check, before anything is sent.
	for name, r := range map[string]hypervisor.FirewallRule{
		"bad direction":     {Direction: "sideways", Action: "accept", Protocol: "tcp"},
		"bad action":        {Direction: "in", Action: "allow", Protocol: "tcp"},
		"port on icmp":      {Direction: "in", Action: "accept", Protocol: "icmp", Port: "22"},
		"port out of range": {Direction: "in", Action: "accept", Protocol: "tcp", Port: "70000"},
		"an ipset":          {Direction: "in", Action: "accept", Protocol: "tcp", Source: "+blocklist"},
		"mixed versions":    {Direction: "in", Action: "accept", Protocol: "tcp", Source: "10.0.0.0/8", Destination: "2001:db8::1"},
	} {
		err := c.d.SetFirewall(bg, ref, []hypervisor.FirewallRule{rules[0], r})
		WantErr(t, name, err, hypervisor.ErrInvalidRule, apierr.ErrInvalidRequest)
		if p := apierr.From(err); len(p.Fields) == 0 || !strings.HasPrefix(p.Fields[0].Field, "rules[1].") {
			t.Errorf("%s: got fields %+v; want rules[1].…", name, p.Fields)
		}
	}
	if got := c.s.Rules(m.VMID); !reflect.DeepEqual(got, rules) {
		t.Errorf("rules after refused pushes:\n got %+v\nwant %+v unchanged", got, rules)
	}
	WantErr(t, "push nothing", c.d.SetFirewall(bg, ref, nil))
	if got := c.s.Rules(m.VMID); len(got) != 0 {
		t.Errorf("after an empty push: got %+v; want no rules", got)
	}
}

func (c *suite) backups(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{Name: "app"}, hypervisor.StateRunning)
	ref := hypervisor.Ref{VMID: m.VMID}
	t1 := c.s.Clock.Now()
	b1, err := c.d.Backup(bg, ref, "")
	WantErr(t, "backup", err)
	c.s.Clock.Advance(time.Hour)
	b2, err := c.d.Backup(bg, ref, hypervisor.BackupStop)
	WantErr(t, "backup in stop mode", err)
	if b1.ID == "" || b1.ID == b2.ID || b1.VMID != m.VMID || b1.Node != m.Node || b1.Mode != hypervisor.BackupSnapshot || b1.SizeBytes <= 0 || !b1.CreatedAt.Equal(t1) {
		t.Errorf("first backup: got %+v; want a snapshot of %d on %s at %v", b1, m.VMID, m.Node, t1)
	}
	if b2.Mode != hypervisor.BackupStop || !b2.CreatedAt.Equal(t1.Add(time.Hour)) {
		t.Errorf("second backup: got %+v; want mode stop an hour later", b2)
	}
	if st := c.machine(m.VMID).State; st != hypervisor.StateRunning {
		t.Errorf("after a stop-mode backup: got %s; want running again", st)
	}
	list, err := c.d.Backups(bg, ref)
	WantErr(t, "list", err)
	if !reflect.DeepEqual(list, []hypervisor.Backup{b1, b2}) {
		t.Errorf("list: got %+v; want [%+v %+v], oldest first", list, b1, b2)
	}
	_, err = c.d.Backup(bg, ref, "hourly")
	WantErr(t, "unknown mode", err, apierr.ErrInvalidRequest)
	// The inventory lists every archive, as the sync adopts those taken outside vmplane.
	inv, err := c.d.Inventory(bg)
	WantErr(t, "inventory", err)
	var listed []hypervisor.Backup
	for _, b := range inv.Backups {
		if b.VMID == m.VMID {
			listed = append(listed, b)
		}
	}
	if !inv.BackupsListed || !reflect.DeepEqual(listed, []hypervisor.Backup{b1, b2}) {
		t.Errorf("inventory backups of %d: got %+v (listed %v); want [%+v %+v], oldest first", m.VMID, listed, inv.BackupsListed, b1, b2)
	}

	// A restore in place brings back the machine as it was backed up, running again.
	if _, err := c.d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(6), Name: new("changed")}); err != nil {
		t.Fatal(err)
	}
	got, err := c.d.RestoreBackup(bg, ref, b1.ID)
	WantErr(t, "restore in place", err)
	if got.Name != "app" || got.CPUCores != m.CPUCores || got.State != hypervisor.StateRunning || got.Interfaces[0].MAC != m.Interfaces[0].MAC || got.Node != m.Node {
		t.Errorf("restore in place: got %+v; want %+v", got, m)
	}
	_, err = c.d.RestoreBackup(bg, ref, "vzdump-qemu-"+strconv.Itoa(m.VMID)+"-no-such-backup")
	WantErr(t, "restore an unknown backup", err, hypervisor.ErrBackupNotFound, apierr.ErrNotFound)

	WantErr(t, "delete", c.d.DeleteBackup(bg, ref, b1.ID))
	WantErr(t, "delete again", c.d.DeleteBackup(bg, ref, b1.ID), hypervisor.ErrBackupNotFound, apierr.ErrNotFound)
	if list, _ := c.d.Backups(bg, ref); len(list) != 1 || list[0].ID != b2.ID {
		t.Errorf("after delete: got %+v; want only %s", list, b2.ID)
	}

	// Backups outlive their machine and bring it back, stopped, where it was.
	if err := c.d.Destroy(bg, ref); err != nil {
		t.Fatal(err)
	}
	if list, err := c.d.Backups(bg, ref); err != nil || len(list) != 1 {
		t.Errorf("backups of a destroyed machine: got %+v, %v; want the one left", list, err)
	}
	back, err := c.d.RestoreBackup(bg, ref, b2.ID)
	WantErr(t, "restore a destroyed machine", err)
	if back.VMID != m.VMID || back.Node != m.Node || back.State != hypervisor.StateStopped || back.Name != "app" {
		t.Errorf("restored destroyed machine: got %+v; want app on %s, stopped", back, m.Node)
	}
	_, err = c.d.Backups(bg, hypervisor.Ref{VMID: 4040})
	WantErr(t, "backups of an unknown vmid", err, hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
}

// snapshots: two snapshots listed oldest first, each with the one before as its
// parent; a rollback brings the machine's sizes and disks back, running when the
// snapshot holds memory and stopped otherwise; the snapshot rolled back to is the
// parent of the next; a delete hands its parent down; a restore, a reinstall and a
// destroy take them all.
func (c *suite) snapshots(t *testing.T) {
	tpl := c.template(c.o.Template)
	m := c.make(hypervisor.CreateSpec{Name: "snap", DiskGB: tpl.DiskGB + 5}, hypervisor.StateRunning)
	ref := hypervisor.Ref{VMID: m.VMID}
	snaps := func(what string) []hypervisor.Snapshot {
		t.Helper()
		list, err := c.d.Snapshots(bg, ref)
		if err != nil {
			t.Fatalf("%s: Snapshots: %v", what, err)
		}
		return list
	}
	if list := snaps("a new machine"); len(list) != 0 {
		t.Errorf("a new machine's snapshots: got %+v; want none", list)
	}
	t1 := c.s.Clock.Now().Truncate(time.Second)
	s1, err := c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "first", Description: "before the upgrade", IncludeMemory: true})
	WantErr(t, "snapshot with memory", err)
	if want := (hypervisor.Snapshot{Name: "first", Description: "before the upgrade", CreatedAt: t1, IncludesMemory: true}); !reflect.DeepEqual(s1, want) {
		t.Errorf("first snapshot:\n got %+v\nwant %+v", s1, want)
	}
	c.s.Clock.Advance(time.Hour)
	if _, err := c.d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(4), MemoryMB: new(4096)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.d.ResizeDisk(bg, ref, "scsi0", m.Disks[0].SizeGB+10); err != nil {
		t.Fatal(err)
	}
	if _, err := c.d.AddDisk(bg, ref, 5, ""); err != nil {
		t.Fatal(err)
	}
	changed := c.machine(m.VMID)
	s2, err := c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "second"})
	WantErr(t, "snapshot without memory", err)
	if want := (hypervisor.Snapshot{Name: "second", CreatedAt: t1.Add(time.Hour), Parent: "first"}); !reflect.DeepEqual(s2, want) {
		t.Errorf("second snapshot:\n got %+v\nwant %+v", s2, want)
	}
	if list := snaps("two taken"); !reflect.DeepEqual(list, []hypervisor.Snapshot{s1, s2}) {
		t.Errorf("list:\n got %+v\nwant %+v, oldest first", list, []hypervisor.Snapshot{s1, s2})
	}

	// Back to the first: the sizes and disks of then, running from its memory.
	got, err := c.d.RollbackSnapshot(bg, ref, "first")
	WantErr(t, "rollback to a snapshot with memory", err)
	if got.CPUCores != m.CPUCores || got.MemoryMB != m.MemoryMB || !reflect.DeepEqual(got.Disks, m.Disks) ||
		got.State != hypervisor.StateRunning || got.Name != m.Name || got.Node != m.Node || got.Interfaces[0].MAC != m.Interfaces[0].MAC {
		t.Errorf("rollback to first:\n got %+v\nwant %+v, running", got, m)
	}
	if now := c.machine(m.VMID); !reflect.DeepEqual(now, got) {
		t.Errorf("Machine after the rollback:\n got %+v\nwant %+v", now, got)
	}
	// Forward to the second: the changed sizes, stopped (no memory to run from).
	got, err = c.d.RollbackSnapshot(bg, ref, "second")
	WantErr(t, "rollback to a snapshot without memory", err)
	want := changed
	want.State = hypervisor.StateStopped
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rollback to second:\n got %+v\nwant %+v", got, want)
	}
	s3, err := c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "third"})
	WantErr(t, "snapshot after a rollback", err)
	if s3.Parent != "second" || s3.IncludesMemory {
		t.Errorf("snapshot after rolling back to second: got %+v; want parent second, no memory", s3)
	}

	// A delete hands the deleted snapshot's parent down to its children.
	WantErr(t, "delete second", c.d.DeleteSnapshot(bg, ref, "second"))
	list := snaps("second deleted")
	if len(list) != 2 || list[0] != s1 || list[1].Name != "third" || list[1].Parent != "first" {
		t.Errorf("after deleting second: got %+v; want first, then third with parent first", list)
	}
	WantErr(t, "delete first", c.d.DeleteSnapshot(bg, ref, "first"))
	if list := snaps("first deleted"); len(list) != 1 || list[0].Name != "third" || list[0].Parent != "" {
		t.Errorf("after deleting first: got %+v; want third alone, without a parent", list)
	}
	if now := c.machine(m.VMID); !reflect.DeepEqual(now, want) {
		t.Errorf("machine after deletes:\n got %+v\nwant %+v unchanged", now, want)
	}

	// A restore over the machine and a reinstall replace its disks: no snapshot
	// survives either.
	b, err := c.d.Backup(bg, ref, "")
	WantErr(t, "backup", err)
	if _, err := c.d.RestoreBackup(bg, ref, b.ID); err != nil {
		t.Fatal(err)
	}
	if list := snaps("restored"); len(list) != 0 {
		t.Errorf("after a restore: got %+v; want no snapshots", list)
	}
	if _, err := c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "fourth"}); err != nil {
		t.Fatal(err)
	}
	if list := snaps("fourth taken"); len(list) != 1 || list[0].Parent != "" {
		t.Errorf("the first snapshot after a restore: got %+v; want one without a parent", list)
	}
	if _, err := c.d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: c.o.OtherTemplate}); err != nil {
		t.Fatal(err)
	}
	if list := snaps("reinstalled"); len(list) != 0 {
		t.Errorf("after a reinstall: got %+v; want no snapshots", list)
	}
	WantErr(t, "delete a snapshot the reinstall took", c.d.DeleteSnapshot(bg, ref, "fourth"), hypervisor.ErrSnapshotNotFound)

	// Destroy takes the machine's snapshots with it.
	WantErr(t, "destroy", c.d.Destroy(bg, ref))
	_, err = c.d.Snapshots(bg, ref)
	WantErr(t, "snapshots of a destroyed machine", err, hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
}

// snapshotRefusals: a taken name, a name the hypervisor refuses, memory of a stopped
// machine and an unknown snapshot are typed errors, and change nothing.
func (c *suite) snapshotRefusals(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{}, hypervisor.StateRunning)
	ref := hypervisor.Ref{VMID: m.VMID}
	s1, err := c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "taken"})
	WantErr(t, "snapshot", err)
	_, err = c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "taken", IncludeMemory: true})
	WantErr(t, "a taken name", err, hypervisor.ErrSnapshotExists, apierr.ErrConflict)
	for _, name := range []string{"", "a", "1st", "_x", "with space", "dot.ted", "current", "pending", strings.Repeat("n", 41)} {
		_, err := c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: name})
		WantErr(t, "name "+strconv.Quote(name), err, apierr.ErrInvalidRequest)
	}
	if err := c.d.Power(bg, ref, hypervisor.ActionStop); err != nil {
		t.Fatal(err)
	}
	_, err = c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "memory", IncludeMemory: true})
	WantErr(t, "memory of a stopped machine", err, hypervisor.ErrMemoryNotRunning, apierr.ErrInvalidRequest)
	for _, name := range []string{"nope", "1st", "current"} {
		_, err = c.d.RollbackSnapshot(bg, ref, name)
		WantErr(t, "rollback to "+name, err, hypervisor.ErrSnapshotNotFound, apierr.ErrNotFound)
		WantErr(t, "delete "+name, c.d.DeleteSnapshot(bg, ref, name), hypervisor.ErrSnapshotNotFound, apierr.ErrNotFound)
	}
	if list, err := c.d.Snapshots(bg, ref); err != nil || !reflect.DeepEqual(list, []hypervisor.Snapshot{s1}) {
		t.Errorf("after refusals: got %+v, %v; want [%+v]", list, err, s1)
	}
	if st := c.machine(m.VMID).State; st != hypervisor.StateStopped {
		t.Errorf("after refusals: got %s; want stopped, untouched", st)
	}
}

func (c *suite) usage(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{}, hypervisor.StateRunning)
	now := c.s.Clock.Now()
	for _, tf := range hypervisor.Timeframes {
		for _, q := range []hypervisor.UsageQuery{
			{Scope: hypervisor.ScopeMachine, Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: tf},
			{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: m.Node}, Timeframe: tf},
		} {
			name := string(q.Scope) + "/" + string(tf)
			g, err := c.d.Usage(bg, q)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			step := time.Duration(g.ResolutionSeconds) * time.Second
			if g.Timeframe != tf || step <= 0 || len(g.Points) == 0 {
				t.Fatalf("%s: got timeframe %s, resolution %d s, %d points", name, g.Timeframe, g.ResolutionSeconds, len(g.Points))
			}
			for i := 1; i < len(g.Points); i++ {
				if dt := g.Points[i].Time.Sub(g.Points[i-1].Time); dt != step {
					t.Fatalf("%s: points %d and %d are %v apart; want %v", name, i-1, i, dt, step)
				}
			}
			if last := g.Points[len(g.Points)-1].Time; last.After(now) || now.Sub(last) >= step {
				t.Errorf("%s: last bucket at %v; want the bucket of %v", name, last, now)
			}
			for i, p := range g.Points {
				if p.CPU != nil && (*p.CPU < 0 || *p.CPU > 1) {
					t.Errorf("%s: point %d: cpu %v; want a fraction 0..1", name, i, *p.CPU)
				}
			}
		}
	}
	f := func(name string, q hypervisor.UsageQuery, targets ...error) {
		t.Helper()
		_, err := c.d.Usage(bg, q)
		WantErr(t, name, err, targets...)
	}
	f("unknown machine", hypervisor.UsageQuery{Scope: hypervisor.ScopeMachine, Ref: hypervisor.Ref{VMID: 4040}, Timeframe: "hour"}, hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	f("unknown node", hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: "no-such-node"}, Timeframe: "hour"}, hypervisor.ErrNodeNotFound, apierr.ErrNotFound)
	f("unknown timeframe", hypervisor.UsageQuery{Scope: hypervisor.ScopeMachine, Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: "decade"}, apierr.ErrInvalidRequest)
	f("no timeframe", hypervisor.UsageQuery{Scope: hypervisor.ScopeMachine, Ref: hypervisor.Ref{VMID: m.VMID}}, apierr.ErrInvalidRequest)
	f("unknown scope", hypervisor.UsageQuery{Scope: "cluster", Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: "hour"}, apierr.ErrInvalidRequest)
}

func (c *suite) console(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{Name: "web-1"}, hypervisor.StateRunning)
	open := func() *Term {
		t.Helper()
		con, err := c.d.Console(bg, hypervisor.Ref{VMID: m.VMID})
		if err != nil {
			t.Fatalf("Console: %v", err)
		}
		return NewTerm(t, con)
	}
	tm := open()
	if tm.C.Type() != "serial" {
		t.Errorf("Type: got %q; want serial", tm.C.Type())
	}
	const prompt = "root@web-1:~# "
	tm.Until(prompt)
	tm.Send("hostname\r")
	if out := tm.Until(prompt); !strings.Contains(out, "hostname\r\nweb-1\r\n") {
		t.Errorf("hostname: got %q; want the echo and web-1", out)
	}
	tm.Send("exit\n")
	if _, err := tm.EOF(); !errors.Is(err, io.EOF) {
		t.Errorf("after exit: got %v; want io.EOF", err)
	}
	for range 2 { // Close is idempotent
		if err := tm.C.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	if _, err := tm.C.Write([]byte("x")); err == nil {
		t.Errorf("Write after Close: got no error; want one")
	}

	// Close unblocks a reader waiting for output.
	tm = open()
	tm.Until("# ")
	if err := tm.C.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := tm.EOF(); !errors.Is(err, io.EOF) {
		t.Errorf("blocked Read after Close: got %v; want io.EOF", err)
	}

	stopped := c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped)
	_, err := c.d.Console(bg, hypervisor.Ref{VMID: stopped.VMID})
	WantErr(t, "console of a stopped machine", err, hypervisor.ErrWrongState, apierr.ErrInvalidState)
}

// display: the graphical console speaks RFB 3.8 with security None whatever the
// hypervisor asks, shows a framebuffer, and is refused for a stopped machine and for
// one without a display.
func (c *suite) display(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{Name: "web-1"}, hypervisor.StateRunning)
	con, err := c.d.Display(bg, hypervisor.Ref{VMID: m.VMID})
	if err != nil {
		t.Fatalf("Display: %v", err)
	}
	if con.Type() != "vnc" {
		t.Errorf("Type: got %q; want vnc", con.Type())
	}
	var sessionErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		si, rects, err := VNCSession(con, "")
		if err == nil && (si.Width == 0 || si.Height == 0 || !strings.Contains(si.Name, "web-1")) {
			err = fmt.Errorf("ServerInit %+v: want a framebuffer named for the machine", si)
		}
		if err == nil && (len(rects) != 1 || rects[0].Width != si.Width || rects[0].Height != si.Height) {
			err = fmt.Errorf("the first update: %d rectangles; want the whole framebuffer in one", len(rects))
		}
		sessionErr = err
	}()
	select {
	case <-done:
		if sessionErr != nil {
			t.Errorf("RFB session: %v", sessionErr)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("RFB session: no update within 10 s")
	}
	for range 2 { // Close is idempotent, and ends a blocked reader
		if err := con.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	<-done

	stopped := c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped)
	_, err = c.d.Display(bg, hypervisor.Ref{VMID: stopped.VMID})
	WantErr(t, "display of a stopped machine", err, hypervisor.ErrWrongState, apierr.ErrInvalidState)
	_, err = c.d.Display(bg, hypervisor.Ref{VMID: 4040})
	WantErr(t, "display of a missing machine", err, hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	if c.s.AddHeadless == nil {
		return
	}
	vmid, err := c.s.AddHeadless()
	if err != nil {
		t.Fatalf("AddHeadless: %v", err)
	}
	if hm, err := c.d.Machine(bg, hypervisor.Ref{VMID: vmid}); err != nil || !hm.Headless {
		t.Errorf("Machine of a headless machine: Headless %v, %v; want true", hm.Headless, err)
	}
	if hm, _ := c.d.Machine(bg, hypervisor.Ref{VMID: m.VMID}); hm.Headless {
		t.Errorf("a machine made by Create: Headless; want a display")
	}
	_, err = c.d.Display(bg, hypervisor.Ref{VMID: vmid})
	WantErr(t, "display of a machine without one", err, hypervisor.ErrWrongState, apierr.ErrInvalidState)
}

// missingMachine: every call about a machine the hypervisor lacks is
// ErrMachineNotFound (404), and nothing is created on the way.
func (c *suite) missingMachine(t *testing.T) {
	c.make(hypervisor.CreateSpec{}, hypervisor.StateStopped)
	nodes := c.onlineNodes()
	ref := hypervisor.Ref{VMID: 4040, Node: nodes[0]}
	_, err := c.d.Machine(bg, ref)
	WantErr(t, "Machine", err, hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	WantErr(t, "Power", c.d.Power(bg, ref, hypervisor.ActionStart), hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	WantErr(t, "Destroy", c.d.Destroy(bg, ref), hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	_, err = c.d.Migrate(bg, ref, nodes[1], false)
	WantErr(t, "Migrate", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(2)})
	WantErr(t, "Configure", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(3)}})
	WantErr(t, "SetNetwork", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.AddDisk(bg, ref, 5, "")
	WantErr(t, "AddDisk", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.ResizeDisk(bg, ref, "scsi0", 50)
	WantErr(t, "ResizeDisk", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: c.o.Template})
	WantErr(t, "Reinstall", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.Console(bg, ref)
	WantErr(t, "Console", err, hypervisor.ErrMachineNotFound)
	WantErr(t, "SetFirewall", c.d.SetFirewall(bg, ref, nil), hypervisor.ErrMachineNotFound)
	_, err = c.d.Backup(bg, ref, "")
	WantErr(t, "Backup", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.Snapshots(bg, ref)
	WantErr(t, "Snapshots", err, hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	_, err = c.d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "s1"})
	WantErr(t, "CreateSnapshot", err, hypervisor.ErrMachineNotFound)
	_, err = c.d.RollbackSnapshot(bg, ref, "s1")
	WantErr(t, "RollbackSnapshot", err, hypervisor.ErrMachineNotFound)
	WantErr(t, "DeleteSnapshot", c.d.DeleteSnapshot(bg, ref, "s1"), hypervisor.ErrMachineNotFound)
	if inv := c.inv(); len(inv.Machines) != 1 {
		t.Errorf("after calls about a missing machine: got %d machines; want 1", len(inv.Machines))
	}
}

// cancelled: a call whose context has ended returns at once with the context's error,
// mapped to a status (ContextError: 503 cancelled, 504 past its deadline), and
// changes nothing.
func (c *suite) cancelled(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{}, hypervisor.StateRunning)
	b, err := c.d.Backup(bg, hypervisor.Ref{VMID: m.VMID}, "")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.d.CreateSnapshot(bg, hypervisor.Ref{VMID: m.VMID}, hypervisor.SnapshotSpec{Name: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	ref := hypervisor.Ref{VMID: m.VMID, Node: m.Node}
	cancelled, cancel := context.WithCancel(bg)
	cancel()
	expired, cancel2 := context.WithDeadline(bg, time.Now().Add(-time.Second))
	defer cancel2()
	calls := map[string]func(ctx context.Context) error{
		"Ping":      func(ctx context.Context) error { return c.d.Ping(ctx) },
		"Inventory": func(ctx context.Context) error { _, err := c.d.Inventory(ctx); return err },
		"Machine":   func(ctx context.Context) error { _, err := c.d.Machine(ctx, ref); return err },
		"Create": func(ctx context.Context) error {
			_, err := c.d.Create(ctx, hypervisor.CreateSpec{TemplateID: c.o.Template})
			return err
		},
		"Destroy": func(ctx context.Context) error { return c.d.Destroy(ctx, ref) },
		"Power":   func(ctx context.Context) error { return c.d.Power(ctx, ref, hypervisor.ActionStop) },
		"Migrate": func(ctx context.Context) error {
			_, err := c.d.Migrate(ctx, ref, c.otherNode(m), true)
			return err
		},
		"Configure": func(ctx context.Context) error {
			_, err := c.d.Configure(ctx, ref, hypervisor.ConfigChange{CPUCores: new(7)})
			return err
		},
		"SetNetwork": func(ctx context.Context) error {
			_, err := c.d.SetNetwork(ctx, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(3)}})
			return err
		},
		"AddDisk":    func(ctx context.Context) error { _, err := c.d.AddDisk(ctx, ref, 5, ""); return err },
		"ResizeDisk": func(ctx context.Context) error { _, err := c.d.ResizeDisk(ctx, ref, "scsi0", 500); return err },
		"Reinstall": func(ctx context.Context) error {
			_, err := c.d.Reinstall(ctx, ref, hypervisor.ReinstallSpec{TemplateID: c.o.OtherTemplate})
			return err
		},
		"Console": func(ctx context.Context) error {
			con, err := c.d.Console(ctx, ref)
			if con != nil {
				con.Close()
			}
			return err
		},
		"Usage": func(ctx context.Context) error {
			_, err := c.d.Usage(ctx, hypervisor.UsageQuery{Scope: hypervisor.ScopeMachine, Ref: ref, Timeframe: hypervisor.TimeframeHour})
			return err
		},
		"SetFirewall": func(ctx context.Context) error {
			return c.d.SetFirewall(ctx, ref, []hypervisor.FirewallRule{{Direction: "in", Action: "drop", Protocol: "any", Enabled: true}})
		},
		"Backup":        func(ctx context.Context) error { _, err := c.d.Backup(ctx, ref, ""); return err },
		"Backups":       func(ctx context.Context) error { _, err := c.d.Backups(ctx, ref); return err },
		"DeleteBackup":  func(ctx context.Context) error { return c.d.DeleteBackup(ctx, ref, b.ID) },
		"RestoreBackup": func(ctx context.Context) error { _, err := c.d.RestoreBackup(ctx, ref, b.ID); return err },
		"Snapshots":     func(ctx context.Context) error { _, err := c.d.Snapshots(ctx, ref); return err },
		"CreateSnapshot": func(ctx context.Context) error {
			_, err := c.d.CreateSnapshot(ctx, ref, hypervisor.SnapshotSpec{Name: "new"})
			return err
		},
		"RollbackSnapshot": func(ctx context.Context) error { _, err := c.d.RollbackSnapshot(ctx, ref, "kept"); return err },
		"DeleteSnapshot":   func(ctx context.Context) error { return c.d.DeleteSnapshot(ctx, ref, "kept") },
	}
	for name, call := range calls {
		WantErr(t, name+" (cancelled)", call(cancelled), context.Canceled, apierr.ErrUnavailable)
		WantErr(t, name+" (past its deadline)", call(expired), context.DeadlineExceeded, apierr.ErrTimeout)
	}
	after := c.machine(m.VMID)
	if !reflect.DeepEqual(after, m) {
		t.Errorf("after cancelled calls:\n got %+v\nwant %+v unchanged", after, m)
	}
	if got := c.s.Rules(m.VMID); len(got) != 0 {
		t.Errorf("after cancelled pushes: got rules %+v; want none", got)
	}
	if list, err := c.d.Backups(bg, ref); err != nil || len(list) != 1 {
		t.Errorf("after cancelled backup calls: got %+v, %v; want the one backup", list, err)
	}
	if list, err := c.d.Snapshots(bg, ref); err != nil || !reflect.DeepEqual(list, []hypervisor.Snapshot{snap}) {
		t.Errorf("after cancelled snapshot calls: got %+v, %v; want [%+v]", list, err, snap)
	}
	if inv := c.inv(); len(inv.Machines) != 1 {
		t.Errorf("after cancelled creates: got %d machines; want 1", len(inv.Machines))
	}
}

// copies: what a driver returns is the caller's to change.
func (c *suite) copies(t *testing.T) {
	m := c.make(hypervisor.CreateSpec{}, hypervisor.StateRunning)
	want := c.machine(m.VMID)
	m.Disks[0].SizeGB = 999
	m.Interfaces[0].MAC = "x"
	inv := c.inv()
	inv.Machines[0].Interfaces[0].Bridge = "x"
	inv.Machines[0].Disks[0].ID = "x"
	inv.Nodes[0].ID = "x"
	inv.Templates[0].ID = "x"
	if got := c.machine(m.VMID); !reflect.DeepEqual(got, want) {
		t.Errorf("caller mutations leaked into the driver:\n got %+v\nwant %+v", got, want)
	}
	if inv2 := c.inv(); inv2.Nodes[0].ID == "x" || inv2.Templates[0].ID == "x" || inv2.Machines[0].Disks[0].ID == "x" {
		t.Errorf("inventory mutations leaked into the driver: got %+v", inv2)
	}
}
