package uitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// browser is the package's one Chromium (started by TestMain): each test opens a tab
// of its own in it.
var browser context.Context

func TestMain(m *testing.M) {
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("VMPLANE_REQUIRE_BROWSER") != "" {
			fmt.Fprintln(os.Stderr, "uitest: no chromium found and VMPLANE_REQUIRE_BROWSER is set: apt-get install chromium")
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "uitest: no chromium found: the browser tests skip (set VMPLANE_REQUIRE_BROWSER to fail instead)")
		os.Exit(0)
	}
	profile, err := os.MkdirTemp("", "vmplane-uitest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.UserDataDir(profile),
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Headless, chromedp.DisableGPU, chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 900),
		// Each window of the headless browser otherwise loads its omnibox's popups as
		// pages of their own (chrome://omnibox-popup.top-chrome/), in renderers that
		// took as much CPU as the console's own pages: a window per test, four at once.
		chromedp.Flag("disable-features", "WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup"),
	}
	// As root, Chromium sets its processes' priority itself: nice 0 for most, -8 for
	// the browser's own, whatever the test runs at (`nice -n 19 go test` left the
	// browser, most of the package's work, above everything else on the machine). Its
	// capability to raise a priority (CAP_SYS_NICE) is taken from it, so it keeps the
	// test's: setpriv (util-linux) drops it from the bounding set and execs Chromium.
	if os.Geteuid() == 0 {
		if setpriv, err := exec.LookPath("setpriv"); err == nil {
			opts = append(opts, chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
				cmd.Args = append([]string{setpriv, "--bounding-set=-sys_nice", "--", cmd.Path}, cmd.Args[1:]...)
				cmd.Path = setpriv
			}))
		}
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	var cancel context.CancelFunc
	browser, cancel = chromedp.NewContext(alloc)
	code := 1
	if err := chromedp.Run(browser); err != nil {
		fmt.Fprintln(os.Stderr, "uitest: starting chromium:", err)
	} else {
		// Four tests at once unless -parallel says otherwise: most of a test's time
		// is waiting on the browser (a page to load, a task to end, a poll), so one
		// per core left both cores idle much of the time.
		testwait.Parallel(4)
		code = m.Run()
	}
	cancel()
	cancelAlloc()
	os.RemoveAll(profile)
	os.Exit(code)
}

// site is a server with two tenants, a user in each, and a machine of the second.
type site struct {
	t     *testing.T
	srv   *apptest.Server
	admin string
	// other is the machine of the other tenant, which the user must not see.
	other string
	// mine is the tenant of the user mine@example.test.
	mine string
}

const userPassword = "a tenant user password"

func newSite(t *testing.T) *site {
	t.Helper()
	return newSiteWith(t, nil)
}

