package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// The simulated world in the store.
//
// A Driver attached to a store (Open, Attach) keeps its world there, under its own key
// prefix, like every other piece of vmplane's state:
//
//	sim/world                  seed, nodes (capacity and status), templates and the ISO storage
//	sim/vm/<vmid>              a machine: its config, power state, creation time, power
//	                           history (the usage graphs read it), firewall rules and
//	                           snapshots (each with the machine as it was then)
//	sim/backup/<vmid>/<id>     a backup with the machine config it restores
//
// What is derived is not stored: the vmid counter (the lowest free vmid, as Proxmox's
// /cluster/nextid), the MAC and address pools (the machines' own), the per-node
// committed memory. What is runtime only is not stored either: operation locks (an
// operation cut by a crash did not happen), consoles, injected failures, availability.
//
// Every changing call, test hooks included, is durable before it returns: the call
// changes the world in memory under d.mu, hands the records it changed to the store
// (Enqueue, still under d.mu, so the store writes them in the order they changed) and
// waits, outside d.mu, until they are fsynced. A failed write fails the call; its
// records stay marked and are written again with the next change.
//
// Why not in the same batch as vmplane's machine record: the actors write their record
// after the driver call returns, from the call's result, as they must for a real
// Proxmox, which has no batch to share. Durable-before-return gives the same promise:
// a driver call returns only once its change is on disk, so every API write made from
// its result (the task's outcome, the machine record) is written after it, and no
// acknowledged write describes a simulated machine that a crash forgets. (A reader that
// sees a change in the instant before it is durable, a sync, enqueues its own write
// after the sim's, and the store writes batches in the order they were enqueued.) A
// crash between the two writes leaves a machine in the simulated world that vmplane has
// no record of, which the next sync adopts, as it adopts a machine made in the Proxmox
// UI; the interrupted task is settled as failed at start, as on Proxmox.
//
// One world for a cluster (shared.go). On a shared store (Store.Shared: the etcd store
// of a cluster) every member runs its own driver on the same records, so the store,
// not memory, is the world; memory is each member's copy of it, kept level so:
//
//   - Followed: the driver watches the sim prefix (Store.Watch). The watch only marks
//     the records it names (another member's writes arrive a few ms after they were
//     acknowledged; this member's own are named too); the next call of the driver, any
//     call, first reads them with linearizable Gets and puts them into memory under
//     d.mu (a deleted record leaves memory). Past maxStale marked records, it reads
//     the whole world instead. No goroutine of its own: a driver nobody calls has
//     nothing to keep current.
//   - Exact where it must be: Machine reads the machine's record from the store, and
//     Inventory the world and every machine (one consistent scan), before answering
//     from memory under the same rules. A machine another member created, changed or
//     destroyed, and whose call returned, is therefore seen by the very next read on
//     any member: sync never takes a just-created machine for a missing one. Every
//     operation on a machine (run) reads it the same way before its checks, so a
//     member that took a machine over after its owner died starts from its current
//     state. Other reads (usage, backups, firewall rules, consoles, probes) use memory
//     as the watch left it: a few ms behind another member at worst.
//   - Never older: a read of the store may race this driver's own change of the same
//     record. Each read takes a ticket (d.ticket) before it asks the store, each own
//     change takes one too (ownChangeLocked), and a value is put into memory only if
//     no newer ticket touched its record since and no write of this member's to it is
//     under way (d.inflight; the record is marked to read again). The end of a write
//     takes a ticket too: a read that started while it was under way may have missed
//     it. So memory never loses this member's own change, not even for a moment.
//     Two reads racing another member's write may leave the older value in memory a
//     moment; the watch names that write after it landed, so the next call reads it.
//   - vmids claimed: Create (and AddMachine) writes its machine with IfAbsent on its
//     record, so two members creating at once never both get a vmid; the loser drops
//     its machine from memory, reads the winner's, and takes the next free vmid, up
//     to maxClaims times, as a Proxmox client retries /cluster/nextid. The vmid a
//     create picks before its delay is a hint: when memory has another member's
//     machine of that vmid by the time the clone is done (any call since read it),
//     the create takes the next free one then, without a try. A named vmid
//     that another member took fails with ErrVMIDInUse. The address of net0 is the
//     vmid's own place in the pool when free, so unique vmids give unique addresses.
//   - No cross-member operation locks: vmplane activates each machine's entity on one
//     member at a time, so operations on one machine come from one member. Except a
//     firewall push (SetFirewall), which takes no machine lock and comes from any
//     member. So every operation on a machine edits the record as stored, written
//     only if nobody wrote it since it was read (changeStored), and made again on the
//     new record otherwise: neither a push nor a task carries back a state its member
//     had not read yet. Test hooks called on two members at once and concurrent
//     SetNodeStatus calls write whole records: the last write wins.
//   - Started at once on an empty store, members race to write their world with
//     IfAbsent(sim/world) on every batch: one wins, the others read its world. A
//     world of more than one batch (batchOps records) should be made by one member
//     first, or a loser's first batches may overwrite the winner's machines.
//
// On a store that is not shared (Badger, single node) none of this runs: no watch,
// no reads of the store after Attach, no conditions on writes.

