package apitype

import (
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
