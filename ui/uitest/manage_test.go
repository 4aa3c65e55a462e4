package uitest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// machineRecord is a machine as the operators' route answers it.
type machineRecord struct {
	Name              string
	Status            string
	Node              string
	BootOrder         []string `json:"boot_order"`
	BillingSuspension *struct {
		Reason string
		Action string
	} `json:"billing_suspension"`
	TerminateAt *time.Time `json:"terminate_at"`
}

// vm reads a machine through the operators' route.
func (s *site) vm(id string) machineRecord {
	s.t.Helper()
	var m machineRecord
	s.call("GET", "/api/virt/vms/"+id, s.admin, nil, 200, &m)
	return m
}

// heading is the XPath of the machine page's heading with its name and status.
func heading(name, status string) string {
	return fmt.Sprintf(`//h1[contains(., %q)]/span[normalize-space(.)=%q]`, name, status)
}

// TestConsoleMachineManage: on its machine's page a tenant user reads its usage for
// invoices, suspends and resumes
// it, resets it (asked once more), renames it, sets its boot order, deletes a
// backup of it, and deletes it, landing on the list without it.
func TestConsoleMachineManage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.machine("keep-1")
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/machines/"+id, "mine@example.test", userPassword)
	run(t, ctx, "its usage for invoices",
		chromedp.WaitVisible(`//section[@aria-labelledby="usage-part-title"]//table[@data-usage]/tfoot/tr/th[normalize-space(.)="Total"]`),
	)
	run(t, ctx, "suspend and resume",
		chromedp.WaitVisible(heading("keep-1", "running")),
		chromedp.Click(`button[data-action=suspend]`, chromedp.ByQuery),
		chromedp.WaitVisible(heading("keep-1", "suspended")),
		chromedp.Click(`button[data-action=resume]`, chromedp.ByQuery),
		chromedp.WaitVisible(heading("keep-1", "running")),
	)
	run(t, ctx, "reset, asked once more",
		confirm(`//div[@aria-label="Power"]`, "reset"),
		chromedp.WaitVisible(`//p[starts-with(normalize-space(.), "Last action:")][contains(., "reset")]//span[normalize-space(.)="succeeded"]`),
	)
	part := `//section[@aria-labelledby="manage-part-title"]`
	run(t, ctx, "rename",
		chromedp.SetValue(part+`//form[@aria-label="Rename"]//input[@name="name"]`, "kept-1"),
		chromedp.Click(part+`//button[normalize-space(.)="Rename"]`),
		chromedp.WaitVisible(heading("kept-1", "running")),
	)
	if m := s.vm(id); m.Name != "kept-1" {
		t.Fatalf("the name after the rename: %q", m.Name)
	}
	run(t, ctx, "the boot order",
		chromedp.SetValue(part+`//select[@name="boot0"]`, "cdrom"),
		chromedp.SetValue(part+`//select[@name="boot1"]`, "disk"),
		chromedp.SetValue(part+`//select[@name="boot2"]`, ""),
		chromedp.Click(part+`//button[normalize-space(.)="Set the boot order"]`),
		chromedp.WaitVisible(part+`//p[contains(., "Now: cdrom, disk.")]`),
	)
	if m := s.vm(id); !slices.Equal(m.BootOrder, []string{"cdrom", "disk"}) {
		t.Fatalf("the boot order: %v", m.BootOrder)
	}
	run(t, ctx, "a device twice refused",
		chromedp.SetValue(part+`//select[@name="boot1"]`, "cdrom"),
		chromedp.Click(part+`//button[normalize-space(.)="Set the boot order"]`),
		chromedp.WaitVisible(part+`//div[@role="alert"]`),
	)
	var b struct{ Task struct{ ID string } }
	s.call("POST", "/api/client/machines/"+id+"/backups?tenant_id="+s.mine, s.admin, map[string]any{"note": "to delete"}, 202, &b)
	s.waitTask(b.Task.ID)
	backups := `//section[@aria-labelledby="backups-part-title"]`
	run(t, ctx, "a backup deleted",
		chromedp.WaitVisible(backups+`//tr[@data-backup][td[normalize-space(.)="to delete"]]`),
		confirm(backups, "delete-backup"),
		chromedp.WaitNotPresent(backups+`//tr[@data-backup]`),
	)
	var left struct{ Items []any }
	s.call("GET", "/api/resources/backups?machine_id="+id, s.admin, nil, 200, &left)
	if len(left.Items) != 0 {
		t.Fatalf("backups left: %v", left.Items)
	}
	run(t, ctx, "deleted: back on the list without it",
		confirm(part, "delete-machine"),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Machines"]`),
		chromedp.WaitVisible(`//p[normalize-space(.)="No machines yet."]`),
	)
	s.call("GET", "/api/virt/vms/"+id, s.admin, nil, 404, nil)
}

