package plans

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// testSystem is the plans over the machines, on a runtime of their own.
type testSystem struct {
	*machines.Services
	store persistence.Store
	Plans *Plans
}

func newTestSystem(t *testing.T) *testSystem {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rt := kit.New(store, nil, kit.EntityOptions{})
	ev := events.New()
	al := alerts.Start(alerts.Deps{Runtime: rt, Events: ev})
	ms := machines.Start(machines.Deps{Runtime: rt, Events: ev, Alerts: al,
		TenantExists: func(context.Context, string) error { return nil }})
	s := &testSystem{Services: ms, store: store, Plans: Start(Deps{Runtime: rt, Machines: ms.Machines, Nodes: ms.Nodes})}
	t.Cleanup(func() {
		ms.Machines.Stop()
		rt.Shutdown()
		ev.Close()
		store.Close()
	})
	return s
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func small() PlanSpec {
	return PlanSpec{Name: "Small", CPUCores: 1, MemoryMB: 1024, DiskGB: 20}
}

// TestPlanLifecycle: a plan is created with its defaults (one IPv4 address, every
// template, no bounds), read, listed, changed (a null clears a field) and deleted.
func TestPlanLifecycle(t *testing.T) {
	s := newTestSystem(t)
	ctx := ctxFor(t)
	p, err := s.Plans.Create(ctx, small())
	if err != nil {
		t.Fatal(err)
	}
	if p.IPv4 != 1 || p.IPv6Prefix != nil || p.Backups != nil || p.AllowedTemplates == nil || len(p.AllowedTemplates) != 0 || p.CreatedAt.IsZero() {
		t.Fatalf("defaults: got %+v", p)
	}
	got, err := s.Plans.Get(ctx, p.ID)
	if err != nil || got.Name != "Small" {
		t.Fatalf("get: got %+v, %v", got, err)
	}
	list, next, err := s.Plans.List(ctx, nil, "", 10)
	if err != nil || len(list) != 1 || next != "" {
		t.Fatalf("list: got %v %q %v", list, next, err)
	}
	snaps := 3
	up, err := s.Plans.Update(ctx, p.ID, PlanChange{MemoryMB: kit.Ptr(2048), Snapshots: &snaps, IPv6Prefix: kit.Ptr(64),
		AllowedTemplates: []string{"tpl-debian-12"}}, nil)
	if err != nil || up.MemoryMB != 2048 || up.CPUCores != 1 || *up.Snapshots != 3 || *up.IPv6Prefix != 64 || !up.Allows("tpl-debian-12", "") || up.Allows("tpl-rocky-9", "Rocky") {
		t.Fatalf("update: got %+v, %v", up, err)
	}
	up, err = s.Plans.Update(ctx, p.ID, PlanChange{}, map[string]bool{"snapshots": true, "allowed_templates": true})
	if err != nil || up.Snapshots != nil || up.IPv6Prefix == nil || len(up.AllowedTemplates) != 0 {
		t.Fatalf("update with nulls: got %+v, %v", up, err)
	}
	if err := s.Plans.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Plans.Get(ctx, p.ID); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("get after delete: got %v; want not found", err)
	}
	// Its name is free again.
	if _, err := s.Plans.Create(ctx, small()); err != nil {
		t.Fatalf("create again: %v", err)
	}
}

// TestPlanNamesAreUnique: a taken name, in any case, is a 409; a rename frees the
// old name.
func TestPlanNamesAreUnique(t *testing.T) {
	s := newTestSystem(t)
	ctx := ctxFor(t)
	p, err := s.Plans.Create(ctx, small())
	if err != nil {
		t.Fatal(err)
	}
	other := small()
	other.Name = " SMALL "
	if _, err := s.Plans.Create(ctx, other); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("create of a taken name: got %v; want 409", err)
	}
	other.Name = "Large"
	q, err := s.Plans.Create(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Plans.Update(ctx, q.ID, PlanChange{Name: kit.Ptr("small")}, nil); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("rename to a taken name: got %v; want 409", err)
	}
	if _, err := s.Plans.Update(ctx, p.ID, PlanChange{Name: kit.Ptr("Tiny")}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Plans.Update(ctx, q.ID, PlanChange{Name: kit.Ptr("Small")}, nil); err != nil {
		t.Fatalf("rename to the freed name: %v", err)
	}
	// The plan's own name in another case is not taken by itself.
	if _, err := s.Plans.Update(ctx, q.ID, PlanChange{Name: kit.Ptr("SMALL")}, nil); err != nil {
		t.Fatalf("rename to its own name in capitals: %v", err)
	}
}