// KeyPrefix is the first part of every key the simulated world is stored under.
const KeyPrefix = "sim"

// Keys is the table of the keys the simulated world is stored under, all below
// KeyPrefix.
var Keys = []persistence.KeyKind{
	{Prefix: KeyPrefix, Holds: "sim/world, sim/vm/<vmid>, sim/backup/<vmid>/<id>: the simulated world, when it persists"},
}

// Schema versions of the stored records.
const (
	worldVersion   = 1
	machineVersion = 1
	backupVersion  = 1
)

// commitTimeout bounds the wait for the store. It is not the caller's context: once the
// world changed in memory, the write must land rather than be withdrawn.
const commitTimeout = time.Minute

// maxHistory bounds a machine's stored power history (about 35 bytes an entry, so a
// record stays far below the store's value limit). Past it the oldest quarter goes:
// usage graphs of a machine switched more than maxHistory times are quiet before the
// oldest change kept.
const maxHistory = 8192

func worldKey() []byte           { return persistence.Key(KeyPrefix, "world") }
func machineKey(vmid int) []byte { return persistence.Key(KeyPrefix, "vm", vmidPart(vmid)) }
func backupKey(vmid int, id string) []byte {
	return persistence.Key(KeyPrefix, "backup", vmidPart(vmid), id)
}

// vmidPart pads a vmid so that keys scan in vmid order.
func vmidPart(vmid int) string { return fmt.Sprintf("%010d", vmid) }

// worldRecord is sim/world.
type worldRecord struct {
	Seed      uint64                `json:"seed"`
	Nodes     []hypervisor.Node     `json:"nodes"`
	Templates []hypervisor.Template `json:"templates"`
	// ISOs is the ISO storage, shared by every node as a cluster's shared storage is.
	ISOs map[string]hypervisor.ISO `json:"isos,omitempty"`
}

// machineRecord is sim/vm/<vmid>.
type machineRecord struct {
	Machine   hypervisor.Machine `json:"machine"`
	CreatedAt time.Time          `json:"created_at"`
	History   []stateChange      `json:"history"`
	// Firewall is the rule set last pushed; absent when none ever was (an empty set
	// that was pushed is kept as []).
	Firewall *[]hypervisor.FirewallRule `json:"firewall,omitempty"`
	// Snapshots are the machine's snapshots in the order they were taken, each with
	// the machine as it was, and Parent the one the machine is at now: they live and
	// die with the machine's record, as they live in a Proxmox VM's config file, so an
	// operation on the machine reads and writes them in one conditional write.
	Snapshots []snapshotRecord `json:"snapshots,omitempty"`
	Parent    string           `json:"parent,omitempty"`
}

// snapshotRecord is one snapshot in a machine's record.
type snapshotRecord struct {
	Snapshot hypervisor.Snapshot `json:"snapshot"`
	// Config is the machine as it was when the snapshot was taken: what a rollback
	// brings back.
	Config hypervisor.Machine `json:"config"`
}

// machine is the machine a stored record describes.
func (rec *machineRecord) machine() *machine {
	return &machine{Machine: cloneMachine(rec.Machine), createdAt: rec.CreatedAt, history: rec.History,
		snapshots: rec.Snapshots, parent: rec.Parent}
}

// backupRecord is sim/backup/<vmid>/<id>.
type backupRecord struct {
	Backup hypervisor.Backup `json:"backup"`
	// Config is the machine as it was backed up: what a restore brings back.
	Config hypervisor.Machine `json:"config"`
	// Seq orders a machine's backups as they were taken.
	Seq uint64 `json:"seq"`
}

