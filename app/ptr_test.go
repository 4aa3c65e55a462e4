package app

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/pdns"
	"github.com/vmplane/vmplane/pdns/pdnstest"
)

// setPTR sets an address's reverse name through path (a machine's), as tok.
func (s *testServer) setPTR(tok, path, address string, ptr any) *response {
	s.t.Helper()
	return s.do(req{method: "PUT", path: path + "/addresses/" + address + "/ptr", token: tok, body: map[string]any{"ptr": ptr}})
}

// ptrOf is the reverse name the machine's record shows for address.
func ptrOf(t *testing.T, m machines.Machine, address string) string {
	t.Helper()
	i := slices.IndexFunc(m.Addresses, func(a hypervisor.Address) bool { return a.Address == address })
	if i < 0 {
		t.Fatalf("machine %s holds no %s: %+v", m.ID, address, m.Addresses)
	}
	return m.Addresses[i].PTR
}

// TestReverseDNSOnPowerDNS: a tenant sets the reverse names of its machine's addresses;
// each is checked, pushed to a real PowerDNS server (read back through its API and a
// DNS query), stored on the allocation and shown in the machine's addresses; an address
// in no zone of the server is 409 dns_zone_missing and stores nothing; another
// tenant's machine and an address the machine lacks are 404; the operator's route sets
// it too; the machine's delete clears the name from the DNS server.
func TestReverseDNSOnPowerDNS(t *testing.T) {
	t.Parallel()
	dns := pdnstest.Start(t)
	dns.CreateZone("2.0.192.in-addr.arpa.")
	dns.CreateZone("8.b.d.0.1.0.0.2.ip6.arpa.")
	s, admin := planServer(t, func(c *Config) { c.PDNSURL, c.PDNSAPIKey = dns.URL, pdnstest.Key })
	a := s.tenant(admin, "Reverse", nil)
	b := s.tenant(admin, "Other", nil)
	// One address in the zone's pool: the plan's second comes from the pool no zone holds.
	s.createPool(admin, map[string]any{"name": "v4", "cidr": "192.0.2.0/30", "gateway": "192.0.2.1"})
	s.createPool(admin, map[string]any{"name": "v6", "cidr": "2001:db8::/48", "gateway": "fe80::1"})
	s.createPool(admin, map[string]any{"name": "nozone", "cidr": "198.51.100.0/24", "gateway": "198.51.100.1"})
	plan := s.createPlan(admin, map[string]any{"name": "rdns", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 2, "ipv6_prefix": 64})
	m := s.provision(a.Token, map[string]any{"name": "rdns-1", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	vm := "/api/client/machines/" + m.ID

	r := s.setPTR(a.Token, vm, "192.0.2.2", "Web1.Example.com.")
	expect(t, r, 200, "")
	var got machines.Machine
	r.decode(t, &got)
	if p := ptrOf(t, got, "192.0.2.2"); p != "web1.example.com" {
		t.Fatalf("the answer's ptr: got %q; want web1.example.com", p)
	}
	rev := "2.2.0.192.in-addr.arpa."
	if p := dns.PTR("2.0.192.in-addr.arpa.", rev); !slices.Equal(p, []string{"web1.example.com."}) {
		t.Fatalf("PowerDNS's record: got %q; want [web1.example.com.]", p)
	}
	if names, err := dns.LookupPTR("192.0.2.2"); err != nil || !slices.Equal(names, []string{"web1.example.com."}) {
		t.Fatalf("DNS query: got %q, %v; want [web1.example.com.]", names, err)
	}
	r = s.do(req{method: "GET", path: vm, token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &got)
	if p := ptrOf(t, got, "192.0.2.2"); p != "web1.example.com" {
		t.Fatalf("the machine read again: ptr %q; want web1.example.com", p)
	}

	// IPv6: the prefix is named by its first address or the machine's ::1; the name is
	// the ::1's.
	expect(t, s.setPTR(a.Token, vm, "2001:db8::1", "six.example.com"), 200, "")
	if p := dns.PTR("8.b.d.0.1.0.0.2.ip6.arpa.", pdns.ReverseName(netip.MustParseAddr("2001:db8::1"))); !slices.Equal(p, []string{"six.example.com."}) {
		t.Fatalf("PowerDNS's IPv6 record: got %q; want [six.example.com.]", p)
	}

	// Refusals: a bad name, an address not the machine's, another tenant's machine.
	expect(t, s.setPTR(a.Token, vm, "192.0.2.2", "not a name"), 400, "invalid_request")
	expect(t, s.setPTR(a.Token, vm, "192.0.2.99", "x.example.com"), 404, "not_found")
	expect(t, s.setPTR(b.Token, vm, "192.0.2.2", "x.example.com"), 404, "not_found")

	// The operator's route; an empty name clears it from the record and the server.
	expect(t, s.setPTR(admin, "/api/virt/vms/"+m.ID, "192.0.2.2", "ops.example.com"), 200, "")
	if p := dns.PTR("2.0.192.in-addr.arpa.", rev); !slices.Equal(p, []string{"ops.example.com."}) {
		t.Fatalf("after the operator's set: got %q; want [ops.example.com.]", p)
	}
	r = s.setPTR(a.Token, vm, "192.0.2.2", "")
	expect(t, r, 200, "")
	got = machines.Machine{}
	r.decode(t, &got)
	if p := ptrOf(t, got, "192.0.2.2"); p != "" || dns.PTR("2.0.192.in-addr.arpa.", rev) != nil {
		t.Fatalf("cleared: record %q, server %q; want neither", p, dns.PTR("2.0.192.in-addr.arpa.", rev))
	}
	expect(t, s.setPTR(a.Token, vm, "192.0.2.2", "web1.example.com"), 200, "")

	// The third pool's address: no zone on the server holds it, and nothing is stored.
	expect(t, s.setPTR(a.Token, vm, "198.51.100.2", "x.example.com"), 409, "dns_zone_missing")
	r = s.do(req{method: "GET", path: vm, token: a.Token})
	got = machines.Machine{}
	r.decode(t, &got)
	if p := ptrOf(t, got, "198.51.100.2"); p != "" {
		t.Fatalf("a refused push stored ptr %q; want none", p)
	}

	// The machine's delete releases its addresses, and their names leave the server.
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + m.ID, token: admin})
	if p := dns.PTR("2.0.192.in-addr.arpa.", rev); p != nil {
		t.Fatalf("after the machine's delete the server still has %q", p)
	}
}

// TestPTRWithTheDNSServerDown: a push that does not reach the DNS server is 503
// dns_unavailable, and the name is not stored; without a DNS server configured the
// name is only stored.
func TestPTRWithTheDNSServerDown(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t, func(c *Config) { c.PDNSURL, c.PDNSAPIKey = "http://127.0.0.1:1", "key" })
	a := s.tenant(admin, "Down", nil)
	s.createPool(admin, map[string]any{"name": "v4", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1"})
	plan := s.createPlan(admin, map[string]any{"name": "one", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1})
	m := s.provision(a.Token, map[string]any{"name": "down-1", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	vm := "/api/client/machines/" + m.ID
	expect(t, s.setPTR(a.Token, vm, "192.0.2.2", "web.example.com"), 503, "dns_unavailable")
	r := s.do(req{method: "GET", path: vm, token: a.Token})
	var got machines.Machine
	r.decode(t, &got)
	if p := ptrOf(t, got, "192.0.2.2"); p != "" {
		t.Fatalf("a push that failed stored ptr %q; want none", p)
	}
}

// TestPTRStoredWithoutDNS: with no DNS server configured the name is only stored.
func TestPTRStoredWithoutDNS(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Plain", nil)
	s.createPool(admin, map[string]any{"name": "v4", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1"})
	plan := s.createPlan(admin, map[string]any{"name": "one", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 1})
	m := s.provision(a.Token, map[string]any{"name": "plain-1", "template_id": "tpl-debian-12", "plan_id": plan.ID})
	r := s.setPTR(a.Token, "/api/client/machines/"+m.ID, "192.0.2.2", "web.example.com")
	expect(t, r, 200, "")
	var got machines.Machine
	r.decode(t, &got)
	if p := ptrOf(t, got, "192.0.2.2"); p != "web.example.com" {
		t.Fatalf("ptr: got %q; want web.example.com", p)
	}
}
