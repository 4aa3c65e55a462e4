package machines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// shapedDriver is the simulator, except that it reports its machine with the disks and
// interfaces of a shape: none at all, as a Proxmox VM whose config has no disk line
// parses, or many.
type shapedDriver struct {
	*sim.Driver
	disks  []hypervisor.Disk
	ifaces []hypervisor.Interface
}

func (d *shapedDriver) shape(hm hypervisor.Machine, err error) (hypervisor.Machine, error) {
	if err == nil {
		hm.Disks = append([]hypervisor.Disk(nil), d.disks...)
		hm.Interfaces = append([]hypervisor.Interface(nil), d.ifaces...)
	}
	return hm, err
}

func (d *shapedDriver) Machine(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	return d.shape(d.Driver.Machine(ctx, ref))
}

func (d *shapedDriver) Configure(ctx context.Context, ref hypervisor.Ref, c hypervisor.ConfigChange) (hypervisor.Machine, error) {
	return d.shape(d.Driver.Configure(ctx, ref, c))
}

// machineShape builds a machine record and a driver that agree on a shape.
func machineShape(t testing.TB, status string, disks, ifaces int) (*Machine, *shapedDriver, hypervisor.Ref) {
	t.Helper()
	d := &shapedDriver{Driver: sim.New(sim.Config{OpDelay: -1, Seed: 1})}
	state := hypervisor.StateStopped
	switch status {
	case StatusRunning, StatusMigrating:
		state = hypervisor.StateRunning
	case StatusSuspended:
		state = hypervisor.StateSuspended
	}
	hm, err := d.AddMachine(hypervisor.Machine{State: state}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range disks {
		d.disks = append(d.disks, hypervisor.Disk{ID: fmt.Sprintf("scsi%d", i), Storage: sim.DefaultStorage, SizeGB: 10})
	}
	for i := range ifaces {
		d.ifaces = append(d.ifaces, hypervisor.Interface{ID: fmt.Sprintf("net%d", i), Bridge: "vmbr0"})
	}
	m := &Machine{ID: "m1", VMID: hm.VMID, Node: hm.Node, Status: status, CPUCores: 1, MemoryMB: 1024,
		Disks: d.disks, Interfaces: d.ifaces}
	for _, x := range d.disks {
		m.DiskGB += x.SizeGB
	}
	return m, d, hypervisor.Ref{VMID: hm.VMID, Node: hm.Node}
}

var shapeStatuses = []string{StatusRunning, StatusStopped, StatusSuspended, StatusError, StatusProvisioning, StatusMigrating}

// FuzzOperationChecks feeds operations of every kind to the validators and, when they
// pass, to the hypervisor work, on machines of every shape (no disk, no network, many
// disks): nothing may panic, and a resize that grows the disk of a machine with none is
// 409 invalid_state, however the machine came to have none.
func FuzzOperationChecks(f *testing.F) {
	ops := []string{
		`{"type":"resize","disk_grow_gb":5}`,
		`{"type":"resize","disk_grow_gb":5,"config":{"cpu_cores":2}}`,
		`{"type":"resize","config":{"memory_mb":2048}}`,
		`{"type":"resize"}`,
		`{"type":"power","action":"start"}`,
		`{"type":"power","action":"stop"}`,
		`{"type":"power","action":"reboot"}`,
		`{"type":"migrate","target_node":"pve2","online":true}`,
		`{"type":"config","config":{"name":"web-1"}}`,
		`{"type":"config"}`,
		`{"type":"network","interfaces":[{"id":"net0","vlan":10}]}`,
		`{"type":"network","interfaces":[{"id":"net5"}]}`,
		`{"type":"disk","disk_size_gb":20}`,
		`{"type":"reinstall","reinstall":{"template_id":"debian-12"}}`,
		`{"type":"reinstall"}`,
		`{"type":"backup","backup_mode":"snapshot"}`,
		`{"type":"backup","backup_mode":"stop","on_demand":true,"note":"before"}`,
		`{"type":"snapshot","snapshot":{"name":"before","include_memory":true}}`,
		`{"type":"snapshot","snapshot":{"name":"b"}}`,
		`{"type":"snapshot"}`,
		`{"type":"snapshot_rollback","snapshot_name":"before"}`,
		`{"type":"snapshot_delete","snapshot_name":"current"}`,
		`{"type":"restore","backup_id":"B1","archive":"local:backup/vzdump-qemu-100.vma.zst","start_after":true}`,
		`{"type":"restore"}`,
		`{"type":"destroy"}`,
		`{"type":"create"}`,
		`{"type":"nope"}`,
	}
	for _, op := range ops {
		for st := range shapeStatuses {
			for _, shape := range [][2]uint8{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {7, 3}} {
				f.Add([]byte(op), uint8(st), shape[0], shape[1])
			}
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, status, disks, ifaces uint8) {
		var op Operation
		if json.Unmarshal(raw, &op) != nil {
			return
		}
		m, d, ref := machineShape(t, shapeStatuses[int(status)%len(shapeStatuses)], int(disks%16), int(ifaces%8))
		if op.validate() != nil {
			return
		}
		err := op.checkAgainst(m)
		if op.Type == OpResize && op.DiskGrowGB > 0 && len(m.Disks) == 0 && allowed(m.Status, op) && !errors.Is(err, apierr.ErrInvalidState) {
			t.Fatalf("resize growing the disk of a machine with none: got %v; want invalid_state", err)
		}
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, _, err := execute(ctx, d, ref, op); err != nil && apierr.From(err).Status == 0 {
			t.Fatalf("execute %s: got an error with no status: %v", raw, err)
		}
	})
}

// TestResizeOfDiskGoneFromHypervisor: the record shows a disk, the hypervisor no longer
// has one (detached behind vmplane's back): the task fails with invalid_state.
func TestResizeOfDiskGoneFromHypervisor(t *testing.T) {
	_, d, ref := machineShape(t, StatusStopped, 0, 1)
	_, _, err := execute(context.Background(), d, ref, Operation{Type: OpResize, DiskGrowGB: 5})
	if !errors.Is(err, apierr.ErrInvalidState) {
		t.Fatalf("got %v; want invalid_state", err)
	}
}

// syncedMachine starts a system on a sim of nodes nodes and one machine, syncs it, and
// answers the system and that machine's record.
func syncedMachine(t *testing.T, ctx context.Context, nodes int) (*testSystem, Machine) {
	t.Helper()
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: nodes, Machines: 1})
	})
	if _, err := s.adopt(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 1 {
		t.Fatalf("got %d machines, %v; want 1", len(ms), err)
	}
	return s, ms[0]
}

