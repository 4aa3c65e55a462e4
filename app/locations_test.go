package app

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// locationKeyFile writes a sealing key and answers its file.
func locationKeyFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "location.key")
	if err := os.WriteFile(p, []byte(hex.EncodeToString(bytes.Repeat([]byte{9}, locations.KeyLen))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLocations: operators add a Proxmox cluster (a fake) and a simulated one as
// locations, list them after the default one, read them with the token secret never
// shown, and delete them; the default location is neither changed nor deleted, a
// tenant user reads none of it (403), and a location's driver answers through the
// server's dispatcher as soon as its create returns.
func TestLocations(t *testing.T) {
	t.Parallel()
	key := locationKeyFile(t)
	s, admin := planServer(t, func(c *Config) { c.LocationSecretKeyFile = key })
	a := s.tenant(admin, "Placed", nil)
	f := pvefake.New(pvefake.Config{})
	t.Cleanup(f.Close)
	r := s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{
		"name": "Frankfurt", "driver": "proxmox", "proxmox": map[string]any{
			"url": f.URL(), "token_id": f.TokenID(), "token_secret": f.TokenSecret(), "tls_fingerprint": f.Fingerprint()}}})
	expect(t, r, 201, "")
	if bytes.Contains(r.Body, []byte(f.TokenSecret())) {
		t.Errorf("create answered the secret: %s", r.Body)
	}
	var fra locations.Location
	r.decode(t, &fra)
	if fra.Proxmox == nil || !fra.Proxmox.TokenSecretStored || fra.Driver != "proxmox" {
		t.Fatalf("created %+v", fra)
	}
	drv, err := s.app.sys.Locations.Driver(fra.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := drv.Ping(t.Context()); err != nil {
		t.Errorf("the location's driver: ping %v; want the fake answering with the stored secret", err)
	}
	r = s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{"name": "Lab", "driver": "sim"}})
	expect(t, r, 201, "")
	var lab locations.Location
	r.decode(t, &lab)
	r = s.do(req{method: "GET", path: "/api/resources/locations", token: admin})
	expect(t, r, 200, "")
	if bytes.Contains(r.Body, []byte(f.TokenSecret())) {
		t.Errorf("list answered the secret: %s", r.Body)
	}
	var page struct{ Items []locations.Location }
	r.decode(t, &page)
	var names []string
	for _, l := range page.Items {
		names = append(names, l.Name)
	}
	if strings.Join(names, ",") != "default,Frankfurt,Lab" || !page.Items[0].Default || page.Items[0].Driver != "sim" {
		t.Errorf("list: got %v (%+v); want default (sim), Frankfurt, Lab", names, page.Items[0])
	}
	expect(t, s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{
		"name": "frankfurt", "driver": "sim"}}), 409, "conflict")
	expect(t, s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{
		"name": "Bad", "driver": "proxmox", "proxmox": map[string]any{"url": "ftp://x", "token_id": "a@pve!b", "token_secret": "x"}}}), 400, "invalid_request")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/locations/default", token: admin}), 409, "conflict")
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/locations/default", token: admin, body: map[string]any{"name": "x"}}), 409, "conflict")
	expect(t, s.do(req{method: "GET", path: "/api/resources/locations", token: a.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "GET", path: "/api/resources/locations/" + fra.ID, token: a.Token}), 403, "forbidden")
	r = s.do(req{method: "PATCH", path: "/api/resources/locations/" + fra.ID, token: admin, body: map[string]any{"name": "FRA"}})
	expect(t, r, 200, "")
	if drv, err := s.app.sys.Locations.Driver(fra.ID); err != nil || drv.Ping(t.Context()) != nil {
		t.Errorf("the driver after a rename: %v; want it answering, its secret kept", err)
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/locations/" + lab.ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "GET", path: "/api/resources/locations/" + lab.ID, token: admin}), 404, "not_found")
	if _, err := s.app.sys.Locations.Driver(lab.ID); err == nil {
		t.Errorf("the deleted location's driver is still held")
	}
}

// conformLocations answers every location route for TestOpenAPIConformance.
func conformLocations(s *testServer, admin string, ok func(req, int) *response, fails func(req, int, string)) {
	var l locations.Location
	ok(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{"name": "conform", "driver": "sim"}}, 201).decode(s.t, &l)
	fails(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{"name": "Conform", "driver": "sim"}}, 409, "conflict")
	ok(req{method: "GET", path: "/api/resources/locations?limit=1", token: admin}, 200)
	ok(req{method: "GET", path: "/api/resources/locations/" + l.ID, token: admin}, 200)
	ok(req{method: "PATCH", path: "/api/resources/locations/" + l.ID, token: admin, body: map[string]any{"name": "conformed"}}, 200)
	ok(req{method: "DELETE", path: "/api/resources/locations/" + l.ID, token: admin}, 204)
}
