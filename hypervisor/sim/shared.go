package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
	"github.com/vmplane/vmplane/persistence"
)

// One simulated cluster shared by the members of a vmplane cluster: how a driver on a
// shared store (Store.Shared) keeps its world level with the other members' writes.
// persist.go's comment has the design; this file has the machinery.

// maxClaims bounds the vmids a create tries when other members take each one first, as
// a Proxmox client bounds its retries of /cluster/nextid.
const maxClaims = 32

// follow makes the driver follow the writes other members make to store's simulated
// world: the store's watch names each changed record, and the next call reads it. A
// store that is not shared has no other writer, and nothing is followed. The watch of
// an earlier store (a driver attached again) falls silent.
func (d *Driver) follow(store persistence.Store) {
	gen := d.watchGen.Add(1)
	d.stale.Take() // what an earlier store's watch named
	shared := store.Shared()
	d.shared.Store(shared)
	if !shared {
		return
	}
	store.Watch(persistence.Prefix(KeyPrefix), func(key []byte) {
		if d.watchGen.Load() == gen {
			d.stale.Mark(string(key))
		}
	})
}

// ownChangeLocked records that this driver changed a record: a read of the store that
// started before the change must not bring the older value back (applyLocked).
func (d *Driver) ownChangeLocked(key []byte) {
	if d.shared.Load() {
		d.ticket++
		d.keyTicket[string(key)] = d.ticket
	}
}

// catchUp reads the records the watch named since the last call into memory. Every
// call that reads or changes the world does it first on a shared store (Ping, which
// reads nothing of it, does not); a read that fails leaves them
// marked, for the next call, and the call goes on with what memory holds (a write it
// makes fails the same way).
func (d *Driver) catchUp() {
	if !d.shared.Load() {
		return
	}
	d.mu.Lock()
	attached := d.store != nil
	d.mu.Unlock()
	if !attached { // Attach is reading the world: what the watch names waits for it
		return
	}
	keys, all := d.stale.Take()
	// Catching up is the driver's own work, not the caller's: bounded as its writes are.
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	var err error
	switch {
	case all:
		err = d.refreshAll(ctx, true)
	case len(keys) > 0:
		err = d.refreshKeys(ctx, keys...)
	default:
		return
	}
	if err != nil {
		if all {
			d.stale.MarkAll()
		} else {
			d.stale.Mark(keys...)
		}
	}
}

// readTicket is the ticket of a read of the store about to start, and the store.
func (d *Driver) readTicket() (uint64, persistence.Store) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ticket++
	return d.ticket, d.store
}

