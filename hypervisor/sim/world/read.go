package world

import (
	"bytes"
	"context"
	"errors"

	"github.com/vmplane/vmplane/persistence"
)

// Fetched is one record read from the store; Found is false when it does not exist.
type Fetched struct {
	Key   string
	Val   []byte
	Found bool
}

// Record is a fetched record decoded: its kind, the vmid and backup id its key names,
// and the record itself (nil when it does not exist, or is of another kind).
type Record struct {
	Kind    Kind
	VMID    int
	ID      string
	World   *World
	Machine *Machine
	Backup  *Backup
}

// Decode reads a fetched record. A key of no kind the world knows is KindNone.
func (f Fetched) Decode() (Record, error) {
	kind, vmid, id := ParseKey(f.Key)
	r := Record{Kind: kind, VMID: vmid, ID: id}
	if !f.Found {
		return r, nil
	}
	switch kind {
	case KindWorld:
		r.World = new(World)
		return r, decode(f.Val, WorldVersion, r.World, "world")
	case KindMachine:
		r.Machine = new(Machine)
		if err := decodeMachine(f.Val, r.Machine, f.Key); err != nil {
			return r, err
		}
		if r.Machine.Machine.VMID != vmid {
			return r, Corrupt("%s holds vmid %d", f.Key, r.Machine.Machine.VMID)
		}
	case KindBackup:
		r.Backup = new(Backup)
		return r, decode(f.Val, BackupVersion, r.Backup, f.Key)
	}
	return r, nil
}

// Read reads records from the store (linearizable reads on a shared store: they see
// every write any member acknowledged); a missing one is fetched as not Found.
func Read(ctx context.Context, store persistence.Store, keys ...string) ([]Fetched, error) {
	got := make([]Fetched, 0, len(keys))
	for _, k := range keys {
		v, err := store.Get(ctx, []byte(k))
		switch {
		case errors.Is(err, persistence.ErrNotFound):
			got = append(got, Fetched{Key: k})
		case err != nil:
			return nil, err
		default:
			got = append(got, Fetched{Key: k, Val: v, Found: true})
		}
	}
	return got, nil
}

// ReadAll reads the world, every machine and, with backups, every backup from the
// store, one consistent scan each. Only records that exist are fetched; seen holds
// their keys.
func ReadAll(ctx context.Context, store persistence.Store, backups bool) (got []Fetched, seen map[string]bool, err error) {
	if v, err := store.Get(ctx, WorldKey()); err == nil {
		got = append(got, Fetched{Key: string(WorldKey()), Val: v, Found: true})
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return nil, nil, err
	}
	prefixes := [][]byte{persistence.Prefix(KeyPrefix, "vm")}
	if backups {
		prefixes = append(prefixes, persistence.Prefix(KeyPrefix, "backup"))
	}
	seen = make(map[string]bool)
	for _, p := range prefixes {
		err := store.Scan(ctx, p, nil, 0, func(k, v []byte) error {
			got = append(got, Fetched{Key: string(k), Val: bytes.Clone(v), Found: true})
			seen[string(k)] = true
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return got, seen, nil
}
