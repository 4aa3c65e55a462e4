package uitest

import (
	"context"
	_ "embed"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// axeScript is axe-core, a copy pinned in testdata (its README says why and how).
//
//go:embed testdata/axe-core/axe.min.js
var axeScript string

// axeViolation is what the test reports of one of axe's violations.
type axeViolation struct {
	ID, Impact, Help string
	Targets          []string
}

// axeCheck runs axe-core on the page now open (its WCAG 2.x A and AA rules and its
// best practices) and fails the test on a serious or critical violation.
func axeCheck(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	var r struct {
		Passes int
		Found  []axeViolation
	}
	run(t, ctx, "axe on the "+page,
		chromedp.Evaluate(axeScript, nil),
		chromedp.Evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
			.then((r) => ({ passes: r.passes.length, found: r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
				.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })) }))`,
			&r, awaitPromise),
	)
	// No rule passing would mean axe looked at nothing (an empty page).
	if r.Passes == 0 {
		t.Errorf("%s: axe passed no rule", page)
	}
	for _, v := range r.Found {
		t.Errorf("%s: axe %s (%s): %s, at %s", page, v.ID, v.Impact, v.Help, strings.Join(v.Targets, "; "))
	}
}

// TestConsoleAccessibility: axe-core finds no serious or critical violation on the
// console's main pages: sign-in, a tenant's machine list, a machine's page and the
// account page, and the operator's dashboard.
func TestConsoleAccessibility(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.machine("app-1")
	ctx := tab(t)
	run(t, ctx, "the sign-in page",
		chromedp.Navigate(s.srv.Base+"/machines"),
		chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
	)
	axeCheck(t, ctx, "sign-in page")
	signIn(t, ctx, s.srv.Base, "/machines", "mine@example.test", userPassword)
	run(t, ctx, "the machine list", chromedp.WaitVisible(row("app-1")))
	axeCheck(t, ctx, "machine list")
	run(t, ctx, "the machine's page",
		chromedp.Navigate(s.srv.Base+"/machines/"+id),
		chromedp.WaitVisible(`//h1[contains(., "app-1")]/span[normalize-space(.)="running"]`),
		chromedp.WaitVisible(`figure[data-chart=cpu] canvas`, chromedp.ByQuery),
	)
	axeCheck(t, ctx, "machine's page")
	run(t, ctx, "the account page",
		chromedp.Click(`//nav[@aria-label="Main"]//a[normalize-space(.)="Account"]`),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Account"]`),
	)
	axeCheck(t, ctx, "account page")
	run(t, ctx, "sign out", chromedp.Click(`//button[normalize-space(.)="Sign out"]`), chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery))
	signIn(t, ctx, s.srv.Base, "/admin/dashboard", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "the dashboard", chromedp.WaitVisible(`//h1[normalize-space(.)="Dashboard"]`), chromedp.WaitVisible(`//tbody/tr`))
	axeCheck(t, ctx, "dashboard")
}