// refreshKeys reads records from the store (linearizable reads: they see every write
// any member acknowledged) and brings memory level with them.
func (d *Driver) refreshKeys(ctx context.Context, keys ...string) error {
	t, store := d.readTicket()
	if store == nil {
		return nil
	}
	got, err := world.Read(ctx, store, keys...)
	if err != nil {
		return readError(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range got {
		if err := d.applyLocked(t, f); err != nil {
			return err
		}
	}
	return nil
}

// refreshAll reads the world, every machine and, with backups, every backup from the
// store (one consistent scan each) and brings memory level with them: what the store
// no longer has leaves memory.
func (d *Driver) refreshAll(ctx context.Context, backups bool) error {
	t, store := d.readTicket()
	if store == nil {
		return nil
	}
	got, seen, err := world.ReadAll(ctx, store, backups)
	if err != nil {
		return readError(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, vmid := range d.machines.VMIDs() {
		if k := string(world.MachineKey(vmid)); !seen[k] {
			got = append(got, world.Fetched{Key: k})
		}
	}
	if backups {
		for vmid, list := range d.backups {
			for _, b := range list {
				if k := string(world.BackupKey(vmid, b.ID)); !seen[k] {
					got = append(got, world.Fetched{Key: k})
				}
			}
		}
	}
	for _, f := range got {
		if err := d.applyLocked(t, f); err != nil {
			return err
		}
	}
	return nil
}

// applyLocked puts a record read from the store with ticket t into memory, unless
// memory already holds something newer: this driver's own change made after the read
// started, or a read that started later; or a write of this driver's is under way,
// whose value the read may predate (the record is marked to be read again).
func (d *Driver) applyLocked(t uint64, f world.Fetched) error {
	if d.inflight[f.Key] > 0 {
		d.stale.Mark(f.Key)
		return nil
	}
	if d.keyTicket[f.Key] >= t {
		return nil
	}
	d.keyTicket[f.Key] = t
	return d.putFetchedLocked(f)
}

// putFetchedLocked puts a record read from the store into memory, whatever memory
// holds (applyLocked decides whether it may).
func (d *Driver) putFetchedLocked(f world.Fetched) error {
	r, err := f.Decode()
	if err != nil {
		return err
	}
	switch r.Kind {
	case world.KindWorld:
		if r.World != nil { // a world is never deleted
			d.putWorldLocked(*r.World)
		}
	case world.KindMachine:
		d.putMachineLocked(r.VMID, r.Machine)
	case world.KindBackup:
		d.putBackupLocked(r.VMID, r.ID, r.Backup)
	}
	return nil
}

// putWorldLocked takes another member's nodes and templates. The seed is the world's
// and never changes.
func (d *Driver) putWorldLocked(w world.World) {
	d.templates, d.isos = w.Templates, w.ISOs
	for _, n := range w.Nodes {
		cur := d.nodeLocked(n.ID)
		if cur == nil {
			d.nodes = append(d.nodes, &node{Node: n})
			continue
		}
		if cur.Status == hypervisor.NodeOnline && n.Status != hypervisor.NodeOnline {
			d.closeNodeConsolesLocked(n.ID, "node offline")
		}
		cur.Node = n
	}
}

// putMachineLocked replaces a machine in memory with its stored record (nil: it no
// longer exists), changing nothing about it: it only gives up what the old one held
// and claims what the new one holds. Consoles of a machine another member stopped,
// moved or removed are hung up.
func (d *Driver) putMachineLocked(vmid int, rec *world.Machine) {
	old, _ := d.machines.Get(vmid)
	if old != nil {
		d.releaseInterfacesLocked(old)
		d.committed[old.Node] -= old.MemoryMB
		d.machines.Remove(vmid)
		delete(d.firewall, vmid)
	}
	if rec == nil {
		if old != nil {
			d.closeConsolesLocked(vmid, "machine removed")
			d.vmidHint = min(d.vmidHint, vmid)
		}
		return
	}
	m := machineFrom(rec)
	if old != nil && (m.State != hypervisor.StateRunning || m.Node != old.Node) {
		d.closeConsolesLocked(vmid, "machine "+string(m.State))
	}
	d.registerLocked(m)
	if rec.Firewall != nil {
		d.firewall[vmid] = *rec.Firewall
	}
}

// forgetMachineLocked drops a machine this driver failed to claim (another member
// has its vmid) and marks its record to be read.
func (d *Driver) forgetMachineLocked(vmid int) {
	d.putMachineLocked(vmid, nil)
	d.stale.Mark(string(world.MachineKey(vmid)))
}

// putBackupLocked replaces a backup in memory with its stored record (nil: it no
// longer exists), keeping the machine's backups in the order they were taken.
func (d *Driver) putBackupLocked(vmid int, id string, rec *world.Backup) {
	if i, err := d.backupIndexLocked(vmid, id); err == nil {
		list := d.backups[vmid]
		d.backups[vmid] = append(list[:i:i], list[i+1:]...)
		if len(d.backups[vmid]) == 0 {
			delete(d.backups, vmid)
		}
	}
	delete(d.backupCfg, id)
	delete(d.backupSeq, id)
	if rec == nil {
		return
	}
	list := d.backups[vmid]
	at := sort.Search(len(list), func(i int) bool { return d.backupSeq[list[i].ID] > rec.Seq })
	d.backups[vmid] = slices.Insert(list, at, rec.Backup)
	d.backupCfg[id] = rec.Config
	d.backupSeq[id] = rec.Seq
	d.nextBackupSeq = max(d.nextBackupSeq, rec.Seq+1)
}

// exactMachine brings one machine level with the store before a call reads or changes
// it: on a shared store another member may have changed it a moment ago.
func (d *Driver) exactMachine(ctx context.Context, vmid int) error {
	if !d.shared.Load() || vmid == 0 {
		return nil
	}
	d.catchUp()
	return d.refreshKeys(ctx, string(world.MachineKey(vmid)))
}

// exactWorld brings the nodes and every machine level with the store before a call
// lists them.
func (d *Driver) exactWorld(ctx context.Context) error {
	if !d.shared.Load() {
		return nil
	}
	d.catchUp()
	return d.refreshAll(ctx, false)
}

// claim runs insert, which adds a new machine under d.mu and returns its vmid, and
// makes the change durable. On a shared store the write requires that the store has
// no machine of that vmid: when another member wrote one first, the machine leaves
// memory and claim returns persistence.ErrConditionFailed.
func (d *Driver) claim(insert func() (int, error)) (int, error) {
	d.mu.Lock()
	vmid, err := insert()
	var f *flush
	if err == nil && d.shared.Load() {
		if f = d.commitLocked(persistence.IfAbsent(world.MachineKey(vmid))); f != nil {
			f.claim = vmid
		}
	} else {
		f = d.commitLocked()
	}
	d.mu.Unlock()
	if derr := d.durable(f); err == nil {
		err = derr
	}
	return vmid, err
}

// claimNew is claim with the retries of an automatic vmid: when another member took
// the vmid first, its machine is read from the store and pick (which chooses the next
// free vmid itself) runs, up to maxClaims times. A nil pick means the caller named the
// vmid: then the call fails with ErrVMIDInUse.
func (d *Driver) claimNew(ctx context.Context, insert, pick func() (int, error)) error {
	for tries := 1; ; tries++ {
		vmid, err := d.claim(insert)
		if !persistence.IsConditionFailed(err) {
			return err
		}
		if pick == nil {
			return hypervisor.NewError(hypervisor.ErrVMIDInUse, "vmid %d already exists", vmid)
		}
		if tries == maxClaims {
			return hypervisor.NewError(hypervisor.ErrVMIDInUse, "no free vmid after %d tries: other members took each one first", tries)
		}
		if err := d.refreshKeys(ctx, string(world.MachineKey(vmid))); err != nil {
			return err
		}
		d.catchUp()
		insert = pick
	}
}

// changeStored is change for an operation on one machine. Two members may edit one
// machine's record at once: the one that runs its tasks, and any member pushing its
// firewall (SetFirewall takes no machine lock: Proxmox lets rules change while a task
// runs). Written from memory, the whole record would take back the other member's
// change this one had not read yet. So on a shared store the record is read from
// the store, put into memory as read, edited by fn, and written only if the store
// still holds what was read (IfValue, or IfAbsent); when another write came first,
// the edit is made again on the record now stored, up to maxClaims times. vmid 0 is
// the world record (the ISO storage), which two members' imports edit alike.
func (d *Driver) changeStored(ctx context.Context, vmid int, fn func() error) error {
	if !d.shared.Load() {
		return d.change(fn)
	}
	key := string(world.MachineKey(vmid))
	if vmid == 0 {
		key = string(world.WorldKey())
	}
	for tries := 1; ; tries++ {
		d.catchUp()
		t, store := d.readTicket()
		if store == nil {
			return d.change(fn)
		}
		val, err := store.Get(ctx, []byte(key))
		found := err == nil
		if err != nil && !errors.Is(err, persistence.ErrNotFound) {
			return readError(err)
		}
		d.mu.Lock()
		if d.inflight[key] > 0 {
			// A write of this member's own is under way: what was read may lack it,
			// and memory must not lose it. Read again once it landed.
			d.mu.Unlock()
			if tries == maxClaims {
				if vmid == 0 {
					return hypervisor.NewError(hypervisor.ErrLocked, "the simulated cluster's storage is being written; try again")
				}
				return hypervisor.NewError(hypervisor.ErrLocked, "machine %d is being written; try again", vmid)
			}
			if err := pause(ctx); err != nil {
				return err
			}
			continue
		}
		d.keyTicket[key] = max(d.keyTicket[key], t)
		if err := d.putFetchedLocked(world.Fetched{Key: key, Val: val, Found: found}); err != nil {
			d.mu.Unlock()
			return err
		}
		err = fn()
		cond := persistence.IfAbsent([]byte(key))
		if found {
			cond = persistence.IfValue([]byte(key), val)
		}
		f := d.commitLocked(cond)
		if f != nil {
			f.stored, f.storedWorld = vmid, vmid == 0
		}
		d.mu.Unlock()
		derr := d.durable(f)
		switch {
		case err != nil:
			return err
		case persistence.IsConditionFailed(derr) && tries < maxClaims:
			continue
		}
		return derr
	}
}

// pause waits a moment for a write of this member's own to land, or until ctx ends.
func pause(ctx context.Context) error { return sleep(ctx, time.Millisecond) }

// readError is the error of a call that could not read the shared world.
func readError(err error) error {
	return fmt.Errorf("the simulated hypervisor could not read its state: %w", err)
}
