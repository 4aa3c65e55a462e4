package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// TestIPPoolVerbs: a pool made, listed, shown, changed and deleted from the command
// line; a machine an operator creates with --ipv4 gets an address from it, which its
// card and the pool's count show, and keeps the pool from being deleted; the
// address's reverse name is set and cleared with machine ptr.
func TestIPPoolVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var p client.IPPool
	w.okJSON(&p, "ip-pool", "create", "docs", "--cidr", "192.0.2.0/24", "--gateway", "192.0.2.1", "--dns", "192.0.2.53")
	if p.Version != 4 || len(p.DNS) != 1 || p.Node != nil {
		t.Fatalf("ip-pool create: got %+v", p)
	}
	w.fails(2, "--cidr and --gateway are required", "ip-pool", "create", "half", "--cidr", "198.51.100.0/24")
	w.fails(1, "cidr", "ip-pool", "create", "bad", "--cidr", "192.0.2.7/24", "--gateway", "192.0.2.1")
	if out := w.ok("ip-pool", "list"); !strings.Contains(out, p.ID) || !strings.Contains(out, "192.0.2.0/24") {
		t.Fatalf("ip-pool list: got\n%s", out)
	}
	var up client.IPPool
	w.okJSON(&up, "ip-pool", "update", p.ID, "--name", "docs-v4", "--no-dns")
	if up.Name != "docs-v4" || len(up.DNS) != 0 {
		t.Fatalf("ip-pool update: got %+v", up)
	}
	w.fails(2, "nothing to change", "ip-pool", "update", p.ID)
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Addressed")
	out := w.ok("machine", "create", "--name", "addressed", "--template", "tpl-debian-12", "--tenant", ten.ID, "--ipv4", "1", "--wait")
	if !strings.Contains(out, "192.0.2.2/24 via 192.0.2.1") {
		t.Fatalf("machine create --ipv4: got\n%s", out)
	}
	if out := w.ok("ip-pool", "show", p.ID); !strings.Contains(out, "Allocated") || !strings.Contains(out, "1") {
		t.Fatalf("ip-pool show: got\n%s", out)
	}
	w.fails(1, "conflict", "ip-pool", "delete", p.ID)
	var ms []client.Machine
	w.okJSON(&ms, "machine", "list", "--tenant", ten.ID)
	if len(ms) != 1 {
		t.Fatalf("machine list: got %+v", ms)
	}
	if out := w.ok("machine", "ptr", ms[0].ID, "192.0.2.2", "web.example.com"); !strings.Contains(out, "reverse name web.example.com") {
		t.Fatalf("machine ptr: got\n%s", out)
	}
	if out := w.ok("machine", "ptr", ms[0].ID, "192.0.2.2"); strings.Contains(out, "reverse name") {
		t.Fatalf("machine ptr without a name: got\n%s", out)
	}
	w.fails(1, "not_found", "machine", "ptr", ms[0].ID, "192.0.2.99", "web.example.com")
	w.fails(2, "usage", "machine", "ptr", ms[0].ID)
	// One more address, one asked for, one taken away; the first stays.
	if out := w.ok("machine", "address", "add", ms[0].ID); !strings.Contains(out, "192.0.2.3/24") {
		t.Fatalf("machine address add: got\n%s", out)
	}
	if out := w.ok("machine", "address", "add", ms[0].ID, "--address", "192.0.2.40"); !strings.Contains(out, "192.0.2.40/24") {
		t.Fatalf("machine address add --address: got\n%s", out)
	}
	w.fails(1, "address_taken", "machine", "address", "add", ms[0].ID, "--address", "192.0.2.3")
	w.fails(2, "--ipv6", "machine", "address", "add", ms[0].ID, "--ipv6", "--address", "192.0.2.41")
	if out := w.ok("machine", "address", "remove", ms[0].ID, "192.0.2.3"); strings.Contains(out, "192.0.2.3/24") || !strings.Contains(out, "192.0.2.40/24") {
		t.Fatalf("machine address remove: got\n%s", out)
	}
	w.fails(1, "conflict", "machine", "address", "remove", ms[0].ID, "192.0.2.2")
	// As the tenant (--tenant), a machine of no plan gets no more.
	w.fails(1, "conflict", "machine", "address", "add", ms[0].ID, "--tenant", ten.ID)
	if out := w.ok("machine", "create", "--name", "asks", "--template", "tpl-debian-12", "--tenant", ten.ID, "--ipv4", "1", "--address", "192.0.2.60", "--wait"); !strings.Contains(out, "192.0.2.60/24") {
		t.Fatalf("machine create --address: got\n%s", out)
	}
	// Its traffic this month (a machine of no plan: no allowance).
	if out := w.ok("machine", "traffic", ms[0].ID); !strings.Contains(out, "Total (bytes)") || !strings.Contains(out, "unlimited") {
		t.Fatalf("machine traffic: got\n%s", out)
	}
	var tr client.MachineTraffic
	w.okJSON(&tr, "machine", "traffic", ms[0].ID)
	if tr.MachineID != ms[0].ID || tr.Month == "" {
		t.Fatalf("machine traffic -o json: got %+v", tr)
	}
	var spare client.IPPool
	w.okJSON(&spare, "ip-pool", "create", "spare", "--cidr", "2001:db8::/48", "--gateway", "fe80::1")
	w.ok("ip-pool", "delete", spare.ID)
	w.fails(1, "not_found", "ip-pool", "show", spare.ID)
}
