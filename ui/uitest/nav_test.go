package uitest

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/vmplane/vmplane/app/apptest"
)

// navOpen opens the operator's nav group named group with a click and clicks its
// entry page (the way the other tests reach a page in a group).
func navOpen(group, page string) chromedp.Action {
	return chromedp.Tasks{
		chromedp.Click(fmt.Sprintf(`//nav[@aria-label="Main"]//button[@aria-controls=%q]`, "nav-"+group)),
		chromedp.Click(fmt.Sprintf(`//ul[@id=%q]//a[normalize-space(.)=%q]`, "nav-"+group, page)),
	}
}

// TestConsoleOperatorNav: the operator's nav fits one line at 1280 px (three groups
// and Account); a page of each group is reached by keyboard alone (Tab to the group,
// Enter or Space to open it, Tab or ArrowDown to its page, Enter), Escape closes a
// group and gives the focus back to its button, a click outside closes it, the
// group of the page open says which page it is, and axe-core finds no serious
// violation with a group open.
func TestConsoleOperatorNav(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	run(t, ctx, "a 1280 px screen", chromedp.EmulateViewport(1280, 800))
	signIn(t, ctx, s.srv.Base, "/admin/dashboard", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "the dashboard", chromedp.WaitVisible(`//h1[normalize-space(.)="Dashboard"]`))

	// One line: the nav no taller than its tallest entry, and the brand, the nav, the
	// user's address and Sign out all on the nav's row.
	var line struct {
		Nav, Entry float64
		Off        []string
	}
	run(t, ctx, "the bar's lines", chromedp.Evaluate(`(() => {
		const nav = document.querySelector('nav[aria-label=Main]').getBoundingClientRect();
		const entries = [...document.querySelectorAll('nav[aria-label=Main] > ul > li')].map((e) => e.getBoundingClientRect().height);
		const off = [...document.querySelectorAll('header.top > :not(.skip)')].filter((e) => {
			const r = e.getBoundingClientRect(), mid = r.top + r.height / 2;
			return mid < nav.top || mid > nav.bottom;
		}).map((e) => e.tagName + '.' + e.className);
		return { nav: nav.height, entry: Math.max(...entries), off };
	})()`, &line))
	if line.Entry == 0 || line.Nav > line.Entry+1 {
		t.Errorf("the nav is %.0f px tall, its entries %.0f px: more than one line at 1280 px", line.Nav, line.Entry)
	}
	if len(line.Off) > 0 {
		t.Errorf("off the nav's line at 1280 px: %v", line.Off)
	}
	var entries int
	run(t, ctx, "the nav's entries", chromedp.Evaluate(`document.querySelectorAll('nav[aria-label=Main] > ul > li').length`, &entries))
	if entries != 4 {
		t.Errorf("the operator's nav has %d entries, want 4 (three groups and Account)", entries)
	}

	focused := func(want string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var got string
			if err := chromedp.Evaluate(`(document.activeElement.id || document.activeElement.textContent).trim()`, &got).Do(ctx); err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("the focus is on %q, want %q", got, want)
			}
			return nil
		})
	}
	fromBrand := chromedp.Evaluate(`document.querySelector('.brand').focus()`, nil)

	// Fleet: Tab to it, Enter opens it, Tab to its second page, Enter.
	run(t, ctx, "Fleet by keyboard", fromBrand,
		chromedp.KeyEvent(kb.Tab), focused("nav-fleet-button"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`//button[@id="nav-fleet-button"][@aria-expanded="true"]`),
		chromedp.WaitVisible(`//ul[@id="nav-fleet"]//a[normalize-space(.)="Dashboard"]`),
	)
	axeCheck(t, ctx, "dashboard with the Fleet menu open")
	run(t, ctx, "Fleet's Machines", chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), focused("Machines"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`//h1[normalize-space(.)="All machines"]`),
		chromedp.WaitNotVisible(`#nav-fleet`, chromedp.ByQuery),
		chromedp.WaitReady(`//ul[@id="nav-fleet"]//a[normalize-space(.)="Machines"][@aria-current="page"]`),
		chromedp.WaitVisible(`//button[@id="nav-fleet-button"][@aria-current="true"][normalize-space(.)="Fleet: Machines"]`),
	)

	// Customers: Tab past the closed Fleet, Space opens it, ArrowDown twice, Enter.
	run(t, ctx, "Customers by keyboard", fromBrand,
		chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), focused("nav-customers-button"),
		chromedp.KeyEvent(" "),
		chromedp.WaitVisible(`//button[@id="nav-customers-button"][@aria-expanded="true"]`),
		chromedp.KeyEvent(kb.ArrowDown), focused("Tenants"),
		chromedp.KeyEvent(kb.ArrowDown), focused("Users"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Users"]`),
		chromedp.WaitVisible(`//button[@id="nav-customers-button"][@aria-current="true"][normalize-space(.)="Customers: Users"]`),
		chromedp.WaitReady(`//button[@id="nav-fleet-button"][not(@aria-current)]`),
	)

	// Operations: open, Escape closes it with the focus on its button; open again,
	// Tab to its last page, Enter.
	run(t, ctx, "Escape closes Operations", fromBrand,
		chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), focused("nav-operations-button"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#nav-operations`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowDown), focused("Schedules"),
		chromedp.KeyEvent(kb.Escape),
		chromedp.WaitNotVisible(`#nav-operations`, chromedp.ByQuery),
		chromedp.WaitReady(`//button[@id="nav-operations-button"][@aria-expanded="false"]`),
		focused("nav-operations-button"),
	)
	run(t, ctx, "Operations' Audit log", chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#nav-operations`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), focused("Audit log"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Audit log"]`),
	)

	// A click outside closes an open group; opening one closes another.
	run(t, ctx, "a click outside", chromedp.Click(`#nav-fleet-button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#nav-fleet`, chromedp.ByQuery),
		chromedp.Click(`#nav-customers-button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#nav-customers`, chromedp.ByQuery),
		chromedp.WaitNotVisible(`#nav-fleet`, chromedp.ByQuery),
		chromedp.Click(`main h1`, chromedp.ByQuery),
		chromedp.WaitNotVisible(`#nav-customers`, chromedp.ByQuery),
	)
	// Tabbing out of an open group closes it.
	run(t, ctx, "the focus leaving", chromedp.Click(`#nav-operations-button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#nav-operations`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), focused("Tasks"),
		chromedp.KeyEvent(kb.Tab), focused("Account"),
		chromedp.WaitNotVisible(`#nav-operations`, chromedp.ByQuery),
	)
	run(t, ctx, "the operator's nav", shot("nav"))
}

// navCurrent waits until the main nav marks page as the page open: its link has
// aria-current="page", and what shows it is visible: the link itself in a tenant's
// row of links, or its group's button (aria-current, naming the page) in an
// operator's, whose list is closed.
func navCurrent(page string) chromedp.Action {
	return chromedp.Tasks{
		chromedp.WaitReady(fmt.Sprintf(`//nav[@aria-label="Main"]//a[@aria-current="page"][normalize-space(.)=%q]`, page)),
		chromedp.WaitVisible(fmt.Sprintf(`//nav[@aria-label="Main"]/ul/li/a[@aria-current="page"][normalize-space(.)=%q]`+
			` | //nav[@aria-label="Main"]//button[@aria-current="true"][span[@class="here"][normalize-space(.)=%q]]`, page, ": "+page)),
	}
}
