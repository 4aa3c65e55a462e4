package world

import (
	"errors"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Load hands the machines over in ascending vmid order, each once; a record under
// another vmid's key (the same vmid twice, or a key out of the vmids' order) or on a
// node the world does not have makes the world corrupt, and keep's error ends it.
func TestLoadHandsMachinesOver(t *testing.T) {
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	put := func(key []byte, rec *Machine, compact bool) {
		t.Helper()
		b := Batches{Compact: compact}
		if err := b.PutMachine(rec.Machine.VMID, rec); err != nil {
			t.Fatal(err)
		}
		if err := b.PutWorld(World{Seed: 1, Nodes: []hypervisor.Node{{ID: "pve1"}, {ID: "pve2"}}}); err != nil {
			t.Fatal(err)
		}
		for _, batch := range b.Batches() {
			for i, op := range batch.Ops {
				if string(op.Key) == string(MachineKey(rec.Machine.VMID)) {
					batch.Ops[i].Key = key
				}
			}
			if err := store.Commit(bg, batch); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, vmid := range []int{1000, 101, 250} {
		put(MachineKey(vmid), sampleMachine(vmid, "pve1"), vmid%2 == 0)
	}
	var got []int
	load := func() error {
		got = got[:0]
		_, err := Load(bg, store, func(v int) bool { return v >= 100 }, func(m *Machine) error {
			got = append(got, m.Machine.VMID)
			return nil
		})
		return err
	}
	if err := load(); err != nil || len(got) != 3 || got[0] != 101 || got[1] != 250 || got[2] != 1000 {
		t.Fatalf("loaded %v, %v; want 101, 250, 1000", got, err)
	}
	for _, c := range []struct {
		name string
		key  []byte
		rec  *Machine
		want string
	}{
		{"vmid 250 again, under 300's key", MachineKey(300), sampleMachine(250, "pve2"), "holds vmid 250"},
		{"vmid 99, refused", MachineKey(99), sampleMachine(99, "pve1"), "holds vmid 99"},
		{"on a node the world lacks", MachineKey(400), sampleMachine(400, "pve9"), `node "pve9"`},
	} {
		put(c.key, c.rec, false)
		if err := load(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a corrupt world naming %q", c.name, err, c.want)
		}
		if err := store.Commit(bg, new(persistence.Batch).Del(c.key)); err != nil {
			t.Fatal(err)
		}
	}
	stop := Corrupt("stop")
	if _, err := Load(bg, store, func(int) bool { return true }, func(*Machine) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("keep's error: got %v; want it returned", err)
	}
}
