package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// A billing session from a shell: a tenant suspended and unsuspended, one machine
// suspended for billing and back, then terminated (at once on the test server).
func TestBillingVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Late")
	if r := w.run("", "tenant", "suspend", ten.ID); r.code == 0 || !strings.Contains(r.err, "--reason") {
		t.Fatalf("tenant suspend without --reason: exit %d, %q; want a usage error", r.code, r.err)
	}
	if out := w.ok("tenant", "suspend", ten.ID, "--reason", "invoice 9 unpaid", "--action", "none"); !strings.Contains(out, "invoice 9 unpaid") {
		t.Fatalf("tenant suspend: got\n%s\nwant the reason shown", out)
	}
	w.okJSON(&ten, "tenant", "unsuspend", ten.ID, "--start")
	if ten.Suspension != nil {
		t.Fatalf("tenant unsuspend: got %+v; want no suspension", ten.Suspension)
	}

	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "billed", "--template", "Debian 12 (bookworm)", "--plan", "small", "--wait")
	if out := w.ok("machine", "suspend-billing", m.ID, "--reason", "order 3 unpaid", "--action", "none"); !strings.Contains(out, "order 3 unpaid") {
		t.Fatalf("machine suspend-billing: got\n%s\nwant the reason shown", out)
	}
	w.okJSON(&m, "machine", "unsuspend-billing", m.ID)
	if m.BillingSuspension != nil {
		t.Fatalf("machine unsuspend-billing: got %+v", m.BillingSuspension)
	}
	w.okJSON(&m, "machine", "terminate", m.ID, "--cancel")
	w.okJSON(&m, "machine", "terminate", m.ID)
	if m.TerminateAt == nil {
		t.Fatalf("machine terminate: got %+v; want terminate_at", m)
	}
}