// TestPlanBounds: every field is checked against its bound, whoever calls.
func TestPlanBounds(t *testing.T) {
	s := newTestSystem(t)
	ctx := ctxFor(t)
	for field, mutate := range map[string]func(*PlanSpec){
		"name":                 func(p *PlanSpec) { p.Name = " " },
		"cpu_cores":            func(p *PlanSpec) { p.CPUCores = machines.MaxCores + 1 },
		"memory_mb":            func(p *PlanSpec) { p.MemoryMB = machines.MinMemoryMB - 1 },
		"disk_gb":              func(p *PlanSpec) { p.DiskGB = 0 },
		"ipv4":                 func(p *PlanSpec) { p.IPv4 = kit.Ptr(-1) },
		"ipv6_prefix":          func(p *PlanSpec) { p.IPv6Prefix = kit.Ptr(129) },
		"backups":              func(p *PlanSpec) { p.Backups = kit.Ptr(-1) },
		"rate_mbps":            func(p *PlanSpec) { p.RateMbps = kit.Ptr(machines.MaxRateMbps + 1) },
		"allowed_templates[0]": func(p *PlanSpec) { p.AllowedTemplates = []string{""} },
	} {
		spec := small()
		mutate(&spec)
		_, err := s.Plans.Create(ctx, spec)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 400 || len(e.Fields) == 0 || e.Fields[0].Field != field {
			t.Errorf("%s: got %v; want a 400 naming it", field, err)
		}
	}
}

// TestPlanInUseIsNotDeleted: a plan machines still name is a 409 with their count.
func TestPlanInUseIsNotDeleted(t *testing.T) {
	s := newTestSystem(t)
	ctx := ctxFor(t)
	p, err := s.Plans.Create(ctx, small())
	if err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch)
	for _, id := range []string{"m1", "m2"} {
		if err := machines.Seed(b, machines.Machine{ID: id, Name: id, PlanID: &p.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	err = s.Plans.Delete(ctx, p.ID)
	if !errors.Is(err, apierr.ErrConflict) || !strings.Contains(err.Error(), "2 machine(s)") {
		t.Fatalf("delete of a plan in use: got %v; want 409 naming 2 machines", err)
	}
}

// TestPlanCapacity: each node's room for the plan's machines and the total.
func TestPlanCapacity(t *testing.T) {
	s := newTestSystem(t)
	ctx := ctxFor(t)
	for _, n := range []hypervisor.Node{
		{ID: "a", Status: hypervisor.NodeOnline, CPUCores: 4, MemoryMB: 8192, DiskGB: 30, StorageGB: 100},
		{ID: "b", Status: hypervisor.NodeOffline, CPUCores: 4, MemoryMB: 8192, DiskGB: 30, StorageGB: 100},
	} {
		if _, err := s.Nodes.Observe(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.Plans.Create(ctx, small())
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Plans.Capacity(ctx, p.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	// a: 16 cores, 8192 MB, 100 GB free: 5 machines of 20 GB; b is offline.
	if c.Total != 5 || len(c.Nodes) != 2 || c.Nodes[0].Fits != 5 || c.Nodes[1].Fits != 0 || c.Overcommit != capacity.DefaultOvercommit {
		t.Fatalf("capacity: got %+v", c)
	}
	if _, err := s.Plans.Capacity(ctx, "nope", nil); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("capacity of no plan: got %v; want 404", err)
	}
}

// TestConcurrentCreatesOfOneName: of creates of one name at once, one wins and the
// others are 409s: the name's index key is required absent in each create's batch.
func TestConcurrentCreatesOfOneName(t *testing.T) {
	s := newTestSystem(t)
	ctx := ctxFor(t)
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			spec := small()
			if i%2 == 1 {
				spec.Name = "SMALL"
			}
			_, err := s.Plans.Create(ctx, spec)
			errs <- err
		}()
	}
	won := 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			won++
		case !errors.Is(err, apierr.ErrConflict):
			t.Errorf("got %v; want nil or 409", err)
		}
	}
	list, _, err := s.Plans.List(ctx, nil, "", 0)
	if won != 1 || err != nil || len(list) != 1 {
		t.Fatalf("got %d created, %d plans (%v); want one", won, len(list), err)
	}
}
