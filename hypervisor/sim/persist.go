package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
	"github.com/vmplane/vmplane/hypervisor/sim/netpool"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
	"github.com/vmplane/vmplane/persistence"
)

// The simulated world in the store.
//
// A Driver attached to a store (Open, Attach) keeps its world there, under its own key
// prefix, like every other piece of vmplane's state (sim/world, sim/vm/<vmid>,
// sim/backup/<vmid>/<id>: package world has the layout, the records and what is not
// stored).
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

// KeyPrefix is the first part of every key the simulated world is stored under
// (package world has the layout).
const KeyPrefix = world.KeyPrefix

// commitTimeout bounds the wait for the store. It is not the caller's context: once the
// world changed in memory, the write must land rather than be withdrawn.
const commitTimeout = time.Minute

// machineFrom is the machine a stored record describes. The record was just decoded
// and is the driver's from here on: its slices are taken, not copied (a restart of a
// million machines copied 170 MB of them only to drop the originals).
func machineFrom(rec *world.Machine) *fleet.Machine {
	return &fleet.Machine{Machine: rec.Machine, CreatedAt: rec.CreatedAt, History: rec.History,
		Snapshots: rec.Snapshots, Parent: rec.Parent}
}

// touchMachineLocked marks a machine's record changed. Without a store nothing is kept.
func (d *Driver) touchMachineLocked(vmid int) {
	if d.store != nil && vmid != 0 {
		d.dirty.TouchMachine(vmid)
		d.ownChangeLocked(world.MachineKey(vmid))
	}
}

// touchBackupLocked marks a backup's record changed.
func (d *Driver) touchBackupLocked(vmid int, id string) {
	if d.store != nil {
		d.dirty.TouchBackup(vmid, id)
		d.ownChangeLocked(world.BackupKey(vmid, id))
	}
}

// touchWorldLocked marks sim/world changed (nodes, templates, ISOs).
func (d *Driver) touchWorldLocked() {
	if d.store != nil {
		d.dirty.World = true
		d.ownChangeLocked(world.WorldKey())
	}
}

// flush is a write handed to the store: what to wait for, and what it held, to mark
// again if it fails.
type flush struct {
	pending []*persistence.Pending
	err     error // a write that could not even be built
	held    world.Changes
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
	// storedWorld is stored's for the world record (Driver.changeStored with vmid 0).
	storedWorld bool
}

