package addresses

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// newLocatedService is the addresses knowing the locations named in known beside
// the default one.
func newLocatedService(t *testing.T, known ...string) *Addresses {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(func() {
		rt.Shutdown()
		store.Close()
	})
	return Start(Deps{Runtime: rt, LocationExists: func(_ context.Context, id string) error {
		for _, k := range known {
			if k == id {
				return nil
			}
		}
		return apierr.NotFound("location", id)
	}})
}

// TestPoolLocations: a pool shows its location ("default" when none was given), an
// unknown one is a 400 naming location_id, a PATCH moves it and a null takes it back
// to the default location, the list filters by location, and a location's pools are
// counted.
func TestPoolLocations(t *testing.T) {
	a := newLocatedService(t, "fra")
	ctx := ctxFor(t)
	home, err := a.Create(ctx, PoolSpec{Name: "home", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"})
	if err != nil || home.Location != "" {
		t.Fatalf("create without a location: got %+v, %v; want the default location", home, err)
	}
	away, err := a.Create(ctx, PoolSpec{Name: "away", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1", LocationID: kit.Ptr("fra")})
	if err != nil || away.Location != "fra" {
		t.Fatalf("create in fra: got %+v, %v", away, err)
	}
	if _, err := a.Create(ctx, PoolSpec{Name: "nowhere", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", LocationID: kit.Ptr("ams")}); !isFieldError(err, "location_id") {
		t.Fatalf("create in an unknown location: got %v; want a 400 naming location_id", err)
	}
	if _, err := a.Update(ctx, home.ID, PoolChange{LocationID: kit.Ptr("ams")}, nil); !isFieldError(err, "location_id") {
		t.Fatalf("move to an unknown location: got %v; want a 400 naming location_id", err)
	}
	for _, c := range []struct {
		filter *string
		want   []string
	}{{nil, []string{"home", "away"}}, {kit.Ptr("default"), []string{"home"}}, {kit.Ptr("fra"), []string{"away"}}, {kit.Ptr("ams"), nil}} {
		list, _, err := a.List(ctx, c.filter, "", 0)
		var got []string
		for _, p := range list {
			got = append(got, p.Name)
		}
		if err != nil || len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
			t.Errorf("list of %v: got %v, %v; want %v", c.filter, got, err, c.want)
		}
	}
	if n, err := a.CountLocation(ctx, "fra"); err != nil || n != 1 {
		t.Errorf("pools of fra: got %d, %v; want 1", n, err)
	}
	moved, err := a.Update(ctx, away.ID, PoolChange{}, map[string]bool{"location_id": true})
	if err != nil || moved.Location != "" {
		t.Fatalf("a null location_id: got %+v, %v; want the default location", moved, err)
	}
	if moved, err = a.Update(ctx, moved.ID, PoolChange{LocationID: kit.Ptr("fra")}, nil); err != nil || moved.Location != "fra" {
		t.Fatalf("back to fra: got %+v, %v", moved, err)
	}
}

// TestAllocationStaysInItsLocation: a machine made in a location is given addresses
// from that location's pools alone (a node's own pool by its name or its id, then the
// location's shared ones), never from another location's, and a location without
// pools of a version gives none of it.
func TestAllocationStaysInItsLocation(t *testing.T) {
	a := newLocatedService(t, "fra")
	ctx := ctxFor(t)
	mk := func(s PoolSpec) Pool {
		t.Helper()
		p, err := a.Create(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	home := mk(PoolSpec{Name: "home", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"})
	away := mk(PoolSpec{Name: "away", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1", LocationID: kit.Ptr("fra")})
	pinned := mk(PoolSpec{Name: "fra pve1", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", LocationID: kit.Ptr("fra"), Node: kit.Ptr("pve1@fra")})
	from := func(w Want) string {
		t.Helper()
		g, err := a.Allocate(ctx, new(persistence.Batch), w, "vm", nil)
		if err != nil || len(g.Addresses) != 1 {
			t.Fatalf("allocate %+v: got %+v, %v", w, g.Addresses, err)
		}
		return g.Addresses[0].Pool
	}
	if got := from(Want{Node: "pve1", IPv4: 1}); got != home.ID {
		t.Errorf("default location's pve1: got pool %s; want home (the pinned pool is fra's pve1)", got)
	}
	if got := from(Want{Location: "fra", Node: "pve2", NodeID: "pve2@fra", IPv4: 1}); got != away.ID {
		t.Errorf("fra's pve2: got pool %s; want away", got)
	}
	if got := from(Want{Location: "fra", Node: "pve1", NodeID: "pve1@fra", IPv4: 1}); got != pinned.ID {
		t.Errorf("fra's pve1: got pool %s; want its own", got)
	}
	g, err := a.Allocate(ctx, new(persistence.Batch), Want{Location: "ams", Node: "pve1", IPv4: 1}, "vm", nil)
	if err != nil || len(g.Addresses) != 0 {
		t.Errorf("a location without pools: got %+v, %v; want nothing", g.Addresses, err)
	}
	// A pool some of whose addresses are held stays in its location.
	b := new(persistence.Batch)
	if _, err := a.Allocate(ctx, b, Want{Location: "fra", Node: "pve2", IPv4: 1}, "vm-held", nil); err != nil {
		t.Fatal(err)
	}
	if err := a.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Update(ctx, away.ID, PoolChange{}, map[string]bool{"location_id": true}); !errors.Is(err, apierr.ErrConflict) {
		t.Errorf("move of a pool in use: got %v; want 409", err)
	}
	if _, err := a.Update(ctx, away.ID, PoolChange{Name: kit.Ptr("away, renamed")}, nil); err != nil {
		t.Errorf("rename of a pool in use: %v", err)
	}
}

// isFieldError says whether err is a 400 whose first field is field.
func isFieldError(err error, field string) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e.Status == 400 && len(e.Fields) > 0 && e.Fields[0].Field == field
}
