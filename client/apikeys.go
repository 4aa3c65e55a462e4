package client

import (
	"context"
	"iter"
	"net/http"
	"time"
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

// APIKey is an API key as the server shows it: never its secret.
type APIKey struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	UserID       string     `json:"user_id"`
	Scopes       []string   `json:"scopes"`
	TenantID     *string    `json:"tenant_id"`
	AllowedCIDRs []string   `json:"allowed_cidrs"`
	ExpiresAt    *time.Time `json:"expires_at"`
	CreatedAt    time.Time  `json:"created_at"`
	// LastUsedAt is kept to the minute.
	LastUsedAt *time.Time `json:"last_used_at"`
}

// NewAPIKey is a key just made, with its secret: the only time the server shows it.
type NewAPIKey struct {
	APIKey
	Secret string `json:"secret"`
}

// APIKeySpec is the body of CreateAPIKey.
type APIKeySpec struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
	// TenantID keeps the key within one tenant (an operator's key; a tenant user's
	// keys always are, in its own).
	TenantID     *string    `json:"tenant_id,omitempty"`
	ExpiresAt    *time.Time `json:"expires_at,omitempty"`
	AllowedCIDRs []string   `json:"allowed_cidrs,omitempty"`
}

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
