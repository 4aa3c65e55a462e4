package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// TestAuditVerbs: the operator's changes read back from the command line, filtered,
// in a table and as JSON; a bad time is a usage error.
func TestAuditVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var p client.Plan
	w.okJSON(&p, "plan", "create", "Audited", "--cores", "1", "--memory", "1G", "--disk", "20")
	var entries []client.AuditEntry
	w.okJSON(&entries, "audit", "list", "--target", p.ID, "--since", "10m")
	if len(entries) != 1 || entries[0].Action != "POST /api/resources/plans" || entries[0].Result != "ok" || entries[0].TargetKind != "plans" {
		t.Fatalf("audit list --target: got %+v; want the plan's create", entries)
	}
	out := w.ok("audit", "list", "--action", "POST /api/resources/plans", "--limit", "5")
	if !strings.Contains(out, "POST /api/resources/plans") || !strings.Contains(out, "plans "+p.ID) || !strings.Contains(out, "127.0.0.1") {
		t.Fatalf("audit list: got\n%s", out)
	}
	w.okJSON(&entries, "audit", "list", "--target", p.ID, "--until", "1h")
	if len(entries) != 0 {
		t.Fatalf("audit list --until 1h (an hour ago): got %+v; want none", entries)
	}
	w.fails(2, "--since", "audit", "list", "--since", "yesterday")
}
