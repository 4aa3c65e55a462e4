package uitest

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// tenant is a tenant as the API answers it.
type tenant struct {
	ID         string
	Name       string
	Quota      map[string]int64
	Suspension *struct{ Reason, Action string }
}

// tenantNamed finds a tenant by name through the API.
func (s *site) tenantNamed(name string) tenant {
	s.t.Helper()
	var p struct{ Items []tenant }
	s.call("GET", "/api/resources/tenants?limit=500", s.admin, nil, 200, &p)
	for _, t := range p.Items {
		if t.Name == name {
			return t
		}
	}
	s.t.Fatalf("no tenant named %q", name)
	return tenant{}
}

// userDisabled checks through the API whether the user of an e-mail is disabled.
func (s *site) userDisabled(email string, want bool) {
	s.t.Helper()
	var p struct {
		Items []struct {
			Email    string
			Disabled bool
		}
	}
	s.call("GET", "/api/resources/users?limit=500", s.admin, nil, 200, &p)
	for _, u := range p.Items {
		if u.Email == email {
			if u.Disabled != want {
				s.t.Fatalf("%s disabled %v, want %v", email, u.Disabled, want)
			}
			return
		}
	}
	s.t.Fatalf("no user %s", email)
}

// TestConsoleTenants: an operator filters the tenants by name (every page read) and
// by external id, creates one with a quota, changes its quota, suspends it with a
// reason and unsuspends it, adds a user to it (its delete refused then), disables
// and enables the user and deletes it, reads its usage and its overview, and deletes it.
func TestConsoleTenants(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/tenants", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "the list, filtered by name",
		navCurrent("Tenants"),
		chromedp.WaitVisible(`//tr[@data-tenant="theirs"]`),
		chromedp.SendKeys(`input[name=filter]`, "MIN", chromedp.ByQuery),
		chromedp.Click(`//form[@role="search"]//button[@type="submit"]`),
		chromedp.WaitVisible(`//p[@data-matches][normalize-space(.)="1 of 2 tenants match."]`),
		chromedp.WaitNotPresent(`//tr[@data-tenant="theirs"]`),
		chromedp.WaitVisible(`//tr[@data-tenant="mine"]`),
	)
	form := `//form[@aria-label="New tenant"]`
	run(t, ctx, "a new tenant with a quota",
		chromedp.Click(`//button[normalize-space(.)="New tenant"]`),
		chromedp.WaitVisible(form+`//input[@name="name"]`),
		chromedp.SendKeys(form+`//input[@name="name"]`, "acme"),
		chromedp.SendKeys(form+`//input[@name="external_id"]`, "crm-7"),
		chromedp.SendKeys(form+`//input[@name="machines"]`, "3"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(form),
		filterTo("ac"),
		chromedp.Click(`//form[@role="search"]//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-tenant="acme"]/td[3][normalize-space(.)="3"]`),
	)
	if q := s.tenantNamed("acme").Quota; q["machines"] != 3 {
		t.Fatalf("acme's quota %v", q)
	}
	quotas := `//form[@aria-label="Quotas"]`
	run(t, ctx, "found by its external id",
		filterTo(""),
		chromedp.SendKeys(`input[name=external_filter]`, "crm-7", chromedp.ByQuery),
		chromedp.Click(`//form[@role="search"]//button[@type="submit"]`),
		chromedp.WaitNotPresent(`//tr[@data-tenant="mine"]`),
		chromedp.WaitVisible(`//tr[@data-tenant="acme"]`),
	)
	run(t, ctx, "its page, and a refused quota shown next to its field",
		chromedp.Click(`//tr[@data-tenant="acme"]/td/a`),
		chromedp.WaitVisible(`//h1[contains(., "acme")]/span[@data-state="active"]`),
		chromedp.WaitVisible(quotas+`//input[@name="cpu_cores"]`),
		chromedp.SetValue(quotas+`//input[@name="cpu_cores"]`, "3000000000"),
		chromedp.Click(quotas+`//button[@type="submit"]`),
		chromedp.WaitVisible(quotas+`//input[@name="cpu_cores"][@aria-invalid="true"]/following-sibling::span[@class="field-error"]`),
		chromedp.SetValue(quotas+`//input[@name="cpu_cores"]`, "8"),
		chromedp.Click(quotas+`//button[@type="submit"]`),
		chromedp.WaitVisible(quotas+`//span[@data-saved]`),
	)
	if q := s.tenantNamed("acme").Quota; q["cpu_cores"] != 8 || q["machines"] != 3 {
		t.Fatalf("acme's quota after the change %v", q)
	}
	suspend := `//form[@aria-label="Suspend"]`
	run(t, ctx, "suspend it",
		chromedp.SendKeys(suspend+`//input[@name="reason"]`, "invoice 42 unpaid"),
		chromedp.SetValue(suspend+`//select[@name="action"]`, "none"),
		chromedp.Click(suspend+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//h1[contains(., "acme")]/span[@data-state="suspended"]`),
		chromedp.WaitVisible(`//h1/span[@data-reason][normalize-space(.)="invoice 42 unpaid"]`),
		chromedp.WaitVisible(`//dd[@data-suspension][contains(., "machines: none")]`),
	)
	if sus := s.tenantNamed("acme").Suspension; sus == nil || sus.Reason != "invoice 42 unpaid" || sus.Action != "none" {
		t.Fatalf("acme's suspension %+v", sus)
	}
	run(t, ctx, "unsuspend it",
		chromedp.Click(`//form[@aria-label="Unsuspend"]//button[@type="submit"]`),
		chromedp.WaitVisible(`//h1[contains(., "acme")]/span[@data-state="active"]`),
	)
	if sus := s.tenantNamed("acme").Suspension; sus != nil {
		t.Fatalf("acme still suspended: %+v", sus)
	}
	users := `//form[@aria-label="New user"]`
	run(t, ctx, "add a user and delete it",
		chromedp.WaitVisible(`//p[normalize-space(.)="No users yet."]`),
		chromedp.SendKeys(users+`//input[@name="email"]`, "ops@acme.test"),
		chromedp.SendKeys(users+`//input[@name="name"]`, "Ops"),
		chromedp.SendKeys(users+`//input[@name="password"]`, userPassword),
		chromedp.Click(users+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-user="ops@acme.test"]`),
	)
	del := `//section[@aria-labelledby="delete-part-title"]`
	run(t, ctx, "its delete refused while it has a user",
		confirm(del, "delete-tenant"),
		chromedp.WaitVisible(del+`//div[@role="alert"]/strong`),
	)
	run(t, ctx, "disable the user and enable it again",
		confirm(`//tr[@data-user="ops@acme.test"]`, "disable-user"),
		chromedp.WaitVisible(`//tr[@data-user="ops@acme.test"]/td[@data-user-state][normalize-space(.)="disabled"]`),
	)
	s.userDisabled("ops@acme.test", true)
	run(t, ctx, "enable it",
		chromedp.Click(`//button[@data-enable="ops@acme.test"]`),
		chromedp.WaitVisible(`//tr[@data-user="ops@acme.test"]/td[@data-user-state][normalize-space(.)="enabled"]`),
	)
	s.userDisabled("ops@acme.test", false)
	run(t, ctx, "delete the user",
		confirm(`//tr[@data-user="ops@acme.test"]`, "delete-user"),
		chromedp.WaitNotPresent(`//tr[@data-user="ops@acme.test"]`),
	)
	run(t, ctx, "its usage",
		chromedp.WaitVisible(`//table[@data-usage]/tfoot/tr/th[normalize-space(.)="Total"]`),
		shot("tenant"),
	)
	run(t, ctx, "its overview, as its users see it",
		chromedp.Click(`//dd/a[contains(., "quota use")]`),
		chromedp.WaitVisible(`//h1[contains(., "Overview")]`),
		chromedp.WaitVisible(`//tr[@data-quota="cpu_cores"][td[2]="8"]`),
	)
	run(t, ctx, "delete it",
		chromedp.NavigateBack(),
		chromedp.WaitVisible(`//h1[contains(., "acme")]`),
		confirm(del, "delete-tenant"),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Tenants"]`),
		chromedp.WaitVisible(`//tr[@data-tenant="mine"]`),
		chromedp.WaitNotPresent(`//tr[@data-tenant="acme"]`),
	)
	var left struct{ Items []tenant }
	s.call("GET", "/api/resources/tenants?limit=500", s.admin, nil, 200, &left)
	for _, x := range left.Items {
		if x.Name == "acme" {
			t.Fatal("acme is still there")
		}
	}
}

// filterTo puts text into the tenants' name filter in place of what it held.
func filterTo(text string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const i = document.querySelector("input[name=filter]");
		i.value = %q; i.dispatchEvent(new Event("input", { bubbles: true })); })()`, text), nil)
}
