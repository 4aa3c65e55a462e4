package client

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// States of an alert. Only the server resolves an alert (when its condition clears);
// a client may acknowledge an open one.
const (
	AlertFiring       = "firing"
	AlertAcknowledged = "acknowledged"
	AlertResolved     = "resolved"
)

// AlertFilter selects alert events; empty fields do not filter.
type AlertFilter struct {
	Status   string // AlertFiring, AlertAcknowledged, AlertResolved
	Severity string // info, warning, critical
	Kind     string
	// Since keeps the events changed (raised, acknowledged or resolved) at or after
	// it: a poller that passes the time of its last poll sees every change since.
	Since time.Time
	ListOptions
}

// AlertsPage reads one page of alert events, oldest first: a tenant's user sees its
// tenant's, an operator every tenant's.
func (c *Client) AlertsPage(ctx context.Context, f AlertFilter) (Page[Alert], error) {
	q := f.ListOptions.values()
	for k, v := range map[string]string{"status": f.Status, "severity": f.Severity, "kind": f.Kind} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if !f.Since.IsZero() {
		q.Set("since", f.Since.UTC().Format(time.RFC3339Nano))
	}
	return getPage[Alert](ctx, c, "/api/resources/alert-events", q)
}

// Alerts yields every alert event f selects.
func (c *Client) Alerts(ctx context.Context, f AlertFilter) iter.Seq2[Alert, error] {
	return all(ctx, f.ListOptions, func(ctx context.Context, o ListOptions) (Page[Alert], error) {
		g := f
		g.ListOptions = o
		return c.AlertsPage(ctx, g)
	})
}

// GetAlert reads one alert event.
func (c *Client) GetAlert(ctx context.Context, id string) (*Alert, error) {
	return getRecord[Alert](ctx, c, "/api/resources/alert-events/"+esc(id))
}

// AcknowledgeAlert acknowledges an open alert event: it stays open until its
// condition clears, but no longer counts as firing. A resolved one is ErrInvalidState.
func (c *Client) AcknowledgeAlert(ctx context.Context, id string) (*Alert, error) {
	return callFor[Alert](ctx, c, http.MethodPatch, "/api/resources/alert-events/"+esc(id), nil,
		alertChange{Status: AlertAcknowledged})
}

// alertChange is the body of an alert event's PATCH.
type alertChange struct {
	Status string `json:"status"`
}
