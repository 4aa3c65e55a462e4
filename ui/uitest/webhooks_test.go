package uitest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// webhook is a webhook as the API answers it.
type webhook struct {
	ID       string
	URL      string
	Events   []string
	TenantID *string `json:"tenant_id"`
	Enabled  bool
}

// webhooks are the webhooks token sees, by URL.
func (s *site) webhooks(token string) map[string]webhook {
	s.t.Helper()
	var p struct{ Items []webhook }
	s.call("GET", "/api/resources/webhooks?limit=200", token, nil, 200, &p)
	out := map[string]webhook{}
	for _, w := range p.Items {
		out[w.URL] = w
	}
	return out
}

// receiver is a webhook's receiver on loopback: it keeps the event id of each POST
// whose signature the secret, once known, verifies, and answers 204.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	secret string
	got    []string
	forged int
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		var ts, sig string
		for _, part := range strings.Split(req.Header.Get("Vmplane-Signature"), ",") {
			if k, v, ok := strings.Cut(part, "="); ok && k == "t" {
				ts = v
			} else if ok && k == "v1" {
				sig = v
			}
		}
		mac := hmac.New(sha256.New, []byte(r.secret))
		fmt.Fprintf(mac, "%s.%s", ts, body)
		if r.secret == "" || !hmac.Equal([]byte(sig), []byte(hex.EncodeToString(mac.Sum(nil)))) {
			r.forged++
		} else {
			r.got = append(r.got, req.Header.Get("Vmplane-Event-Id"))
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

// times counts the signed POSTs of the event id.
func (r *receiver) times(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, g := range r.got {
		if g == id {
			n++
		}
	}
	return n
}

// TestConsoleWebhooks: a tenant user is refused a webhook to a URL that is not http
// next to its field, makes one to a receiver on loopback for the tasks' events (its
// secret shown once, which the receiver checks the signatures with), sees a task's
// event delivered in the log with its attempt's status code, sends it again (the
// receiver gets the same event id twice, the log shows two attempts), edits its
// events and turns it off in place, and deletes it. An operator makes one for a
// tenant chosen from the list.
func TestConsoleWebhooks(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	rcv := newReceiver(t)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/webhooks", "mine@example.test", userPassword)
	form := `//form[@aria-label="New webhook"]`
	run(t, ctx, "a URL that is not http refused next to its field",
		navCurrent("Webhooks"),
		chromedp.WaitVisible(`//p[normalize-space(.)="No webhooks yet."]`),
		chromedp.Click(`//button[normalize-space(.)="New webhook"]`),
		chromedp.WaitVisible(form+`//input[@name="url"]`),
		chromedp.SendKeys(form+`//input[@name="url"]`, "ftp://example.test/hook"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(form+`//label[input[@name="url"]]/span[@class="field-error"]`),
	)
	url := rcv.URL + "/hook"
	var secret string
	run(t, ctx, "a webhook for the tasks' events, its secret shown once",
		clear(`form[aria-label="New webhook"] input[name=url]`),
		chromedp.SendKeys(form+`//input[@name="url"]`, url),
		chromedp.Click(form+`//input[@name="events"][@value="*"]`),
		chromedp.WaitVisible(form+`//input[@name="events"][@value="task.updated"]`),
		chromedp.Click(form+`//input[@name="events"][@value="task.updated"]`),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//code[@data-webhook-secret]`),
		chromedp.Text(`//code[@data-webhook-secret]`, &secret),
		chromedp.WaitVisible(fmt.Sprintf(`//tr[@data-webhook=%q]/td[@data-events][normalize-space(.)="task.updated"]`, url)),
	)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("the secret shown: %q", secret)
	}
	w := s.webhooks(s.admin)[url]
	if len(w.Events) != 1 || w.Events[0] != "task.updated" || !w.Enabled || w.TenantID == nil || *w.TenantID != s.mine {
		t.Fatalf("the webhook %+v", w)
	}
	rcv.mu.Lock()
	rcv.secret = secret
	rcv.mu.Unlock()
	s.machine("hooked")
	hook := fmt.Sprintf(`//tr[@data-webhook=%q]`, url)
	delivered := `//tr[@data-delivery][@data-status="delivered"][td/ol/li[@data-code="204"]]`
	var id string
	var ok bool
	run(t, ctx, "a task's event delivered in the log",
		chromedp.Click(hook+`//button[@data-show-deliveries]`),
		chromedp.WaitVisible(`//section[@data-deliveries]//button[@data-refresh]`),
	)
	// The deliverer attempts as the events come; Refresh reads the log again.
	testwait.Until(t, func() error {
		run(t, ctx, "refresh the log", chromedp.Click(`//section[@data-deliveries]//button[@data-refresh]`),
			chromedp.Evaluate(fmt.Sprintf(`!!document.evaluate(%q, document, null, 9, null).singleNodeValue`, delivered), &ok))
		if !ok {
			return fmt.Errorf("no delivered delivery in the log yet")
		}
		return nil
	})
	run(t, ctx, "its id", chromedp.AttributeValue(delivered, "data-delivery", &id, nil))
	var event string
	var ds struct {
		Items []struct {
			ID      string
			EventID json.Number `json:"event_id"`
		}
	}
	s.call("GET", "/api/resources/webhooks/"+w.ID+"/deliveries?limit=200", s.admin, nil, 200, &ds)
	for _, d := range ds.Items {
		if d.ID == id {
			event = d.EventID.String()
		}
	}
	if event == "" || rcv.times(event) != 1 {
		t.Fatalf("the delivery %s's event %q reached the receiver %d times", id, event, rcv.times(event))
	}
	row := fmt.Sprintf(`//tr[@data-delivery=%q]`, id)
	run(t, ctx, "send it again: two attempts in the log",
		chromedp.Click(row+`//button[@data-redeliver]`),
		chromedp.WaitVisible(row+`[@data-status="delivered"]/td[@data-attempts="2"]`),
		shot("webhooks"),
	)
	if n := rcv.times(event); n != 2 {
		t.Fatalf("the event reached the receiver %d times after the redelivery; want 2", n)
	}
	if rcv.forged != 0 {
		t.Fatalf("%d POSTs with a signature the secret does not verify", rcv.forged)
	}
	edit := fmt.Sprintf(`//form[@aria-label=%q]`, "Edit webhook "+url)
	run(t, ctx, "its events changed and turned off in place",
		chromedp.Click(hook+`//button[@data-edit]`),
		chromedp.WaitVisible(edit+`//input[@name="url"]`),
		chromedp.Click(edit+`//input[@name="events"][@value="machine.updated"]`),
		chromedp.Click(edit+`//input[@name="enabled"]`),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(edit),
		chromedp.WaitVisible(hook+`/td[@data-webhook-state][normalize-space(.)="disabled"]`),
	)
	if w := s.webhooks(s.admin)[url]; len(w.Events) != 2 || w.Enabled {
		t.Fatalf("the webhook after the change %+v", w)
	}
	run(t, ctx, "deleted",
		confirm(hook, "delete-webhook"),
		chromedp.WaitNotPresent(hook),
		chromedp.WaitVisible(`//p[normalize-space(.)="No webhooks yet."]`),
	)
	if _, ok := s.webhooks(s.admin)[url]; ok {
		t.Fatal("the webhook is still there")
	}

	op := tab(t)
	signIn(t, op, s.srv.Base, "/admin/webhooks", apptest.AdminEmail, apptest.AdminPassword)
	opURL := rcv.URL + "/operator"
	run(t, op, "an operator's webhook for one tenant",
		chromedp.Click(`//button[normalize-space(.)="New webhook"]`),
		chromedp.WaitVisible(form+`//input[@name="url"]`),
		chromedp.SendKeys(form+`//input[@name="url"]`, opURL),
		chromedp.WaitReady(form+`//select[@name="tenant_id"]/option[normalize-space(.)="mine"]`),
		chromedp.SetValue(form+`//select[@name="tenant_id"]`, s.mine),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(fmt.Sprintf(`//tr[@data-webhook=%q]/td[normalize-space(.)="mine"]`, opURL)),
	)
	if w := s.webhooks(s.admin)[opURL]; w.TenantID == nil || *w.TenantID != s.mine || w.Events[0] != "*" {
		t.Fatalf("the operator's webhook %+v", w)
	}
}
