package world

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// TestWorldWriteLoadFigures writes a world of VMPLANE_BENCH_WORLD_MACHINES machines
// (skipped when unset) to a Badger store in each form and reads it back with Load,
// logging the time of each and the heap the loaded world holds: the figures of
// BENCHMARKS.md's issue 33 for the compact record.
//
//	VMPLANE_BENCH_WORLD_MACHINES=100000 go test -run TestWorldWriteLoadFigures -v ./hypervisor/sim/world
func TestWorldWriteLoadFigures(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("VMPLANE_BENCH_WORLD_MACHINES"))
	if n <= 0 {
		t.Skip("VMPLANE_BENCH_WORLD_MACHINES unset")
	}
	for _, compact := range []bool{false, true} {
		store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		nodes := []hypervisor.Node{{ID: "pve1"}, {ID: "pve2"}, {ID: "pve3"}}
		start := time.Now()
		b := Batches{Compact: compact}
		bytes := 0
		flush := func() {
			for _, batch := range b.Batches() {
				for _, op := range batch.Ops {
					bytes += len(op.Value)
				}
				if err := store.Commit(bg, batch); err != nil {
					t.Fatal(err)
				}
			}
			b = Batches{Compact: compact}
		}
		for i := range n {
			rec := sampleMachine(100+i, nodes[i%3].ID)
			if err := b.PutMachine(rec.Machine.VMID, rec); err != nil {
				t.Fatal(err)
			}
			if (i+1)%4096 == 0 {
				flush()
			}
		}
		if err := b.PutWorld(World{Seed: 1, Nodes: nodes}); err != nil {
			t.Fatal(err)
		}
		flush()
		write := time.Since(start)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start = time.Now()
		var ms []*Machine
		l, err := Load(bg, store, func(int) bool { return true }, func(m *Machine) error {
			ms = append(ms, m)
			return nil
		})
		if err != nil || l == nil || len(ms) != n {
			t.Fatalf("loaded %d machines, %v; want %d", len(ms), err, n)
		}
		load := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&after)
		t.Logf("compact=%v machines=%d: write %v (%d bytes of records), load %v, heap held by the loaded world %d MB (allocated while loading %d MB)",
			compact, n, write.Round(time.Millisecond), bytes, load.Round(time.Millisecond),
			(int64(after.HeapAlloc)-int64(before.HeapAlloc))>>20, (after.TotalAlloc-before.TotalAlloc)>>20)
		runtime.KeepAlive(l)
		runtime.KeepAlive(ms)
		store.Close()
	}
}

var bg = context.Background()

// sampleMachine is a machine as the simulated world makes them: a disk, an interface
// with an address, a short power history.
func sampleMachine(vmid int, node string) *Machine {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(vmid) * time.Second)
	return &Machine{
		Machine: hypervisor.Machine{
			VMID: vmid, Name: fmt.Sprintf("vm-%d", vmid), Node: node, State: hypervisor.StateRunning,
			CPUCores: 2, MemoryMB: 2048,
			Disks: []hypervisor.Disk{{ID: "scsi0", Storage: "local-lvm", SizeGB: 20}},
			Interfaces: []hypervisor.Interface{{ID: "net0", MAC: fmt.Sprintf("BC:24:11:%02X:%02X:%02X", vmid>>16&255, vmid>>8&255, vmid&255),
				Bridge: "vmbr0", Firewall: true, IPAddresses: []string{fmt.Sprintf("10.%d.%d.%d", vmid>>16&255, vmid>>8&255, vmid&255)}}},
			TemplateID: "ubuntu-24.04",
		},
		CreatedAt: at,
		History:   []Change{{At: at.UnixNano(), State: hypervisor.StateRunning}},
	}
}