// TestConsolePhone (a longer run): every page of a tenant and of an operator at a
// phone's 360 px, in the dark theme: none is wider than the screen (no sideways
// scrolling), and axe-core finds no serious or critical violation in that theme.
func TestConsolePhone(t *testing.T) {
	t.Parallel()
	long(t)
	s := newSite(t)
	// A webhook of the tenant's before its machine: the machine's events fill its log.
	hook := newReceiver(t)
	s.call("POST", "/api/resources/webhooks", s.admin, map[string]any{"url": hook.URL, "events": []string{"*"}, "tenant_id": s.mine}, 201, nil)
	id := s.machine("app-1")
	s.addISO("phone.iso")
	ctx := tab(t)
	run(t, ctx, "a phone, dark",
		emulation.SetDeviceMetricsOverride(360, 780, 1, true),
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}),
	)
	fits := func(page string) {
		t.Helper()
		var wide int
		run(t, ctx, page+": its width", chromedp.Evaluate(`document.documentElement.scrollWidth`, &wide))
		if wide > 360 {
			var what string
			run(t, ctx, page+": what is wider", chromedp.Evaluate(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 360 && (!e.parentElement.closest('.table-wrap') || getComputedStyle(e).position === 'absolute'))
				.slice(0, 3).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join('; ')`, &what))
			t.Errorf("%s: %d px wide at 360 px (%s)", page, wide, what)
		}
		axeCheck(t, ctx, page+", dark, 360 px")
	}
	signIn(t, ctx, s.srv.Base, "/machines", "mine@example.test", userPassword)
	run(t, ctx, "the machine list", chromedp.WaitVisible(row("app-1")))
	fits("machine list")
	for _, p := range []struct{ path, ready string }{
		{"/machines/" + id, `figure[data-chart=cpu] canvas`},
		{"/firewall", `main h1`},
		{"/schedules", `main h1`},
		{"/account", `main h1`},
		{"/overview", `main h1`},
	} {
		run(t, ctx, p.path, chromedp.Navigate(s.srv.Base+p.path), chromedp.WaitVisible(p.ready, chromedp.ByQuery))
		fits(p.path)
	}
	run(t, ctx, "/health", chromedp.Navigate(s.srv.Base+"/health"), chromedp.WaitVisible(`main h1`, chromedp.ByQuery))
	fits("/health")
	run(t, ctx, "/webhooks", chromedp.Navigate(s.srv.Base+"/webhooks"), chromedp.Click(`//button[@data-show-deliveries]`),
		chromedp.WaitVisible(`//tr[@data-delivery]`))
	fits("/webhooks with a delivery log")
	run(t, ctx, "sign out", chromedp.Click(`//button[normalize-space(.)="Sign out"]`), chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery))
	fits("sign-in page")
	signIn(t, ctx, s.srv.Base, "/admin/dashboard", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "the dashboard", chromedp.WaitVisible(`//h1[normalize-space(.)="Dashboard"]`), chromedp.WaitVisible(`//tbody/tr`))
	fits("dashboard")
	for _, p := range []string{"/admin/machines", "/admin/nodes"} {
		run(t, ctx, p, chromedp.Navigate(s.srv.Base+p), chromedp.WaitVisible(`//tbody/tr`))
		fits(p)
	}
	for _, p := range []string{"/admin/tenants", "/admin/plans", "/admin/health", "/admin/audit",
		"/admin/webhooks", "/admin/isos", "/admin/backups"} {
		run(t, ctx, p, chromedp.Navigate(s.srv.Base+p), chromedp.WaitVisible(`main h1`, chromedp.ByQuery))
		fits(p)
	}
	run(t, ctx, "an operator's machine page", chromedp.Navigate(s.srv.Base+"/admin/machines/"+id+"?tenant="+s.mine),
		chromedp.WaitReady(`//section[@aria-labelledby="operate-part-title"]//select[@name="target_node"]/option[starts-with(., "pve")]`))
	fits("an operator's machine page")
	// The users, schedules, IP pools and locations pages once their lists are in (a row
	// each: a schedule and a pool made for the walk, the default location).
	s.call("POST", "/api/resources/power-schedules", s.admin, map[string]any{"machine_id": id, "tenant_id": s.mine, "action": "stop", "cron": "0 22 * * *"}, 201, nil)
	s.call("POST", "/api/resources/ip-pools", s.admin, map[string]any{"name": "walk", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1", "dns": []string{"192.0.2.53"}}, 201, nil)
	for _, p := range []string{"/admin/users", "/admin/schedules", "/admin/ip-pools", "/admin/locations"} {
		run(t, ctx, p, chromedp.Navigate(s.srv.Base+p), chromedp.WaitVisible(`main tbody tr`, chromedp.ByQuery))
		fits(p)
	}
	// The forms of a new pool and a pool's change, and of a new (Proxmox) location.
	run(t, ctx, "the pool forms", chromedp.Navigate(s.srv.Base+"/admin/ip-pools"), chromedp.WaitVisible(`main tbody tr`, chromedp.ByQuery),
		chromedp.Click(`//button[normalize-space(.)="New pool"]`), chromedp.Click(`//button[@data-edit="walk"]`),
		chromedp.WaitVisible(`form[aria-label="Edit pool walk"]`, chromedp.ByQuery))
	fits("/admin/ip-pools with its forms")
	run(t, ctx, "the location form", chromedp.Navigate(s.srv.Base+"/admin/locations"), chromedp.WaitVisible(`main tbody tr`, chromedp.ByQuery),
		chromedp.Click(`//button[normalize-space(.)="New location"]`), chromedp.WaitVisible(`input[name="proxmox.token_secret"]`, chromedp.ByQuery))
	fits("/admin/locations with its form")
}
