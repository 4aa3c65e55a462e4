// Package sim is vmplane's embedded default hypervisor: a deterministic, seedable
// simulated cluster behind the hypervisor.Driver interface. It lets every feature run on
// a laptop and in tests without a Proxmox server.
//
// The simulation is faithful where callers can tell the difference: machines follow the
// Proxmox power state machine (hypervisor.PowerTransition), operations take time and hold a per-machine lock, nodes go
// offline, tasks fail on demand, and usage graphs come at the Proxmox VE 9 resolutions.
// Everything random is derived from Config.Seed, so the same seed and the same sequence
// of calls give the same vmids, MACs, addresses and usage series.
//
// A Driver built with Open, or given a store with Attach, keeps its world in vmplane's
// store and makes every change durable before the call returns (persist.go), so the
// simulated cluster survives restarts and crashes as a real one would. On the shared
// store of a vmplane cluster every member's driver works on that one world. Its machines
// have documentation addresses, and it answers health probes of them itself
// (hypervisor.Prober, probe.go).
//
// Besides the Driver methods, a Driver exposes test hooks (FailNext, FailAlways,
// SetFailureRate, SetNodeStatus, SetAvailable, CrashMachine, RemoveMachine, AddMachine,
// Firewall) that change the cluster "behind vmplane's back", as operators and hardware do.
package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
	"github.com/vmplane/vmplane/hypervisor/sim/netpool"
	"github.com/vmplane/vmplane/hypervisor/sim/serial"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
	"github.com/vmplane/vmplane/persistence"
)

// Interface guard: the sim must stay a full Driver.
var _ hypervisor.Driver = (*Driver)(nil)

// Defaults for a zero Config. They describe a small but believable lab cluster.
const (
	DefaultNodes        = 3
	DefaultNodeCores    = 32
	DefaultNodeMemoryMB = 128 * 1024
	DefaultNodeDiskGB   = 2000
	DefaultOpDelay      = 300 * time.Millisecond
	// DefaultStorage is where AddDisk puts a disk when the caller names no storage.
	DefaultStorage = "local-lvm"
	// DefaultBridge is the bridge of every new machine's first interface.
	DefaultBridge = "vmbr0"
	// BackupStorage is the storage every sim backup lands on.
	BackupStorage = "local"
)

// DefaultTemplates are the OS templates of a Config without Templates.
var DefaultTemplates = []hypervisor.Template{
	{ID: "tpl-debian-12", Name: "Debian 12 (bookworm)", OS: "debian", DiskGB: 10},
	{ID: "tpl-ubuntu-24.04", Name: "Ubuntu 24.04 LTS (noble)", OS: "ubuntu", DiskGB: 10},
	{ID: "tpl-rocky-9", Name: "Rocky Linux 9", OS: "rocky", DiskGB: 12},
}

// Config sets up a simulated cluster. The zero value is a usable three-node demo cluster.
type Config struct {
	// Seed makes the cluster reproducible: vmids, MACs, demo machines, random failures
	// and usage series all derive from it.
	Seed int64
	// Nodes is the number of nodes, named pve1..pveN (default 3).
	Nodes int
	// NodeCores, NodeMemoryMB and NodeDiskGB are each node's capacity
	// (defaults 32 cores, 128 GiB, 2000 GB).
	NodeCores    int
	NodeMemoryMB int
	NodeDiskGB   int
	// Templates are the OS templates (default DefaultTemplates).
	Templates []hypervisor.Template
	// Machines seeds that many demo machines at New, spread over the nodes, created at
	// seeded times up to ~400 days back so that usage graphs have history. Default 0.
	Machines int
	// SeedOnAttach has Attach seed the Machines, and only when the store it is given
	// holds no world, instead of New: a restart on a data directory then does not make
	// a world (a million machines: seconds and gigabytes) that the stored one replaces.
	SeedOnAttach bool
	// OpDelay is how long each changing operation takes, in real time (default 300ms
	// for demos; tests pass ~1ms; negative means instant).
	OpDelay time.Duration
	// Now is the clock for creation times, backups and usage graphs (default time.Now).
	// Delays use real time regardless, so tests can pin the clock and still finish.
	Now func() time.Time
}

