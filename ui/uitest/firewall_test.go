package uitest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/vmplane/vmplane/internal/testwait"
)

// rule adds a firewall rule of the tenant mine through the API and answers its id.
func (s *site) rule(comment, port string) string {
	s.t.Helper()
	var r struct{ ID string }
	s.call("POST", "/api/client/firewall/rules?tenant_id="+s.mine, s.admin, map[string]any{"direction": "in", "action": "accept",
		"protocol": "tcp", "port": port, "comment": comment}, 201, &r)
	return r.ID
}

// ruleOrder is the comments of the tenant mine's rules in the API's order.
func (s *site) ruleOrder() []string {
	s.t.Helper()
	var p struct {
		Items []struct {
			Comment  string
			Position int
		}
	}
	s.call("GET", "/api/client/firewall/rules?limit=100&tenant_id="+s.mine, s.admin, nil, 200, &p)
	var out []string
	for i, r := range p.Items {
		if r.Position != i+1 {
			s.t.Fatalf("rule %q at position %d, listed %d", r.Comment, r.Position, i+1)
		}
		out = append(out, r.Comment)
	}
	return out
}

// wantOrder waits for the API's order of the rules to be want.
func (s *site) wantOrder(want ...string) {
	s.t.Helper()
	testwait.Until(s.t, func() error {
		if got := s.ruleOrder(); !slices.Equal(got, want) {
			return fmt.Errorf("rules %s, want %s", strings.Join(got, ","), strings.Join(want, ","))
		}
		return nil
	})
}

// ruleRow is the XPath of the rules table's row of the rule commented comment.
func ruleRow(comment string) string {
	return fmt.Sprintf(`//table[contains(@class, "rules")]//tr[@data-rule][td[normalize-space(.)=%q]]`, comment)
}

// announced is the XPath of the page's live region saying text.
func announced(text string) string {
	return fmt.Sprintf(`//p[@data-announce][normalize-space(.)=%q]`, text)
}

