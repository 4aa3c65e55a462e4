package uitest

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"github.com/vmplane/vmplane/app/apptest"
)

// TestConsoleAccount: a tenant user, signed in twice, ends the other login, changes the
// password (this login carries on), enrols an authenticator from the page (its secret
// read there, the QR code drawn) and sees the recovery codes once, makes an API key
// (its secret shown once, and it works) and revokes it; then signs in again with the
// second factor (a recovery code read from the page: the enrolment spent this
// period's code of the app).
func TestConsoleAccount(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	// Another login of the same user, to be ended from the page.
	s.call("POST", "/api/auth/login", "", map[string]any{"email": "mine@example.test", "password": userPassword}, 200, nil)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/account", "mine@example.test", userPassword)
	logins := `//section[@aria-labelledby="sessions-title"]`
	var rows int
	run(t, ctx, "end the other login",
		chromedp.WaitVisible(`//h1[normalize-space(.)="Account"]`),
		chromedp.WaitVisible(logins+`//tr[@data-session][2]`),
		confirm(logins+`//tr[@data-session][not(.//span[normalize-space(.)="this one"])]`, "end-session"),
		chromedp.WaitNotPresent(logins+`//tr[@data-session][2]`),
		chromedp.Evaluate(`document.querySelectorAll("tr[data-session]").length`, &rows),
	)
	if rows != 1 {
		t.Fatalf("%d logins listed after ending the other; want this one", rows)
	}
	const newPassword = "a brand new tenant password"
	pw := `//form[@aria-label="Change password"]`
	run(t, ctx, "a wrong current password, then the change",
		chromedp.SendKeys(pw+`//input[@name="current_password"]`, "not my password"),
		chromedp.SendKeys(pw+`//input[@name="new_password"]`, newPassword),
		chromedp.Click(pw+`//button[@type="submit"]`),
		chromedp.WaitVisible(pw+`//label[input[@name="current_password"]]/span[@class="field-error"]`),
		clear(`input[name=current_password]`),
		chromedp.SendKeys(pw+`//input[@name="current_password"]`, userPassword),
		chromedp.Click(pw+`//button[@type="submit"]`),
		chromedp.WaitVisible(pw+`//p[@role="status"]`),
	)
	var secret string
	run(t, ctx, "enrol an authenticator",
		chromedp.Click(`//button[normalize-space(.)="Set up an authenticator app"]`),
		chromedp.WaitVisible(`svg.qr path`, chromedp.ByQuery),
		chromedp.Text(`code[data-totp-secret]`, &secret, chromedp.ByQuery),
	)
	code, err := totp.GenerateCode(strings.TrimSpace(secret), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var recovery int
	var firstCode string
	run(t, ctx, "confirm it and see the recovery codes once",
		chromedp.SendKeys(`//form[@aria-label="Confirm the authenticator"]//input[@name="code"]`, code),
		chromedp.Click(`//form[@aria-label="Confirm the authenticator"]//button[@type="submit"]`),
		chromedp.WaitVisible(`ul[data-recovery-codes] li`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("ul[data-recovery-codes] li").length`, &recovery),
		chromedp.Text(`ul[data-recovery-codes] li`, &firstCode, chromedp.ByQuery),
		chromedp.Click(`//button[normalize-space(.)="I have saved them"]`),
		chromedp.WaitVisible(`//section[@aria-labelledby="totp-title"]//strong[normalize-space(.)="on"]`),
	)
	if recovery != 10 {
		t.Errorf("%d recovery codes shown; want 10", recovery)
	}
	keys := `//section[@aria-labelledby="keys-title"]`
	var key string
	run(t, ctx, "make an API key",
		chromedp.SendKeys(keys+`//input[@name="name"]`, "deploy"),
		chromedp.Click(keys+`//button[normalize-space(.)="Create key"]`),
		chromedp.WaitVisible(`code[data-key-secret]`, chromedp.ByQuery),
		chromedp.Text(`code[data-key-secret]`, &key, chromedp.ByQuery),
		chromedp.WaitVisible(keys+`//tr[@data-key="deploy"]`),
	)
	s.call("GET", "/api/client/machines", strings.TrimSpace(key), nil, 200, nil)
	run(t, ctx, "revoke it",
		confirm(keys+`//tr[@data-key="deploy"]`, "revoke"),
		chromedp.WaitNotPresent(keys+`//tr[@data-key="deploy"]`),
	)
	s.call("GET", "/api/client/machines", strings.TrimSpace(key), nil, 401, nil)

	run(t, ctx, "sign out", chromedp.Click(`//button[normalize-space(.)="Sign out"]`), chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery))
	run(t, ctx, "sign in with the second factor",
		chromedp.SendKeys(`input[name=email]`, "mine@example.test", chromedp.ByQuery),
		chromedp.SendKeys(`input[name=password]`, newPassword, chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`input[name=code]`, chromedp.ByQuery),
	)
	run(t, ctx, "a recovery code",
		chromedp.SendKeys(`input[name=code]`, firstCode, chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//button[normalize-space(.)="Sign out"]`),
	)
}

// TestConsoleDashboard: an operator lands on the dashboard: the cluster's counts, the
// nodes, the cluster's usage graphs, an open alert acknowledged, the forecast; and
// opens a machine of the list on its page, with its graphs through the operators'
// routes.
func TestConsoleDashboard(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "the dashboard",
		chromedp.WaitVisible(`//h1[normalize-space(.)="Dashboard"]`),
		chromedp.WaitVisible(`//ul[@aria-label="Cluster"]/li[contains(., "nodes online")]`),
		chromedp.WaitVisible(`//section[@aria-labelledby="dash-nodes-title"]//tbody/tr`),
		chromedp.WaitVisible(`//section[@aria-labelledby="dash-graphs-title"]//figure[@data-chart="cpu"]//canvas`),
		chromedp.WaitVisible(`//section[@aria-labelledby="dash-forecast-title"]//tbody/tr`),
		chromedp.WaitVisible(`//section[@aria-labelledby="dash-alerts-title"]//p | //section[@aria-labelledby="dash-alerts-title"]//table`),
		shot("dashboard"),
	)
	run(t, ctx, "a machine's page",
		navOpen("fleet", "Machines"),
		chromedp.Click(`//a[normalize-space(.)="their-machine"]`),
		chromedp.WaitVisible(`//h1[contains(., "their-machine")]`),
		chromedp.WaitVisible(`figure[data-chart=cpu] canvas`, chromedp.ByQuery),
	)
}