// newSiteWith is newSite with settings of its own (set, when not nil, changes them).
func newSiteWith(t *testing.T, set func(*app.Config)) *site {
	t.Helper()
	cfg := apptest.Config(t.TempDir())
	// Long enough that a task is seen running before it ends.
	cfg.SimOpDelay = 150 * time.Millisecond
	if set != nil {
		set(&cfg)
	}
	srv, err := apptest.StartConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	s := &site{t: t, srv: srv}
	var login struct{ Token string }
	s.call("POST", "/api/auth/login", "", map[string]any{"email": apptest.AdminEmail, "password": apptest.AdminPassword}, 200, &login)
	s.admin = login.Token
	for _, name := range []string{"mine", "theirs"} {
		var ten struct{ ID string }
		s.call("POST", "/api/resources/tenants", s.admin, map[string]any{"name": name}, 201, &ten)
		s.call("POST", "/api/resources/users", s.admin, map[string]any{"email": name + "@example.test", "name": name, "role": "user",
			"password": userPassword, "tenant_id": ten.ID}, 201, nil)
		if name == "mine" {
			s.mine = ten.ID
		}
		if name == "theirs" {
			var p struct{ Machine struct{ ID string } }
			s.call("POST", "/api/client/machines?tenant_id="+ten.ID, s.admin, map[string]any{"name": "their-machine", "template_id": "tpl-debian-12",
				"cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}, 202, &p)
			s.other = p.Machine.ID
		}
	}
	return s
}

// call sends one API request and checks its status.
func (s *site) call(method, path, token string, body any, status int, out any) {
	s.t.Helper()
	b, _ := json.Marshal(body)
	r, _ := http.NewRequest(method, s.srv.Base+path, bytes.NewReader(b))
	r.Header.Set("Content-Type", "application/json")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	var raw json.RawMessage
	_ = json.NewDecoder(res.Body).Decode(&raw)
	if res.StatusCode != status {
		s.t.Fatalf("%s %s: %d %s; want %d", method, path, res.StatusCode, raw, status)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatal(err)
		}
	}
}

// tab opens a tab of the package's browser for one test, in a browser context of its
// own, as another person's browser would be: no cookie or storage shared with the
// other tabs. The tests run in parallel, each against a server of its own on another
// port of 127.0.0.1, and cookies are per host, not per port: in one shared context a
// test's sign-in would replace another's session cookie. A test that needs a second
// person (or a browser that never signed in) opens a second tab. The target is made
// here with a window of its own (the same 1280x900 as the first one): headless
// Chromium refuses a tab in a new browser context that has no window to put it in
// (chromedp.WithNewBrowserContext asks for a tab). A script's uncaught exception or a
// Content-Security-Policy refusal in the tab fails the test: the page would be broken
// or unstyled without any step noticing.
func tab(t *testing.T) context.Context {
	t.Helper()
	exec := cdp.WithExecutor(browser, chromedp.FromContext(browser).Browser)
	id, err := target.CreateBrowserContext().WithDisposeOnDetach(true).Do(exec)
	if err != nil {
		t.Fatal(err)
	}
	page, err := target.CreateTarget("about:blank").WithBrowserContextID(id).WithNewWindow(true).Do(exec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = target.DisposeBrowserContext(id).Do(exec) })
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithTargetID(page))
	// Kept where a test finds it (chromedp.FromContext), for the settings that are the
	// browser context's, such as where downloads go. chromedp does not dispose of a
	// context it did not create: the cleanup above does.
	chromedp.FromContext(ctx).BrowserContextID = id
	return watched(t, ctx, cancel)
}