// MarshalJSON writes a state change as [unix_ns, "state"]: histories are long.
func (c stateChange) MarshalJSON() ([]byte, error) {
	b := append([]byte{'['}, strconv.FormatInt(c.at, 10)...)
	b = append(b, ',')
	s, err := json.Marshal(c.state)
	if err != nil {
		return nil, err
	}
	return append(append(b, s...), ']'), nil
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (c *stateChange) UnmarshalJSON(data []byte) error {
	var pair [2]json.RawMessage
	if err := json.Unmarshal(data, &pair); err != nil {
		return err
	}
	if err := json.Unmarshal(pair[0], &c.at); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &c.state)
}

// changes are the records changed in memory and not yet handed to the store.
type changes struct {
	world    bool
	machines map[int]bool
	backups  map[backupRef]bool
}

type backupRef struct {
	vmid int
	id   string
}

func (c *changes) empty() bool { return !c.world && len(c.machines) == 0 && len(c.backups) == 0 }

func (c *changes) merge(o changes) {
	c.world = c.world || o.world
	for vmid := range o.machines {
		c.touchMachine(vmid)
	}
	for b := range o.backups {
		c.touchBackup(b.vmid, b.id)
	}
}

func (c *changes) touchMachine(vmid int) {
	if c.machines == nil {
		c.machines = make(map[int]bool)
	}
	c.machines[vmid] = true
}

func (c *changes) touchBackup(vmid int, id string) {
	if c.backups == nil {
		c.backups = make(map[backupRef]bool)
	}
	c.backups[backupRef{vmid, id}] = true
}

// touchMachineLocked marks a machine's record changed. Without a store nothing is kept.
func (d *Driver) touchMachineLocked(vmid int) {
	if d.store != nil && vmid != 0 {
		d.dirty.touchMachine(vmid)
		d.ownChangeLocked(machineKey(vmid))
	}
}

// touchBackupLocked marks a backup's record changed.
func (d *Driver) touchBackupLocked(vmid int, id string) {
	if d.store != nil {
		d.dirty.touchBackup(vmid, id)
		d.ownChangeLocked(backupKey(vmid, id))
	}
}

// touchWorldLocked marks sim/world changed (nodes, templates, ISOs).
func (d *Driver) touchWorldLocked() {
	if d.store != nil {
		d.dirty.world = true
		d.ownChangeLocked(worldKey())
	}
}

// keys lists the store keys of a set of changed records.
func (c *changes) keys() []string {
	out := make([]string, 0, len(c.machines)+len(c.backups)+1)
	for vmid := range c.machines {
		out = append(out, string(machineKey(vmid)))
	}
	for b := range c.backups {
		out = append(out, string(backupKey(b.vmid, b.id)))
	}
	if c.world {
		out = append(out, string(worldKey()))
	}
	return out
}

// flush is a write handed to the store: what to wait for, and what it held, to mark
// again if it fails.
type flush struct {
	pending []*persistence.Pending
	err     error // a write that could not even be built
	held    changes
	// keys are the held records' keys on a shared store, counted in d.inflight until
	// the write's result is known.
	keys []string
	// claim is the vmid of a new machine whose write requires that no other member
	// has it (Driver.claim): on a condition failure the machine leaves memory.
	claim int
	// stored is the vmid of a machine whose write requires that the store still
	// holds the record the edit was made on (Driver.changeStored): on a failure the
	// record is not written again from memory, which may be older than the store,
	// but read again.
	stored int
}

// Bounds of one batch: a store transaction has a size limit (a share of Badger's
// memtable), and a whole world written at once (Attach to an empty store, with
// thousands of demo machines) must not hit it.
const (
	batchOps   = 256
	batchBytes = 512 << 10
)

// commitLocked hands every changed record to the store, in the state it is in now, and
// returns what to wait for; nil when there is no store or nothing changed. Records that
// no longer exist are deleted. Usually that is one batch; a large set is split, and the
// batches are enqueued in order. conds, when given, go on every batch: a batch whose
// conditions fail is not written (ErrConditionFailed).
func (d *Driver) commitLocked(conds ...persistence.Cond) *flush {
	if d.store == nil || d.dirty.empty() {
		return nil
	}
	held := d.dirty
	d.dirty = changes{}
	batches, err := d.batchesLocked(held)
	if err != nil {
		d.dirty.merge(held)
		return &flush{err: err, held: held}
	}
	f := &flush{held: held}
	if d.shared.Load() {
		f.keys = held.keys()
		for _, k := range f.keys {
			d.inflight[k]++
		}
	}
	for _, b := range batches {
		b.Conds = append(b.Conds, conds...)
		f.pending = append(f.pending, d.store.Enqueue(b, nil))
	}
	return f
}