// TestConsoleMachineOperate: on a tenant's machine's page an operator migrates it
// to another node, adds a disk, changes an interface's VLAN, suspends it for billing (stopped, the reason shown) and ends the
// suspension starting it again, and marks it for termination (a grace of an hour)
// and takes that back.
func TestConsoleMachineOperate(t *testing.T) {
	t.Parallel()
	s := newSiteWith(t, func(c *app.Config) { c.TerminateGrace = time.Hour })
	id := s.machine("ops-1")
	from := s.vm(id).Node
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, fmt.Sprintf("/admin/machines/%s?tenant=%s", id, s.mine), apptest.AdminEmail, apptest.AdminPassword)
	part := `//section[@aria-labelledby="operate-part-title"]`
	var to string
	run(t, ctx, "the page", chromedp.WaitVisible(heading("ops-1", "running")),
		chromedp.WaitVisible(`//section[@aria-labelledby="usage-part-title"]//table[@data-usage]/tfoot/tr/th[normalize-space(.)="Total"]`))
	run(t, ctx, "the nodes to migrate to",
		chromedp.WaitReady(part+`//select[@name="target_node"]/option[starts-with(., "pve")]`),
		chromedp.Evaluate(`document.querySelector('form[aria-label="Migrate"] select').value`, &to),
	)
	run(t, ctx, "migrate",
		chromedp.Click(part+`//button[normalize-space(.)="Migrate"]`),
		chromedp.WaitVisible(taskDone("vm.migrate")),
	)
	if m := s.vm(id); m.Node != to || to == from || m.Status != "running" {
		t.Fatalf("after the migration from %s to %s: %+v", from, to, m)
	}
	var disks int
	run(t, ctx, "the disks", chromedp.Evaluate(`document.querySelectorAll("ul[data-disks] li").length`, &disks))
	run(t, ctx, "a disk added",
		chromedp.SendKeys(part+`//form[@aria-label="Add a disk"]//input[@name="size_gb"]`, "5"),
		chromedp.Click(part+`//button[normalize-space(.)="Add the disk"]`),
		chromedp.WaitVisible(fmt.Sprintf(`//ul[@data-disks][count(li)=%d]/li[contains(., ": 5 GB on ")]`, disks+1)),
	)
	run(t, ctx, "net0's VLAN changed",
		chromedp.SetValue(part+`//form[@data-interface="net0"]//input[@name="vlan"]`, "42"),
		chromedp.Click(part+`//form[@data-interface="net0"]//button[@type="submit"]`),
		chromedp.WaitVisible(part+`//form[@data-interface="net0"]//input[@name="vlan"][@value="42"]`),
	)
	var net struct {
		Interfaces []struct {
			ID   string
			VLAN int
		}
		Disks []struct {
			SizeGB int `json:"size_gb"`
		}
	}
	s.call("GET", "/api/virt/vms/"+id, s.admin, nil, 200, &net)
	if len(net.Interfaces) == 0 || net.Interfaces[0].VLAN != 42 || len(net.Disks) != disks+1 {
		t.Fatalf("after the disk and the VLAN (disks before: %d): %+v", disks, net)
	}
	run(t, ctx, "suspend for billing",
		chromedp.SendKeys(part+`//input[@name="reason"]`, "invoice 42 unpaid"),
		chromedp.Click(part+`//button[normalize-space(.)="Suspend for billing"]`),
		chromedp.WaitVisible(part+`//p[@data-billing][contains(., "invoice 42 unpaid")]`),
		chromedp.WaitVisible(heading("ops-1", "stopped")),
	)
	if m := s.vm(id); m.BillingSuspension == nil || m.BillingSuspension.Action != "stop" {
		t.Fatalf("the suspension: %+v", m.BillingSuspension)
	}
	run(t, ctx, "end it, starting the machine",
		chromedp.Click(part+`//label[contains(., "Start it again")]/input`),
		chromedp.Click(part+`//button[@data-unsuspend]`),
		chromedp.WaitVisible(part+`//button[normalize-space(.)="Suspend for billing"]`),
		chromedp.WaitVisible(heading("ops-1", "running")),
	)
	run(t, ctx, "terminate, then take it back",
		confirm(part, "terminate"),
		chromedp.WaitVisible(part+`//p[@data-terminate]`),
		chromedp.Click(part+`//button[@data-terminate-back]`),
		chromedp.WaitVisible(part+`//button[@data-confirm="terminate"]`),
	)
	if m := s.vm(id); m.TerminateAt != nil || m.BillingSuspension != nil {
		t.Fatalf("after taking the termination back: %+v", m)
	}
}

