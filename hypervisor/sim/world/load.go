package world

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/vmplane/vmplane/persistence"
)

// Loaded is a whole world read from the store, but for its machines, which Load
// hands to its caller one by one.
type Loaded struct {
	World World
	// Backups are the backups' records in the order they were taken (Seq).
	Backups []Backup
}

// Load reads the whole world from store; nil when the store has none. Each machine's
// record is handed to keep as it is read, in ascending vmid order, and is keep's to
// take: a million machines are never held twice, as records and as what the caller
// makes of them. A world that contradicts itself (no nodes, a machine on a node it does
// not have, a record under another vmid's key or of a vmid validVMID refuses) is an
// error, not a world; so is keep's error. Either may come after keep took some
// machines, which the caller then drops.
func Load(ctx context.Context, store persistence.Store, validVMID func(int) bool, keep func(*Machine) error) (*Loaded, error) {
	var l Loaded
	val, err := store.Get(ctx, WorldKey())
	if errors.Is(err, persistence.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := decode(val, WorldVersion, &l.World, "world"); err != nil {
		return nil, err
	}
	if len(l.World.Nodes) == 0 {
		return nil, Corrupt("the stored world has no nodes")
	}
	nodes := make(map[string]bool, len(l.World.Nodes))
	for _, n := range l.World.Nodes {
		nodes[n.ID] = true
	}
	err = store.Scan(ctx, persistence.Prefix(KeyPrefix, "vm"), nil, 0, func(k, v []byte) error {
		var rec Machine
		if err := decodeMachine(v, &rec, string(k)); err != nil {
			return err
		}
		// Under its own key (so no vmid comes twice, and the keys' order is the vmids').
		if !validVMID(rec.Machine.VMID) || !bytes.Equal(k, MachineKey(rec.Machine.VMID)) {
			return Corrupt("%s holds vmid %d", k, rec.Machine.VMID)
		}
		if !nodes[rec.Machine.Node] {
			return Corrupt("machine %d is on node %q, which the stored world does not have", rec.Machine.VMID, rec.Machine.Node)
		}
		return keep(&rec)
	})
	if err != nil {
		return nil, err
	}
	err = store.Scan(ctx, persistence.Prefix(KeyPrefix, "backup"), nil, 0, func(k, v []byte) error {
		var rec Backup
		if err := decode(v, BackupVersion, &rec, string(k)); err != nil {
			return err
		}
		l.Backups = append(l.Backups, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(l.Backups, func(a, b Backup) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	return &l, nil
}

// Present lists the machine and backup records store holds, as Changes: what a first
// write must delete unless the world it writes has them.
func Present(ctx context.Context, store persistence.Store) (Changes, error) {
	var c Changes
	err := store.Scan(ctx, persistence.Prefix(KeyPrefix), nil, 0, func(k, _ []byte) error {
		switch kind, vmid, id := ParseKey(string(k)); kind {
		case KindMachine:
			c.TouchMachine(vmid)
		case KindBackup:
			c.TouchBackup(vmid, id)
		}
		return nil
	})
	return c, err
}