// batchesLocked builds the writes of a set of changed records, in key order, the world
// last.
func (d *Driver) batchesLocked(c changes) ([]*persistence.Batch, error) {
	var (
		out  []*persistence.Batch
		size int
	)
	add := func(op persistence.Op) {
		n := len(op.Key) + len(op.Value)
		if len(out) == 0 || len(out[len(out)-1].Ops) >= batchOps || size+n > batchBytes {
			out = append(out, new(persistence.Batch))
			size = 0
		}
		b := out[len(out)-1]
		b.Ops = append(b.Ops, op)
		size += n
	}
	for _, vmid := range sortedKeys(c.machines) {
		m, ok := d.machines[vmid]
		if !ok {
			add(persistence.Op{Key: machineKey(vmid), Delete: true})
			continue
		}
		rec := machineRecord{Machine: m.Machine, CreatedAt: m.createdAt, History: m.history, Snapshots: m.snapshots, Parent: m.parent}
		if rules, ok := d.firewall[vmid]; ok {
			rec.Firewall = &rules
		}
		val, err := persistence.Encode(machineVersion, rec)
		if err != nil {
			return nil, err
		}
		add(persistence.Op{Key: machineKey(vmid), Value: val})
	}
	refs := make([]backupRef, 0, len(c.backups))
	for r := range c.backups {
		refs = append(refs, r)
	}
	slices.SortFunc(refs, func(a, b backupRef) int {
		if a.vmid != b.vmid {
			return a.vmid - b.vmid
		}
		return strings.Compare(a.id, b.id)
	})
	for _, r := range refs {
		i, err := d.backupIndexLocked(r.vmid, r.id)
		if err != nil {
			add(persistence.Op{Key: backupKey(r.vmid, r.id), Delete: true})
			continue
		}
		bk := d.backups[r.vmid][i]
		val, err := persistence.Encode(backupVersion, backupRecord{Backup: bk, Config: d.backupCfg[r.id], Seq: d.backupSeq[r.id]})
		if err != nil {
			return nil, err
		}
		add(persistence.Op{Key: backupKey(r.vmid, r.id), Value: val})
	}
	// The world goes last: a store has a world once sim/world exists, so a first write
	// split into batches and cut short by a crash leaves no half world behind (the
	// next start writes it again, see adopt).
	if c.world {
		val, err := persistence.Encode(worldVersion, d.worldLocked())
		if err != nil {
			return nil, err
		}
		add(persistence.Op{Key: worldKey(), Value: val})
	}
	return out, nil
}

func sortedKeys(m map[int]bool) []int { return slices.Sorted(maps.Keys(m)) }

// worldLocked is sim/world as it is now.
func (d *Driver) worldLocked() worldRecord {
	w := worldRecord{Seed: d.seed, Templates: d.templates, ISOs: d.isos}
	for _, n := range d.nodes {
		w.Nodes = append(w.Nodes, hypervisor.Node{ID: n.ID, Status: n.Status, CPUCores: n.CPUCores, MemoryMB: n.MemoryMB, DiskGB: n.DiskGB})
	}
	return w
}

// durable waits until a flush is on disk. On failure its records are marked changed
// again, so that the next write brings the store level with memory.
func (d *Driver) durable(f *flush) error {
	if f == nil {
		return nil
	}
	err := f.err
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
		for _, p := range f.pending {
			if perr := p.Wait(ctx); err == nil {
				err = perr
			}
		}
		cancel()
		if err != nil || len(f.keys) > 0 {
			d.mu.Lock()
			d.writtenLocked(f, err)
			d.mu.Unlock()
		}
	}
	if f.claim != 0 && persistence.IsConditionFailed(err) {
		return err // the caller takes another vmid (claimNew)
	}
	if err != nil {
		return fmt.Errorf("the simulated hypervisor could not save its state: %w", err)
	}
	return nil
}

