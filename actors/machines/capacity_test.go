package machines

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// TestPlaceTakesTheNodeWithTheMostRoom: a create that names no node goes to the node
// with the most room by the arithmetic (machines already placed counted, one written
// after the first read too), a template bound to one node goes there, and when none
// has room the answer is 409 insufficient_capacity.
func TestPlaceTakesTheNodeWithTheMostRoom(t *testing.T) {
	s := newTestSystem(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, n := range []hypervisor.Node{
		{ID: "a", Status: hypervisor.NodeOnline, CPUCores: 8, MemoryMB: 8192, DiskGB: 100},
		{ID: "b", Status: hypervisor.NodeOnline, CPUCores: 8, MemoryMB: 8192, DiskGB: 100},
		{ID: "c", Status: hypervisor.NodeOffline, CPUCores: 64, MemoryMB: 65536, DiskGB: 1000},
	} {
		if _, err := s.Nodes.Observe(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	seed := func(id, node string, mem int) {
		t.Helper()
		b := new(persistence.Batch)
		if err := Seed(b, Machine{ID: id, Name: id, Node: node, CPUCores: 1, MemoryMB: mem, DiskGB: 10, Status: StatusRunning}); err != nil {
			t.Fatal(err)
		}
		if err := s.store.Commit(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	need := capacity.Size{CPUCores: 1, MemoryMB: 2048, DiskGB: 10}
	seed("m1", "a", 4096)
	if got, err := s.Nodes.Place(ctx, "", need, ""); err != nil || got.Node != "b" || got.Name != "b" {
		t.Fatalf("place: got %+v, %v; want b (a has 4096 MB given out)", got, err)
	}
	// Written after the sums were built: the watch names it.
	seed("m2", "b", 6144)
	if got, err := s.Nodes.Place(ctx, "", need, ""); err != nil || got.Node != "a" {
		t.Fatalf("place after m2: got %+v, %v; want a", got, err)
	}
	if got, err := s.Nodes.Place(ctx, "", need, "b"); err != nil || got.Node != "b" {
		t.Fatalf("place bound to b: got %+v, %v; want b (1 fits)", got, err)
	}
	alloc, err := s.Machines.Allocated(ctx)
	if err != nil || alloc["a"] != (capacity.Size{CPUCores: 1, MemoryMB: 4096, DiskGB: 10}) || alloc["b"] != (capacity.Size{CPUCores: 1, MemoryMB: 6144, DiskGB: 10}) {
		t.Fatalf("allocated: got %v, %v", alloc, err)
	}
	_, err = s.Nodes.Place(ctx, "", capacity.Size{CPUCores: 1, MemoryMB: 8192, DiskGB: 10}, "")
	if !errors.Is(err, apierr.ErrInsufficientCapacity) {
		t.Fatalf("place of 8192 MB: got %v; want insufficient_capacity (c is offline)", err)
	}
	// A machine deleted gives its room back.
	if err := s.store.Commit(ctx, new(persistence.Batch).Del(machineKey("m2"))); err != nil {
		t.Fatal(err)
	}
	if alloc, err := s.Machines.Allocated(ctx); err != nil || alloc["b"] != (capacity.Size{}) {
		t.Fatalf("allocated after a delete: got %v, %v; want b empty", alloc, err)
	}
}

// putNode writes a node record as the sync of its location writes it: its id
// (capacity.NodeID) across locations, its name in the location, and the location.
func putNode(t *testing.T, ctx context.Context, store persistence.Store, n capacity.Node) {
	t.Helper()
	val, err := persistence.Encode(capacity.NodeVersion, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, new(persistence.Batch).Put(capacity.NodeKey(n.ID), val)); err != nil {
		t.Fatal(err)
	}
}

// TestPlaceStaysInItsLocation: node names repeat across locations (every cluster
// has its pve1); placement offers only the nodes of the create's location, a machine's
// allocation counts on the node of its own location (its record holds the node's name
// there), and a location without nodes on record leaves the choice to the driver.
func TestPlaceStaysInItsLocation(t *testing.T) {
	s := newTestSystem(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	online := string(hypervisor.NodeOnline)
	putNode(t, ctx, s.store, capacity.Node{ID: "pve1", Name: "pve1", Status: online, CPUCores: 8, MemoryMB: 8192})
	putNode(t, ctx, s.store, capacity.Node{ID: "pve1@fra", Name: "pve1", Location: "fra", Status: online, CPUCores: 8, MemoryMB: 8192})
	putNode(t, ctx, s.store, capacity.Node{ID: "pve2@fra", Name: "pve2", Location: "fra", Status: online, CPUCores: 8, MemoryMB: 4096})
	b := new(persistence.Batch)
	// 6 GB of fra's pve1 given out: pve2 (4 GB free) has more room there now.
	if err := Seed(b, Machine{ID: "m1", Name: "m1", Node: "pve1", Location: "fra", CPUCores: 1, MemoryMB: 6144, DiskGB: 10, Status: StatusRunning}); err != nil {
		t.Fatal(err)
	}
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	need := capacity.Size{CPUCores: 1, MemoryMB: 1024, DiskGB: 10}
	if got, err := s.Nodes.Place(ctx, "fra", need, ""); err != nil || got.Node != "pve2@fra" || got.Name != "pve2" || got.Location != "fra" {
		t.Fatalf("place in fra: got %+v, %v; want pve2@fra", got, err)
	}
	if got, err := s.Nodes.Place(ctx, "", need, ""); err != nil || got.Node != "pve1" || got.Fits != 8 {
		t.Fatalf("place in the default location: got %+v, %v; want pve1 with nothing given out", got, err)
	}
	if got, err := s.Nodes.Place(ctx, "ams", need, ""); err != nil || got.Node != "" {
		t.Fatalf("place in a location without nodes: got %+v, %v; want none", got, err)
	}
	alloc, err := s.Machines.Allocated(ctx)
	if err != nil || alloc["pve1@fra"].MemoryMB != 6144 || alloc["pve1"].MemoryMB != 0 {
		t.Fatalf("allocated: got %v, %v; want m1 on pve1@fra", alloc, err)
	}
	rooms, err := s.Nodes.Rooms(ctx, "fra", need)
	if err != nil || len(rooms) != 2 || rooms[0].Fits != 2 || rooms[1].Fits != 4 {
		t.Fatalf("rooms of fra: got %+v, %v", rooms, err)
	}
	for loc, want := range map[string]int{"": 0, "fra": 1, "ams": 0} {
		if n, err := s.Machines.CountLocation(ctx, loc); err != nil || n != want {
			t.Errorf("machines of %q: got %d, %v; want %d", loc, n, err, want)
		}
	}
}

// TestCountPlan counts the machines whose record names a plan.
func TestCountPlan(t *testing.T) {
	s := newTestSystem(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b := new(persistence.Batch)
	plan := "P1"
	for i, p := range []*string{&plan, &plan, nil} {
		id := string(rune('a' + i))
		if err := Seed(b, Machine{ID: id, Name: id, PlanID: p}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Machines.CountPlan(ctx, "P1"); err != nil || n != 2 {
		t.Fatalf("got %d, %v; want 2", n, err)
	}
}
