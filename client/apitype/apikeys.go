package apitype

import (
	"time"
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
