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
// resize) with a note saying why.
func TestConsoleMachineOfNoTenant(t *testing.T) {
	s := newSite(t)
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
		shot("machine-no-tenant"),
	)
	axeCheck(t, ctx, "a machine of no tenant")
}