// commitLocked hands every changed record to the store, in the state it is in now, and
// returns what to wait for; nil when there is no store or nothing changed. Records that
// no longer exist are deleted. Usually that is one batch; a large set is split, and the
// batches are enqueued in order. conds, when given, go on every batch: a batch whose
// conditions fail is not written (ErrConditionFailed).
func (d *Driver) commitLocked(conds ...persistence.Cond) *flush {
	if d.store == nil || d.dirty.Empty() {
		return nil
	}
	held := d.dirty
	d.dirty = world.Changes{}
	batches, err := d.batchesLocked(held)
	if err != nil {
		d.dirty.Merge(held)
		return &flush{err: err, held: held}
	}
	f := &flush{held: held}
	if d.shared.Load() {
		f.keys = held.Keys()
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
func (d *Driver) batchesLocked(c world.Changes) ([]*persistence.Batch, error) {
	b := world.Batches{Compact: !d.shared.Load()}
	for _, vmid := range c.SortedMachines() {
		m, ok := d.machines.Peek(vmid) // a packed machine's view: encoded before the next
		if !ok {
			if err := b.PutMachine(vmid, nil); err != nil {
				return nil, err
			}
			continue
		}
		rec := world.Machine{Machine: m.Machine, CreatedAt: m.CreatedAt, History: m.History, Snapshots: m.Snapshots, Parent: m.Parent}
		if rules, ok := d.firewall[vmid]; ok {
			rec.Firewall = &rules
		}
		if err := b.PutMachine(vmid, &rec); err != nil {
			return nil, err
		}
	}
	for _, r := range c.SortedBackups() {
		var rec *world.Backup
		if i, err := d.backupIndexLocked(r.VMID, r.ID); err == nil {
			rec = &world.Backup{Backup: d.backups[r.VMID][i], Config: d.backupCfg[r.ID], Seq: d.backupSeq[r.ID]}
		}
		if err := b.PutBackup(r.VMID, r.ID, rec); err != nil {
			return nil, err
		}
	}
	// The world goes last: a store has a world once sim/world exists, so a first write
	// split into batches and cut short by a crash leaves no half world behind (the
	// next start writes it again, see adopt).
	if c.World {
		if err := b.PutWorld(d.worldLocked()); err != nil {
			return nil, err
		}
	}
	return b.Batches(), nil
}

// worldLocked is sim/world as it is now.
func (d *Driver) worldLocked() world.World {
	w := world.World{Seed: d.seed, Templates: d.templates, ISOs: d.isos}
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
		err = f.wait()
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
		delete(f.held.Machines, f.claim)
		d.forgetMachineLocked(f.claim)
	}
	if f.stored != 0 {
		delete(f.held.Machines, f.stored)
		d.stale.Mark(string(world.MachineKey(f.stored)))
	}
	if f.storedWorld {
		f.held.World = false
		d.stale.Mark(string(world.WorldKey()))
	}
	d.dirty.Merge(f.held)
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
	d.mu.Lock()
	n := d.unseeded
	d.unseeded = 0
	d.mu.Unlock()
	d.seedDemoMachines(n)
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
	stale, err := world.Present(ctx, store)
	if err != nil {
		return err
	}
	// On a shared store several members may start at once on an empty store: the
	// first world written wins, the others read it (Attach).
	var conds []persistence.Cond
	if store.Shared() {
		conds = append(conds, persistence.IfAbsent(world.WorldKey()))
	}
	return d.changeIf(conds, func() error {
		d.adoptLocked(store, stale)
		return nil
	})
}

// adoptLocked makes store the driver's and marks its whole world to write there, and
// stale, the records a cut-short first write left, to delete.
func (d *Driver) adoptLocked(store persistence.Store, stale world.Changes) {
	d.store = store
	d.restored = false
	d.dirty = stale
	d.dirty.World = true
	for _, vmid := range d.machines.VMIDs() {
		d.dirty.TouchMachine(vmid)
	}
	for vmid, list := range d.backups {
		for _, b := range list {
			d.dirty.TouchBackup(vmid, b.ID)
		}
	}
}

// AttachInBackground is Attach for a server that serves at once: the world is read from
// store (or made and written there) by a goroutine, and every call of the driver but
// Ping waits for it, blocked on the driver's lock, which is taken before this returns.
// A million machines take tens of seconds to read or write; meanwhile the health check
// answers, the API serves what the store holds, and the sync waits for the world
// instead of seeing none. done receives Attach's result, then is closed. A shared
// store (a cluster's) is attached before this returns: members race there to write
// the first world, which Attach settles.
func (d *Driver) AttachInBackground(ctx context.Context, store persistence.Store) (done <-chan AttachResult) {
	out := make(chan AttachResult, 1)
	if store.Shared() {
		restored, err := d.Attach(ctx, store)
		out <- AttachResult{Restored: restored, Err: err}
		close(out)
		return out
	}
	d.follow(store)
	d.mu.Lock()
	go func() {
		defer close(out)
		restored, err := d.attachHeld(ctx, store)
		out <- AttachResult{Restored: restored, Err: err}
	}()
	return out
}

// AttachResult is the outcome of AttachInBackground: Attach's results.
type AttachResult struct {
	Restored bool
	Err      error
}

// attachHeld is Attach on a store that is not shared, called with d.mu held, which it
// releases once the world is in memory (before a new world's write has landed, which
// the calls after it wait for as they wait for their own).
func (d *Driver) attachHeld(ctx context.Context, store persistence.Store) (restored bool, err error) {
	locked := true
	defer func() {
		if locked {
			d.mu.Unlock()
		}
	}()
	l, err := readStoredWorld(ctx, store)
	if err != nil {
		return false, err
	}
	if l != nil {
		d.installLocked(store, l)
		return true, nil
	}
	n := d.unseeded
	d.unseeded = 0
	d.seedDemoMachinesLocked(n)
	stale, err := world.Present(ctx, store)
	if err != nil {
		return false, err
	}
	d.adoptLocked(store, stale)
	// The machines in chunks, each durable before the next is encoded: a million
	// machines' records built at once were 0.5 GB held until the last was written.
	// The world goes last, as in every first write (batchesLocked).
	all := d.dirty
	d.dirty = world.Changes{World: all.World, Backups: all.Backups}
	vmids := all.SortedMachines()
	for len(vmids) > 0 {
		var c world.Changes
		for _, vmid := range vmids[:min(len(vmids), firstWriteChunk)] {
			c.TouchMachine(vmid)
		}
		vmids = vmids[len(c.Machines):]
		held := d.dirty
		d.dirty = c
		f := d.commitLocked()
		d.dirty.Merge(held)
		// Waited for with d.mu held (durable takes it on a failure): no call
		// writes meanwhile, so the world record cannot land before the machines.
		if err := f.wait(); err != nil {
			d.writtenLocked(f, err)
			for _, vmid := range vmids { // written again with the next change
				d.dirty.TouchMachine(vmid)
			}
			return false, fmt.Errorf("the simulated hypervisor could not save its state: %w", err)
		}
	}
	f := d.commitLocked()
	d.mu.Unlock()
	locked = false
	return false, d.durable(f)
}

// wait waits for a flush's batches and returns the first error.
func (f *flush) wait() (err error) {
	if f.err != nil {
		return f.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	for _, p := range f.pending {
		if perr := p.Wait(ctx); err == nil {
			err = perr
		}
	}
	return err
}

// firstWriteChunk is how many machine records a new world's first write encodes and
// writes at a time.
const firstWriteChunk = 4096

// load reads the world from store into the driver; false when the store has none.
func (d *Driver) load(ctx context.Context, store persistence.Store) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, hypervisor.ContextError(err)
	}
	l, err := readStoredWorld(ctx, store)
	if err != nil || l == nil {
		return false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.installLocked(store, l)
	return true, nil
}

// storedWorld is a world read from the store, its machines made as they were read.
type storedWorld struct {
	*world.Loaded
	machines *fleet.Fleet // packed where they fit
	firewall map[int][]hypervisor.FirewallRule
}

// readStoredWorld reads a stored world; nil when the store has none. Each record
// becomes its machine, packed where it fits (fleet), as it is read, so that a restart
// never holds a million records, nor a million machines in their full form.
func readStoredWorld(ctx context.Context, store persistence.Store) (*storedWorld, error) {
	w := &storedWorld{machines: fleet.New(), firewall: map[int][]hypervisor.FirewallRule{}}
	l, err := world.Load(ctx, store, func(vmid int) bool { return vmid >= minVMID && vmid <= maxVMID },
		func(rec *world.Machine) error {
			w.machines.PutPacked(machineFrom(rec))
			if rec.Firewall != nil {
				w.firewall[rec.Machine.VMID] = *rec.Firewall
			}
			return nil
		})
	if err != nil || l == nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, hypervisor.ContextError(err)
	}
	w.Loaded = l
	return w, nil
}

