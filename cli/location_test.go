package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/client"
)

// TestLocationVerbs: a simulated location added, listed after the default one, shown
// and deleted from the command line, and offered to a tenant; a proxmox one without its URL is a usage error,
// and the default location is not deleted.
func TestLocationVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var l client.Location
	w.okJSON(&l, "location", "add", "lab", "--driver", "sim")
	if l.Driver != "sim" || l.ID == "" {
		t.Fatalf("location add: got %+v", l)
	}
	w.fails(2, "--url and --token-id are required", "location", "add", "fra", "--token-id", "a@pve!b")
	out := w.ok("location", "list")
	if !strings.Contains(out, "default") || !strings.Contains(out, l.ID) || strings.Index(out, "default") > strings.Index(out, l.ID) {
		t.Fatalf("location list: got\n%s", out)
	}
	if out := w.ok("location", "show", "default"); !strings.Contains(out, "configured driver") {
		t.Fatalf("location show default: got\n%s", out)
	}
	// The tenant's list: what a tenant may choose, without the drivers' settings; an
	// operator reads it for a tenant it names.
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Travellers")
	var offered []client.OfferedLocation
	w.okJSON(&offered, "location", "offered", "--tenant", ten.ID)
	if len(offered) != 2 || offered[0].ID != "default" || !offered[0].Default || offered[1].ID != l.ID || !offered[1].Available {
		t.Fatalf("location offered: got %+v; want default, then %s, available", offered, l.ID)
	}
	if out := w.ok("location", "offered", "--tenant", ten.ID); !strings.Contains(out, "AVAILABLE") || strings.Contains(out, "sim") {
		t.Fatalf("location offered: got\n%s\nwant a table without the drivers", out)
	}
	w.fails(1, "give --tenant ID", "location", "offered")
	w.fails(1, "conflict", "location", "delete", "default")
	w.ok("location", "delete", l.ID)
	w.fails(1, "not_found", "location", "show", l.ID)
}

// TestTenantLocationVerbs: a tenant's user, to whom the operators' list of locations
// is forbidden, lists the locations it may make machines in and makes one in a
// location it names by name (in any case); a name that is none is a usage error.
func TestTenantLocationVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var l client.Location
	w.okJSON(&l, "location", "add", "lab", "--driver", "sim")
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Travellers")
	if r := w.run("a long enough password\n", "user", "create", "--tenant", ten.ID, "--email", "ops@travellers.test", "--name", "Ops", "--password-stdin"); r.code != 0 {
		t.Fatalf("user create: %d %s", r.code, r.err)
	}
	w.ok("remote", "add", "tenant", w.base)
	if r := w.run("a long enough password\n", "login", "tenant", "--email", "ops@travellers.test", "--password-stdin"); r.code != 0 {
		t.Fatalf("login tenant: %d %s", r.code, r.err)
	}
	w.fails(1, "forbidden", "location", "list", "--remote", "tenant")
	var offered []client.OfferedLocation
	w.okJSON(&offered, "location", "offered", "--remote", "tenant")
	if len(offered) != 2 || offered[1].ID != l.ID {
		t.Fatalf("location offered as the tenant's user: got %+v", offered)
	}
	// The sync records the location's templates, as it does every interval.
	admin, err := client.New(w.base, client.WithCredentials(apptest.AdminEmail, apptest.AdminPassword))
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--remote", "tenant", "--name", "abroad", "--template", "tpl-debian-12@"+l.ID,
		"--cores", "1", "--memory", "512M", "--disk", "10", "--location", "LAB", "--wait")
	if m.LocationID != l.ID {
		t.Fatalf("machine create --location LAB as the tenant's user: got location %q; want %s", m.LocationID, l.ID)
	}
	w.fails(2, "no location has that id or name", "machine", "create", "--remote", "tenant", "--name", "x",
		"--template", "tpl-debian-12", "--location", "nowhere")
}
