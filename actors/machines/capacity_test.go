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
	if got, err := s.Nodes.Place(ctx, need, ""); err != nil || got != "b" {
		t.Fatalf("place: got %q, %v; want b (a has 4096 MB given out)", got, err)
	}
	// Written after the sums were built: the watch names it.
	seed("m2", "b", 6144)
	if got, err := s.Nodes.Place(ctx, need, ""); err != nil || got != "a" {
		t.Fatalf("place after m2: got %q, %v; want a", got, err)
	}
	if got, err := s.Nodes.Place(ctx, need, "b"); err != nil || got != "b" {
		t.Fatalf("place bound to b: got %q, %v; want b (1 fits)", got, err)
	}
	alloc, err := s.Machines.Allocated(ctx)
	if err != nil || alloc["a"] != (capacity.Size{CPUCores: 1, MemoryMB: 4096, DiskGB: 10}) || alloc["b"] != (capacity.Size{CPUCores: 1, MemoryMB: 6144, DiskGB: 10}) {
		t.Fatalf("allocated: got %v, %v", alloc, err)
	}
	_, err = s.Nodes.Place(ctx, capacity.Size{CPUCores: 1, MemoryMB: 8192, DiskGB: 10}, "")
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
