package client

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/vmplane/vmplane/client/webhook"
)

// Webhooks: URLs the server POSTs its events to, signed with the webhook's secret.
// Tenant users keep their own tenant's webhooks, which get that tenant's events; an
// operator's webhook names a tenant or gets every event. Keys need ScopeBilling to
// write them.

// Event types a webhook may name, beside WebhookAllEvents.
const (
	EventMachineUpdated    = "machine.updated"
	EventMachineDeleted    = "machine.deleted"
	EventMachineTerminated = "machine.terminated"
	EventTaskUpdated       = "task.updated"
	EventAlertUpdated      = "alert.updated"
	EventTenantSuspended   = "tenant.suspended"
	EventTenantUnsuspended = "tenant.unsuspended"
	// WebhookAllEvents, in a webhook's events, is every type.
	WebhookAllEvents = "*"
)

// Headers of a webhook delivery (package webhook's, which a receiver may import alone).
const (
	// WebhookSignatureHeader is "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">"
	// keyed with the webhook's secret: check it with VerifyWebhook.
	WebhookSignatureHeader = webhook.SignatureHeader
	// WebhookEventIDHeader is the event's id, the same on every attempt and
	// redelivery: receivers dedupe by it.
	WebhookEventIDHeader = webhook.EventIDHeader
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// CreateWebhook creates a webhook; its secret is in the answer and never again.
func (c *Client) CreateWebhook(ctx context.Context, spec WebhookSpec) (*NewWebhook, error) {
	return callFor[NewWebhook](ctx, c, http.MethodPost, "/api/resources/webhooks", nil, spec)
}

// GetWebhook reads one webhook.
func (c *Client) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	return getRecord[Webhook](ctx, c, "/api/resources/webhooks/"+esc(id))
}

// UpdateWebhook changes the fields of a webhook that ch sets.
func (c *Client) UpdateWebhook(ctx context.Context, id string, ch WebhookChange) (*Webhook, error) {
	return callFor[Webhook](ctx, c, http.MethodPatch, "/api/resources/webhooks/"+esc(id), nil, ch)
}

// DeleteWebhook deletes a webhook and its delivery log.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/webhooks/"+esc(id))
}

// WebhooksPage reads one page of webhooks.
func (c *Client) WebhooksPage(ctx context.Context, opt ListOptions) (Page[Webhook], error) {
	return getPage[Webhook](ctx, c, "/api/resources/webhooks", opt.values())
}

// Webhooks yields every webhook the caller may see, oldest first.
func (c *Client) Webhooks(ctx context.Context, opt ListOptions) iter.Seq2[Webhook, error] {
	return all(ctx, opt, c.WebhooksPage)
}

// WebhookDeliveriesPage reads one page of a webhook's deliveries.
func (c *Client) WebhookDeliveriesPage(ctx context.Context, id string, opt ListOptions) (Page[WebhookDelivery], error) {
	return getPage[WebhookDelivery](ctx, c, "/api/resources/webhooks/"+esc(id)+"/deliveries", opt.values())
}

// WebhookDeliveries yields a webhook's deliveries, oldest event first.
func (c *Client) WebhookDeliveries(ctx context.Context, id string, opt ListOptions) iter.Seq2[WebhookDelivery, error] {
	return all(ctx, opt, func(ctx context.Context, opt ListOptions) (Page[WebhookDelivery], error) {
		return c.WebhookDeliveriesPage(ctx, id, opt)
	})
}

// Redeliver queues a delivery again, due now: the receiver gets the same event once
// more. A delivery being attempted, or one of a disabled webhook, is ErrConflict.
func (c *Client) Redeliver(ctx context.Context, webhookID, deliveryID string) (*WebhookDelivery, error) {
	return callFor[WebhookDelivery](ctx, c, http.MethodPost,
		"/api/resources/webhooks/"+esc(webhookID)+"/deliveries/"+esc(deliveryID)+"/redeliver", nil, nil)
}

// ErrWebhookSignature is VerifyWebhook's error: the signature is missing, wrong, or
// too old. It is webhook.ErrSignature.
var ErrWebhookSignature = webhook.ErrSignature

// VerifyWebhook checks a delivery as its receiver gets it: header is the
// Vmplane-Signature header, body the request's body as received. The signature
// must be the HMAC-SHA256 of "<t>.<body>" with secret, and t within tolerance of now
// (a replayed old request fails). It is webhook.Verify, which a receiver that needs
// nothing else of the client may import alone.
func VerifyWebhook(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	return webhook.Verify(secret, header, body, tolerance, now)
}
