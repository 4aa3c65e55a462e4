package client

import (
	"context"
	"iter"
	"time"
)

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