// Driver is the simulated cluster. All methods are safe for concurrent use.
type Driver struct {
	now   func() time.Time
	delay time.Duration
	seed  uint64
	usage usageModel

	mu sync.Mutex
	// unseeded is how many demo machines Attach makes if its store holds no world
	// (Config.SeedOnAttach).
	unseeded int
	// available is the SetAvailable switch, atomic so that Ping (the health check)
	// never waits for the lock, which a large Inventory holds for seconds.
	available atomic.Bool
	nodes     []*node // in name order pve1..pveN
	machines  *fleet.Fleet
	templates []hypervisor.Template
	locks     map[int]string // vmid → operation holding the machine's lock
	pending   map[int]pendingCreate
	committed map[string]int // node → memory MB of its machines, for placement
	macs      netpool.MACs   // MACs in use
	failures  []failRule
	failRate  float64
	rng       *rand.Rand // seeded; for random failures only, so call order matters there alone
	backups   map[int][]hypervisor.Backup
	backupCfg map[string]hypervisor.Machine // backup id → machine as it was backed up
	firewall  map[int][]hypervisor.FirewallRule
	isos      map[string]hypervisor.ISO // the ISO storage, by file name (media.go)
	consoles  map[int][]*serial.Console
	displays  map[int][]*displayEnd // the serving end of each open display (display.go)
	ips       netpool.Pool
	vmidHint  int // lowest vmid that may be free

	// The store the world lives in (nil: in memory only, see persist.go), the records
	// changed since the last write, and whether the world was read from the store.
	store    persistence.Store
	dirty    world.Changes
	restored bool
	// backupSeq orders backups as they were taken (stored with each).
	backupSeq     map[string]uint64
	nextBackupSeq uint64

	// In a cluster (a shared store, see shared.go): whether the store is shared, which
	// attachment the store's watch reports to, the records the watch named that are
	// still to be read (all of them once too many were), and, under mu, the tickets
	// that order reads of the store against this driver's own changes and the
	// records this driver is writing right now.
	shared    atomic.Bool
	watchGen  atomic.Uint64
	stale     world.Stale
	ticket    uint64
	keyTicket map[string]uint64
	inflight  map[string]int

	// picked, when a test sets it, is called by Create with the vmid it picked, before
	// the clone's delay: a test holds a create there while another member moves on.
	picked func(vmid int)
	// created, set by OnCreated, is called by Create once its machine exists.
	created func(vmid int)
	// applying, when a test sets it, is called by run once an operation's delay
	// passed, before it applies: a test changes the world there through another
	// member.
	applying func(op string, vmid int)
	// editing, when a test sets it, is called under d.mu just before an operation
	// changes memory, once per try: another driver's write from there lands between
	// this one's read of the record and its write.
	editing func(op string, vmid int)
}

// node is one simulated host.
type node struct {
	hypervisor.Node
}

// New builds a simulated cluster from cfg, filling in defaults. Its world lives in
// memory until Attach gives it a store; Open builds one on a store.
func New(cfg Config) *Driver {
	d := newDriver(cfg)
	if cfg.SeedOnAttach {
		d.unseeded = cfg.Machines
	} else {
		d.seedDemoMachines(cfg.Machines)
	}
	return d
}

