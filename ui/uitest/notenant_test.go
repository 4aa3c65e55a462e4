package uitest

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// TestConsoleMachineOfNoTenant: an operator opens a machine of no tenant (one the
// simulated cluster had before vmplane) from the machines list: its page reads it
// through the operators' routes, stops and starts it, shows the tasks of the visit
// as they run, and leaves out the parts that need a tenant (backups, snapshots,
// resize) with a note saying why. The operator's part changes its size (PATCH
// /api/virt/vms/{id}/config) and moves it to a plan (POST .../plan).
func TestConsoleMachineOfNoTenant(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.call("POST", "/api/resources/plans", s.admin, map[string]any{"name": "big", "cpu_cores": 6, "memory_mb": 12288, "disk_gb": 80}, 201, nil)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/machines", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "its page",
		chromedp.Click(`//tr[.//button[@data-assign="demo-001"]]/td/a[normalize-space(.)="demo-001"]`),
		chromedp.WaitVisible(`//h1[contains(., "demo-001")]/span[normalize-space(.)="running"]`),
		chromedp.WaitVisible(`//p[@data-no-tenant]`),
		chromedp.WaitVisible(`//section[@aria-labelledby="operate-part-title"]`),
		chromedp.WaitNotPresent(`#backups`, chromedp.ByQuery),
		chromedp.WaitNotPresent(`#snapshots`, chromedp.ByQuery),
		chromedp.WaitNotPresent(`#resize`, chromedp.ByQuery),
		chromedp.WaitNotPresent(`.problem`, chromedp.ByQuery),
	)
	run(t, ctx, "stopped",
		chromedp.Click(`button[data-action=stop]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//h1[contains(., "demo-001")]/span[normalize-space(.)="stopped"]`),
		chromedp.WaitVisible(`//section[@aria-labelledby="tasks-part-title"]//tr[td[normalize-space(.)="vm.stop"]][td/span[normalize-space(.)="succeeded"]]`),
	)
	run(t, ctx, "started",
		chromedp.Click(`button[data-action=start]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//h1[contains(., "demo-001")]/span[normalize-space(.)="running"]`),
		chromedp.WaitNotPresent(`.problem`, chromedp.ByQuery),
	)
	size := `//dl[@class="facts"]/dt[normalize-space(.)="Size"]/following-sibling::dd[1]`
	run(t, ctx, "its size changed",
		chromedp.SetValue(`form[data-config] input[name=cpu_cores]`, "2", chromedp.ByQuery),
		chromedp.Click(`//form[@data-config]//button[@type="submit"]`),
		chromedp.WaitVisible(size+`[starts-with(normalize-space(.), "2 CPU")]`),
		chromedp.WaitNotPresent(`.problem`, chromedp.ByQuery),
	)
	run(t, ctx, "moved to a plan",
		chromedp.SetValue(`//div[@data-config-plan]//select[@name="plan_id"]`, planID(t, s, "big")),
		chromedp.Click(`//div[@data-config-plan]//button[normalize-space(.)="Move to plan"]`),
		chromedp.WaitVisible(size+`[starts-with(normalize-space(.), "6 CPU")]`),
		chromedp.WaitNotPresent(`.problem`, chromedp.ByQuery),
		shot("machine-no-tenant"),
	)
	axeCheck(t, ctx, "a machine of no tenant")
}

// planID is the id of the plan named name.
func planID(t *testing.T, s *site, name string) string {
	t.Helper()
	var page struct {
		Items []struct{ ID, Name string }
	}
	s.call("GET", "/api/resources/plans?limit=200", s.admin, nil, 200, &page)
	for _, p := range page.Items {
		if p.Name == name {
			return p.ID
		}
	}
	t.Fatalf("no plan %q", name)
	return ""
}
