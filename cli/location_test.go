package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// TestLocationVerbs: a simulated location added, listed after the default one, shown
// and deleted from the command line; a proxmox one without its URL is a usage error,
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
	w.fails(1, "conflict", "location", "delete", "default")
	w.ok("location", "delete", l.ID)
	w.fails(1, "not_found", "location", "show", l.ID)
}
