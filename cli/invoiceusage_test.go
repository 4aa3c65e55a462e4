package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// The invoices' usage from a shell: an operator reads a tenant's month, a tenant's
// user its own and its machine's; a month is its whole hours (October: 744, none
// closed on a new server, so all gaps); a tenant's user cannot read the operators'
// route; bad ranges are usage errors.
func TestUsageVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Invoiced")
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "billed", "--template", "Debian 12 (bookworm)", "--plan", "small", "--wait")

	var rep client.UsageReport
	w.okJSON(&rep, "tenant", "usage", ten.ID, "--month", "2025-10")
	if rep.From.Format("2006-01-02T15") != "2025-10-01T00" || rep.To.Format("2006-01-02T15") != "2025-11-01T00" || rep.Gaps != 744 {
		t.Fatalf("tenant usage --month 2025-10: %+v; want October's 744 hours, all gaps", rep)
	}
	if out := w.ok("tenant", "usage", ten.ID); !strings.Contains(out, "TOTAL") || !strings.Contains(out, "no record covers") {
		t.Fatalf("tenant usage table:\n%s\nwant the totals and the gaps", out)
	}
	w.okJSON(&rep, "usage", "--machine", m.ID, "--from", "2025-10-01T00:00:00Z", "--to", "2025-10-02T00:00:00Z")
	if rep.Gaps != 24 {
		t.Fatalf("usage --machine (operator) over a day: %+v; want 24 gaps", rep)
	}

	if r := w.run("a long enough password\n", "user", "create", "--tenant", ten.ID, "--email", "pay@invoiced.test", "--name", "Pay", "--password-stdin"); r.code != 0 {
		t.Fatalf("user create: %d %s", r.code, r.err)
	}
	w.ok("remote", "add", "tenant", w.base)
	if r := w.run("a long enough password\n", "login", "tenant", "--email", "pay@invoiced.test", "--password-stdin"); r.code != 0 {
		t.Fatalf("login tenant: %d %s", r.code, r.err)
	}
	w.okJSON(&rep, "usage", "--remote", "tenant", "--month", "2025-10")
	if rep.Gaps != 744 {
		t.Fatalf("a tenant's own usage: %+v", rep)
	}
	w.okJSON(&rep, "usage", "--remote", "tenant", "--machine", m.ID, "--month", "2025-10")
	if rep.Gaps != 744 {
		t.Fatalf("a tenant's machine's usage: %+v", rep)
	}
	w.fails(1, "forbidden", "tenant", "usage", ten.ID, "--remote", "tenant")

	for _, args := range [][]string{
		{"usage", "--month", "2025-13"},
		{"usage", "--from", "2025-10-01T00:00:00Z"},
		{"usage", "--month", "2025-10", "--from", "2025-10-01T00:00:00Z", "--to", "2025-10-02T00:00:00Z"},
		{"usage", "--month", "2999-01"},
		{"tenant", "usage"},
	} {
		if r := w.run("", args...); r.code != 2 {
			t.Errorf("vmplane %s: exit %d, %q; want 2 (a usage error)", strings.Join(args, " "), r.code, r.err)
		}
	}
}
