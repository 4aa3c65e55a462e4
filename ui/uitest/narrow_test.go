package uitest

import (
	"context"

	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// fits fails the step when the page is wider than the screen: at 360 px only a
// table's own frame may scroll sideways, never the page.
func fits(t *testing.T, page string) chromedp.Action {
	var wide bool
	return chromedp.Tasks{
		chromedp.Evaluate(`document.documentElement.scrollWidth > document.documentElement.clientWidth`, &wide),
		chromedp.ActionFunc(func(ctxt context.Context) error {
			if wide {
				t.Errorf("%s is wider than a 360 px screen", page)
			}
			return nil
		}),
	}
}

// TestConsoleNarrow: the operator's tenants, tenant, plans, health checks and audit
// pages and the tenant's overview fit a 360 px wide screen.
func TestConsoleNarrow(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.call("POST", "/api/resources/plans", s.admin, map[string]any{"name": "small", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}, 201, nil)
	s.machine("narrow-1")
	ctx := tab(t)
	run(t, ctx, "a phone's screen", chromedp.EmulateViewport(360, 740))
	signIn(t, ctx, s.srv.Base, "/admin/tenants", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "tenants", chromedp.WaitVisible(`//tr[@data-tenant="mine"]`), fits(t, "the tenants page"), shot("narrow-tenants"))
	run(t, ctx, "a tenant", chromedp.Click(`//tr[@data-tenant="mine"]/td/a`), chromedp.WaitVisible(`//table[@data-usage]`),
		fits(t, "a tenant's page"), shot("narrow-tenant"))
	for _, p := range []struct{ path, ready, name string }{
		{"/admin/plans", `//tr[@data-plan="small"]`, "plans"},
		{"/admin/health", `//p[normalize-space(.)="No health checks yet."]`, "health"},
		{"/admin/audit", `//table[@data-audit]//td`, "audit"},
	} {
		run(t, ctx, p.name, chromedp.Navigate(s.srv.Base+p.path), chromedp.WaitVisible(p.ready), fits(t, "the "+p.name+" page"), shot("narrow-"+p.name))
	}
	run(t, ctx, "sign out", chromedp.Click(`//button[normalize-space(.)="Sign out"]`), chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery))
	signIn(t, ctx, s.srv.Base, "/overview", "mine@example.test", userPassword)
	run(t, ctx, "overview", chromedp.WaitVisible(`//tr[@data-traffic="narrow-1"]`), fits(t, "the overview"), shot("narrow-overview"))
}
