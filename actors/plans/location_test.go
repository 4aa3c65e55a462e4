package plans

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// knowing makes s's plans know the locations named beside the default one.
func knowing(s *testSystem, known ...string) {
	s.Plans.located = func(_ context.Context, id string) error {
		for _, k := range known {
			if k == id {
				return nil
			}
		}
		return apierr.NotFound("location", id)
	}
}

// isFieldError says whether err is a 400 whose first field is field.
func isFieldError(err error, field string) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e.Status == 400 && len(e.Fields) > 0 && e.Fields[0].Field == field
}

// TestPlanLocations: a plan shows its location ("default" when none was given), an
// unknown one is a 400 naming location_id, a PATCH moves it and a null takes it back to
// the default location, and the list filters by location.
func TestPlanLocations(t *testing.T) {
	s := newTestSystem(t)
	knowing(s, "fra")
	ctx := ctxFor(t)
	home, err := s.Plans.Create(ctx, small())
	if err != nil || home.Location != "" {
		t.Fatalf("create without a location: got %+v, %v", home, err)
	}
	spec := small()
	spec.Name, spec.LocationID = "Small FRA", kit.Ptr("fra")
	away, err := s.Plans.Create(ctx, spec)
	if err != nil || away.Location != "fra" {
		t.Fatalf("create in fra: got %+v, %v", away, err)
	}
	spec.Name, spec.LocationID = "Small AMS", kit.Ptr("ams")
	if _, err := s.Plans.Create(ctx, spec); !isFieldError(err, "location_id") {
		t.Fatalf("create in an unknown location: got %v; want a 400 naming location_id", err)
	}
	if _, err := s.Plans.Update(ctx, home.ID, PlanChange{LocationID: kit.Ptr("ams")}, nil); !isFieldError(err, "location_id") {
		t.Fatalf("move to an unknown location: got %v; want a 400 naming location_id", err)
	}
	for _, c := range []struct {
		filter *string
		want   []string
	}{{nil, []string{"Small", "Small FRA"}}, {kit.Ptr("default"), []string{"Small"}}, {kit.Ptr("fra"), []string{"Small FRA"}}, {kit.Ptr("ams"), nil}} {
		list, _, err := s.Plans.List(ctx, c.filter, "", 0)
		var got []string
		for _, p := range list {
			got = append(got, p.Name)
		}
		if err != nil || len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
			t.Errorf("list of %v: got %v, %v; want %v", c.filter, got, err, c.want)
		}
	}
	moved, err := s.Plans.Update(ctx, away.ID, PlanChange{}, map[string]bool{"location_id": true})
	if err != nil || moved.Location != "" {
		t.Fatalf("a null location_id: got %+v, %v; want the default location", moved, err)
	}
	if moved, err = s.Plans.Update(ctx, away.ID, PlanChange{LocationID: kit.Ptr("default")}, nil); err != nil || moved.Location != "" {
		t.Fatalf("location_id default: got %+v, %v", moved, err)
	}
	// A plan machines use stays in its location (they stay in theirs).
	b := new(persistence.Batch)
	if err := machines.Seed(b, machines.Machine{ID: "m1", Name: "m1", PlanID: &home.ID}); err != nil {
		t.Fatal(err)
	}
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Plans.Update(ctx, home.ID, PlanChange{LocationID: kit.Ptr("fra")}, nil); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("move of a plan in use: got %v; want 409", err)
	}
	if _, err := s.Plans.Update(ctx, home.ID, PlanChange{MemoryMB: kit.Ptr(2048)}, nil); err != nil {
		t.Fatalf("change of a plan in use: %v", err)
	}
}

// TestPlanCapacityInItsLocation: a plan's capacity counts the nodes of its location
// alone (names repeat across locations) and says which; a location named beside it
// must be the plan's (400 otherwise), and "default" names the default one.
func TestPlanCapacityInItsLocation(t *testing.T) {
	s := newTestSystem(t)
	knowing(s, "fra")
	ctx := ctxFor(t)
	online := string(hypervisor.NodeOnline)
	for _, n := range []capacity.Node{
		{ID: "pve1", Name: "pve1", Status: online, CPUCores: 4, MemoryMB: 2048},
		{ID: "pve1@fra", Name: "pve1", Location: "fra", Status: online, CPUCores: 4, MemoryMB: 8192},
		{ID: "pve2@fra", Name: "pve2", Location: "fra", Status: online, CPUCores: 4, MemoryMB: 4096},
	} {
		val, err := persistence.Encode(capacity.NodeVersion, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.store.Commit(ctx, new(persistence.Batch).Put(capacity.NodeKey(n.ID), val)); err != nil {
			t.Fatal(err)
		}
	}
	home, err := s.Plans.Create(ctx, small())
	if err != nil {
		t.Fatal(err)
	}
	spec := small()
	spec.Name, spec.LocationID = "Small FRA", kit.Ptr("fra")
	away, err := s.Plans.Create(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Plans.Capacity(ctx, away.ID, nil)
	if err != nil || c.Location != "fra" || c.Total != 12 || len(c.Nodes) != 2 || c.Nodes[0].Node != "pve1@fra" || c.Nodes[0].Name != "pve1" || c.Nodes[0].Fits != 8 {
		t.Fatalf("capacity in fra: got %+v, %v; want 8 on pve1@fra and 4 on pve2@fra", c, err)
	}
	if c, err = s.Plans.Capacity(ctx, away.ID, kit.Ptr("fra")); err != nil || c.Total != 12 {
		t.Fatalf("capacity in fra, named: got %+v, %v", c, err)
	}
	if c, err = s.Plans.Capacity(ctx, home.ID, kit.Ptr("default")); err != nil || c.Location != "" || c.Total != 2 || len(c.Nodes) != 1 {
		t.Fatalf("capacity in the default location: got %+v, %v; want 2 on pve1", c, err)
	}
	if _, err := s.Plans.Capacity(ctx, home.ID, kit.Ptr("fra")); !isFieldError(err, "location") {
		t.Fatalf("capacity of a default plan in fra: got %v; want a 400 naming location", err)
	}
	if n, err := s.Plans.CountLocation(ctx, "fra"); err != nil || n != 1 {
		t.Errorf("plans of fra: got %d, %v; want 1", n, err)
	}
}
