package httpedge

import (
	"context"
	"net/netip"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/limiter"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/token"
)

// authenticateKey checks a bearer token that is an API key and answers the claims of
// the request: the key's user as it is now, acting within the key's tenant and scopes.
// The request then draws from its user's key_owner bucket (limiter.LimitOptions.KeyOwner)
// beside its address's: all the user's keys share one rate, from wherever they call.
func (s *Server) authenticateKey(ctx context.Context, rc *fasthttp.RequestCtx, secret string) (*token.Claims, error) {
	addr, _ := netip.AddrFromSlice(s.clientIP(rc))
	p, err := s.svc.APIKeys.Authenticate(ctx, secret, addr.Unmap())
	if err != nil {
		return nil, err
	}
	d, err := s.svc.Limiter.Take(ctx, "user|"+p.User.ID, limiter.BucketKeyOwner)
	if err != nil {
		// As for the address's limits: a limiter that is down fails open, logged.
		s.log.Error("limiter unavailable", zap.String("request_id", requestID(rc)), zap.Error(err))
	} else if err := s.decided(rc, d); err != nil {
		return nil, err
	}
	return &token.Claims{Subject: p.User.ID, Email: p.User.Email, Role: p.Role, TenantID: p.TenantID,
		KeyID: p.Key.ID, Scopes: p.Key.Scopes}, nil
}

// keyMay says whether a request made with an API key of scopes may call rt. Reading
// (GET) needs read; a change needs the scope of what it changes: a billing system's
// calls (billing) billing, tenants and users tenants:write, API keys and the store's
// backup admin, anything else machines:write.
// admin may do all its user may. An API key signs no one in: the account routes
// (passwords, sessions, second factor) and consoles, which last as long as a login,
// are not for keys.
func keyMay(rt *api.Route, scopes []string) error {
	if slices.Contains(scopes, auth.ScopeAdmin) {
		if keyless(rt) {
			return errKeyless
		}
		return nil
	}
	need := keyScope(rt)
	if need == "" {
		return errKeyless
	}
	if need == auth.ScopeRead && billingReads(rt) && slices.Contains(scopes, auth.ScopeBilling) {
		return nil
	}
	if !slices.Contains(scopes, need) {
		return apierr.New(apierr.ErrForbidden, "this API key lacks the scope %s", need)
	}
	return nil
}

var errKeyless = apierr.New(apierr.ErrForbidden, "API keys do not call this route: it is for a signed-in user")

// billingReads are the reads a billing key makes beside read's: the plans it sells
// and their capacity.
func billingReads(rt *api.Route) bool {
	return strings.HasPrefix(rt.Path, "/api/resources/plans")
}

// keyless are the routes no API key calls.
func keyless(rt *api.Route) bool {
	if strings.HasPrefix(rt.Path, "/api/auth/") && !(rt.Method == "GET" && rt.Path == "/api/auth/me") {
		return true
	}
	return strings.HasSuffix(rt.Path, "/console") || strings.HasSuffix(rt.Path, "/console/ws") || rt.Path == "/api/events"
}

// billing says whether rt is one of a billing system's calls: a tenant's suspension
// and its end, a machine's (suspend-billing, unsuspend-billing) and its termination,
// and the changes of webhooks (how a billing system learns what happened).
func billing(rt *api.Route) bool {
	switch {
	case strings.HasPrefix(rt.Path, "/api/resources/webhooks"):
		return true
	case strings.HasPrefix(rt.Path, "/api/resources/tenants/{id}/"):
		return strings.HasSuffix(rt.Path, "/suspend") || strings.HasSuffix(rt.Path, "/unsuspend")
	case strings.Contains(rt.Path, "/vms/{id}/"): // /api/virt and its driver-named aliases
		return strings.HasSuffix(rt.Path, "/suspend-billing") || strings.HasSuffix(rt.Path, "/unsuspend-billing") || strings.HasSuffix(rt.Path, "/terminate")
	}
	return false
}

// keyScope is the scope a key needs for rt ("" for a route no key calls).
func keyScope(rt *api.Route) string {
	switch {
	case keyless(rt):
		return ""
	case rt.KeyScope != "":
		return rt.KeyScope
	case rt.Method == "GET" && !strings.HasPrefix(rt.Path, "/api/admin/"):
		return auth.ScopeRead
	case billing(rt):
		return auth.ScopeBilling
	case strings.HasPrefix(rt.Path, "/api/resources/tenants"), strings.HasPrefix(rt.Path, "/api/resources/users"):
		return auth.ScopeTenantsWrite
	case strings.HasPrefix(rt.Path, "/api/resources/api-keys"), strings.HasPrefix(rt.Path, "/api/admin/"):
		return auth.ScopeAdmin
	}
	return auth.ScopeMachinesWrite
}