// newDriver is New without the demo machines.
func newDriver(cfg Config) *Driver {
	if cfg.Nodes <= 0 {
		cfg.Nodes = DefaultNodes
	}
	if cfg.NodeCores <= 0 {
		cfg.NodeCores = DefaultNodeCores
	}
	if cfg.NodeMemoryMB <= 0 {
		cfg.NodeMemoryMB = DefaultNodeMemoryMB
	}
	if cfg.NodeDiskGB <= 0 {
		cfg.NodeDiskGB = DefaultNodeDiskGB
	}
	if cfg.Templates == nil {
		cfg.Templates = DefaultTemplates
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	delay := cfg.OpDelay
	switch {
	case delay == 0:
		delay = DefaultOpDelay
	case delay < 0:
		delay = 0
	}
	seed := uint64(cfg.Seed)
	d := &Driver{
		now:       cfg.Now,
		delay:     delay,
		seed:      seed,
		usage:     usageModel{seed: seed},
		machines:  fleet.New(),
		templates: append([]hypervisor.Template(nil), cfg.Templates...),
		locks:     make(map[int]string),
		pending:   make(map[int]pendingCreate),
		committed: make(map[string]int),
		rng:       rand.New(rand.NewPCG(seed, 0x5eed_fa11)),
		backups:   make(map[int][]hypervisor.Backup),
		backupCfg: make(map[string]hypervisor.Machine),
		firewall:  make(map[int][]hypervisor.FirewallRule),
		consoles:  make(map[int][]*serial.Console),
		displays:  make(map[int][]*displayEnd),
		vmidHint:  minVMID,
		backupSeq: make(map[string]uint64),
		keyTicket: make(map[string]uint64),
		inflight:  make(map[string]int),
	}
	d.available.Store(true)
	for i := 1; i <= cfg.Nodes; i++ {
		d.nodes = append(d.nodes, &node{Node: hypervisor.Node{
			ID:       fmt.Sprintf("pve%d", i),
			Status:   hypervisor.NodeOnline,
			CPUCores: cfg.NodeCores,
			MemoryMB: cfg.NodeMemoryMB,
			DiskGB:   cfg.NodeDiskGB,
		}})
	}
	return d
}

// Name is the driver's config name and route segment.
func (d *Driver) Name() string { return "sim" }

// Ping answers nil unless the simulated hypervisor was made unavailable.
func (d *Driver) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return hypervisor.ContextError(err)
	}
	return d.availableLocked()
}

var _ hypervisor.MachinePager = (*Driver)(nil)

// Inventory lists every node (with its usage now), machine and template, as deep copies.
func (d *Driver) Inventory(ctx context.Context) (hypervisor.Inventory, error) {
	return d.inventory(ctx, true)
}

// InventoryHead is Inventory without the machines (hypervisor.MachinePager).
func (d *Driver) InventoryHead(ctx context.Context) (hypervisor.Inventory, error) {
	return d.inventory(ctx, false)
}

