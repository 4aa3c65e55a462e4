package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/client"
	"github.com/vmplane/vmplane/internal/testwait"
)

// testWebhooks: a tenant's webhook gets its suspension, signed (VerifyWebhook), is
// listed with its deliveries, redelivers, is 404 to the other tenant, changes and is
// deleted; an operator's webhook for one tenant belongs to that tenant.
func testWebhooks(t *testing.T, ctx context.Context, w *world) {
	var mu sync.Mutex
	var got []client.Event
	rc := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		secret := webhookSecret
		if err := client.VerifyWebhook(secret, r.Header.Get(client.WebhookSignatureHeader), body, 5*time.Minute, time.Now()); err != nil {
			t.Errorf("delivery %s: %v", body, err)
		}
		var ev client.Event
		_ = json.Unmarshal(body, &ev)
		got = append(got, ev)
	}))
	defer rc.Close()
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }

	h, err := w.a.CreateWebhook(ctx, client.WebhookSpec{URL: rc.URL, Events: []string{client.EventTenantSuspended}, Secret: &webhookSecret})
	if err != nil || h.Secret != webhookSecret || h.TenantID == nil || *h.TenantID != w.tenA.ID {
		t.Fatalf("create: %+v %v", h, err)
	}
	if _, err := w.admin.SuspendTenant(ctx, w.tenA.ID, client.SuspendSpec{Reason: "webhook test", Action: "none"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.admin.UnsuspendTenant(ctx, w.tenA.ID, false); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the suspension delivered", func() bool { return count() == 1 })
	ds := collect(t, w.a.WebhookDeliveries(ctx, h.ID, client.ListOptions{Limit: 1}))
	if len(ds) != 1 || ds[0].EventType != client.EventTenantSuspended {
		t.Fatalf("deliveries: %+v", ds)
	}
	testwait.Eventually(t, "delivered", func() bool {
		d := collect(t, w.a.WebhookDeliveries(ctx, h.ID, client.ListOptions{}))
		return d[0].Status == client.DeliveryDelivered && len(d[0].Attempts) == 1 && *d[0].Attempts[0].StatusCode == 200
	})
	if _, err := w.a.Redeliver(ctx, h.ID, ds[0].ID); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the redelivery", func() bool { return count() == 2 })
	mu.Lock()
	if got[0].ID != got[1].ID || got[0].ID != ds[0].EventID {
		t.Errorf("events %d and %d; want the same, %d", got[0].ID, got[1].ID, ds[0].EventID)
	}
	mu.Unlock()
	if list := collect(t, w.a.Webhooks(ctx, client.ListOptions{})); len(list) != 1 || list[0].ID != h.ID {
		t.Fatalf("A's webhooks: %+v", list)
	}
	_, err = w.b.GetWebhook(ctx, h.ID)
	isNotFound(t, "B reads A's webhook", err)
	_, err = w.b.Redeliver(ctx, h.ID, ds[0].ID)
	isNotFound(t, "B redelivers A's delivery", err)
	up, err := w.a.UpdateWebhook(ctx, h.ID, client.WebhookChange{Enabled: client.Set(false)})
	if err != nil || up.Enabled {
		t.Fatalf("disable: %+v %v", up, err)
	}
	if g, err := w.a.GetWebhook(ctx, h.ID); err != nil || g.Enabled {
		t.Fatalf("get: %+v %v", g, err)
	}
	if err := w.a.DeleteWebhook(ctx, h.ID); err != nil {
		t.Fatal(err)
	}
	op, err := w.admin.CreateWebhook(ctx, client.WebhookSpec{URL: rc.URL, Events: []string{client.WebhookAllEvents}, TenantID: w.tenB.ID})
	if err != nil || op.TenantID == nil || *op.TenantID != w.tenB.ID {
		t.Fatalf("the operator's webhook for B: %+v %v", op, err)
	}
	if _, err := w.b.GetWebhook(ctx, op.ID); err != nil {
		t.Fatalf("B reads the webhook made for it: %v", err)
	}
	if err := w.admin.DeleteWebhook(ctx, op.ID); err != nil {
		t.Fatal(err)
	}
}

var webhookSecret = "a receiver's secret of some length"