// dragTo drops the row of the rule commented from on the row of the rule commented
// onto, with the HTML5 drag events a mouse drag fires (headless Chromium starts no
// drag from synthetic mouse input, so the events are dispatched as the page gets them).
func dragTo(from, onto string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => {
		const row = (c) => [...document.querySelectorAll('tr[data-rule]')].find((r) => [...r.cells].some((td) => td.textContent.trim() === c));
		const src = row(%q), dst = row(%q), dt = new DataTransfer();
		const fire = (el, type) => el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
		fire(src, 'dragstart'); fire(dst, 'dragenter'); fire(dst, 'dragover'); fire(dst, 'drop'); fire(src, 'dragend');
	})()`, from, onto), nil)
}

// TestConsoleFirewall: a tenant user moves rules by keyboard (Alt+Arrow on a focused
// row, and a row's move button), by drag and drop, adds one (a wrong port refused next
// to its field first), deletes one and edits one in place (a wrong port refused next
// to its field first); the API's order follows each move.
func TestConsoleFirewall(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.rule("ssh", "22")
	s.rule("web", "443")
	dns := s.rule("dns", "53")
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/firewall", "mine@example.test", userPassword)
	run(t, ctx, "the rules in order",
		navCurrent("Firewall"),
		chromedp.WaitVisible(ruleRow("dns")+`/td[1][normalize-space(.)="3"]`),
	)
	run(t, ctx, "move a rule up with Alt+Up",
		chromedp.Focus(ruleRow("dns")),
		chromedp.WaitVisible(`tr[data-rule]:focus`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowUp, chromedp.KeyModifiers(input.ModifierAlt)),
		chromedp.WaitVisible(announced("dns moved to position 2 of 3.")),
		chromedp.WaitVisible(ruleRow("dns")+`/td[1][normalize-space(.)="2"]`),
	)
	s.wantOrder("ssh", "dns", "web")
	run(t, ctx, "the moved row keeps the focus: Alt+Up again",
		chromedp.WaitVisible(fmt.Sprintf(`tr[data-rule=%q]:focus`, dns), chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowUp, chromedp.KeyModifiers(input.ModifierAlt)),
		chromedp.WaitVisible(announced("dns moved to position 1 of 3.")),
	)
	s.wantOrder("dns", "ssh", "web")
	run(t, ctx, "move a rule down with its button",
		chromedp.Focus(ruleRow("ssh")+`//button[@data-move="down"]`),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(announced("ssh moved to position 3 of 3.")),
	)
	s.wantOrder("dns", "web", "ssh")
	run(t, ctx, "drag a rule onto the first",
		dragTo("ssh", "dns"),
		chromedp.WaitVisible(announced("ssh moved to position 1 of 3.")),
	)
	s.wantOrder("ssh", "dns", "web")
	form := `//form[@aria-label="New rule"]`
	run(t, ctx, "a wrong position refused next to its field",
		chromedp.Click(`//button[normalize-space(.)="New rule"]`),
		chromedp.WaitVisible(form),
		chromedp.SendKeys(form+`//input[@name="comment"]`, "mail"),
		chromedp.SendKeys(form+`//input[@name="port"]`, "25"),
		chromedp.SendKeys(form+`//input[@name="position"]`, "9"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(form+`//input[@name="position"][@aria-invalid="true"]/following-sibling::span[@class="field-error"]`),
	)
	run(t, ctx, "add a rule at position 2",
		clear(`form[aria-label="New rule"] input[name=position]`),
		chromedp.SendKeys(form+`//input[@name="position"]`, "2"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(ruleRow("mail")+`/td[1][normalize-space(.)="2"]`),
	)
	s.wantOrder("ssh", "mail", "dns", "web")
	run(t, ctx, "delete a rule",
		confirm(ruleRow("dns"), "delete"),
		chromedp.WaitNotPresent(ruleRow("dns")),
		chromedp.WaitVisible(announced("dns deleted.")),
		shot("firewall"),
	)
	s.wantOrder("ssh", "mail", "web")
	edit := `//form[@aria-label="Edit web"]`
	run(t, ctx, "edit a rule in place: a wrong port refused next to its field",
		chromedp.Click(ruleRow("web")+`//button[@data-edit]`),
		chromedp.WaitVisible(edit+`//input[@name="port"][@value="443"]`),
		clear(`form[aria-label="Edit web"] input[name=port]`),
		chromedp.SendKeys(edit+`//input[@name="port"]`, "not-a-port"),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitVisible(edit+`//input[@name="port"][@aria-invalid="true"]/following-sibling::span[@class="field-error"]`),
	)
	run(t, ctx, "then its port, action, comment and state changed",
		clear(`form[aria-label="Edit web"] input[name=port]`),
		chromedp.SendKeys(edit+`//input[@name="port"]`, "8443"),
		chromedp.SetValue(edit+`//select[@name="action"]`, "drop"),
		clear(`form[aria-label="Edit web"] input[name=comment]`),
		chromedp.SendKeys(edit+`//input[@name="comment"]`, "web-alt"),
		chromedp.Click(edit+`//input[@name="enabled"]`),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitVisible(announced("web-alt saved.")),
		chromedp.WaitNotPresent(edit),
		chromedp.WaitVisible(ruleRow("web-alt")+`/td[3][normalize-space(.)="drop (off)"]`),
		chromedp.WaitVisible(ruleRow("web-alt")+`/td[5][normalize-space(.)="8443"]`),
	)
	var p struct {
		Items []struct {
			Comment, Port, Action string
			Enabled               bool
		}
	}
	s.call("GET", "/api/client/firewall/rules?tenant_id="+s.mine, s.admin, nil, 200, &p)
	if len(p.Items) != 3 || p.Items[2].Comment != "web-alt" || p.Items[2].Port != "8443" || p.Items[2].Action != "drop" || p.Items[2].Enabled {
		t.Fatalf("rules after the edit %+v", p.Items)
	}
}
