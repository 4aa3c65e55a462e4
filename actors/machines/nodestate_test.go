package machines

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/persistence"
)

// listAll pages through ListWhere with pages of two, as a client does, and answers
// the ids in order.
func listAll(t *testing.T, ctx context.Context, s *testSystem, w Where) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for range 1000 {
		page, next, err := s.Machines.ListWhere(ctx, cursor, 2, w)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page {
			ids = append(ids, m.ID)
		}
		if next == "" {
			return ids
		}
		cursor = next
	}
	t.Fatal("the list does not end")
	return nil
}

// scanned is what a scan of every record answers for w: what the index must answer.
func scanned(t *testing.T, ctx context.Context, s *testSystem, w Where) []string {
	t.Helper()
	ms, _, err := s.Machines.List(ctx, "", 0, w.Match)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids
}

// writeRaw writes machine records the way a member of an earlier release does: the
// records and their tenant index, without the node/state index.
func writeRaw(t *testing.T, ctx context.Context, s *testSystem, ms ...Machine) {
	t.Helper()
	b := new(persistence.Batch)
	for _, m := range ms {
		val, err := persistence.Encode(recordVersion, &record{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		b.Put(machineKey(m.ID), val)
		if m.TenantID != nil {
			b.Put(tenantKey(*m.TenantID, m.ID), tenantIndexValue(&record{Machine: m}))
		}
	}
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
}

// keys checks that the index has a state key and a node key for each of n machines.
func keys(t *testing.T, ctx context.Context, s *testSystem, n int) {
	t.Helper()
	for _, kind := range []string{"vm-state", "vm-node"} {
		got := 0
		if err := s.store.Scan(ctx, persistence.Prefix(kind), nil, 0, func([]byte, []byte) error { got++; return nil }); err != nil || got != n {
			t.Errorf("%d %s keys, %v; want one a machine, %d", got, kind, err, n)
		}
	}
}

// The filtered lists answer, through the node/state index, what a scan of every
// record answers: for a store written before the index (or by a member of an earlier
// release) only once the index was built, and for every write after it (a machine
// that changes state or node, one deleted) at once.
func TestNodeStateIndexAnswersAsTheScan(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var all atomic.Bool
	var lacking atomic.Uint64
	s := newTestSystem(t, func(o *testOptions) {
		o.Maintained = func(string) (bool, uint64) { return all.Load(), lacking.Load() }
	})
	// A member of an earlier release runs: the index is not trusted, and stays unbuilt.
	if err := s.Machines.nodeState.Check(ctx); err != nil {
		t.Fatal(err)
	}
	tenant := "T"
	var ms []Machine
	for i := range 12 {
		m := Machine{ID: persistence.NewID(), VMID: 100 + i, Name: fmt.Sprintf("m%d", i), Node: []string{"pve1", "pve2", "pve3"}[i%3],
			Status: []string{StatusRunning, StatusStopped, StatusRunning, StatusError}[i%4]}
		if i%2 == 0 {
			m.TenantID = &tenant
		}
		if i == 11 {
			m.Location = "fra" // node pve3 of another location: pve3@fra
		}
		ms = append(ms, m)
	}
	writeRaw(t, ctx, s, ms...)
	filters := []Where{{Status: StatusRunning}, {Status: StatusError}, {Status: StatusSuspended}, {Node: "pve2"},
		{Node: "pve3"}, {Node: capacity.NodeID("fra", "pve3")}, {Node: "pve1", Status: StatusStopped},
		{Tenant: &tenant, Status: StatusRunning}, {Name: "m4", Node: "pve2"}}
	check := func(when string) {
		t.Helper()
		for _, w := range filters {
			if got, want := listAll(t, ctx, s, w), scanned(t, ctx, s, w); !slices.Equal(got, want) {
				t.Errorf("%s: %+v listed %v; a scan finds %v", when, w, got, want)
			}
		}
		// The insights' rebuild (InStatus) reads through the index too.
		for _, st := range []string{StatusError, StatusRunning, StatusStopped} {
			in, err := s.Machines.InStatus(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			got := slices.Sorted(maps.Keys(in))
			if want := scanned(t, ctx, s, Where{Status: st}); !slices.Equal(got, want) {
				t.Errorf("%s: InStatus(%s) = %v; a scan finds %v", when, st, got, want)
			}
		}
	}
	if ok, err := s.Machines.nodeState.Trusted(ctx); err != nil || ok {
		t.Fatalf("index trusted: %v, %v while a member does not keep it", ok, err)
	}
	check("before the index")

	// Every member keeps it now: the job builds it from the records, and lists use it.
	all.Store(true)
	if err := s.Machines.nodeState.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Machines.nodeState.Trusted(ctx); err != nil || !ok {
		t.Fatalf("index trusted: %v, %v after its build", ok, err)
	}
	keys(t, ctx, s, len(ms))
	check("after the build")

	// Writes through the entities keep it: a state change, a move, a delete.
	for _, c := range []struct {
		id     string
		status string
		node   string
	}{{ms[0].ID, StatusStopped, ""}, {ms[1].ID, "", "pve1"}} {
		e := &machineEntity{sys: s.Machines.sys, ms: s.Machines, id: c.id}
		if err := e.Load(); err != nil {
			t.Fatal(err)
		}
		next := *e.rec
		if c.status != "" {
			next.Status = c.status
		}
		if c.node != "" {
			next.Node = c.node
		}
		if err := e.save(&next, nil, "test"); err != nil {
			t.Fatal(err)
		}
	}
	e := &machineEntity{sys: s.Machines.sys, ms: s.Machines, id: ms[3].ID}
	if err := e.Load(); err != nil {
		t.Fatal(err)
	}
	e.vanish(time.Now())
	check("after writes")

	// A member of an earlier release comes and goes between two runs of the job,
	// moving a machine without the index: the index is not trusted until rebuilt.
	lacking.Add(1)
	moved := ms[5]
	moved.Status = StatusSuspended
	writeRaw(t, ctx, s, moved)
	if ok, err := s.Machines.nodeState.Trusted(ctx); err != nil || ok {
		t.Fatalf("index trusted: %v, %v after a member that does not keep it came", ok, err)
	}
	check("while not trusted")
	if err := s.Machines.nodeState.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Machines.nodeState.Trusted(ctx); err != nil || !ok {
		t.Fatalf("index trusted: %v, %v after its rebuild", ok, err)
	}
	check("after the rebuild")
	keys(t, ctx, s, len(ms)-1) // the stale key of the machine moved is gone
	if got := listAll(t, ctx, s, Where{Status: StatusSuspended}); !slices.Equal(got, []string{moved.ID}) {
		t.Errorf("suspended: %v; want the machine the earlier release moved, %s", got, moved.ID)
	}
}
