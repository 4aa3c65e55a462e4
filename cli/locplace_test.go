package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// TestLocationFlags: --location names a location by id or name on plan create and
// list, ip-pool create and list, plan capacity and machine create; an unknown one is a
// usage error before anything is asked, and a capacity in another location than the
// plan's is the server's refusal.
func TestLocationFlags(t *testing.T) {
	w := newWorld(t)
	w.login()
	var lab client.Location
	w.okJSON(&lab, "location", "add", "Lab", "--driver", "sim")
	var pl client.Plan
	w.okJSON(&pl, "plan", "create", "lab-s", "--cores", "1", "--memory", "1G", "--disk", "20", "--location", "lab")
	if pl.LocationID != lab.ID {
		t.Fatalf("plan create --location lab: got %+v; want location %s", pl, lab.ID)
	}
	var home client.Plan
	w.okJSON(&home, "plan", "create", "home-s", "--cores", "1", "--memory", "1G", "--disk", "20")
	if out := w.ok("plan", "list", "--location", "Lab"); !strings.Contains(out, "lab-s") || strings.Contains(out, "home-s") || !strings.Contains(out, "LOCATION") {
		t.Fatalf("plan list --location Lab: got\n%s", out)
	}
	var moved client.Plan
	w.okJSON(&moved, "plan", "update", "home-s", "--location", lab.ID)
	if moved.LocationID != lab.ID {
		t.Fatalf("plan update --location: got %+v", moved)
	}
	var p client.IPPool
	w.okJSON(&p, "ip-pool", "create", "lab-v4", "--cidr", "198.51.100.0/24", "--gateway", "198.51.100.1", "--location", "lab")
	if p.LocationID != lab.ID {
		t.Fatalf("ip-pool create --location lab: got %+v", p)
	}
	if out := w.ok("ip-pool", "list", "--location", "default"); strings.Contains(out, "lab-v4") {
		t.Fatalf("ip-pool list --location default: got\n%s", out)
	}
	if out := w.ok("ip-pool", "list", "--location", "lab"); !strings.Contains(out, "lab-v4") {
		t.Fatalf("ip-pool list --location lab: got\n%s", out)
	}
	w.ok("plan", "capacity", "lab-s", "--location", "lab")
	w.fails(1, "invalid_request", "plan", "capacity", "lab-s", "--location", "default")
	for _, args := range [][]string{
		{"plan", "list", "--location", "nowhere"},
		{"ip-pool", "create", "x", "--cidr", "203.0.113.0/24", "--gateway", "203.0.113.1", "--location", "nowhere"},
		{"machine", "create", "--name", "x", "--template", "tpl-debian-12", "--location", "nowhere"},
	} {
		w.fails(2, "no location has that id or name", args...)
	}
}
