package cli_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vmplane/vmplane/client"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestWebhookVerbs: a webhook made, listed, shown, fed an event (a tenant's
// suspension), its delivery listed and sent again, changed and deleted from the
// command line; the secret is printed at creation only.
func TestWebhookVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var got atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { got.Add(1) }))
	defer rc.Close()
	var h client.NewWebhook
	w.okJSON(&h, "webhook", "create", rc.URL, "--event", "tenant.suspended")
	if !strings.HasPrefix(h.Secret, "whsec_") || !h.Enabled {
		t.Fatalf("webhook create: got %+v", h)
	}
	if out := w.ok("webhook", "create", rc.URL, "--event", "*", "--secret", "a secret of sixteen or more"); !strings.Contains(out, "shown only now") {
		t.Fatalf("webhook create table: got\n%s", out)
	}
	w.fails(2, "at least one --event", "webhook", "create", rc.URL)
	w.fails(1, "events[0]: must be one of machine.updated", "webhook", "create", rc.URL, "--event", "machine.exploded")
	if out := w.ok("webhook", "list"); !strings.Contains(out, h.ID) || strings.Contains(out, h.Secret) {
		t.Fatalf("webhook list: got\n%s", out)
	}
	if out := w.ok("webhook", "show", h.ID); !strings.Contains(out, "tenant.suspended") || strings.Contains(out, h.Secret) {
		t.Fatalf("webhook show: got\n%s", out)
	}
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Hooked")
	w.ok("tenant", "suspend", ten.ID, "--reason", "unpaid", "--action", "none")
	testwait.Eventually(t, "the delivery", func() bool { return got.Load() >= 2 })
	var ds []client.WebhookDelivery
	w.okJSON(&ds, "webhook", "deliveries", h.ID)
	if len(ds) != 1 || ds[0].EventType != "tenant.suspended" {
		t.Fatalf("webhook deliveries: got %+v", ds)
	}
	testwait.Eventually(t, "delivered", func() bool {
		return strings.Contains(w.ok("webhook", "deliveries", h.ID), "delivered")
	})
	w.ok("webhook", "redeliver", h.ID, ds[0].ID)
	testwait.Eventually(t, "the redelivery", func() bool { return got.Load() >= 3 })
	var up client.Webhook
	w.okJSON(&up, "webhook", "update", h.ID, "--disable")
	if up.Enabled {
		t.Fatalf("webhook update --disable: got %+v", up)
	}
	w.fails(2, "nothing to change", "webhook", "update", h.ID)
	w.ok("webhook", "delete", h.ID)
	w.fails(1, "not_found", "webhook", "show", h.ID)
}
