package uitest

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/sso/ssotest"
)

// TestConsoleOIDC: the login page shows a button for each OpenID Connect provider of
// the server; an operator signs in through a real provider (sso/ssotest), its login
// form filled in the browser, and lands signed in on the page the sign-in started
// from; a reload keeps the login (this tab's refresh token), and signing out ends it.
func TestConsoleOIDC(t *testing.T) {
	t.Parallel()
	idp := ssotest.Start(t, ssotest.User{ID: "root", Email: apptest.AdminEmail, Groups: []string{"ops"}})
	addr := idp.Serve()
	cfg := apptest.Config(t.TempDir())
	cfg.Addr = addr
	cfg.OIDCProvidersFile = idp.File(addr, map[string]string{"ops": "operator"})
	srv, err := apptest.StartConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	ctx := tab(t)
	run(t, ctx, "the providers' buttons",
		chromedp.Navigate(srv.Base+"/admin/nodes"),
		chromedp.WaitVisible(`//div[@aria-label="Single sign-on"]/a[@data-provider="corp"][normalize-space(.)="Corp SSO"]`),
		chromedp.WaitVisible(`//div[@aria-label="Single sign-on"]/a[@data-provider="confused"][normalize-space(.)="confused"]`),
		shot("login"),
	)
	run(t, ctx, "sign in at the provider and come back signed in",
		chromedp.Click(`a[data-provider=corp]`, chromedp.ByQuery),
		chromedp.WaitVisible(`input[name=username]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=username]`, "root", chromedp.ByQuery),
		chromedp.SendKeys(`input[name=password]`, ssotest.Password, chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Nodes"]`),
		chromedp.WaitVisible(`//span[@class="who"][normalize-space(.)="`+apptest.AdminEmail+`"]`),
	)
	run(t, ctx, "a reload keeps the login",
		chromedp.Reload(),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Nodes"]`),
		chromedp.WaitVisible(`//button[normalize-space(.)="Sign out"]`),
	)
	run(t, ctx, "sign out ends it",
		chromedp.Click(`//button[normalize-space(.)="Sign out"]`),
		chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
		chromedp.Reload(),
		chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
	)
}
