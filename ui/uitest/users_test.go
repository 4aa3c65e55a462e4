package uitest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"github.com/vmplane/vmplane/app/apptest"
)

// account is a user as the API answers it.
type account struct {
	ID, Email, Name, Role string
	TenantID              *string `json:"tenant_id"`
	ExternalID            *string `json:"external_id"`
	Disabled              bool
	TOTPEnabled           bool `json:"totp_enabled"`
}

// account reads the user of an e-mail through the API; ok is false when there is none.
func (s *site) account(email string) (account, bool) {
	s.t.Helper()
	var p struct{ Items []account }
	s.call("GET", "/api/resources/users?limit=500", s.admin, nil, 200, &p)
	for _, u := range p.Items {
		if u.Email == email {
			return u, true
		}
	}
	return account{}, false
}

// enrolTOTP turns a second factor on for a user through the API.
func (s *site) enrolTOTP(email, password string) {
	s.t.Helper()
	var login struct{ Token string }
	s.call("POST", "/api/auth/login", "", map[string]any{"email": email, "password": password}, 200, &login)
	var enrol struct{ Secret string }
	s.call("POST", "/api/auth/totp", login.Token, nil, 201, &enrol)
	code, err := totp.GenerateCode(enrol.Secret, time.Now())
	if err != nil {
		s.t.Fatal(err)
	}
	s.call("POST", "/api/auth/totp/confirm", login.Token, map[string]any{"code": code}, 200, nil)
}

// accountRow is the XPath of the accounts page's row of an e-mail.
func accountRow(email string) string { return fmt.Sprintf(`//tr[@data-account=%q]`, email) }

