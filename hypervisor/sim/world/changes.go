package world

import (
	"maps"
	"slices"
	"strings"

	"github.com/vmplane/vmplane/persistence"
)

// Changes are the records changed in memory and not yet handed to the store.
type Changes struct {
	World    bool
	Machines map[int]bool
	Backups  map[BackupRef]bool
}

// BackupRef names a backup's record.
type BackupRef struct {
	VMID int
	ID   string
}

// Empty reports whether nothing changed.
func (c *Changes) Empty() bool { return !c.World && len(c.Machines) == 0 && len(c.Backups) == 0 }

// Merge adds o's records.
func (c *Changes) Merge(o Changes) {
	c.World = c.World || o.World
	for vmid := range o.Machines {
		c.TouchMachine(vmid)
	}
	for b := range o.Backups {
		c.TouchBackup(b.VMID, b.ID)
	}
}

// TouchMachine marks a machine's record changed.
func (c *Changes) TouchMachine(vmid int) {
	if c.Machines == nil {
		c.Machines = make(map[int]bool)
	}
	c.Machines[vmid] = true
}

// TouchBackup marks a backup's record changed.
func (c *Changes) TouchBackup(vmid int, id string) {
	if c.Backups == nil {
		c.Backups = make(map[BackupRef]bool)
	}
	c.Backups[BackupRef{vmid, id}] = true
}

// Keys lists the store keys of the changed records.
func (c *Changes) Keys() []string {
	out := make([]string, 0, len(c.Machines)+len(c.Backups)+1)
	for vmid := range c.Machines {
		out = append(out, string(MachineKey(vmid)))
	}
	for b := range c.Backups {
		out = append(out, string(BackupKey(b.VMID, b.ID)))
	}
	if c.World {
		out = append(out, string(WorldKey()))
	}
	return out
}

// SortedMachines lists the changed machines in vmid order.
func (c *Changes) SortedMachines() []int { return slices.Sorted(maps.Keys(c.Machines)) }

// SortedBackups lists the changed backups in key order.
func (c *Changes) SortedBackups() []BackupRef {
	refs := make([]BackupRef, 0, len(c.Backups))
	for r := range c.Backups {
		refs = append(refs, r)
	}
	slices.SortFunc(refs, func(a, b BackupRef) int {
		if a.VMID != b.VMID {
			return a.VMID - b.VMID
		}
		return strings.Compare(a.ID, b.ID)
	})
	return refs
}

// BatchOps and BatchBytes bound one batch: a store transaction has a size limit (a share of Badger's
// memtable), and a whole world written at once (Attach to an empty store, with
// thousands of demo machines) must not hit it.
const (
	BatchOps   = 256
	BatchBytes = 512 << 10
)

// Batches are the writes of a set of changed records, split so that no batch passes
// BatchOps records or BatchBytes bytes.
type Batches struct {
	// Compact writes machine records in the compact form (CompactMachineVersion):
	// set on a store that is not shared, where no older member reads them.
	Compact bool
	out     []*persistence.Batch
	size    int
}

func (b *Batches) add(op persistence.Op) {
	n := len(op.Key) + len(op.Value)
	if len(b.out) == 0 || len(b.out[len(b.out)-1].Ops) >= BatchOps || b.size+n > BatchBytes {
		b.out = append(b.out, new(persistence.Batch))
		b.size = 0
	}
	last := b.out[len(b.out)-1]
	last.Ops = append(last.Ops, op)
	b.size += n
}

// PutMachine writes a machine's record; nil deletes it.
func (b *Batches) PutMachine(vmid int, rec *Machine) error {
	if rec == nil {
		b.add(persistence.Op{Key: MachineKey(vmid), Delete: true})
		return nil
	}
	var val []byte
	var err error
	if b.Compact {
		val, err = encodeCompact(rec)
	} else {
		val, err = persistence.Encode(MachineVersion, *rec)
	}
	if err != nil {
		return err
	}
	b.add(persistence.Op{Key: MachineKey(vmid), Value: val})
	return nil
}

// PutBackup writes a backup's record; nil deletes it.
func (b *Batches) PutBackup(vmid int, id string, rec *Backup) error {
	if rec == nil {
		b.add(persistence.Op{Key: BackupKey(vmid, id), Delete: true})
		return nil
	}
	val, err := persistence.Encode(BackupVersion, *rec)
	if err != nil {
		return err
	}
	b.add(persistence.Op{Key: BackupKey(vmid, id), Value: val})
	return nil
}

// PutWorld writes sim/world.
func (b *Batches) PutWorld(w World) error {
	val, err := persistence.Encode(WorldVersion, w)
	if err != nil {
		return err
	}
	b.add(persistence.Op{Key: WorldKey(), Value: val})
	return nil
}

// Batches are the writes, in the order they were put.
func (b *Batches) Batches() []*persistence.Batch { return b.out }
