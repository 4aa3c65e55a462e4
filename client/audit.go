package client

import (
	"context"
	"iter"
	"time"
)

// AuditEntry is one entry of the audit log: who did what through the API, recorded
// with the change itself.
type AuditEntry struct {
	ID   string    `json:"id"`
	Time time.Time `json:"time"`
	// Actor is a user id, or an API key id (ActorKind "user" or "api_key"; empty for
	// a caller not known, as in a failed login).
	Actor     string `json:"actor"`
	ActorKind string `json:"actor_kind"`
	// UserID is the user the actor is, or acts for (a key's user).
	UserID string `json:"user_id"`
	// Action is the route called: method and path template ("POST /api/client/...").
	Action string `json:"action"`
	// TargetKind and TargetID name what it acted on ("machines", an id).
	TargetKind string `json:"target_kind"`
	TargetID   string `json:"target_id"`
	// Result is "ok", or the problem code of a refusal (Reason says why).
	Result    string `json:"result"`
	Reason    string `json:"reason"`
	RequestID string `json:"request_id"`
	Client    string `json:"client"` // the caller's address
	TenantID  string `json:"tenant_id"`
}

// AuditFilter selects entries of the audit log; empty fields do not filter.
type AuditFilter struct {
	// Actor is a user or API key id: the entries it made, or made for it.
	Actor string
	// Target is a target's id, or kind/id ("machines/<id>").
	Target string
	// Action is an action as recorded ("POST /api/client/firewall/rules").
	Action string
	// Since and Until bound the entries' times, both included.
	Since, Until time.Time
	ListOptions
}

// AuditLogPage reads one page of the audit log, newest first: an operator's view of
// every entry, or a tenant user's of its tenant's.
func (c *Client) AuditLogPage(ctx context.Context, f AuditFilter) (Page[AuditEntry], error) {
	q := f.ListOptions.values()
	for k, v := range map[string]string{"actor": f.Actor, "target": f.Target, "action": f.Action} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if !f.Since.IsZero() {
		q.Set("since", f.Since.UTC().Format(time.RFC3339Nano))
	}
	if !f.Until.IsZero() {
		q.Set("until", f.Until.UTC().Format(time.RFC3339Nano))
	}
	return getPage[AuditEntry](ctx, c, "/api/audit", q)
}

// AuditLog yields every entry of the audit log f selects, newest first.
func (c *Client) AuditLog(ctx context.Context, f AuditFilter) iter.Seq2[AuditEntry, error] {
	return all(ctx, f.ListOptions, func(ctx context.Context, o ListOptions) (Page[AuditEntry], error) {
		g := f
		g.ListOptions = o
		return c.AuditLogPage(ctx, g)
	})
}