// TestConsoleUsers: an operator finds an account by a part of its e-mail, creates an
// operator and disables it (its sign-in then refused in a browser of its own), has a
// wrong external id refused next to its field, has the first admin's delete refused
// with the API's detail, turns a user's second factor off, has a login link of a
// disabled user refused, makes a login link for a tenant user and opens it in a fresh
// browser context, landing signed in as that user; and deletes the operator.
func TestConsoleUsers(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.enrolTOTP("theirs@example.test", userPassword)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/users", apptest.AdminEmail, apptest.AdminPassword)
	filters := `//form[@aria-label="Filter accounts"]`
	run(t, ctx, "the list, filtered by e-mail",
		navCurrent("Users"),
		chromedp.WaitVisible(accountRow(apptest.AdminEmail)+`/td[@data-role][normalize-space(.)="operator"]`),
		chromedp.WaitVisible(accountRow("mine@example.test")+`/td[normalize-space(.)="mine"]`),
		chromedp.SendKeys(filters+`//input[@name="email"]`, "MINE@"),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//p[@data-matches][normalize-space(.)="1 of 3 accounts match."]`),
		chromedp.WaitNotPresent(accountRow("theirs@example.test")),
		chromedp.WaitVisible(accountRow("mine@example.test")),
		clear(`form[aria-label="Filter accounts"] input[name=email]`),
		chromedp.SetValue(filters+`//select[@name="role"]`, "admin"),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//p[@data-matches][normalize-space(.)="1 of 3 accounts match."]`),
		chromedp.WaitVisible(accountRow(apptest.AdminEmail)),
		chromedp.SetValue(filters+`//select[@name="role"]`, ""),
		chromedp.SetValue(filters+`//select[@name="tenant_id"]`, s.mine),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(accountRow(apptest.AdminEmail)),
		chromedp.WaitVisible(accountRow("mine@example.test")),
		chromedp.SetValue(filters+`//select[@name="tenant_id"]`, ""),
		chromedp.Click(filters+`//button[@type="submit"]`),
		chromedp.WaitVisible(accountRow(apptest.AdminEmail)),
	)
	form := `//form[@aria-label="New account"]`
	const opEmail, opPassword = "op2@example.test", "a second operator's password"
	run(t, ctx, "a new operator",
		chromedp.Click(`//button[normalize-space(.)="New account"]`),
		chromedp.WaitVisible(form+`//input[@name="email"]`),
		chromedp.Click(form+`//input[@name="role"][@value="admin"]`),
		chromedp.WaitNotPresent(form+`//select[@name="tenant_id"]`),
		chromedp.SendKeys(form+`//input[@name="email"]`, opEmail),
		chromedp.SendKeys(form+`//input[@name="name"]`, "Second operator"),
		chromedp.SendKeys(form+`//input[@name="password"]`, opPassword),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(form),
		chromedp.WaitVisible(accountRow(opEmail)+`/td[@data-role][normalize-space(.)="operator"]`),
	)
	if u, ok := s.account(opEmail); !ok || u.Role != "admin" || u.TenantID != nil {
		t.Fatalf("the new operator %+v", u)
	}
	edit := fmt.Sprintf(`//form[@aria-label="Edit %s"]`, opEmail)
	run(t, ctx, "a wrong external id refused next to its field, then the operator disabled",
		chromedp.Click(accountRow(opEmail)+`//button[@data-edit]`),
		chromedp.WaitVisible(edit+`//input[@name="external_id"]`),
		chromedp.SendKeys(edit+`//input[@name="external_id"]`, "crm/7"),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitVisible(edit+`//input[@name="external_id"][@aria-invalid="true"]/following-sibling::span[@class="field-error"]`),
		clear(`input[name=external_id][aria-invalid=true]`),
		chromedp.Click(edit+`//input[@name="disabled"]`),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(edit),
		chromedp.WaitVisible(accountRow(opEmail)+`/td[@data-account-state][normalize-space(.)="disabled"]`),
	)
	if u, _ := s.account(opEmail); !u.Disabled || u.ExternalID != nil {
		t.Fatalf("the operator after the edit %+v", u)
	}
	fresh := tab(t)
	run(t, fresh, "the disabled operator's sign-in refused",
		chromedp.Navigate(s.srv.Base+"/admin/dashboard"),
		chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=email]`, opEmail, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=password]`, opPassword, chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//form[@aria-labelledby="login-title"]//div[@role="alert"]`),
		chromedp.WaitNotPresent(`//button[normalize-space(.)="Sign out"]`),
	)
	more := func(email string) string { return fmt.Sprintf(`//tr[@data-account-more=%q]`, email) }
	run(t, ctx, "the first admin's delete refused with the API's detail",
		confirm(accountRow(apptest.AdminEmail), "delete-account"),
		chromedp.WaitVisible(more(apptest.AdminEmail)+`//div[@role="alert"]/p[contains(., "first admin")]`),
		chromedp.WaitVisible(accountRow(apptest.AdminEmail)),
	)
	run(t, ctx, "a user's second factor turned off",
		chromedp.WaitVisible(accountRow("theirs@example.test")+`/td[@data-totp][normalize-space(.)="on"]`),
		confirm(accountRow("theirs@example.test"), "totp-off"),
		chromedp.WaitVisible(accountRow("theirs@example.test")+`/td[@data-totp][normalize-space(.)="off"]`),
	)
	if u, _ := s.account("theirs@example.test"); u.TOTPEnabled {
		t.Fatal("theirs@ still has a second factor")
	}
	theirs, _ := s.account("theirs@example.test")
	s.call("PATCH", "/api/resources/users/"+theirs.ID, s.admin, map[string]any{"disabled": true}, 200, nil)
	run(t, ctx, "a disabled user's login link refused with the API's detail",
		chromedp.Reload(),
		chromedp.WaitVisible(accountRow("theirs@example.test")+`/td[@data-account-state][normalize-space(.)="disabled"]`),
		chromedp.Click(accountRow("theirs@example.test")+`//button[@data-login-link]`),
		chromedp.WaitVisible(more("theirs@example.test")+`//div[@role="alert"]/p[contains(., "disabled")]`),
	)
	var url string
	run(t, ctx, "a login link for a tenant user",
		chromedp.Click(accountRow("mine@example.test")+`//button[@data-login-link]`),
		chromedp.WaitVisible(more("mine@example.test")+`//input[@data-link-url]`),
		chromedp.Value(more("mine@example.test")+`//input[@data-link-url]`, &url),
		shot("users"),
	)
	if !strings.HasPrefix(url, s.srv.Base+"/login-link?token=") {
		t.Fatalf("the link %q", url)
	}
	other := tab(t)
	run(t, other, "the link opened in a fresh browser lands signed in as the user",
		chromedp.Navigate(url),
		chromedp.WaitVisible(`//span[@class="who"][normalize-space(.)="mine@example.test"]`),
		navCurrent("Machines"),
	)
	run(t, ctx, "the operator deleted",
		confirm(accountRow(opEmail), "delete-account"),
		chromedp.WaitNotPresent(accountRow(opEmail)),
	)
	if _, ok := s.account(opEmail); ok {
		t.Fatal("the operator is still there")
	}
}
