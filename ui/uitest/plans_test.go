package uitest

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// plan is a plan as the API answers it.
type plan struct {
	ID               string
	Name             string
	CPUCores         int64    `json:"cpu_cores"`
	TrafficGB        *int64   `json:"traffic_gb"`
	AllowedTemplates []string `json:"allowed_templates"`
}

// plans are the plans by name, as the API lists them.
func (s *site) plans() map[string]plan {
	s.t.Helper()
	var p struct{ Items []plan }
	s.call("GET", "/api/resources/plans?limit=200", s.admin, nil, 200, &p)
	out := map[string]plan{}
	for _, x := range p.Items {
		out[x.Name] = x
	}
	return out
}

// TestConsolePlans: an operator creates a plan allowing one template, changes its
// size and clears its traffic bound, reads its capacity, is refused the delete of the
// plan a machine uses (the API's detail shown), and deletes another.
func TestConsolePlans(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/plans", apptest.AdminEmail, apptest.AdminPassword)
	form := `//form[@aria-label="New plan"]`
	newPlan := func(name, cpu string) chromedp.Action {
		return chromedp.Tasks{
			chromedp.Click(`//button[normalize-space(.)="New plan"]`),
			chromedp.WaitVisible(form + `//input[@name="name"]`),
			chromedp.SendKeys(form+`//input[@name="name"]`, name),
			chromedp.SetValue(form+`//input[@name="cpu_cores"]`, cpu),
			chromedp.SetValue(form+`//input[@name="memory_mb"]`, "1024"),
			chromedp.SetValue(form+`//input[@name="disk_gb"]`, "10"),
			chromedp.SetValue(form+`//input[@name="traffic_gb"]`, "500"),
		}
	}
	run(t, ctx, "a new plan allowing one template",
		navCurrent("Plans"),
		chromedp.WaitVisible(`//p[normalize-space(.)="No plans yet."]`),
		newPlan("small", "1"),
		chromedp.WaitReady(form+`//input[@name="allowed_templates"][@value="tpl-debian-12"]`),
		chromedp.Click(form+`//input[@name="allowed_templates"][@value="tpl-debian-12"]`),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-plan="small"]/td[@data-size][starts-with(normalize-space(.), "1 CPU")]`),
	)
	if p := s.plans()["small"]; p.CPUCores != 1 || p.TrafficGB == nil || len(p.AllowedTemplates) != 1 {
		t.Fatalf("the plan %+v", p)
	}
	edit := `//form[@aria-label="Change plan small"]`
	run(t, ctx, "change its size and clear its traffic bound",
		chromedp.Click(`//button[@data-edit="small"]`),
		chromedp.WaitVisible(edit+`//input[@name="cpu_cores"]`),
		chromedp.SetValue(edit+`//input[@name="cpu_cores"]`, "2"),
		chromedp.SetValue(edit+`//input[@name="traffic_gb"]`, ""),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(edit),
		chromedp.WaitVisible(`//tr[@data-plan="small"]/td[@data-size][starts-with(normalize-space(.), "2 CPU")]`),
	)
	if p := s.plans()["small"]; p.CPUCores != 2 || p.TrafficGB != nil || len(p.AllowedTemplates) != 1 {
		t.Fatalf("the plan after the change %+v", p)
	}
	run(t, ctx, "its capacity",
		chromedp.Click(`//button[@data-capacity="small"]`),
		chromedp.WaitVisible(`//div[@data-capacity-of="small"]//strong[@data-fits]`),
	)
	var m struct{ Task struct{ ID string } }
	s.call("POST", "/api/client/machines?tenant_id="+s.mine, s.admin, map[string]any{"name": "on-plan", "template_id": "tpl-debian-12",
		"plan_id": s.plans()["small"].ID}, 202, &m)
	s.waitTask(m.Task.ID)
	run(t, ctx, "the delete of a plan in use refused with the API's detail",
		confirm(`//tr[@data-plan="small"]`, "delete-plan"),
		chromedp.WaitVisible(`//div[@role="alert"]/p[contains(., "is used by 1 machine")]`),
		chromedp.WaitVisible(`//tr[@data-plan="small"]`),
	)
	run(t, ctx, "delete another plan",
		newPlan("spare", "1"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-plan="spare"]`),
		confirm(`//tr[@data-plan="spare"]`, "delete-plan"),
		chromedp.WaitNotPresent(`//tr[@data-plan="spare"]`),
		shot("plans"),
	)
	if _, ok := s.plans()["spare"]; ok {
		t.Fatal("the plan spare is still there")
	}
}