// writtenLocked records the result of a write: its records are no longer in flight,
// and a failed write's records are marked changed again, except the new machine of a
// failed claim: another member has its vmid, or may have it by now (a write whose
// outcome is unknown), so writing it again without the claim's condition could
// overwrite that member's machine. It leaves memory, to be read from the store.
func (d *Driver) writtenLocked(f *flush, err error) {
	for _, k := range f.keys {
		if d.inflight[k]--; d.inflight[k] <= 0 {
			delete(d.inflight, k)
		}
		// A read that started before the write's result was known may have missed it.
		d.ownChangeLocked([]byte(k))
	}
	if err == nil {
		return
	}
	if f.claim != 0 {
		delete(f.held.machines, f.claim)
		d.forgetMachineLocked(f.claim)
	}
	if f.stored != 0 {
		delete(f.held.machines, f.stored)
		d.markStale(string(machineKey(f.stored)))
	}
	d.dirty.merge(f.held)
}

// change runs fn under d.mu and makes what it changed durable before returning. fn's
// own error comes first; whatever fn changed before failing is written all the same.
func (d *Driver) change(fn func() error) error { return d.changeIf(nil, fn) }

// changeIf is change whose write requires conds (see commitLocked).
func (d *Driver) changeIf(conds []persistence.Cond, fn func() error) error {
	d.catchUp()
	d.mu.Lock()
	err := fn()
	f := d.commitLocked(conds...)
	d.mu.Unlock()
	if derr := d.durable(f); err == nil {
		err = derr
	}
	return err
}

// Attach makes store the home of a driver's world: if the store holds a world (from an
// earlier run on the same data directory) it replaces the driver's (open consoles are
// hung up), and restored is true; otherwise the driver's world is written to it. A
// restored world keeps its machines with their power states, disks, interfaces,
// firewall rules, backups and usage histories, the nodes and their status, the
// templates and the seed: the Config's Seed, Nodes, NodeCores, NodeMemoryMB,
// NodeDiskGB, Templates and Machines shape only a new world; OpDelay and Now apply
// either way. From then on every change is durable in store before the call that made it
// returns. Attaching again (a restarted server on the same driver) moves the world to
// the new store.
func (d *Driver) Attach(ctx context.Context, store persistence.Store) (restored bool, err error) {
	d.follow(store)
	restored, err = d.load(ctx, store)
	if err != nil || restored {
		return restored, err
	}
	err = d.adopt(ctx, store)
	if persistence.IsConditionFailed(err) {
		// Another member wrote its world first (shared store): that one is the
		// cluster's.
		return d.load(ctx, store)
	}
	return false, err
}

// Restored reports whether the driver's world was read from a store rather than made
// from its Config.
func (d *Driver) Restored() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.restored
}

// adopt writes the whole world to a store that has none and keeps the store. Records
// a first write cut short left behind (machines and backups without a world) are
// deleted unless the world has them.
func (d *Driver) adopt(ctx context.Context, store persistence.Store) error {
	var stale changes
	err := store.Scan(ctx, persistence.Prefix(KeyPrefix), nil, 0, func(k, _ []byte) error {
		parts := strings.Split(string(k), "/")
		if len(parts) < 3 {
			return nil
		}
		vmid, err := strconv.Atoi(parts[2])
		switch {
		case err != nil:
		case parts[1] == "vm" && len(parts) == 3:
			stale.touchMachine(vmid)
		case parts[1] == "backup" && len(parts) == 4:
			stale.touchBackup(vmid, parts[3])
		}
		return nil
	})
	if err != nil {
		return err
	}
	// On a shared store several members may start at once on an empty store: the
	// first world written wins, the others read it (Attach).
	var conds []persistence.Cond
	if store.Shared() {
		conds = append(conds, persistence.IfAbsent(worldKey()))
	}
	return d.changeIf(conds, func() error {
		d.store = store
		d.restored = false
		d.dirty = stale
		d.dirty.world = true
		for vmid := range d.machines {
			d.dirty.touchMachine(vmid)
		}
		for vmid, list := range d.backups {
			for _, b := range list {
				d.dirty.touchBackup(vmid, b.ID)
			}
		}
		return nil
	})
}

