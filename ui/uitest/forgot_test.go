package uitest

import (
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/mailer/mailtest"
)

// resetLink finds the token of the link a reset mail holds.
var resetLink = regexp.MustCompile(`https://panel\.example\.test/reset-password\?token=(\S+)`)

// TestConsoleForgotPassword: on the sign-in page a tenant user asks for a reset link
// (the e-mail typed carried over), the server mails it to a real SMTP server on
// loopback, the link's page sets a new password, and the console signs in with it.
// A server with no mail set up refuses, its detail shown.
func TestConsoleForgotPassword(t *testing.T) {
	t.Parallel()
	smtpd := mailtest.Start(t, mailtest.Options{})
	s := newSiteWith(t, func(c *app.Config) {
		c.SMTPHost, c.SMTPPort, c.SMTPSecurity = smtpd.Host, smtpd.Port, "none"
		c.SMTPFrom = "Example Hosting <panel@example.test>"
		c.PublicURL = "https://panel.example.test"
	})
	ctx := tab(t)
	run(t, ctx, "ask for a link",
		chromedp.Navigate(s.srv.Base+"/"),
		chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=email]`, "mine@example.test", chromedp.ByQuery),
		chromedp.Click(`button[data-forgot]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Reset your password"]`),
		chromedp.WaitVisible(`//input[@name="email"][@value="mine@example.test"]`),
		chromedp.Click(`//button[normalize-space(.)="Send the link"]`),
		chromedp.WaitVisible(`//p[@data-reset-sent][contains(., "If mine@example.test has an account")]`),
	)
	m := smtpd.Wait(t, 1, 30*time.Second)
	match := resetLink.FindStringSubmatch(m.Body)
	if match == nil || len(m.To) != 1 || m.To[0] != "mine@example.test" {
		t.Fatalf("the mail to %v:\n%s", m.To, m.Body)
	}
	token, err := url.QueryUnescape(match[1])
	if err != nil {
		t.Fatal(err)
	}
	const fresh = "a password set by mail"
	run(t, ctx, "the link's page sets a new one",
		chromedp.Navigate(s.srv.Base+"/reset-password?token="+url.QueryEscape(token)),
		chromedp.WaitVisible(`#password`, chromedp.ByQuery),
		chromedp.SendKeys(`#password`, fresh, chromedp.ByQuery),
		chromedp.SendKeys(`#again`, fresh, chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//p[@id="status"][normalize-space(.)!=""]`),
	)
	signIn(t, ctx, s.srv.Base, "/machines", "mine@example.test", fresh)

	off := newSite(t)
	ctx2 := tab(t)
	run(t, ctx2, "no mail set up: refused with its detail",
		chromedp.Navigate(off.srv.Base+"/"),
		chromedp.WaitVisible(`button[data-forgot]`, chromedp.ByQuery),
		chromedp.Click(`button[data-forgot]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=email]`, "mine@example.test", chromedp.ByQuery),
		chromedp.Click(`//button[normalize-space(.)="Send the link"]`),
		chromedp.WaitVisible(`//div[@role="alert"]/strong`),
		chromedp.Click(`//button[normalize-space(.)="Back to sign-in"]`),
		chromedp.WaitVisible(`//h1[normalize-space(.)="Sign in to vmplane"]`),
	)
}