// address is the first address a machine's interfaces show.
func (s *site) address(id string) string {
	s.t.Helper()
	var m struct {
		Interfaces []struct {
			IPAddresses []string `json:"ip_addresses"`
		}
	}
	s.call("GET", "/api/virt/vms/"+id, s.admin, nil, 200, &m)
	for _, i := range m.Interfaces {
		for _, a := range i.IPAddresses {
			if !strings.Contains(a, ":") {
				return strings.Split(a, "/")[0]
			}
		}
	}
	s.t.Fatalf("machine %s has no IPv4 address", id)
	return ""
}

// TestConsoleTenantHealth: a tenant user's health checks page refuses a check of the
// other tenant's machine next to its target, checks its own machine's port (passing),
// sees it fail and its alert fire once the machine is stopped, and acknowledges it.
func TestConsoleTenantHealth(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.machine("probed-1")
	mine, theirs := s.address(id), s.address(s.other)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/health", "mine@example.test", userPassword)
	form := `//form[@aria-label="New health check"]`
	run(t, ctx, "another tenant's machine refused",
		navCurrent("Health checks"),
		chromedp.WaitVisible(`//p[normalize-space(.)="No health checks yet."]`),
		chromedp.Click(`//button[normalize-space(.)="New health check"]`),
		chromedp.WaitVisible(form+`//input[@name="name"]`),
		chromedp.SendKeys(form+`//input[@name="name"]`, "ssh"),
		chromedp.SetValue(form+`//select[@name="type"]`, "tcp"),
		chromedp.SendKeys(form+`//input[@name="target"]`, theirs+":22"),
		chromedp.SetValue(form+`//input[@name="interval_s"]`, "1"),
		chromedp.SetValue(form+`//input[@name="timeout_ms"]`, "500"),
		chromedp.SetValue(form+`//input[@name="failure_threshold"]`, "1"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(form+`//div[@role="alert"]`),
	)
	run(t, ctx, "its own machine's port: passing",
		clear(`form[aria-label="New health check"] input[name=target]`),
		chromedp.SendKeys(form+`//input[@name="target"]`, mine+":22"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-check="ssh"]`),
	)
	// No event says a check passed (an alert's do): the page shows it when read again.
	testwait.Until(t, func() error {
		var c struct {
			Items []struct{ Last *struct{ Status string } }
		}
		s.call("GET", "/api/monitoring/health-checks", s.admin, nil, 200, &c)
		if len(c.Items) != 1 || c.Items[0].Last == nil || c.Items[0].Last.Status != "passing" {
			return fmt.Errorf("the check is not passing yet: %+v", c.Items)
		}
		return nil
	})
	run(t, ctx, "passing, read again", chromedp.Reload(), chromedp.WaitVisible(`//tr[@data-check="ssh"]//span[normalize-space(.)="passing"]`))
	var p struct{ Task struct{ ID string } }
	s.call("POST", "/api/client/machines/"+id+"/actions/stop?tenant_id="+s.mine, s.admin, nil, 202, &p)
	s.waitTask(p.Task.ID)
	var checks struct{ Items []struct{ ID string } }
	s.call("GET", "/api/monitoring/health-checks", s.admin, nil, 200, &checks)
	if len(checks.Items) != 1 {
		t.Fatalf("checks %+v", checks.Items)
	}
	alert := fmt.Sprintf(`//tr[@data-alert=%q]`, checks.Items[0].ID)
	run(t, ctx, "the machine stopped: failing, its alert fired and acknowledged",
		chromedp.WaitVisible(`//tr[@data-check="ssh"]//span[normalize-space(.)="failing"]`),
		chromedp.WaitVisible(alert+`//span[normalize-space(.)="firing"]`),
		confirm(alert, "ack"),
		chromedp.WaitNotPresent(alert),
	)
	var acked struct{ Items []struct{ Status string } }
	s.call("GET", "/api/monitoring/alerts/events?kind=health_check", s.admin, nil, 200, &acked)
	if len(acked.Items) != 1 || acked.Items[0].Status != "acknowledged" {
		t.Fatalf("alert events %+v", acked.Items)
	}
}

// TestConsoleSync: on the nodes page an operator asks for a sync with the hypervisor
// and reads what it did (the simulator's three nodes, the machines it knows already).
func TestConsoleSync(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/nodes", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "sync now",
		chromedp.WaitVisible(`//tbody/tr`),
		chromedp.Click(`button[data-sync]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//p[@data-synced][contains(., ": 3 nodes; machines 0 added")]`),
	)
}

// TestConsoleAdminBackups: an operator filters every backup by tenant, restores one
// into a new machine with a name of its own (the task followed to its end, the new
// machine's page linked), and deletes it.
func TestConsoleAdminBackups(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.machine("saved-1")
	var b struct{ Task struct{ ID string } }
	s.call("POST", "/api/client/machines/"+id+"/backups?tenant_id="+s.mine, s.admin, map[string]any{"note": "nightly"}, 202, &b)
	s.waitTask(b.Task.ID)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/backups", apptest.AdminEmail, apptest.AdminPassword)
	filters := `//form[@aria-label="Filter the backups"]`
	row := `//tr[@data-backup][td[normalize-space(.)="nightly"]]`
	run(t, ctx, "filtered by tenant",
		navCurrent("Backups"),
		chromedp.WaitVisible(row),
		chromedp.WaitReady(filters+`//select[@name="tenant_id"]/option[normalize-space(.)="theirs"]`),
		chromedp.SetValue(filters+`//select[@name="tenant_id"]`, s.tenantNamed("theirs").ID),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//p[normalize-space(.)="No backups match."]`),
		chromedp.SetValue(filters+`//select[@name="tenant_id"]`, s.mine),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitVisible(row),
	)
	form := `//form[@aria-label="Restore into a new machine"]`
	run(t, ctx, "restored into a new machine",
		chromedp.Click(row+`//button[@data-restore-new]`),
		chromedp.WaitVisible(form+`//input[@name="name"]`),
		chromedp.SendKeys(form+`//input[@name="name"]`, "restored-1"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//div[@data-restored]//a[normalize-space(.)="restored-1"]`),
		chromedp.WaitVisible(`//div[@data-restored]//span[normalize-space(.)="succeeded"]`),
	)
	var ms struct {
		Items []struct{ Name, Status string }
	}
	s.call("GET", "/api/virt/vms?limit=200", s.admin, nil, 200, &ms)
	found := false
	for _, m := range ms.Items {
		found = found || (m.Name == "restored-1" && m.Status == "running")
	}
	if !found {
		t.Fatalf("no running restored-1 among %+v", ms.Items)
	}
	run(t, ctx, "deleted",
		confirm(row, "delete-backup"),
		chromedp.WaitNotPresent(row),
	)
	var left struct{ Items []any }
	s.call("GET", "/api/resources/backups?machine_id="+id, s.admin, nil, 200, &left)
	if len(left.Items) != 0 {
		t.Fatalf("backups left: %v", left.Items)
	}
}

// TestConsoleStoreBackup: on the nodes page an operator downloads a backup of the
// store; the file the browser saves is the server's backup stream (its header line).
func TestConsoleStoreBackup(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	dir := t.TempDir()
	done := make(chan string, 1)
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*cdpbrowser.EventDownloadProgress); ok && e.State == cdpbrowser.DownloadProgressStateCompleted {
			select {
			case done <- e.GUID:
			default:
			}
		}
	})
	signIn(t, ctx, s.srv.Base, "/admin/nodes", apptest.AdminEmail, apptest.AdminPassword)
	var saved string
	run(t, ctx, "download it",
		// The tab's own browser context's downloads (tab): without it, the setting
		// would be the default context's, which the tab is not in.
		cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName).WithDownloadPath(dir).WithEventsEnabled(true).
			WithBrowserContextID(chromedp.FromContext(ctx).BrowserContextID),
		chromedp.Click(`button[data-store-backup]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//p[@data-store-saved][starts-with(., "Saved vmplane-store-")]`),
		chromedp.Text(`//p[@data-store-saved]`, &saved),
	)
	var guid string
	select {
	case guid = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the browser saved no file")
	}
	b, err := os.ReadFile(filepath.Join(dir, guid))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "vmplane-backup format=1") {
		t.Fatalf("the file saved (%d bytes, %s) starts %q", len(b), saved, b[:min(len(b), 40)])
	}
}