// load reads the world from store into the driver; false when the store has none.
func (d *Driver) load(ctx context.Context, store persistence.Store) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, hypervisor.ContextError(err)
	}
	var world worldRecord
	val, err := store.Get(ctx, worldKey())
	if errors.Is(err, persistence.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := decode(val, worldVersion, &world, "world"); err != nil {
		return false, err
	}
	if len(world.Nodes) == 0 {
		return false, corrupt("the stored world has no nodes")
	}
	nodes := make(map[string]bool, len(world.Nodes))
	for _, n := range world.Nodes {
		nodes[n.ID] = true
	}
	machines := make(map[int]*machine)
	firewall := make(map[int][]hypervisor.FirewallRule)
	err = store.Scan(ctx, persistence.Prefix(KeyPrefix, "vm"), nil, 0, func(k, v []byte) error {
		var rec machineRecord
		if err := decode(v, machineVersion, &rec, string(k)); err != nil {
			return err
		}
		if rec.Machine.VMID < minVMID || rec.Machine.VMID > maxVMID || machines[rec.Machine.VMID] != nil {
			return corrupt("%s holds vmid %d", k, rec.Machine.VMID)
		}
		if !nodes[rec.Machine.Node] {
			return corrupt("machine %d is on node %q, which the stored world does not have", rec.Machine.VMID, rec.Machine.Node)
		}
		machines[rec.Machine.VMID] = rec.machine()
		if rec.Firewall != nil {
			firewall[rec.Machine.VMID] = *rec.Firewall
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	type loaded struct {
		vmid int
		rec  backupRecord
	}
	var backups []loaded
	err = store.Scan(ctx, persistence.Prefix(KeyPrefix, "backup"), nil, 0, func(k, v []byte) error {
		var rec backupRecord
		if err := decode(v, backupVersion, &rec, string(k)); err != nil {
			return err
		}
		backups = append(backups, loaded{rec.Backup.VMID, rec})
		return nil
	})
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, hypervisor.ContextError(err)
	}
	slices.SortStableFunc(backups, func(a, b loaded) int {
		switch {
		case a.rec.Seq < b.rec.Seq:
			return -1
		case a.rec.Seq > b.rec.Seq:
			return 1
		}
		return 0
	})

	d.mu.Lock()
	defer d.mu.Unlock()
	for vmid := range d.consoles {
		d.closeConsolesLocked(vmid, "hypervisor state reloaded")
	}
	d.seed = world.Seed
	d.usage = usageModel{seed: world.Seed}
	d.templates, d.isos = world.Templates, world.ISOs
	d.nodes = d.nodes[:0]
	for _, n := range world.Nodes {
		d.nodes = append(d.nodes, &node{Node: n})
	}
	d.machines = make(map[int]*machine, len(machines))
	d.committed = make(map[string]int)
	d.macs = make(map[string]bool)
	d.ips = newIPPool()
	d.vmidHint = minVMID
	for _, vmid := range slices.Sorted(maps.Keys(machines)) {
		d.registerLocked(machines[vmid])
	}
	d.firewall = firewall
	d.backups = make(map[int][]hypervisor.Backup)
	d.backupCfg = make(map[string]hypervisor.Machine)
	d.backupSeq = make(map[string]uint64)
	d.nextBackupSeq = 0
	for _, b := range backups {
		d.backups[b.vmid] = append(d.backups[b.vmid], b.rec.Backup)
		d.backupCfg[b.rec.Backup.ID] = b.rec.Config
		d.backupSeq[b.rec.Backup.ID] = b.rec.Seq
		d.nextBackupSeq = max(d.nextBackupSeq, b.rec.Seq+1)
	}
	d.store = store
	d.dirty = changes{}
	d.restored = true
	return true, nil
}

// registerLocked puts a stored machine back as it was: unlike insertLocked it changes
// nothing about it, it only claims what it holds.
func (d *Driver) registerLocked(m *machine) {
	for _, nic := range m.Interfaces {
		d.macs[nic.MAC] = true
		for _, ip := range nic.IPAddresses {
			d.ips.mark(ip)
		}
	}
	d.machines[m.VMID] = m
	d.committed[m.Node] += m.MemoryMB
}

// decode reads one stored record, refusing one a newer vmplane wrote.
func decode(val []byte, known uint16, v any, what string) error {
	version, err := persistence.Decode(val, v)
	if err != nil {
		return fmt.Errorf("simulated world, %s: %w", what, err)
	}
	if version > known {
		return corrupt("%s has schema version %d; this vmplane reads up to %d (written by a newer vmplane?)", what, version, known)
	}
	return nil
}

func corrupt(format string, args ...any) error {
	return apierr.New(apierr.ErrInternal, "simulated world: "+format, args...)
}
