package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// testLocations: operators add a simulated location, read it, list it after the
// default one, rename and delete it; a tenant user may not, but lists the locations
// it may make machines in (the client area's); the default location is not deleted.
func testLocations(t *testing.T, ctx context.Context, w *world) {
	l, err := w.admin.CreateLocation(ctx, client.LocationSpec{Name: "client lab", Driver: "sim"})
	if err != nil || l.Driver != "sim" || l.Default {
		t.Fatalf("create: %+v %v", l, err)
	}
	if _, err := w.a.CreateLocation(ctx, client.LocationSpec{Name: "mine", Driver: "sim"}); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("a tenant's create: got %v; want ErrForbidden", err)
	}
	var names []string
	for got, err := range w.admin.Locations(ctx, client.ListOptions{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, got.Name)
	}
	if len(names) < 2 || names[0] != "default" {
		t.Errorf("list: got %v; want default first", names)
	}
	// A tenant reads the locations it may make machines in, without their settings;
	// an operator's client does for a tenant it names.
	for who, c := range map[string]*client.Client{"the tenant's user": w.a, "an operator for it": w.admin.ForTenant(w.tenA.ID)} {
		var offered []client.OfferedLocation
		for got, err := range c.ClientLocations(ctx, client.ListOptions{Limit: 1}) {
			if err != nil {
				t.Fatalf("%s: %v", who, err)
			}
			offered = append(offered, got)
		}
		if len(offered) != len(names) || !offered[0].Default || offered[0].ID != "default" || offered[len(offered)-1].ID != l.ID || !offered[len(offered)-1].Available {
			t.Errorf("%s: the client locations: got %+v; want the %d locations, default first, %s last and available", who, offered, len(names), l.ID)
		}
	}
	name := "client lab 2"
	if up, err := w.admin.UpdateLocation(ctx, l.ID, client.LocationChange{Name: &name}); err != nil || up.Name != name {
		t.Errorf("rename: %+v %v", up, err)
	}
	if got, err := w.admin.Location(ctx, "default"); err != nil || !got.Default {
		t.Errorf("the default location: %+v %v", got, err)
	}
	if err := w.admin.DeleteLocation(ctx, "default"); !errors.Is(err, client.ErrConflict) {
		t.Errorf("delete of the default: got %v; want ErrConflict", err)
	}
	if err := w.admin.DeleteLocation(ctx, l.ID); err != nil {
		t.Fatal(err)
	}
}
