package app

import (
	"bytes"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/internal/testwait"

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

// TestLocationDownDegradesItsOwnHealth: two Proxmox clusters (fakes), the default one
// and a location, each with a machine of vmid 100; the location stops answering. Both
// clusters' machines keep their records and states through syncs (none is marked
// gone), the syncs name the location, /api/health stays 200 naming it unavailable,
// and hypervisor_unavailable fires for that location alone.
func TestLocationDownDegradesItsOwnHealth(t *testing.T) {
	t.Parallel()
	home := pvefake.New(pvefake.Config{})
	t.Cleanup(home.Close)
	for _, spec := range []pvefake.VMSpec{
		{VMID: 100, Node: "pve1", Name: "web-1", Status: "running", Cores: 2, MemoryMB: 2048, DiskGB: 20},
		{VMID: 101, Node: "pve2", Name: "db-1", Status: "stopped"},
	} {
		if _, err := home.AddVM(spec); err != nil {
			t.Fatal(err)
		}
	}
	away := pvefake.New(pvefake.Config{})
	t.Cleanup(away.Close)
	if _, err := away.AddVM(pvefake.VMSpec{VMID: 100, Node: "pve1", Name: "elsewhere", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	onProxmox(home)(&cfg)
	cfg.HypervisorCheckInterval = 20 * time.Millisecond
	d, err := NewDriver(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{t: t, cfg: cfg, driver: d, client: &http.Client{Timeout: 30 * time.Second}}
	s.start()
	t.Cleanup(s.stop)
	admin := s.adminToken()
	secret := filepath.Join(t.TempDir(), "away.secret")
	if err := os.WriteFile(secret, []byte(away.TokenSecret()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{
		"name": "Away", "driver": "proxmox", "proxmox": map[string]any{
			"url": away.URL(), "token_id": away.TokenID(), "token_secret_file": secret, "tls_fingerprint": away.Fingerprint()}}})
	expect(t, r, 201, "")
	var loc locations.Location
	r.decode(t, &loc)
	if res := s.sync(admin); res.Machines.Added != 3 {
		t.Fatalf("first sync: %+v; want the default cluster's 2 machines and the location's", res)
	}
	heal := away.Inject(pvefake.Fault{Status: 503, Message: "proxy: no route to host"})
	t.Cleanup(heal)
	for range 2 {
		if res := s.sync(admin); res.Machines.Removed != 0 || res.Machines.Added != 0 || len(res.Unavailable) != 1 || res.Unavailable[0] != loc.ID {
			t.Fatalf("sync with the location down: %+v; want nothing added or removed, and %s named", res, loc.ID)
		}
	}
	states := map[string]string{}
	for _, m := range s.machines(admin) {
		states[m.Name] = string(m.Status)
	}
	if len(states) != 3 || states["web-1"] != "running" || states["db-1"] != "stopped" || states["elsewhere"] != "running" {
		t.Errorf("machines with the location down: got %v; want web-1 running, db-1 stopped, elsewhere (the location's) running", states)
	}
	if hv, locs := s.locationHealth(t); hv != "ok" || locs[loc.ID] != "unavailable" {
		t.Errorf("health: got %s, %v; want the default hypervisor ok and location %s unavailable", hv, locs, loc.ID)
	}
	path := "/api/monitoring/alerts/events?kind=hypervisor_unavailable"
	testwait.Eventually(t, "hypervisor_unavailable for the location", func() bool {
		return len(s.alertsOf(admin, path, "location "+loc.ID)) == 1
	})
	if got := s.alertsOf(admin, path, "proxmox"); len(got) != 0 {
		t.Errorf("the default cluster's alert: got %+v; want none", got)
	}
}

// locationHealth reads /api/health's hypervisor check and its locations' checks.
func (s *testServer) locationHealth(t *testing.T) (hypervisor string, locations map[string]string) {
	t.Helper()
	var health struct {
		Checks struct {
			Hypervisor string            `json:"hypervisor"`
			Locations  map[string]string `json:"locations"`
		} `json:"checks"`
	}
	r := s.do(req{method: "GET", path: "/api/health"})
	expect(t, r, 200, "")
	r.decode(t, &health)
	return health.Checks.Hypervisor, health.Checks.Locations
}