// TestConsoleAssignMachine: an operator gives a machine of no tenant (one the sync
// found on the simulator) to a tenant from the machine list; its page then opens.
func TestConsoleAssignMachine(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	var ms struct {
		Items []struct {
			ID, Name string
			TenantID *string `json:"tenant_id"`
		}
	}
	s.call("GET", "/api/virt/vms?limit=200", s.admin, nil, 200, &ms)
	var id, name string
	for _, m := range ms.Items {
		if m.TenantID == nil || *m.TenantID == "" {
			id, name = m.ID, m.Name
			break
		}
	}
	if id == "" {
		t.Skip("the simulator holds no machine of no tenant")
	}
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/machines", apptest.AdminEmail, apptest.AdminPassword)
	form := fmt.Sprintf(`//form[@aria-label=%q]`, "Give "+name+" to a tenant")
	run(t, ctx, "give it to mine",
		chromedp.WaitVisible(fmt.Sprintf(`//button[@data-assign=%q]`, name)),
		chromedp.Click(fmt.Sprintf(`//button[@data-assign=%q]`, name)),
		chromedp.WaitReady(form+`//option[normalize-space(.)="mine"]`),
		chromedp.SetValue(form+`//select[@name="tenant_id"]`, s.mine),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(fmt.Sprintf(`//tr[td/a[normalize-space(.)=%q]]/td/a[normalize-space(.)=%q]`, name, s.mine)),
		chromedp.Click(fmt.Sprintf(`//tr/td/a[normalize-space(.)=%q]`, name)),
		chromedp.WaitVisible(fmt.Sprintf(`//h1[contains(., %q)]`, name)),
	)
	var m struct {
		TenantID *string `json:"tenant_id"`
	}
	s.call("GET", "/api/virt/vms/"+id, s.admin, nil, 200, &m)
	if m.TenantID == nil || *m.TenantID != s.mine {
		t.Fatalf("the machine's tenant: %v", m.TenantID)
	}
}

// TestConsoleServerHealth: the operator's dashboard says how the server is, as
// /api/health does: ok, with its store's and hypervisor's checks.
func TestConsoleServerHealth(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/dashboard", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "the server's checks",
		chromedp.WaitVisible(`//p[@data-server="ok"]/span[@data-check-of="storage"][normalize-space(.)="storage ok"]`),
		chromedp.WaitVisible(`//p[@data-server="ok"]/span[@data-check-of="hypervisor"][normalize-space(.)="hypervisor ok"]`),
	)
}
