package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"time"
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

// Headers of a webhook delivery.
const (
	// WebhookSignatureHeader is "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">"
	// keyed with the webhook's secret: check it with VerifyWebhook.
	WebhookSignatureHeader = "Vmplane-Signature"
	// WebhookEventIDHeader is the event's id, the same on every attempt and
	// redelivery: receivers dedupe by it.
	WebhookEventIDHeader = "Vmplane-Event-Id"
)

// Webhook is a webhook as the API shows it: never its secret.
type Webhook struct {
	ID       string   `json:"id"`
	URL      string   `json:"url"`
	Events   []string `json:"events"`
	TenantID *string  `json:"tenant_id"`
	Enabled  bool     `json:"enabled"`
	// DisabledReason says why the server disabled the webhook (repeated failures).
	DisabledReason *string `json:"disabled_reason"`
	// FailedInRow counts the events in a row whose every attempt failed.
	FailedInRow int64     `json:"failed_in_row"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// NewWebhook is a webhook as CreateWebhook answers it: with its secret, this once.
type NewWebhook struct {
	Webhook
	Secret string `json:"secret"`
}

// WebhookSpec is the body of CreateWebhook. A nil Secret has the server generate
// one; an operator's empty TenantID makes a webhook of every event (a tenant user's
// is its own tenant's whatever it names).
type WebhookSpec struct {
	URL      string   `json:"url"`
	Events   []string `json:"events"`
	Secret   *string  `json:"secret,omitempty"`
	TenantID string   `json:"tenant_id,omitempty"`
	Enabled  *bool    `json:"enabled,omitempty"`
}

// WebhookChange is the body of UpdateWebhook: zero fields keep their value.
// Enabling a webhook the server disabled forgets its failures.
type WebhookChange struct {
	URL     Optional[string]   `json:"url,omitzero"`
	Events  Optional[[]string] `json:"events,omitzero"`
	Secret  Optional[string]   `json:"secret,omitzero"`
	Enabled Optional[bool]     `json:"enabled,omitzero"`
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is one event's delivery to a webhook, with its attempts.
type WebhookDelivery struct {
	ID            string           `json:"id"`
	WebhookID     string           `json:"webhook_id"`
	EventID       uint64           `json:"event_id"`
	EventType     string           `json:"event_type"`
	Status        string           `json:"status"`
	Attempts      []WebhookAttempt `json:"attempts"`
	NextAttemptAt *time.Time       `json:"next_attempt_at"`
	RetryUntil    time.Time        `json:"retry_until"`
	Error         *string          `json:"error"`
	CreatedAt     time.Time        `json:"created_at"`
	UpdatedAt     time.Time        `json:"updated_at"`
}

// WebhookAttempt is one POST of a delivery: the receiver's status code, or the error
// when there was no answer.
type WebhookAttempt struct {
	At         time.Time `json:"at"`
	StatusCode *int64    `json:"status_code"`
	Error      *string   `json:"error"`
	DurationMS int64     `json:"duration_ms"`
}

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
// too old.
var ErrWebhookSignature = errors.New("webhook signature does not verify")

// VerifyWebhook checks a delivery as its receiver gets it: header is the
// Vmplane-Signature header, body the request's body as received. The signature
// must be the HMAC-SHA256 of "<t>.<body>" with secret, and t within tolerance of now
// (a replayed old request fails).
func VerifyWebhook(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrWebhookSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrWebhookSignature
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}
