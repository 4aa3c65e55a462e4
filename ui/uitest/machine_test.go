package uitest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// waitTask waits for a task to end, as the operator sees it.
func (s *site) waitTask(id string) {
	s.t.Helper()
	testwait.Until(s.t, func() error {
		var task struct{ Status string }
		s.call("GET", "/api/tasks/"+id, s.admin, nil, 200, &task)
		if task.Status != "succeeded" && task.Status != "failed" {
			return fmt.Errorf("task %s still %s", id, task.Status)
		}
		return nil
	})
}

// addISO adds a public image named name, fetched from a server on loopback, and
// waits for it to be ready.
func (s *site) addISO(name string) string {
	s.t.Helper()
	body := "an image named " + name
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
	s.t.Cleanup(srv.Close)
	sum := sha256.Sum256([]byte(body))
	var added struct {
		ISO  struct{ ID string }
		Task struct{ ID string }
	}
	s.call("POST", "/api/resources/isos", s.admin, map[string]any{"name": name, "url": srv.URL + "/image.iso",
		"checksum": "sha256:" + hex.EncodeToString(sum[:])}, 202, &added)
	s.waitTask(added.Task.ID)
	return added.ISO.ID
}

// machine creates a running machine of the tenant mine and waits for it.
func (s *site) machine(name string) string {
	s.t.Helper()
	var p struct {
		Machine struct{ ID string }
		Task    struct{ ID string }
	}
	s.call("POST", "/api/client/machines?tenant_id="+s.mine, s.admin, map[string]any{"name": name, "template_id": "tpl-debian-12",
		"cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}, 202, &p)
	s.waitTask(p.Task.ID)
	return p.Machine.ID
}

// signIn signs in from the login page at path.
func signIn(t *testing.T, ctx context.Context, base, path, email, password string) {
	t.Helper()
	run(t, ctx, "sign in as "+email,
		chromedp.Navigate(base+path),
		chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=email]`, email, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=password]`, password, chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//button[normalize-space(.)="Sign out"]`),
	)
}

// taskDone is the XPath of a succeeded task of type typ in the machine's task list.
func taskDone(typ string) string {
	return fmt.Sprintf(`//section[@aria-labelledby="tasks-part-title"]//tr[td[normalize-space(.)=%q]]/td/span[normalize-space(.)="succeeded"]`, typ)
}

// confirm answers yes to the confirmation of the button data-confirm=name inside
// the element of XPath within, by keyboard: the button is focused and Enter asks, the
// question's yes is focused and Enter answers.
func confirm(within, name string) chromedp.Action {
	return chromedp.Tasks{
		chromedp.Focus(fmt.Sprintf(`%s//button[@data-confirm=%q]`, within, name)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(fmt.Sprintf(`%s//button[@data-confirm-yes=%q]`, within, name)),
		// The question takes focus once drawn; Enter before that would go nowhere.
		chromedp.WaitVisible(fmt.Sprintf(`button[data-confirm-yes=%q]:focus`, name), chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
	}
}

// TestConsoleMachinePage: a tenant user works a machine from its page: its graphs for
// two timeframes, a backup taken and restored, a snapshot taken, rolled back and
// deleted (confirmations answered by keyboard), an ISO mounted and ejected, rescue on
// and off, a resize, a reinstall from the template list, and the serial console
// (its banner read, a command typed and answered).
func TestConsoleMachinePage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	isoID := s.addISO(apptest.RescueISO)
	id := s.machine("app-1")
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/machines/"+id, "mine@example.test", userPassword)
	run(t, ctx, "the machine's page",
		chromedp.WaitVisible(`//h1[contains(., "app-1")]/span[normalize-space(.)="running"]`),
	)
	run(t, ctx, "graphs for two timeframes",
		chromedp.WaitVisible(`figure[data-chart=cpu] canvas`, chromedp.ByQuery),
		chromedp.WaitVisible(`figure[data-chart=net] canvas`, chromedp.ByQuery),
		chromedp.Click(`//div[@aria-label="Timeframe"]/button[normalize-space(.)="day"]`),
		chromedp.WaitVisible(`//div[@aria-label="Timeframe"]/button[normalize-space(.)="day"][@aria-pressed="true"]`),
		chromedp.WaitVisible(`figure[data-chart=disk] canvas`, chromedp.ByQuery),
	)
	backups := `//section[@aria-labelledby="backups-part-title"]`
	run(t, ctx, "take a backup",
		chromedp.SendKeys(backups+`//input[@name="note"]`, "before the change"),
		chromedp.Click(backups+`//button[normalize-space(.)="Take a backup now"]`),
		chromedp.WaitVisible(backups+`//tr[@data-backup][td[normalize-space(.)="before the change"]]`),
	)
	run(t, ctx, "restore it",
		confirm(backups, "restore"),
		chromedp.WaitVisible(taskDone("vm.restore")),
	)
	snaps := `//section[@aria-labelledby="snapshots-part-title"]`
	run(t, ctx, "take a snapshot",
		chromedp.SendKeys(snaps+`//input[@name="name"]`, "snap1"),
		chromedp.SendKeys(snaps+`//input[@name="name"]`, kb.Enter),
		chromedp.WaitVisible(snaps+`//tr[@data-snapshot="snap1"]`),
	)
	run(t, ctx, "roll back to it and delete it",
		confirm(snaps, "rollback"),
		chromedp.WaitVisible(taskDone("vm.snapshot_rollback")),
		confirm(snaps, "delete"),
		chromedp.WaitNotPresent(snaps+`//tr[@data-snapshot="snap1"]`),
	)
	media := `//section[@aria-labelledby="media-part-title"]`
	run(t, ctx, "mount an ISO and eject it",
		chromedp.WaitReady(media+fmt.Sprintf(`//option[@value=%q]`, isoID)),
		chromedp.SetValue(media+`//select[@name="iso_id"]`, isoID),
		chromedp.Click(media+`//button[normalize-space(.)="Mount"]`),
		chromedp.WaitVisible(media+`//strong[@data-media][normalize-space(.)="rescue"]`),
		chromedp.Click(media+`//button[normalize-space(.)="Eject"]`),
		chromedp.WaitVisible(media+`//strong[@data-media][normalize-space(.)="nothing"]`),
	)
	run(t, ctx, "rescue on and off",
		confirm(media, "rescue-on"),
		chromedp.WaitVisible(media+`//strong[@data-rescue][normalize-space(.)="on"]`),
		confirm(media, "rescue-off"),
		chromedp.WaitVisible(media+`//strong[@data-rescue][normalize-space(.)="off"]`),
	)
	resize := `//section[@aria-labelledby="resize-part-title"]`
	run(t, ctx, "resize",
		chromedp.SetValue(resize+`//input[@name="cpu_cores"]`, "2"),
		chromedp.Click(resize+`//button[normalize-space(.)="Resize"]`),
		chromedp.WaitVisible(`//dl[@class="facts"]/dd[starts-with(normalize-space(.), "2 CPU")]`),
	)
	reinstall := `//section[@aria-labelledby="reinstall-part-title"]`
	run(t, ctx, "reinstall from the template list",
		chromedp.WaitReady(reinstall+`//option[@value="tpl-ubuntu-24.04"]`),
		chromedp.SetValue(reinstall+`//select[@name="template_id"]`, "tpl-ubuntu-24.04"),
		confirm(reinstall, "reinstall"),
		chromedp.WaitVisible(`//dl[@class="facts"]/dd[normalize-space(.)="tpl-ubuntu-24.04"]`),
	)
	var styled bool
	run(t, ctx, "the serial console",
		chromedp.Click(`//button[normalize-space(.)="Open console"]`),
		chromedp.WaitVisible(`//span[@data-console-state][normalize-space(.)="Connected"]`),
		chromedp.WaitVisible(`//div[contains(@class, "xterm-rows")][contains(., "login: root")]`),
		// xterm's own style sheet and the one it writes at run time both apply (the
		// second through an adopted copy: the policy ignores its <style> element).
		chromedp.Evaluate(`getComputedStyle(document.querySelector('.xterm-helper-textarea')).position === 'absolute' &&
			getComputedStyle(document.querySelector('.xterm-rows span') || document.querySelector('.xterm-rows')).display !== 'block'`, &styled),
		// Text as an input method inserts it: chromedp's key events would type each
		// character twice (its keyDown carries the text, and its char event again).
		chromedp.Focus(`.xterm-helper-textarea`, chromedp.ByQuery),
		input.InsertText("echo marker-42"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`//div[contains(@class, "xterm-rows")]/div[normalize-space(.)="marker-42"]`),
		shot("console"),
		// The machine's picture opens at its title (the console's focus scrolled the
		// page down to it).
		chromedp.Evaluate(`window.scrollTo(0, 0)`, nil),
		shot("machine"),
	)
	if !styled {
		t.Error("xterm's styles do not apply")
	}
}
