package uitest

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// TestConsoleOperatorTasks: the operators' tasks page, reached from the nav's
// Operations group, lists a tenant's machine's tasks (GET /api/resources/tasks) with
// its tenant and a link to the machine's page; a task started after the page was read
// (a stop through the API) shows up and reaches succeeded from the event stream alone;
// axe-core finds no serious violation.
func TestConsoleOperatorTasks(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.machine("task-1")
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/dashboard", apptest.AdminEmail, apptest.AdminPassword)
	machineLink := fmt.Sprintf(`//table[@data-tasks]//tr[td/a[@href=%q]]`, "/admin/machines/"+id+"?tenant="+s.mine)
	run(t, ctx, "the tasks page",
		chromedp.WaitVisible(`//h1[normalize-space(.)="Dashboard"]`),
		navOpen("operations", "Tasks"),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Tasks"]`),
		chromedp.WaitVisible(machineLink+`[td[normalize-space(.)=`+fmt.Sprintf("%q", s.mine)+`]][td/span[normalize-space(.)="succeeded"]]`),
		chromedp.WaitReady(`//ul[@id="nav-operations"]//a[normalize-space(.)="Tasks"][@aria-current="page"]`),
	)
	axeCheck(t, ctx, "tasks page")
	var p struct{ Task struct{ ID string } }
	s.call("POST", "/api/virt/vms/"+id+"/actions/stop", s.admin, nil, 202, &p)
	run(t, ctx, "a new task, live",
		chromedp.WaitVisible(fmt.Sprintf(`//tr[@data-task=%q]/td/span[normalize-space(.)="succeeded"]`, p.Task.ID)),
		shot("tasks"),
	)
}
