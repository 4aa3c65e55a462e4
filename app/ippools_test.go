package app

import (
	"testing"

	"github.com/vmplane/vmplane/actors/addresses"
)

// TestIPPools: operators create, read, change and delete IP pools over HTTP; the
// version comes from the range, a bad range is a 400 naming the field, a second pool
// of a name is a 409, and a tenant user reads none of it (403).
func TestIPPools(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a := s.tenant(admin, "Pooler", nil)
	r := s.do(req{method: "POST", path: "/api/resources/ip-pools", token: admin, body: map[string]any{
		"name": "docs-v4", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1", "dns": []string{"192.0.2.53"}}})
	expect(t, r, 201, "")
	var p addresses.Pool
	r.decode(t, &p)
	if p.Version != 4 || p.Node != nil || len(p.DNS) != 1 {
		t.Fatalf("created %+v", p)
	}
	expect(t, s.do(req{method: "POST", path: "/api/resources/ip-pools", token: admin, body: map[string]any{
		"name": "DOCS-V4", "cidr": "198.51.100.0/24", "gateway": "198.51.100.1"}}), 409, "conflict")
	expect(t, s.do(req{method: "POST", path: "/api/resources/ip-pools", token: admin, body: map[string]any{
		"name": "bad", "cidr": "192.0.2.7/24", "gateway": "192.0.2.1"}}), 400, "invalid_request")
	r = s.do(req{method: "POST", path: "/api/resources/ip-pools", token: admin, body: map[string]any{
		"name": "docs-v6", "cidr": "2001:db8::/48", "gateway": "fe80::1", "node": "node-1"}})
	expect(t, r, 201, "")
	var v6 addresses.Pool
	r.decode(t, &v6)
	if v6.Version != 6 || v6.Node == nil || *v6.Node != "node-1" {
		t.Fatalf("created %+v", v6)
	}
	r = s.do(req{method: "PATCH", path: "/api/resources/ip-pools/" + v6.ID, token: admin, body: map[string]any{"node": nil, "dns": []string{"2001:db8::53"}}})
	expect(t, r, 200, "")
	r.decode(t, &v6)
	if v6.Node != nil || len(v6.DNS) != 1 {
		t.Fatalf("changed %+v", v6)
	}
	expect(t, s.do(req{method: "GET", path: "/api/resources/ip-pools", token: a.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "GET", path: "/api/resources/ip-pools/" + p.ID, token: a.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/ip-pools/" + v6.ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "GET", path: "/api/resources/ip-pools/" + v6.ID, token: admin}), 404, "not_found")
}

// conformIPPools answers every IP pool route for TestOpenAPIConformance.
func conformIPPools(s *testServer, admin string, ok func(req, int) *response, fails func(req, int, string)) {
	var p addresses.Pool
	ok(req{method: "POST", path: "/api/resources/ip-pools", token: admin, body: map[string]any{"name": "conform", "cidr": "203.0.113.0/24",
		"gateway": "203.0.113.1", "node": "node-1", "dns": []string{"203.0.113.53"}}}, 201).decode(s.t, &p)
	fails(req{method: "POST", path: "/api/resources/ip-pools", token: admin, body: map[string]any{"name": "conform", "cidr": "203.0.113.0/24",
		"gateway": "203.0.113.1"}}, 409, "conflict")
	ok(req{method: "GET", path: "/api/resources/ip-pools?limit=1", token: admin}, 200)
	ok(req{method: "GET", path: "/api/resources/ip-pools/" + p.ID, token: admin}, 200)
	ok(req{method: "PATCH", path: "/api/resources/ip-pools/" + p.ID, token: admin, body: map[string]any{"node": nil, "dns": nil}}, 200)
	ok(req{method: "DELETE", path: "/api/resources/ip-pools/" + p.ID, token: admin}, 204)
}
