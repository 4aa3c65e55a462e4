package uitest

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestConsoleMachineAddresses: a tenant user works a plan machine's addresses from its
// page: one more than the plan's two is refused with the API's problem shown, a
// non-primary one is removed (confirmed by keyboard), another added, its reverse DNS
// name set and cleared in place, and that address removed again; each step read back
// through the API as well.
func TestConsoleMachineAddresses(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.call("POST", "/api/resources/ip-pools", s.admin, map[string]any{"name": "docs-v4", "cidr": "192.0.2.0/24", "gateway": "192.0.2.1"}, 201, nil)
	var plan struct{ ID string }
	s.call("POST", "/api/resources/plans", s.admin, map[string]any{"name": "two", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10, "ipv4": 2}, 201, &plan)
	var p struct {
		Machine struct{ ID string }
		Task    struct{ ID string }
	}
	s.call("POST", "/api/client/machines?tenant_id="+s.mine, s.admin, map[string]any{"name": "addr-1", "template_id": "tpl-debian-12", "plan_id": plan.ID}, 202, &p)
	s.waitTask(p.Task.ID)
	id := p.Machine.ID
	addresses := func() map[string]string {
		var m struct {
			Addresses []struct{ Address, PTR string }
		}
		s.call("GET", "/api/client/machines/"+id+"?tenant_id="+s.mine, s.admin, nil, 200, &m)
		out := map[string]string{}
		for _, a := range m.Addresses {
			out[a.Address] = a.PTR
		}
		return out
	}

	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/machines/"+id, "mine@example.test", userPassword)
	sec := `//section[@aria-labelledby="addresses-part-title"]`
	addr := func(a string) string { return sec + `//tr[@data-address="` + a + `"]` }
	run(t, ctx, "the plan's two addresses, the first primary",
		chromedp.WaitVisible(addr("192.0.2.2")+`/td[contains(., "(primary)")]`),
		chromedp.WaitVisible(addr("192.0.2.3")),
		chromedp.WaitNotPresent(addr("192.0.2.2")+`//button[@data-confirm="remove-address"]`),
	)
	run(t, ctx, "a third is over the plan: the problem is shown",
		chromedp.Click(sec+`//button[normalize-space(.)="Add an address"]`),
		chromedp.WaitVisible(sec+`//div[@role="alert"]/strong`),
	)
	run(t, ctx, "remove the second",
		confirm(addr("192.0.2.3"), "remove-address"),
		chromedp.WaitNotPresent(addr("192.0.2.3")),
	)
	if got := addresses(); len(got) != 1 {
		t.Fatalf("after the removal the machine holds %v", got)
	}
	// The removed address cools down, so the next free one is .4.
	run(t, ctx, "add one",
		chromedp.Click(sec+`//button[normalize-space(.)="Add an address"]`),
		chromedp.WaitVisible(addr("192.0.2.4")),
		chromedp.WaitNotPresent(sec+`//div[@role="alert"]`),
	)
	run(t, ctx, "set its reverse DNS name",
		chromedp.Click(addr("192.0.2.4")+`//button[@data-edit-ptr]`),
		chromedp.WaitVisible(addr("192.0.2.4")+`//input[@name="ptr"]`),
		chromedp.SendKeys(addr("192.0.2.4")+`//input[@name="ptr"]`, "mail.example.com"),
		chromedp.Click(addr("192.0.2.4")+`//button[normalize-space(.)="Save"]`),
		chromedp.WaitVisible(addr("192.0.2.4")+`//span[@data-ptr][normalize-space(.)="mail.example.com"]`),
	)
	if got := addresses()["192.0.2.4"]; got != "mail.example.com" {
		t.Fatalf("ptr of 192.0.2.4 = %q", got)
	}
	run(t, ctx, "clear it",
		chromedp.Click(addr("192.0.2.4")+`//button[@data-edit-ptr]`),
		chromedp.WaitVisible(addr("192.0.2.4")+`//input[@name="ptr"]`),
		clear(`tr[data-address="192.0.2.4"] input[name=ptr]`),
		chromedp.SendKeys(addr("192.0.2.4")+`//input[@name="ptr"]`, kb.Enter),
		chromedp.WaitVisible(addr("192.0.2.4")+`//span[@data-ptr][normalize-space(.)="none"]`),
	)
	run(t, ctx, "remove it",
		confirm(addr("192.0.2.4"), "remove-address"),
		chromedp.WaitNotPresent(addr("192.0.2.4")),
	)
	if got := addresses(); len(got) != 1 || got["192.0.2.2"] != "" {
		t.Fatalf("at the end the machine holds %v", got)
	}
}