// inventory is Inventory, with the machines' copies only when machines is set.
func (d *Driver) inventory(ctx context.Context, machines bool) (hypervisor.Inventory, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.Inventory{}, hypervisor.ContextError(err)
	}
	if err := d.exactWorld(ctx); err != nil {
		return hypervisor.Inventory{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.availableLocked(); err != nil {
		return hypervisor.Inventory{}, err
	}
	now := d.now()
	inv := hypervisor.Inventory{
		Nodes:     make([]hypervisor.Node, 0, len(d.nodes)),
		Templates: append([]hypervisor.Template(nil), d.templates...),
	}
	if machines {
		inv.Machines = make([]hypervisor.Machine, 0, d.machines.Len())
	}
	perNode := make(map[string]*nodeLoad, len(d.nodes))
	online := make(map[string]bool, len(d.nodes))
	for _, n := range d.nodes {
		online[n.ID] = n.Status == hypervisor.NodeOnline
	}
	// Packed machines are views here (Fleet.Each): what is kept of one is its copy,
	// its series (whose history is the packed entry's own) and its traffic mark.
	d.machines.Each(func(m *fleet.Machine) {
		if machines {
			inv.Machines = append(inv.Machines, cloneMachine(m.Machine))
		}
		load := perNode[m.Node]
		if load == nil {
			load = &nodeLoad{}
			perNode[m.Node] = load
		}
		load.add(d.seriesOf(m, false), m.DiskGB())
		if m.State == hypervisor.StateRunning && online[m.Node] {
			if inv.Traffic == nil {
				inv.Traffic = map[int]hypervisor.TrafficCounters{}
			}
			inv.Traffic[m.VMID] = d.trafficLocked(m, now)
		}
	})
	for _, n := range d.nodes {
		inv.Nodes = append(inv.Nodes, d.nodeNowLocked(n, perNode[n.ID], now))
	}
	for _, list := range d.backups {
		inv.Backups = append(inv.Backups, list...)
	}
	hypervisor.SortBackups(inv.Backups)
	inv.BackupsListed = true
	return inv, nil
}

// MachinePages hands page the machines, deep copies by ascending vmid, n at a time
// (hypervisor.MachinePager). The vmids are listed once; each page then takes the lock
// on its own, so the driver's other calls go on between pages, and a machine
// destroyed before its page is read is left out.
func (d *Driver) MachinePages(ctx context.Context, n int, page func([]hypervisor.Machine) error) error {
	if n <= 0 {
		return invalid("n", "a page holds at least one machine")
	}
	if err := ctx.Err(); err != nil {
		return hypervisor.ContextError(err)
	}
	if err := d.exactWorld(ctx); err != nil {
		return err
	}
	d.mu.Lock()
	if err := d.availableLocked(); err != nil {
		d.mu.Unlock()
		return err
	}
	vmids := d.sortedVMIDsLocked()
	d.mu.Unlock()
	for len(vmids) > 0 {
		if err := ctx.Err(); err != nil {
			return hypervisor.ContextError(err)
		}
		next := vmids[:min(n, len(vmids))]
		vmids = vmids[len(next):]
		out, err := d.pageOf(next)
		if err != nil {
			return err
		}
		if len(out) == 0 {
			continue
		}
		if err := page(out); err != nil {
			return err
		}
	}
	return nil
}

// pageOf copies the machines of vmids that still exist, in that order.
func (d *Driver) pageOf(vmids []int) ([]hypervisor.Machine, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.availableLocked(); err != nil {
		return nil, err
	}
	out := make([]hypervisor.Machine, 0, len(vmids))
	for _, vmid := range vmids {
		if m, ok := d.machines.Peek(vmid); ok {
			out = append(out, cloneMachine(m.Machine))
		}
	}
	return out, nil
}

// Machine reads one machine. Ref.Node is ignored: the sim always knows where it is.
func (d *Driver) Machine(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.Machine{}, hypervisor.ContextError(err)
	}
	if err := d.exactMachine(ctx, ref.VMID); err != nil {
		return hypervisor.Machine{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.availableLocked(); err != nil {
		return hypervisor.Machine{}, err
	}
	m, ok := d.machines.Peek(ref.VMID)
	if !ok {
		return hypervisor.Machine{}, notFound(ref.VMID)
	}
	return cloneMachine(m.Machine), nil
}

// op describes one changing operation for run.
type op struct {
	name   string // failure-injection and lock name: "start", "migrate", ...
	vmid   int    // machine the operation is about: lock key and failure-injection match
	noLock bool   // for operations that do not lock the machine (deleting a backup)
	// world says the operation changes the world record (the ISO storage), which on a
	// shared store is changed as stored, as a machine's record is.
	world bool
	// check validates under d.mu, before the delay and again after it, because hooks
	// (CrashMachine, SetNodeStatus, RemoveMachine) may change the cluster meanwhile.
	check func() error
	// apply makes the change under d.mu once the delay passed and no failure fired, and
	// marks the records it changed (touch*Locked) for run to write.
	apply func() error
}

// run is the life of every changing operation: refuse if another operation holds the
// machine's lock (ErrLocked comes first, as Proxmox's "VM is locked" does), check, take
// the lock, spend OpDelay (cancellable), release the lock, check again, maybe fail as
// injected, apply, and make the change durable (see persist.go). A cancelled or failed
// operation leaves the machine as it was.
func (d *Driver) run(ctx context.Context, o op) error {
	if err := ctx.Err(); err != nil {
		return hypervisor.ContextError(err)
	}
	if err := d.exactMachine(ctx, o.vmid); err != nil {
		return err
	}
	d.mu.Lock()
	if err := d.availableLocked(); err != nil {
		d.mu.Unlock()
		return err
	}
	locks := o.vmid != 0 && !o.noLock
	if locks {
		if holder, busy := d.locks[o.vmid]; busy {
			d.mu.Unlock()
			return hypervisor.NewError(hypervisor.ErrLocked, "machine %d is locked by a %s operation", o.vmid, holder)
		}
	}
	if o.check != nil {
		if err := o.check(); err != nil {
			d.mu.Unlock()
			return err
		}
	}
	if locks {
		d.locks[o.vmid] = o.name
	}
	d.mu.Unlock()

	waitErr := d.wait(ctx)
	if d.applying != nil {
		d.applying(o.name, o.vmid)
	}
	// An operation on a machine is made on its record as stored (on a shared store):
	// another member's firewall push may have landed during the delay, and a write
	// of the whole record from memory would take it back.
	change := d.change
	if o.vmid != 0 && waitErr == nil {
		change = func(fn func() error) error { return d.changeStored(ctx, o.vmid, fn) }
	} else if o.world && waitErr == nil {
		// Two members importing images at once would each write the world from
		// memory, and the later write would lose the other's image.
		change = func(fn func() error) error { return d.changeStored(ctx, 0, fn) }
	}
	if d.editing != nil {
		apply := o.apply
		o.apply = func() error { d.editing(o.name, o.vmid); return apply() }
	}
	ran := false
	defer func() {
		// changeStored may fail before it runs the change (the store did not answer):
		// the lock goes all the same, or the machine would stay locked here for good.
		if locks && !ran {
			d.mu.Lock()
			delete(d.locks, o.vmid)
			d.mu.Unlock()
		}
	}()
	return change(func() error {
		ran = true
		if locks {
			delete(d.locks, o.vmid)
		}
		if waitErr != nil {
			return waitErr
		}
		if err := d.availableLocked(); err != nil {
			return err
		}
		if o.check != nil {
			if err := o.check(); err != nil {
				return err
			}
		}
		if err := d.injectedLocked(o.vmid, o.name); err != nil {
			return err
		}
		return o.apply()
	})
}

// wait spends the operation delay, or returns early when ctx ends.
func (d *Driver) wait(ctx context.Context) error {
	if d.delay <= 0 {
		return hypervisor.ContextError(ctx.Err())
	}
	return sleep(ctx, d.delay)
}

// sleep waits for d, or returns early when ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return hypervisor.ContextError(ctx.Err())
	}
}