// watched fails the test on the tab's uncaught exceptions and policy refusals, and
// closes it at the test's end.
func watched(t *testing.T, ctx context.Context, cancel context.CancelFunc) context.Context {
	t.Helper()
	var mu sync.Mutex
	var faults []string
	chromedp.ListenTarget(ctx, func(ev any) {
		var fault string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			fault = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				fault += " " + e.ExceptionDetails.Exception.Description
			}
		case *cdplog.EventEntryAdded:
			// xterm writes <style> elements, which the policy ignores (the console
			// applies their copies as adopted sheets: docs/ui.md); the machine
			// page's test checks its styles apply.
			if e.Entry.Level == cdplog.LevelError && e.Entry.Source != cdplog.SourceNetwork &&
				!strings.HasPrefix(e.Entry.Text, "Applying inline style violates") {
				fault = string(e.Entry.Source) + ": " + e.Entry.Text
			}
		}
		if fault != "" {
			mu.Lock()
			faults = append(faults, fault)
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		cancel()
		mu.Lock()
		defer mu.Unlock()
		for _, f := range faults {
			t.Errorf("in the page: %s", f)
		}
	})
	// Several windows are open at once (the tests run in parallel): each page is told
	// it has the focus, as the only window of a person's browser would, so that focus
	// and blur behave the same whichever window was opened last.
	if err := chromedp.Run(ctx, cdplog.Enable(), emulation.SetFocusEmulationEnabled(true)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// run runs browser actions, failing the test with step's name.
func run(t *testing.T, ctx context.Context, step string, actions ...chromedp.Action) {
	t.Helper()
	// A step's bound, not the tab's: cancelling the tab's own context would close it.
	step1, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(step1, actions...); err != nil {
		var body string
		dump, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		// The text says more than the markup, and is shorter.
		_ = chromedp.Run(dump, chromedp.Evaluate(`document.body.innerText`, &body))
		t.Fatalf("%s: %v\npage: %s", step, err, body)
	}
}

// shot saves screenshots of the page as name.png (1280 px wide) and name-360.png (a
// phone's 360 px) in the folder VMPLANE_UI_SHOTS names, when it is set (`make
// screenshots` sets it to docs/screenshots); otherwise it does nothing. Each is the
// window's view, not the whole page, so that the pictures stay small.
func shot(name string) chromedp.Action {
	dir := os.Getenv("VMPLANE_UI_SHOTS")
	if dir == "" {
		return chromedp.Tasks{}
	}
	save := func(file string, png *[]byte) chromedp.Action {
		return chromedp.ActionFunc(func(context.Context) error { return os.WriteFile(filepath.Join(dir, file), *png, 0o644) })
	}
	// A frame drawn after the resize, before the capture.
	frame := chromedp.Evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`, nil, awaitPromise)
	var desktop, phone []byte
	return chromedp.Tasks{
		frame,
		chromedp.CaptureScreenshot(&desktop),
		save(name+".png", &desktop),
		emulation.SetDeviceMetricsOverride(360, 780, 1, true),
		frame,
		chromedp.CaptureScreenshot(&phone),
		save(name+"-360.png", &phone),
		emulation.ClearDeviceMetricsOverride(),
		frame,
	}
}

// long skips a test of the longer browser runs (`make test-ui` sets VMPLANE_UI_LONG),
// which `make test` leaves out to keep its share of the time short.
func long(t *testing.T) {
	t.Helper()
	if os.Getenv("VMPLANE_UI_LONG") == "" || testing.Short() {
		t.Skip("a longer browser run: make test-ui runs it (VMPLANE_UI_LONG=1)")
	}
}

// clear empties the input of a CSS selector, as a user's select-all and delete would.
func clear(sel string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).value = ""`, sel), nil)
}

// row is the XPath of the machine list's row of the machine named name.
func row(name string) string { return fmt.Sprintf(`//tr[td/a[normalize-space(.)=%q]]`, name) }

