package uitest

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// schedules is the crons of the tenant mine's schedules of a kind (power or backup).
func (s *site) schedules(kind string) []string {
	s.t.Helper()
	var p struct{ Items []struct{ Cron string } }
	s.call("GET", "/api/resources/"+kind+"-schedules?limit=100&tenant_id="+s.mine, s.admin, nil, 200, &p)
	var out []string
	for _, x := range p.Items {
		out = append(out, x.Cron)
	}
	return out
}

// TestConsoleSchedules: a tenant user adds a power schedule from a preset (said in
// words, with its next five runs), has a backup schedule that never fires refused
// with the API's error next to the cron field, adds one from a raw expression, edits
// it in place (a wrong cron refused next to its field, then its cron, mode and state
// changed), and deletes the power schedule.
func TestConsoleSchedules(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.machine("app-1")
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/schedules", "mine@example.test", userPassword)
	form := `//form[@aria-label="New schedule"]`
	var weekly string
	run(t, ctx, "a weekly preset in words with its next runs",
		navCurrent("Schedules"),
		chromedp.Click(`//button[normalize-space(.)="New schedule"]`),
		chromedp.WaitReady(form+fmt.Sprintf(`//option[@value=%q]`, id)),
		chromedp.Click(form+`//label[normalize-space(.)="Weekly"]/input`),
		chromedp.WaitVisible(form+`//p[@data-runs-at][normalize-space(.)="Runs at 03:00 on Monday (UTC)."]`),
		chromedp.WaitVisible(form+`//ol[@data-next-runs][count(li)=5]`),
		chromedp.Value(form+`//input[@name="cron"]`, &weekly),
		chromedp.Click(form+`//label[normalize-space(.)="Daily"]/input`),
		chromedp.WaitVisible(form+`//p[@data-runs-at][normalize-space(.)="Runs at 03:00 every day (UTC)."]`),
		chromedp.SetValue(form+`//select[@name="action"]`, "stop"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-kind="power"][td[normalize-space(.)="stop"]]//span[@data-words][normalize-space(.)="at 03:00 every day"]`),
	)
	if weekly != "0 3 * * 1" {
		t.Errorf("the weekly preset's expression is %q", weekly)
	}
	if got := s.schedules("power"); len(got) != 1 || got[0] != "0 3 * * *" {
		t.Fatalf("power schedules %q", got)
	}
	run(t, ctx, "a backup on a day that never comes refused next to the cron field",
		chromedp.Click(`//button[normalize-space(.)="New schedule"]`),
		chromedp.WaitReady(form+fmt.Sprintf(`//option[@value=%q]`, id)),
		chromedp.Click(form+`//label[normalize-space(.)="Backup"]/input`),
		chromedp.Click(form+`//label[normalize-space(.)="Cron expression"]/input`),
		clear(`form[aria-label="New schedule"] input[name=cron]`),
		chromedp.SendKeys(form+`//input[@name="cron"]`, "0 0 30 2 *"),
		chromedp.WaitVisible(form+`//p[@data-runs-at][normalize-space(.)="Runs at 00:00 on day 30 of the month in February (UTC)."]`),
		chromedp.WaitVisible(form+`//p[normalize-space(.)="It does not run in the next five years."]`),
		chromedp.WaitNotPresent(form+`//ol[@data-next-runs]`),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(form+`//input[@name="cron"][@aria-invalid="true"]/following-sibling::span[@class="field-error"][normalize-space(.)="never fires"]`),
	)
	run(t, ctx, "a backup from a raw expression",
		clear(`form[aria-label="New schedule"] input[name=cron]`),
		chromedp.SendKeys(form+`//input[@name="cron"]`, "30 2 * * sun"),
		chromedp.WaitVisible(form+`//p[@data-runs-at][normalize-space(.)="Runs at 02:30 on Sunday (UTC)."]`),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-kind="backup"]//span[@data-words][normalize-space(.)="at 02:30 on Sunday"]`),
		shot("schedules"),
	)
	if got := s.schedules("backup"); len(got) != 1 || got[0] != "30 2 * * sun" {
		t.Fatalf("backup schedules %q", got)
	}
	edit := `//form[@aria-label="Edit schedule"]`
	run(t, ctx, "edit the backup schedule in place: a wrong cron refused next to its field",
		chromedp.Click(`//tr[@data-kind="backup"]//button[@data-edit]`),
		chromedp.WaitVisible(edit+`//input[@name="cron"]`),
		clear(`form[aria-label="Edit schedule"] input[name=cron]`),
		chromedp.SendKeys(edit+`//input[@name="cron"]`, "0 0 30 2 *"),
		chromedp.WaitVisible(edit+`//p[@data-edit-words][normalize-space(.)="Runs at 00:00 on day 30 of the month in February (UTC)."]`),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitVisible(edit+`//input[@name="cron"][@aria-invalid="true"]/following-sibling::span[@class="field-error"][normalize-space(.)="never fires"]`),
	)
	run(t, ctx, "then its cron, mode and state changed",
		clear(`form[aria-label="Edit schedule"] input[name=cron]`),
		chromedp.SendKeys(edit+`//input[@name="cron"]`, "15 4 * * *"),
		chromedp.SetValue(edit+`//select[@name="mode"]`, "stop"),
		chromedp.Click(edit+`//input[@name="enabled"]`),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(edit),
		chromedp.WaitVisible(`//tr[@data-kind="backup"][td[starts-with(normalize-space(.), "back up (stop)")]]//span[@data-words][normalize-space(.)="at 04:15 every day"]`),
	)
	var b struct {
		Items []struct {
			Cron, Mode string
			Enabled    bool
		}
	}
	s.call("GET", "/api/resources/backup-schedules?tenant_id="+s.mine, s.admin, nil, 200, &b)
	if len(b.Items) != 1 || b.Items[0].Cron != "15 4 * * *" || b.Items[0].Mode != "stop" || b.Items[0].Enabled {
		t.Fatalf("backup schedules after the edit %+v", b.Items)
	}
	run(t, ctx, "delete the power schedule",
		confirm(`//tr[@data-kind="power"]`, "delete"),
		chromedp.WaitNotPresent(`//tr[@data-kind="power"]`),
	)
	if got := s.schedules("power"); len(got) != 0 {
		t.Fatalf("power schedules after the delete %q", got)
	}
}

