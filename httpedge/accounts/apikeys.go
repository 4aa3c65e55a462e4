package accounts

import (
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/httpedge/api"
)

// APIKeyCreate is the body of POST /api/resources/api-keys.
type APIKeyCreate struct {
	Name   string   `json:"name" openapi:"required,limit=apikey.name"`
	Scopes []string `json:"scopes" openapi:"required,limit=apikey.scopes,items.enum=read|machines:write|tenants:write|billing|admin"`
	// TenantID keeps the key within one tenant; a tenant user's keys always are, in
	// its own.
	TenantID *string `json:"tenant_id,omitempty" openapi:"minLength=1,limit=id"`
	// ExpiresAt ends the key; without it the key works until it is revoked.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// AllowedCIDRs, when given, are the only client addresses (or networks) the key
	// works from.
	AllowedCIDRs []string `json:"allowed_cidrs,omitempty" openapi:"limit=apikey.cidrs,items.limit=apikey.cidr"`
}

// keyRoutes are the routes of API keys.
func (h *handlers) keyRoutes() []api.Route {
	tag := "resources"
	base := "/api/resources/api-keys"
	scope := " A tenant user sees and revokes only its own keys; an operator every key."
	return []api.Route{
		{Method: "GET", Path: base, Access: api.Authenticated, Handler: h.listKeys, Tag: tag, Query: api.PageQuery,
			Summary: "List API keys (never their secrets)", Reply: api.Page[auth.APIKey]{},
			Description: "A page of API keys in creation order." + scope},
		{Method: "POST", Path: base, Access: api.Authenticated, Handler: h.createKey, Tag: tag, Status: fasthttp.StatusCreated,
			Summary: "Make an API key for the caller; its secret is in this answer only", Body: APIKeyCreate{}, Reply: auth.NewAPIKey{},
			Description: "The key acts as its user does at each request (role, tenant; a disabled or deleted user's key stops), within its scopes: read (every GET), machines:write (machines, firewall rules, schedules, backups, health checks), tenants:write (tenants and users), billing (a billing system's calls: suspending and unsuspending tenants and machines, terminating machines), admin (all its user may, API keys included). " +
				"Send the secret as a bearer token (Authorization: Bearer vmp_...). A tenant user's key is for its own tenant; an operator's key may be kept within one tenant (tenant_id), or act for all. API keys do not call the account routes (/api/auth/..., but GET /api/auth/me), consoles or the event stream. " +
				"A request a key's scopes do not cover is 403; a revoked, expired or unknown key, one used from an address outside allowed_cidrs, or one whose user is disabled or deleted, is 401.",
			Exempt: "the answer holds the key's secret, which an idempotency record must not keep; a retry makes another key, and the one not kept can be revoked"},
		{Method: "GET", Path: base + "/{id}", Access: api.Authenticated, Handler: h.getKey, Tag: tag,
			Summary: "One API key (never its secret)", Reply: auth.APIKey{},
			Description: "One API key by id." + scope + " Another user's key answers 404, as one that does not exist."},
		{Method: "DELETE", Path: base + "/{id}", Access: api.Authenticated, Handler: h.revokeKey, Tag: tag, Status: fasthttp.StatusNoContent,
			Summary:     "Revoke an API key: the next request made with it is refused",
			Description: "Revokes the key at once, on every member of a cluster." + scope + " Another user's key answers 404."},
	}
}

// keyScope is the user whose keys the caller sees: its own, or nil for an operator.
func keyScope(c *api.Call) *string {
	if c.IsAdmin() && c.Principal.TenantID == nil {
		return nil
	}
	id := c.Principal.UserID()
	return &id
}

func (h *handlers) listKeys(c *api.Call) (any, error) {
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	items, next, err := h.svc.APIKeys.List(c.Context(), keyScope(c), cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}

func (h *handlers) createKey(c *api.Call) (any, error) {
	var req APIKeyCreate
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	owner, err := h.svc.Users.Get(c.Context(), c.Principal.UserID())
	if err != nil {
		return nil, err
	}
	if c.Principal.KeyID != "" && c.Principal.TenantID != nil && owner.Role == auth.RoleAdmin {
		// A key kept within a tenant makes keys within that tenant only.
		owner.Role, owner.TenantID = auth.RoleUser, c.Principal.TenantID
		if req.TenantID == nil {
			req.TenantID = c.Principal.TenantID
		}
	}
	k, err := h.svc.APIKeys.Create(c.Context(), owner, auth.APIKeySpec{Name: req.Name, Scopes: req.Scopes, TenantID: req.TenantID,
		ExpiresAt: req.ExpiresAt, AllowedCIDRs: req.AllowedCIDRs})
	if err != nil {
		return nil, err
	}
	return api.Created(k), nil
}

func (h *handlers) getKey(c *api.Call) (any, error) {
	return h.svc.APIKeys.Get(c.Context(), c.Param("id"), keyScope(c))
}

func (h *handlers) revokeKey(c *api.Call) (any, error) {
	if err := h.svc.APIKeys.Revoke(c.Context(), c.Param("id"), keyScope(c)); err != nil {
		return nil, err
	}
	return api.NoContent, nil
}