// TestConsoleTenant: a tenant user signs in, sees the list, creates a machine and
// watches its task end in the list without a reload, sees an error's detail next to
// its field, stops the machine from its page, and is refused the other tenant's.
func TestConsoleTenant(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	run(t, ctx, "sign in",
		chromedp.Navigate(s.srv.Base+"/"),
		chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=email]`, "mine@example.test", chromedp.ByQuery),
		chromedp.SendKeys(`input[name=password]`, "wrong password", chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//div[@role="alert"]//p[contains(., "invalid e-mail or password")]`),
		clear(`input[name=password]`),
		chromedp.SendKeys(`input[name=password]`, userPassword, chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Machines"]`),
		chromedp.WaitVisible(`//p[normalize-space(.)="No machines yet."]`),
	)
	// Marks the page: a reload would lose it.
	run(t, ctx, "mark the page", chromedp.Evaluate(`window.notReloaded = true`, nil))

	run(t, ctx, "an error's detail next to its field",
		chromedp.Click(`//button[normalize-space(.)="New machine"]`),
		chromedp.WaitVisible(`input[name=name]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=name]`, "web-1", chromedp.ByQuery),
		chromedp.WaitReady(`//select[@name="template_id"]/option[@value="tpl-debian-12"]`),
		chromedp.SetValue(`select[name=template_id]`, "tpl-debian-12", chromedp.ByQuery),
		chromedp.SendKeys(`input[name=cpu_cores]`, "1", chromedp.ByQuery),
		chromedp.SendKeys(`input[name=memory_mb]`, "1024", chromedp.ByQuery),
		chromedp.SendKeys(`input[name=disk_gb]`, "100000000", chromedp.ByQuery),
		chromedp.Click(`//form[@aria-label="New machine"]//button[@type="submit"]`),
		chromedp.WaitVisible(`//div[@role="alert"]/strong`),
		chromedp.WaitVisible(`//label[input[@name="disk_gb"]]/span[@class="field-error"]`),
	)
	run(t, ctx, "create a machine and watch its task end without a reload",
		clear(`input[name=disk_gb]`),
		chromedp.SendKeys(`input[name=disk_gb]`, "10", chromedp.ByQuery),
		chromedp.Click(`//form[@aria-label="New machine"]//button[@type="submit"]`),
		chromedp.WaitVisible(row("web-1")),
		chromedp.WaitVisible(row("web-1")+`/td[2]/span[normalize-space(.)="running"]`),
		chromedp.WaitVisible(row("web-1")+`/td[4]//span[normalize-space(.)="succeeded"]`),
		shot("machines"),
	)
	var notReloaded bool
	run(t, ctx, "no reload", chromedp.Evaluate(`window.notReloaded === true`, &notReloaded))
	if !notReloaded {
		t.Fatal("the page was reloaded")
	}

	run(t, ctx, "stop it from its page",
		chromedp.Click(row("web-1")+`/td/a`),
		chromedp.WaitVisible(`//h1[contains(., "web-1")]/span[normalize-space(.)="running"]`),
		chromedp.Click(`button[data-action=stop]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//h1[contains(., "web-1")]/span[normalize-space(.)="stopped"]`),
		chromedp.WaitVisible(`//tr[td[normalize-space(.)="vm.stop"]]/td/span[normalize-space(.)="succeeded"]`),
	)
	run(t, ctx, "refused the other tenant's machine",
		chromedp.Navigate(s.srv.Base+"/machines/"+s.other),
		chromedp.WaitVisible(`//div[@role="alert"]/strong`),
	)
	var alert string
	run(t, ctx, "read the refusal", chromedp.Text(`//div[@role="alert"]`, &alert))
	if bytes.Contains([]byte(alert), []byte("their-machine")) {
		t.Errorf("the refusal names the other tenant's machine: %q", alert)
	}
	run(t, ctx, "a reload keeps the session (the cookie's refresh)",
		chromedp.Reload(),
		chromedp.WaitVisible(`//a[normalize-space(.)="Sign out"] | //button[normalize-space(.)="Sign out"]`),
	)
}

// TestConsoleOperator: an operator opens a link to the nodes, signs in and lands
// there (the operator's pages are a chunk loaded when opened), then filters every
// machine by status and name.
func TestConsoleOperator(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	var rows int
	run(t, ctx, "sign in to the nodes",
		chromedp.Navigate(s.srv.Base+"/admin/nodes"),
		chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=email]`, apptest.AdminEmail, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=password]`, apptest.AdminPassword, chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Nodes"]`),
		chromedp.WaitVisible(`//tbody/tr`),
		chromedp.Evaluate(`document.querySelectorAll("tbody tr").length`, &rows),
	)
	if rows == 0 {
		t.Error("no node listed")
	}
	run(t, ctx, "every machine",
		navOpen("fleet", "Machines"),
		chromedp.WaitVisible(`//h1[normalize-space(.)="All machines"]`),
		chromedp.WaitVisible(`//td[normalize-space(.)="their-machine"]`),
	)
	run(t, ctx, "filter by status and name",
		chromedp.SetValue(`select[name=status]`, "error", chromedp.ByQuery),
		chromedp.Click(`//form[@role="search"]//button[@type="submit"]`),
		chromedp.WaitNotPresent(`//td[normalize-space(.)="their-machine"]`),
		chromedp.SetValue(`select[name=status]`, "", chromedp.ByQuery),
		chromedp.SendKeys(`input[name=name]`, "their-machine", chromedp.ByQuery),
		chromedp.Click(`//form[@role="search"]//button[@type="submit"]`),
		chromedp.WaitVisible(`//td[normalize-space(.)="their-machine"]`),
	)
}