// TestConsoleAdminSchedules: an operator sees every tenant's power schedules, filters
// them by tenant and by machine, turns to the backup schedules, edits one in place (a
// cron that never fires refused next to its field, the next five runs shown for a good
// one, then its cron and state changed) and deletes a power schedule, the API's lists
// checked after each.
func TestConsoleAdminSchedules(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	mine := s.machine("app-1")
	theirs := s.tenantNamed("theirs").ID
	for m, ten := range map[string]string{mine: s.mine, s.other: theirs} {
		s.call("POST", "/api/resources/power-schedules", s.admin, map[string]any{"machine_id": m, "tenant_id": ten, "action": "stop", "cron": "0 22 * * *"}, 201, nil)
	}
	var backup struct{ ID string }
	s.call("POST", "/api/resources/backup-schedules", s.admin, map[string]any{"machine_id": s.other, "tenant_id": theirs, "cron": "30 2 * * sun", "retention": 3}, 201, &backup)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/schedules", apptest.AdminEmail, apptest.AdminPassword)
	filters := `//form[@aria-label="Filter schedules"]`
	power := func(machine string) string {
		return fmt.Sprintf(`//table[@data-schedules="power"]//tr[td/a[normalize-space(.)=%q]]`, machine)
	}
	run(t, ctx, "every tenant's power schedules, filtered by tenant and by machine",
		navCurrent("Schedules"),
		chromedp.WaitVisible(power(mine)+`/td[normalize-space(.)="mine"]`),
		chromedp.WaitVisible(power(s.other)+`/td[normalize-space(.)="theirs"]`),
		chromedp.WaitVisible(power(mine)+`//span[@data-words][normalize-space(.)="at 22:00 every day"]`),
		chromedp.SetValue(filters+`//select[@name="tenant_id"]`, s.mine),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(power(s.other)),
		chromedp.WaitVisible(power(mine)),
		chromedp.SetValue(filters+`//select[@name="tenant_id"]`, ""),
		chromedp.SendKeys(filters+`//input[@name="machine_id"]`, s.other),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(power(mine)),
		chromedp.WaitVisible(power(s.other)),
		clear(`form[aria-label="Filter schedules"] input[name=machine_id]`),
		chromedp.SetValue(filters+`//select[@name="kind"]`, "backup"),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//table[@data-schedules="backup"]//tr[@data-kind="backup"]//span[@data-words][normalize-space(.)="at 02:30 on Sunday"]`),
	)
	row := fmt.Sprintf(`//tr[@data-schedule=%q]`, backup.ID)
	edit := `//form[@aria-label="Edit schedule"]`
	var runs int
	run(t, ctx, "a backup schedule edited: a cron that never fires refused next to its field",
		chromedp.Click(row+`//button[@data-edit]`),
		chromedp.WaitVisible(edit+`//ol[@data-next-runs]`),
		clear(`form[aria-label="Edit schedule"] input[name=cron]`),
		chromedp.SendKeys(edit+`//input[@name="cron"]`, "0 0 30 2 *"),
		chromedp.WaitVisible(edit+`//p[normalize-space(.)="It does not run in the next five years."]`),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitVisible(edit+`//input[@name="cron"][@aria-invalid="true"]/following-sibling::span[@class="field-error"][normalize-space(.)="never fires"]`),
		clear(`form[aria-label="Edit schedule"] input[name=cron]`),
		chromedp.SendKeys(edit+`//input[@name="cron"]`, "15 4 * * *"),
		chromedp.WaitVisible(edit+`//p[@data-edit-words][normalize-space(.)="Runs at 04:15 every day (UTC)."]`),
		chromedp.Evaluate(`document.querySelectorAll("form[aria-label='Edit schedule'] ol[data-next-runs] li").length`, &runs),
	)
	if runs != 5 {
		t.Fatalf("%d next runs shown; want 5", runs)
	}
	run(t, ctx, "then saved with its state changed",
		chromedp.Click(edit+`//input[@name="enabled"]`),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(edit),
		chromedp.WaitVisible(row+`//span[@data-words][normalize-space(.)="at 04:15 every day"]`),
		chromedp.WaitVisible(row+`//span[@data-state][normalize-space(.)=", off"]`),
		shot("admin-schedules"),
	)
	var b struct {
		Items []struct {
			Cron    string
			Enabled bool
		}
	}
	s.call("GET", "/api/resources/backup-schedules", s.admin, nil, 200, &b)
	if len(b.Items) != 1 || b.Items[0].Cron != "15 4 * * *" || b.Items[0].Enabled {
		t.Fatalf("backup schedules after the edit %+v", b.Items)
	}
	run(t, ctx, "a power schedule deleted",
		chromedp.SetValue(filters+`//select[@name="kind"]`, "power"),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitVisible(power(mine)),
		confirm(power(mine), "delete"),
		chromedp.WaitNotPresent(power(mine)),
		chromedp.WaitVisible(power(s.other)),
	)
	if got := s.schedules("power"); len(got) != 0 {
		t.Fatalf("mine's power schedules after the delete %q", got)
	}
}
