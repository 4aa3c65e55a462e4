package uitest

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// pool is an IP pool as the API answers it.
type pool struct {
	ID         string
	Name       string
	CIDR       string
	Gateway    string
	Node       *string
	DNS        []string
	LocationID string `json:"location_id"`
	Allocated  int64
}

// pools are the IP pools by name, as the API lists them.
func (s *site) pools() map[string]pool {
	s.t.Helper()
	var p struct{ Items []pool }
	s.call("GET", "/api/resources/ip-pools?limit=200", s.admin, nil, 200, &p)
	out := map[string]pool{}
	for _, x := range p.Items {
		out[x.Name] = x
	}
	return out
}

// TestConsoleIPPools: an operator is told a bad range next to its field, creates the
// pool with a resolver, renames it, moves its gateway and clears its resolvers in
// place, deletes it, and is refused the delete of a pool a machine holds an address
// of (the API's title and detail shown under its row, its count of addresses shown).
func TestConsoleIPPools(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/ip-pools", apptest.AdminEmail, apptest.AdminPassword)
	form := `//form[@aria-label="New pool"]`
	run(t, ctx, "a range with host bits set: its error next to it",
		navCurrent("IP pools"),
		chromedp.WaitVisible(`//p[normalize-space(.)="No pools yet."]`),
		chromedp.Click(`//button[normalize-space(.)="New pool"]`),
		chromedp.WaitVisible(form+`//input[@name="name"]`),
		chromedp.SendKeys(form+`//input[@name="name"]`, "edge"),
		chromedp.SendKeys(form+`//input[@name="cidr"]`, "192.0.2.7/24"),
		chromedp.SendKeys(form+`//input[@name="gateway"]`, "192.0.2.1"),
		chromedp.SendKeys(form+`//input[@name="dns"]`, "192.0.2.53, 192.0.2.54"),
		chromedp.WaitReady(form+`//select[@name="location_id"]/option[@value="default"]`),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(form+`//input[@name="cidr"][@aria-invalid="true"]/following-sibling::span[@id="cidr-error"]`),
	)
	if _, ok := s.pools()["edge"]; ok {
		t.Fatal("the pool of a bad range was made")
	}
	run(t, ctx, "the range put right",
		clear(`form[aria-label="New pool"] input[name=cidr]`),
		chromedp.SendKeys(form+`//input[@name="cidr"]`, "192.0.2.0/24"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(form),
		chromedp.WaitVisible(`//tr[@data-pool="edge"]/td[@data-cidr][starts-with(normalize-space(.), "192.0.2.0/24")]`),
		chromedp.WaitVisible(`//tr[@data-pool="edge"]/td[@data-location][normalize-space(.)="default"]`),
	)
	if p := s.pools()["edge"]; p.Gateway != "192.0.2.1" || len(p.DNS) != 2 || p.LocationID != "default" || p.Node != nil {
		t.Fatalf("the pool %+v", p)
	}
	edit := `//form[@aria-label="Edit pool edge"]`
	run(t, ctx, "rename it, move its gateway, clear its resolvers",
		chromedp.Click(`//button[@data-edit="edge"]`),
		chromedp.WaitVisible(edit+`//input[@name="name"]`),
		// The name takes the focus; what is typed after it is kept whole.
		chromedp.WaitVisible(`form[aria-label="Edit pool edge"] input[name=name]:focus`, chromedp.ByQuery),
		clear(`form[aria-label="Edit pool edge"] input[name=name]`),
		chromedp.SendKeys(edit+`//input[@name="name"]`, "edge-1"),
		clear(`form[aria-label="Edit pool edge"] input[name=gateway]`),
		chromedp.SendKeys(edit+`//input[@name="gateway"]`, "192.0.2.254"),
		clear(`form[aria-label="Edit pool edge"] input[name=dns]`),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(edit),
		chromedp.WaitVisible(`//tr[@data-pool="edge-1"]/td[@data-gateway][normalize-space(.)="192.0.2.254"]`),
		chromedp.WaitVisible(`//tr[@data-pool="edge-1"]/td[@data-dns][normalize-space(.)="none"]`),
	)
	if p := s.pools()["edge-1"]; p.Gateway != "192.0.2.254" || len(p.DNS) != 0 || p.CIDR != "192.0.2.0/24" {
		t.Fatalf("the pool after the change %+v", p)
	}
	run(t, ctx, "delete it",
		confirm(`//tr[@data-pool="edge-1"]`, "delete-pool"),
		chromedp.WaitNotPresent(`//tr[@data-pool="edge-1"]`),
		chromedp.WaitVisible(`//p[normalize-space(.)="No pools yet."]`),
	)
	if _, ok := s.pools()["edge-1"]; ok {
		t.Fatal("the pool edge-1 is still there")
	}
	s.call("POST", "/api/resources/ip-pools", s.admin, map[string]any{"name": "held", "cidr": "198.51.100.0/24", "gateway": "198.51.100.1"}, 201, nil)
	var m struct{ Task struct{ ID string } }
	s.call("POST", "/api/client/machines?tenant_id="+s.mine, s.admin, map[string]any{"name": "addressed", "template_id": "tpl-debian-12",
		"cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10, "ipv4": 1}, 202, &m)
	s.waitTask(m.Task.ID)
	run(t, ctx, "the delete of a pool in use refused with the API's title and detail",
		chromedp.Reload(),
		chromedp.WaitVisible(`//tr[@data-pool="held"]/td[@data-allocated][normalize-space(.)="1 address"]`),
		confirm(`//tr[@data-pool="held"]`, "delete-pool"),
		chromedp.WaitVisible(`//tr[@data-pool-more="held"]//div[@role="alert"][strong][p[contains(., "has 1 allocated address")]]`),
		chromedp.WaitVisible(`//tr[@data-pool="held"]`),
		shot("ip-pools"),
	)
}
