package apitype

import (
	"time"
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
