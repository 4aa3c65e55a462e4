package app

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
	"github.com/vmplane/vmplane/internal/testwait"
)

// clientLocations lists GET /api/client/locations with tok, page by page (limit 1),
// so the paging of the default location and the records is walked too.
func (s *testServer) clientLocations(tok, query string) []locations.OfferedLocation {
	s.t.Helper()
	var all []locations.OfferedLocation
	cursor := ""
	for range 20 {
		path := "/api/client/locations?limit=1" + query
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		r := s.do(req{method: "GET", path: path, token: tok})
		expect(s.t, r, 200, "")
		var page struct {
			Items      []locations.OfferedLocation
			NextCursor *string `json:"next_cursor"`
		}
		r.decode(s.t, &page)
		all = append(all, page.Items...)
		if page.NextCursor == nil {
			return all
		}
		cursor = *page.NextCursor
	}
	s.t.Fatal("the locations never ended")
	return nil
}

// TestClientLocations: with two locations beside the default one (a Proxmox cluster,
// a fake, and a simulated one), a tenant's user, its read key and an operator acting
// for the tenant list all three, the default first, with nothing of the drivers'
// settings; a location whose cluster stops answering shows available false once the
// hypervisor watch raises its alert, and true again once it answers.
func TestClientLocations(t *testing.T) {
	t.Parallel()
	key := locationKeyFile(t)
	s, admin := planServer(t, func(c *Config) {
		c.LocationSecretKeyFile = key
		c.HypervisorCheckInterval = 20 * time.Millisecond
	})
	a := s.tenant(admin, "Traveller", nil)
	f := pvefake.New(pvefake.Config{})
	t.Cleanup(f.Close)
	r := s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{
		"name": "Frankfurt", "driver": "proxmox", "proxmox": map[string]any{
			"url": f.URL(), "token_id": f.TokenID(), "token_secret": f.TokenSecret(), "tls_fingerprint": f.Fingerprint()}}})
	expect(t, r, 201, "")
	var fra locations.Location
	r.decode(t, &fra)
	r = s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{"name": "Amsterdam", "driver": "sim"}})
	expect(t, r, 201, "")
	var ams locations.Location
	r.decode(t, &ams)

	want := []locations.OfferedLocation{{ID: locations.Default, Name: locations.Default, Default: true, Available: true},
		{ID: fra.ID, Name: "Frankfurt", Available: true}, {ID: ams.ID, Name: "Amsterdam", Available: true}}
	same := func(got []locations.OfferedLocation) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range want {
			if got[i] != want[i] {
				return false
			}
		}
		return true
	}
	readKey := s.newKey(a.Token, map[string]any{"name": "dashboards", "scopes": []string{"read"}})
	for who, c := range map[string]struct{ tok, query string }{
		"the tenant's user": {a.Token, ""}, "its read key": {readKey.Secret, ""}, "an operator for it": {admin, "&tenant_id=" + a.ID},
	} {
		if got := s.clientLocations(c.tok, c.query); !same(got) {
			t.Errorf("%s: got %+v; want %+v", who, got, want)
		}
	}
	// The whole body, at once: nothing of a driver or its settings.
	r = s.do(req{method: "GET", path: "/api/client/locations", token: a.Token})
	expect(t, r, 200, "")
	for _, secret := range []string{"proxmox", "driver", "token", f.URL(), f.TokenID(), f.TokenSecret(), f.Fingerprint()} {
		if bytes.Contains(r.Body, []byte(secret)) {
			t.Errorf("the tenant's locations hold %q: %s", secret, r.Body)
		}
	}
	// The operators' list stays theirs; an operator names the tenant it acts for.
	expect(t, s.do(req{method: "GET", path: "/api/resources/locations", token: a.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "GET", path: "/api/client/locations", token: admin}), 400, "invalid_request")
	expect(t, s.do(req{method: "GET", path: "/api/client/locations?tenant_id=no-such-tenant", token: admin}), 404, "not_found")

	heal := f.Inject(pvefake.Fault{Status: 503, Message: "proxy: no route to host"})
	want[1].Available = false
	testwait.Eventually(t, "Frankfurt unavailable, the others not", func() bool { return same(s.clientLocations(a.Token, "")) })
	heal()
	want[1].Available = true
	testwait.Eventually(t, "Frankfurt available again", func() bool { return same(s.clientLocations(a.Token, "")) })
}

// TestClientLocationsDefaultDown: the default location's cluster (Proxmox, a fake)
// stops answering; the tenant's list marks the default location unavailable (its alert
// names the driver, not a location) and then available again once it answers.
func TestClientLocationsDefaultDown(t *testing.T) {
	t.Parallel()
	home := pvefake.New(pvefake.Config{})
	t.Cleanup(home.Close)
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
	a := s.tenant(admin, "Homebound", nil)
	available := func() bool {
		got := s.clientLocations(a.Token, "")
		if len(got) != 1 || got[0].ID != locations.Default {
			t.Fatalf("the tenant's locations: got %+v; want the default one alone", got)
		}
		return got[0].Available
	}
	if !available() {
		t.Fatal("the default location unavailable before any fault")
	}
	heal := home.Inject(pvefake.Fault{Status: 503, Message: "proxy: no route to host"})
	testwait.Eventually(t, "the default location unavailable", func() bool { return !available() })
	heal()
	testwait.Eventually(t, "the default location available again", available)
}