// availableLocked is the SetAvailable(false) switch every call consults first (Ping
// without the lock).
func (d *Driver) availableLocked() error {
	if !d.available.Load() {
		return hypervisor.NewError(hypervisor.ErrUnavailable, "the simulated hypervisor is unavailable")
	}
	return nil
}

// machineLocked finds a machine, opened (the caller may change it), or answers
// ErrMachineNotFound.
func (d *Driver) machineLocked(vmid int) (*fleet.Machine, error) {
	m, ok := d.machines.Get(vmid)
	if !ok {
		return nil, notFound(vmid)
	}
	return m, nil
}

// notFound is the error of a vmid that is no machine.
func notFound(vmid int) error {
	return hypervisor.NewError(hypervisor.ErrMachineNotFound, "machine %d not found", vmid)
}

// liveMachineLocked finds a machine whose node is online: nothing runs on a dead host.
func (d *Driver) liveMachineLocked(vmid int) (*fleet.Machine, error) {
	m, err := d.machineLocked(vmid)
	if err != nil {
		return nil, err
	}
	if n := d.nodeLocked(m.Node); n == nil || n.Status != hypervisor.NodeOnline {
		return nil, hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s of machine %d is offline", m.Node, vmid)
	}
	return m, nil
}

// nodeLocked finds a node by name, or nil.
func (d *Driver) nodeLocked(id string) *node {
	for _, n := range d.nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

// sortedVMIDsLocked lists vmids in ascending order, the order Proxmox lists them in.
func (d *Driver) sortedVMIDsLocked() []int { return d.machines.VMIDs() }

// setStateLocked changes a machine's power state and records it for the usage graphs.
func (d *Driver) setStateLocked(m *fleet.Machine, s hypervisor.State) {
	if m.State == s {
		return
	}
	m.State = s
	m.RecordState(d.now(), s)
	d.touchMachineLocked(m.VMID)
	if s != hypervisor.StateRunning {
		d.closeConsolesLocked(m.VMID, "machine "+string(s))
	}
}

// cloneMachine deep-copies a machine so that callers never share slices with the sim.
func cloneMachine(m hypervisor.Machine) hypervisor.Machine {
	c := m
	c.Disks = append([]hypervisor.Disk(nil), m.Disks...)
	c.BootOrder = append([]string(nil), m.BootOrder...)
	c.Interfaces = make([]hypervisor.Interface, len(m.Interfaces))
	for i, nic := range m.Interfaces {
		nic.IPAddresses = append([]string(nil), nic.IPAddresses...)
		c.Interfaces[i] = nic
	}
	return c
}

// invalid is shorthand for a 400 naming one field.
func invalid(field, format string, args ...any) error {
	return apierr.Invalid(apierr.Field(field, format, args...))
}