// runToEnd starts op on machine id and waits for its task to end successfully.
func runToEnd(t *testing.T, ctx context.Context, s *testSystem, id string, op Operation) tasks.Task {
	t.Helper()
	task, err := s.Machines.Start(ctx, id, op, nil)
	if err != nil {
		t.Fatal(err)
	}
	ended, err := s.Tasks.Wait(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if task = *ended; task.Status != tasks.TaskSucceeded {
		t.Fatalf("got %+v; want %s to succeed", task, op.Type)
	}
	return task
}

// powerOp is an action a machine in status can take: a reboot, or a start.
func powerOp(status string) Operation {
	if status == StatusRunning {
		return Operation{Type: OpPower, Action: hypervisor.ActionReboot}
	}
	return Operation{Type: OpPower, Action: hypervisor.ActionStart}
}

// TestSecondReportKeepsFirstOutcome: a task's outcome reported twice (a report retried
// after a panic) keeps the first: a succeeded task is not rewritten as failed.
func TestSecondReportKeepsFirstOutcome(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, m := syncedMachine(t, ctx, 3)
	task := runToEnd(t, ctx, s, m.ID, powerOp(m.Status))
	s.Machines.report(m.ID, task.ID, &opDone{TaskID: task.ID, Err: apierr.New(apierr.ErrInternal, "late")})
	if got, err := s.Tasks.Get(ctx, task.ID, nil); err != nil || got.Status != tasks.TaskSucceeded || got.Error != nil {
		t.Fatalf("got %+v, %v after a second report; want the first outcome, succeeded", got, err)
	}
}

// TestStaleObservationIsDropped: an inventory read before a task's end does not undo
// what the task recorded, on any field (here the node of a migration), while a later
// one is taken.
func TestStaleObservationIsDropped(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := time.Now().UTC()
	s, m := syncedMachine(t, ctx, 2)
	stale, err := s.driver.Machine(ctx, hypervisor.Ref{VMID: m.VMID, Node: m.Node})
	if err != nil {
		t.Fatal(err)
	}
	nodes, _, err := s.Nodes.List(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	target := nodes[0].ID
	if target == m.Node {
		target = nodes[1].ID
	}
	runToEnd(t, ctx, s, m.ID, Operation{Type: OpMigrate, TargetNode: target, Online: m.Status == StatusRunning})
	// An observation read before the migration ended arrives now.
	if _, err := kit.Ask[capacity.Changed](ctx, s.Machines.kind, m.ID, &observe{M: stale, At: before}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Machines.Get(ctx, m.ID, nil); err != nil || got.Node != target {
		t.Fatalf("got node %q, %v after a stale observation; want %q, the migration's", got.Node, err, target)
	}
}

// TestStaleVanishKeepsTheRecord: an inventory read before a task ended (a create that
// finished while the inventory lacking it was in flight) removes nothing; a later one
// does. Seen as a machine that a sync racing its provisioning deleted.
func TestStaleVanishKeepsTheRecord(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, m := syncedMachine(t, ctx, 3)
	before := time.Now().UTC()
	runToEnd(t, ctx, s, m.ID, powerOp(m.Status))
	vanish := func(at time.Time) bool {
		t.Helper()
		r, err := kit.Ask[capacity.Changed](ctx, s.Machines.kind, m.ID, &vanish{At: at})
		if err != nil {
			t.Fatal(err)
		}
		return r.Changed
	}
	if vanish(before) {
		t.Fatal("an inventory read before the task ended removed the machine; want it kept")
	}
	if _, err := s.Machines.Get(ctx, m.ID, nil); err != nil {
		t.Fatalf("after a stale vanish: %v; want the record", err)
	}
	if !vanish(time.Now().UTC()) {
		t.Fatal("an inventory read after the task ended kept the machine; want it removed")
	}
}

// TestBoundsAtTheirEdges checks each bound of an operation at its edges: the service
// accepts the bound and refuses one past it, naming the field; and every bound the API
// accepts is one that both drivers accept (hypervisor.MinCores and its siblings), so a
// valid request never fails at the hypervisor for its shape.
func TestBoundsAtTheirEdges(t *testing.T) {
	if MinCores < hypervisor.MinCores || MaxCores > hypervisor.MaxCores || MinMemoryMB < hypervisor.MinMemoryMB || MinDiskGB < hypervisor.MinDiskGB {
		t.Errorf("API bounds cores %d..%d, memory %d.., disk %d..: want within the hypervisor's %d..%d, %d.., %d..",
			MinCores, MaxCores, MinMemoryMB, MinDiskGB, hypervisor.MinCores, hypervisor.MaxCores, hypervisor.MinMemoryMB, hypervisor.MinDiskGB)
	}
	name := func(n int) *string {
		s := make([]byte, n)
		for i := range s {
			s[i] = 'a'
		}
		return new(string(s))
	}
	cases := []struct {
		field    string
		min, max int
		op       func(v int) Operation
	}{
		{"cpu_cores", MinCores, MaxCores, func(v int) Operation {
			return Operation{Type: OpConfig, Config: &hypervisor.ConfigChange{CPUCores: &v}}
		}},
		{"memory_mb", MinMemoryMB, MaxMemoryMB, func(v int) Operation {
			return Operation{Type: OpConfig, Config: &hypervisor.ConfigChange{MemoryMB: &v}}
		}},
		{"name", MinNameLen, MaxNameLen, func(v int) Operation {
			return Operation{Type: OpConfig, Config: &hypervisor.ConfigChange{Name: name(v)}}
		}},
		{"size_gb", MinDiskGB, MaxDiskGB, func(v int) Operation { return Operation{Type: OpAddDisk, DiskSizeGB: v} }},
		{"interfaces[0].vlan", 0, MaxVLAN, func(v int) Operation {
			return Operation{Type: OpNetwork, Interfaces: []hypervisor.InterfaceChange{{ID: "net0", VLAN: &v}}}
		}},
		{"interfaces[0].rate_mbps", 0, MaxRateMbps, func(v int) Operation {
			return Operation{Type: OpNetwork, Interfaces: []hypervisor.InterfaceChange{{ID: "net0", RateMbps: &v}}}
		}},
	}
	// A name is one every hypervisor takes: a DNS name, each label starting and ending
	// with a letter or digit.
	for n, valid := range map[string]bool{"web-1": true, "db.eu-1.example": true, "a..b": false, "a.-b": false, "a-.b": false, "-a": false, "a_b": false} {
		op := Operation{Type: OpConfig, Config: &hypervisor.ConfigChange{Name: &n}}
		if err := op.validate(); (err == nil) != valid || valid != hypervisor.ValidVMName(n) {
			t.Errorf("name %q: got %v (Proxmox takes it: %v); want valid %v", n, err, hypervisor.ValidVMName(n), valid)
		}
	}
	for _, c := range cases {
		for _, v := range []int{c.min, c.max} {
			if err := c.op(v).validate(); err != nil {
				t.Errorf("%s %d: got %v; want it accepted", c.field, v, err)
			}
		}
		for _, v := range []int{c.min - 1, c.max + 1} {
			var e *apierr.Error
			if err := c.op(v).validate(); !errors.As(err, &e) || e.Status != 400 || len(e.Fields) != 1 || e.Fields[0].Field != c.field {
				t.Errorf("%s %d: got %v; want a 400 naming %s", c.field, v, err, c.field)
			}
		}
	}
}
