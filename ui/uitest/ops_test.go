package uitest

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// closedPort is a loopback address nothing listens on: a port just let go.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestConsoleHealthChecks: an operator has a target without a port refused next to
// its field, adds a health check of a closed loopback port, sees it fail and its alert event fire, acknowledges the alert by keyboard,
// and deletes the check, whose alert then resolves.
func TestConsoleHealthChecks(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/health", apptest.AdminEmail, apptest.AdminPassword)
	form := `//form[@aria-label="New health check"]`
	run(t, ctx, "a check of a closed port",
		navCurrent("Health checks"),
		chromedp.WaitVisible(`//p[normalize-space(.)="No health checks yet."]`),
		chromedp.Click(`//button[normalize-space(.)="New health check"]`),
		chromedp.WaitVisible(form+`//input[@name="name"]`),
		chromedp.SendKeys(form+`//input[@name="name"]`, "closed"),
		chromedp.SetValue(form+`//select[@name="type"]`, "tcp"),
		chromedp.SendKeys(form+`//input[@name="target"]`, "no port here"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(form+`//input[@name="target"][@aria-invalid="true"]/following-sibling::span[@class="field-error"]`),
		clear(`form[aria-label="New health check"] input[name=target]`),
		chromedp.SendKeys(form+`//input[@name="target"]`, closedPort(t)),
		chromedp.SetValue(form+`//input[@name="interval_s"]`, "1"),
		chromedp.SetValue(form+`//input[@name="timeout_ms"]`, "500"),
		chromedp.SetValue(form+`//input[@name="failure_threshold"]`, "1"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-check="closed"]`),
		chromedp.WaitVisible(`//tr[@data-check="closed"]//span[normalize-space(.)="failing"]`),
	)
	var check struct{ Items []struct{ ID string } }
	s.call("GET", "/api/monitoring/health-checks", s.admin, nil, 200, &check)
	if len(check.Items) != 1 {
		t.Fatalf("checks %+v", check.Items)
	}
	alert := fmt.Sprintf(`//tr[@data-alert=%q]`, check.Items[0].ID)
	run(t, ctx, "its alert fires and is acknowledged",
		chromedp.WaitVisible(alert+`//span[normalize-space(.)="firing"]`),
		confirm(alert, "ack"),
		chromedp.WaitNotPresent(alert),
		chromedp.Click(`//div[@aria-label="Status"]/button[normalize-space(.)="acknowledged"]`),
		chromedp.WaitVisible(alert+`//span[normalize-space(.)="acknowledged"]`),
		shot("health"),
	)
	var acked struct{ Items []struct{ Status string } }
	s.call("GET", "/api/monitoring/alerts/events?kind=health_check", s.admin, nil, 200, &acked)
	if len(acked.Items) != 1 || acked.Items[0].Status != "acknowledged" {
		t.Fatalf("alert events %+v", acked.Items)
	}
	run(t, ctx, "delete the check: its alert resolves",
		confirm(`//tr[@data-check="closed"]`, "delete-check"),
		chromedp.WaitNotPresent(`//tr[@data-check="closed"]`),
		chromedp.Click(`//div[@aria-label="Status"]/button[normalize-space(.)="resolved"]`),
		chromedp.WaitVisible(alert+`//span[normalize-space(.)="resolved"]`),
	)
}

// TestConsoleAudit: an operator reads the audit log, filters it by action, pages
// through it, and a filter that matches nothing says so.
func TestConsoleAudit(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for i := range 25 {
		s.call("POST", "/api/resources/tenants", s.admin, map[string]any{"name": fmt.Sprintf("t%02d", i)}, 201, nil)
	}
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/audit", apptest.AdminEmail, apptest.AdminPassword)
	filters := `//form[@aria-label="Filter the audit log"]`
	var rows, next int
	run(t, ctx, "filtered by action, twenty a page",
		navCurrent("Audit log"),
		chromedp.WaitVisible(`//table[@data-audit]//td[@data-action]`),
		chromedp.SendKeys(filters+`//input[@name="action"]`, "POST /api/resources/tenants"),
		chromedp.SetValue(filters+`//select[@name="limit"]`, "20"),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(`//td[@data-action][normalize-space(.)!="POST /api/resources/tenants"]`),
		chromedp.Evaluate(`document.querySelectorAll("table[data-audit] tbody tr").length`, &rows),
	)
	if rows != 20 {
		t.Fatalf("%d rows on the first page", rows)
	}
	run(t, ctx, "the next page",
		chromedp.Click(`//nav[@aria-label="Pages"]/button[normalize-space(.)="Next"]`),
		chromedp.WaitVisible(`//nav[@aria-label="Pages"]/button[normalize-space(.)="Next"][@disabled]`),
		chromedp.Evaluate(`document.querySelectorAll("table[data-audit] tbody tr").length`, &next),
		shot("audit"),
	)
	// The site's two tenants and these 25.
	if next != 7 {
		t.Fatalf("%d rows on the second page", next)
	}
	run(t, ctx, "a filter that matches nothing",
		chromedp.SendKeys(filters+`//input[@name="target"]`, "machines/none-such"),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//p[normalize-space(.)="No entries."]`),
	)
}

// TestConsoleHealthCheckEdit: an operator edits a check in place (a target without a
// port refused next to its field, then its name, interval, threshold and state
// changed, the row and the API showing them), and filters its alert events by
// severity and kind as well as status, the filter kept in the URL across a reload.
func TestConsoleHealthCheckEdit(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	var c struct{ ID string }
	s.call("POST", "/api/monitoring/health-checks", s.admin, map[string]any{"name": "db", "type": "tcp", "target": closedPort(t),
		"interval_s": 1, "timeout_ms": 500, "failure_threshold": 1}, 201, &c)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/health", apptest.AdminEmail, apptest.AdminPassword)
	alert := fmt.Sprintf(`//tr[@data-alert=%q]`, c.ID)
	run(t, ctx, "its alert fires",
		chromedp.WaitVisible(`//tr[@data-check="db"]`),
		chromedp.WaitVisible(alert+`//span[normalize-space(.)="firing"]`),
	)
	filters := `//section[@aria-labelledby="check-alerts-title"]`
	run(t, ctx, "the alert events filtered by severity, kept across a reload",
		chromedp.SetValue(filters+`//select[@name="severity"]`, "info"),
		chromedp.WaitVisible(`//p[normalize-space(.)="No firing alert events."]`),
		chromedp.SetValue(filters+`//select[@name="severity"]`, "critical"),
		chromedp.WaitVisible(alert),
		chromedp.SetValue(filters+`//select[@name="kind"]`, "node_offline"),
		chromedp.WaitVisible(`//p[normalize-space(.)="No firing alert events."]`),
		chromedp.SetValue(filters+`//select[@name="kind"]`, "all"),
		chromedp.WaitVisible(alert),
		chromedp.Reload(),
		chromedp.WaitVisible(alert),
	)
	var loc, severity, kind string
	run(t, ctx, "the filter after the reload",
		chromedp.Evaluate(`location.search`, &loc),
		chromedp.Value(filters+`//select[@name="severity"]`, &severity),
		chromedp.Value(filters+`//select[@name="kind"]`, &kind),
	)
	if severity != "critical" || kind != "all" || !strings.Contains(loc, "severity=critical") || !strings.Contains(loc, "kind=all") {
		t.Fatalf("after the reload: %q, severity %q, kind %q", loc, severity, kind)
	}
	edit := `//form[@aria-label="Edit db"]`
	run(t, ctx, "a target without a port refused next to its field",
		chromedp.Click(`//tr[@data-check="db"]//button[@data-edit]`),
		chromedp.WaitVisible(edit+`//input[@name="target"]`),
		clear(`form[aria-label="Edit db"] input[name=target]`),
		chromedp.SendKeys(edit+`//input[@name="target"]`, "no port here"),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitVisible(edit+`//input[@name="target"][@aria-invalid="true"]/following-sibling::span[@class="field-error"]`),
	)
	run(t, ctx, "a good edit",
		clear(`form[aria-label="Edit db"] input[name=target]`),
		chromedp.SendKeys(edit+`//input[@name="target"]`, "127.0.0.1:9"),
		clear(`form[aria-label="Edit db"] input[name=name]`),
		chromedp.SendKeys(edit+`//input[@name="name"]`, "database"),
		chromedp.SetValue(edit+`//input[@name="interval_s"]`, "30"),
		chromedp.SetValue(edit+`//input[@name="failure_threshold"]`, "4"),
		chromedp.Click(edit+`//input[@name="enabled"]`),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(edit),
		chromedp.WaitVisible(`//tr[@data-check="database"]/td[normalize-space(.)="tcp 127.0.0.1:9, every 30 s"]`),
		chromedp.WaitVisible(`//tr[@data-check="database"]//span[normalize-space(.)="disabled"]`),
	)
	var got struct {
		Name, Target     string
		IntervalS        int `json:"interval_s"`
		FailureThreshold int `json:"failure_threshold"`
		TimeoutMs        int `json:"timeout_ms"`
		Enabled          bool
	}
	s.call("GET", "/api/monitoring/health-checks/"+c.ID, s.admin, nil, 200, &got)
	if got.Name != "database" || got.Target != "127.0.0.1:9" || got.IntervalS != 30 || got.FailureThreshold != 4 || got.TimeoutMs != 500 || got.Enabled {
		t.Fatalf("the check after the edit %+v", got)
	}
}
