package client

import (
	"context"
	"iter"
	"net/http"
)

// API keys: credentials for programs, sent as bearer tokens (WithToken). A key acts as
// the user who made it does, within its scopes and, when made for one, its tenant.

// Scopes of an API key.
const (
	ScopeRead          = "read"
	ScopeMachinesWrite = "machines:write"
	ScopeTenantsWrite  = "tenants:write"
	ScopeBilling       = "billing"
	ScopeAdmin         = "admin"
)

// CreateAPIKey makes a key for the client's user; keep its Secret, which is shown
// only now.
func (c *Client) CreateAPIKey(ctx context.Context, spec APIKeySpec) (*NewAPIKey, error) {
	return callFor[NewAPIKey](ctx, c, http.MethodPost, "/api/resources/api-keys", nil, spec)
}

// GetAPIKey reads one API key.
func (c *Client) GetAPIKey(ctx context.Context, id string) (*APIKey, error) {
	return getRecord[APIKey](ctx, c, "/api/resources/api-keys/"+esc(id))
}

// APIKeysPage reads one page of API keys: a user's own, or an operator's view of all.
func (c *Client) APIKeysPage(ctx context.Context, opt ListOptions) (Page[APIKey], error) {
	return getPage[APIKey](ctx, c, "/api/resources/api-keys", opt.values())
}

// APIKeys yields every API key the client sees, oldest first.
func (c *Client) APIKeys(ctx context.Context, opt ListOptions) iter.Seq2[APIKey, error] {
	return all(ctx, opt, c.APIKeysPage)
}

// RevokeAPIKey revokes a key: the next request made with it is refused.
func (c *Client) RevokeAPIKey(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/api-keys/"+esc(id))
}
