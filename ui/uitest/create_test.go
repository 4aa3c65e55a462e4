package uitest

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// choose picks value in the select of a CSS selector as a user would: the page
// hears the change (chromedp.SetValue alone sends no event).
func choose(sel, value string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const s = document.querySelector(%q);
		s.value = %q; s.dispatchEvent(new Event("change", { bubbles: true })); })()`, sel, value), nil)
}

// TestConsoleCreateWithPlan: a tenant user's create form offers the plans only, with
// each plan's sizes and allowed templates, and creates a machine of a plan; an
// operator's offers custom sizes too and names the tenant.
func TestConsoleCreateWithPlan(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	var small, big struct{ ID string }
	s.call("POST", "/api/resources/plans", s.admin, map[string]any{"name": "small", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10,
		"allowed_templates": []string{"tpl-debian-12"}}, 201, &small)
	s.call("POST", "/api/resources/plans", s.admin, map[string]any{"name": "big", "cpu_cores": 2, "memory_mb": 2048, "disk_gb": 20}, 201, &big)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/machines", "mine@example.test", userPassword)
	form := `//form[@aria-label="New machine"]`
	run(t, ctx, "the plans, their sizes and their templates",
		chromedp.Click(`//button[normalize-space(.)="New machine"]`),
		chromedp.WaitReady(form+fmt.Sprintf(`//select[@name="plan_id"]/option[@value=%q]`, small.ID)),
		chromedp.WaitNotPresent(form+`//select[@name="plan_id"]/option[@value=""]`),
		chromedp.WaitNotPresent(form+`//input[@name="cpu_cores"]`),
		choose(`select[name=plan_id]`, small.ID),
		chromedp.WaitVisible(form+`//p[@data-plan-sizes][starts-with(normalize-space(.), "1 CPU, 1 GB, 10 GB")]`),
		chromedp.WaitReady(form+`//select[@name="template_id"]/option[@value="tpl-debian-12"]`),
		chromedp.WaitNotPresent(form+`//select[@name="template_id"]/option[@value="tpl-ubuntu-24.04"]`),
		choose(`select[name=plan_id]`, big.ID),
		chromedp.WaitVisible(form+`//p[@data-plan-sizes][starts-with(normalize-space(.), "2 CPU")]`),
		chromedp.WaitReady(form+`//select[@name="template_id"]/option[@value="tpl-ubuntu-24.04"]`),
	)
	run(t, ctx, "a machine of a plan",
		chromedp.SendKeys(form+`//input[@name="name"]`, "planned"),
		chromedp.SetValue(`select[name=template_id]`, "tpl-ubuntu-24.04", chromedp.ByQuery),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(row("planned")+`/td[3][starts-with(normalize-space(.), "2 CPU")]`),
	)
	var mine struct {
		Items []struct {
			Name       string
			PlanID     string `json:"plan_id"`
			TemplateID string `json:"template_id"`
		}
	}
	s.call("GET", "/api/client/machines?tenant_id="+s.mine, s.admin, nil, 200, &mine)
	if len(mine.Items) != 1 || mine.Items[0].Name != "planned" || mine.Items[0].PlanID != big.ID || mine.Items[0].TemplateID != "tpl-ubuntu-24.04" {
		t.Fatalf("the tenant's machines %+v", mine.Items)
	}

	// The same tab for the operator: sign out first.
	op := ctx
	run(t, op, "sign out", chromedp.Click(`//button[normalize-space(.)="Sign out"]`), chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery))
	signIn(t, op, s.srv.Base, "/admin/machines", apptest.AdminEmail, apptest.AdminPassword)
	var theirs string
	run(t, op, "an operator's machine of custom sizes for a tenant",
		chromedp.Click(`//button[normalize-space(.)="New machine"]`),
		chromedp.WaitReady(form+`//select[@name="tenant_id"]/option[normalize-space(.)="theirs"]`),
		chromedp.Evaluate(`[...document.querySelectorAll("select[name=tenant_id] option")].find((o) => o.textContent === "theirs").value`, &theirs),
		chromedp.WaitVisible(form+`//input[@name="cpu_cores"]`),
		chromedp.WaitReady(form+`//select[@name="plan_id"]/option[@value=""][normalize-space(.)="custom sizes"]`),
	)
	run(t, op, "create it",
		chromedp.SetValue(`select[name=tenant_id]`, theirs, chromedp.ByQuery),
		chromedp.SendKeys(form+`//input[@name="name"]`, "op-made"),
		chromedp.WaitReady(form+`//select[@name="template_id"]/option[@value="tpl-debian-12"]`),
		chromedp.SendKeys(form+`//input[@name="cpu_cores"]`, "1"),
		chromedp.SendKeys(form+`//input[@name="memory_mb"]`, "512"),
		chromedp.SendKeys(form+`//input[@name="disk_gb"]`, "10"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[td/a[normalize-space(.)="op-made"]]`),
	)
	var theirsMachines struct{ Items []struct{ Name string } }
	s.call("GET", "/api/client/machines?tenant_id="+theirs, s.admin, nil, 200, &theirsMachines)
	found := false
	for _, m := range theirsMachines.Items {
		found = found || m.Name == "op-made"
	}
	if !found {
		t.Fatalf("no op-made among the tenant theirs' machines %+v", theirsMachines.Items)
	}
}
