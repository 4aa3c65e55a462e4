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
// account page, and the operator's dashboard, then the dashboard and every machine in
// the dark theme.
func TestConsoleAccessibility(t *testing.T) {
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
	// The dark theme's colours too (prefers-color-scheme: dark).
	run(t, ctx, "the dark theme", emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}))
	axeCheck(t, ctx, "dashboard, dark")
	run(t, ctx, "the machine list, dark", chromedp.Navigate(s.srv.Base+"/admin/machines"), chromedp.WaitVisible(`//td[normalize-space(.)="app-1"]`))
	axeCheck(t, ctx, "machine list, dark")
}
