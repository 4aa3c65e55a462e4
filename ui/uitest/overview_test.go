package uitest

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestConsoleOverview: a tenant user's overview shows its machines' states, the
// quota's use against its limits, the usage trends (another span chosen) and a
// machine's traffic against its plan's allowance, and the usage for invoices.
func TestConsoleOverview(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.call("PATCH", "/api/resources/tenants/"+s.mine, s.admin, map[string]any{"quota": map[string]any{"machines": 5}}, 200, nil)
	var metered struct{ ID string }
	s.call("POST", "/api/resources/plans", s.admin, map[string]any{"name": "metered", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10,
		"traffic_gb": 100}, 201, &metered)
	var m struct{ Task struct{ ID string } }
	s.call("POST", "/api/client/machines?tenant_id="+s.mine, s.admin, map[string]any{"name": "metered-1", "template_id": "tpl-debian-12",
		"plan_id": metered.ID}, 202, &m)
	s.waitTask(m.Task.ID)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/overview", "mine@example.test", userPassword)
	run(t, ctx, "the machines and the quota",
		navCurrent("Overview"),
		chromedp.WaitVisible(`//li[@data-count="total"]/strong[normalize-space(.)="1"]`),
		chromedp.WaitVisible(`//li[@data-count="running"]/strong[normalize-space(.)="1"]`),
		chromedp.WaitVisible(`//tr[@data-quota="machines"][td[1]="1"][td[2]="5"]//meter[@value="1"][@max="5"]`),
	)
	run(t, ctx, "the trends, over 7 days",
		chromedp.WaitVisible(`figure[data-trend=cpu_core_hours] svg`, chromedp.ByQuery),
		chromedp.Click(`//div[@aria-label="Days"]/button[normalize-space(.)="7 days"]`),
		chromedp.WaitVisible(`//div[@aria-label="Days"]/button[normalize-space(.)="7 days"][@aria-pressed="true"]`),
		chromedp.WaitVisible(`//figure[@data-trend="net_in_bytes"]/p[contains(., "over 7 days")]`),
	)
	run(t, ctx, "the traffic against the allowance",
		chromedp.WaitVisible(`//tr[@data-traffic="metered-1"]/td[3][normalize-space(.)="100.0 GiB"]`),
		chromedp.WaitVisible(`//tr[@data-traffic="metered-1"]/td[@data-left]`),
		shot("overview"),
	)
	run(t, ctx, "the usage for invoices",
		chromedp.WaitVisible(`//table[@data-usage]/tfoot/tr/th[normalize-space(.)="Total"]`),
	)
}