// installLocked makes a world read from store the driver's.
func (d *Driver) installLocked(store persistence.Store, l *storedWorld) {
	for vmid := range d.consoles {
		d.closeConsolesLocked(vmid, "hypervisor state reloaded")
	}
	for vmid := range d.displays {
		d.closeConsolesLocked(vmid, "hypervisor state reloaded")
	}
	d.seed = l.World.Seed
	d.usage = usageModel{seed: l.World.Seed}
	d.templates, d.isos = l.World.Templates, l.World.ISOs
	d.nodes = d.nodes[:0]
	for _, n := range l.World.Nodes {
		d.nodes = append(d.nodes, &node{Node: n})
	}
	d.machines = l.machines
	d.committed = make(map[string]int)
	// The pool's bitmap sized for the stored world at once, rather than grown step by
	// step while a million machines' addresses are claimed.
	d.macs = netpool.MACs{}
	d.ips = netpool.Pool{}
	d.ips.Reserve(d.machines.Len())
	d.vmidHint = minVMID
	d.machines.Each(d.claimLocked)
	d.firewall = l.firewall
	d.backups = make(map[int][]hypervisor.Backup)
	d.backupCfg = make(map[string]hypervisor.Machine)
	d.backupSeq = make(map[string]uint64)
	d.nextBackupSeq = 0
	for _, rec := range l.Backups {
		vmid := rec.Backup.VMID
		d.backups[vmid] = append(d.backups[vmid], rec.Backup)
		d.backupCfg[rec.Backup.ID] = rec.Config
		d.backupSeq[rec.Backup.ID] = rec.Seq
		d.nextBackupSeq = max(d.nextBackupSeq, rec.Seq+1)
	}
	d.store = store
	d.dirty = world.Changes{}
	d.restored = true
}

// registerLocked puts a stored machine back as it was: unlike insertLocked it changes
// nothing about it, it only claims what it holds.
func (d *Driver) registerLocked(m *fleet.Machine) {
	d.machines.Put(m)
	d.claimLocked(m)
}

// claimLocked claims what a machine holds: its MACs, its addresses, its node's memory.
func (d *Driver) claimLocked(m *fleet.Machine) {
	for _, nic := range m.Interfaces {
		d.macs.Add(nic.MAC)
		for _, ip := range nic.IPAddresses {
			d.ips.Mark(ip)
		}
	}
	d.committed[m.Node] += m.MemoryMB
}
