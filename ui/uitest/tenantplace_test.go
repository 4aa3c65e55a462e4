package uitest

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestConsoleTenantPlacesAMachine: a tenant user, with a location beside the default
// one, picks Berlin in the create form of its own machines (the client area's list of
// locations, a tenant's), is offered Berlin's templates alone, and sees the machine's
// location in its list and on its page; with a plan in Berlin, the form shows the
// plan's location instead of a choice and offers that location's templates. Both
// machines are made in Berlin, one of the plan, one of its own sizes.
func TestConsoleTenantPlacesAMachine(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	var berlin location
	s.call("POST", "/api/resources/locations", s.admin, map[string]any{"name": "Berlin", "driver": "sim"}, 201, &berlin)
	s.call("POST", "/api/virt/sync", s.admin, nil, 200, nil)
	tpl := "tpl-debian-12@" + berlin.ID
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/machines", "mine@example.test", userPassword)
	mform := `//form[@aria-label="New machine"]`
	run(t, ctx, "a machine of its own sizes in the location chosen",
		chromedp.WaitVisible(`//th[normalize-space(.)="Location"]`),
		chromedp.Click(`//button[normalize-space(.)="New machine"]`),
		chromedp.WaitReady(mform+`//select[@name="location_id"]/option[@value="default"][normalize-space(.)="default (default)"]`),
		chromedp.WaitReady(mform+fmt.Sprintf(`//select[@name="location_id"]/option[@value=%q][normalize-space(.)="Berlin"]`, berlin.ID)),
		chromedp.WaitReady(mform+`//select[@name="template_id"]/option[@value="tpl-debian-12"]`),
		choose(`form[aria-label="New machine"] select[name=location_id]`, berlin.ID),
		chromedp.WaitNotPresent(mform+`//select[@name="template_id"]/option[@value="tpl-debian-12"]`),
		chromedp.WaitReady(mform+fmt.Sprintf(`//select[@name="template_id"]/option[@value=%q]`, tpl)),
		chromedp.SendKeys(mform+`//input[@name="name"]`, "own-berlin"),
		chromedp.SendKeys(mform+`//input[@name="cpu_cores"]`, "1"),
		chromedp.SendKeys(mform+`//input[@name="memory_mb"]`, "512"),
		chromedp.SendKeys(mform+`//input[@name="disk_gb"]`, "10"),
		chromedp.Click(mform+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[td/a[normalize-space(.)="own-berlin"]]/td[@data-location][normalize-space(.)="Berlin"]`),
	)
	run(t, ctx, "its page says where it is",
		chromedp.Click(`//tr/td/a[normalize-space(.)="own-berlin"]`),
		chromedp.WaitVisible(`//dl[@class="facts"]/dd[@data-location][normalize-space(.)="Berlin"]`),
	)

	var plan struct{ ID string }
	s.call("POST", "/api/resources/plans", s.admin, map[string]any{"name": "berlin-small", "cpu_cores": 1, "memory_mb": 1024,
		"disk_gb": 10, "ipv4": 0, "location_id": berlin.ID}, 201, &plan)
	run(t, ctx, "a machine of the plan, made in the plan's location",
		// The plans are read once per page load: a new load sees the plan.
		chromedp.Navigate(s.srv.Base+"/machines"),
		chromedp.Click(`//button[normalize-space(.)="New machine"]`),
		chromedp.WaitReady(mform+fmt.Sprintf(`//select[@name="plan_id"]/option[@value=%q][contains(., "in Berlin")]`, plan.ID)),
		chromedp.WaitVisible(mform+`//p[@data-plan-location][contains(., "Berlin")]`),
		chromedp.WaitNotPresent(mform+`//select[@name="location_id"]`),
		chromedp.WaitReady(mform+fmt.Sprintf(`//select[@name="template_id"]/option[@value=%q]`, tpl)),
		chromedp.WaitNotPresent(mform+`//select[@name="template_id"]/option[@value="tpl-debian-12"]`),
		chromedp.SendKeys(mform+`//input[@name="name"]`, "in-berlin"),
		chromedp.Click(mform+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[td/a[normalize-space(.)="in-berlin"]]/td[@data-location][normalize-space(.)="Berlin"]`),
		shot("tenant-machines-location"),
	)
	var ms struct {
		Items []struct {
			Name       string
			LocationID string `json:"location_id"`
			PlanID     string `json:"plan_id"`
		}
	}
	s.call("GET", "/api/client/machines?limit=200&tenant_id="+s.mine, s.admin, nil, 200, &ms)
	planned, own := false, false
	for _, m := range ms.Items {
		switch m.Name {
		case "in-berlin":
			planned = m.LocationID == berlin.ID && m.PlanID == plan.ID
		case "own-berlin":
			own = m.LocationID == berlin.ID && m.PlanID == ""
		}
	}
	if !planned || !own {
		t.Fatalf("no in-berlin of the plan and own-berlin of its own sizes in %s among %+v", berlin.ID, ms.Items)
	}
}
