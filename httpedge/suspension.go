package httpedge

import (
	"context"
	"errors"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/token"
)

// held says whether a tenant user's call of rt is refused while its tenant is
// suspended: every route that writes (any method but GET and HEAD) and the console's
// ticket (a console is use of the machine, though its ticket is a GET). The
// exceptions keep a suspended tenant's users able to sign in and out: the account
// routes (/api/auth/...: login, refresh, logout, the end of a session, a password,
// the second factor) and the revocation of an API key, which only takes access away.
func held(rt *api.Route) bool {
	if strings.HasPrefix(rt.Path, "/api/auth/") {
		return false
	}
	if rt.Method == "GET" || rt.Method == "HEAD" {
		return strings.HasSuffix(rt.Path, "/console")
	}
	return !(rt.Method == "DELETE" && rt.Path == "/api/resources/api-keys/{id}")
}

// checkSuspended refuses, with tenant_suspended and the operator's reason, a tenant
// user's call of a route its tenant's suspension holds back (held), and with
// machine_suspended such a call on a machine suspended for billing (a route that names
// the machine in its path). Operators are never held, not even acting on a suspended
// tenant's records. Reads ask nothing: the suspension is asked of the tenant's (and the
// machine's) entity, which holds the record in memory wherever in a cluster it runs,
// only for the calls it may refuse.
func (s *Server) checkSuspended(ctx context.Context, rc *fasthttp.RequestCtx, rt *api.Route, claims *token.Claims) error {
	if claims.Role == auth.RoleAdmin || claims.TenantID == nil || !held(rt) {
		return nil
	}
	err := s.svc.Tenants.CheckActive(ctx, *claims.TenantID)
	if err != nil && !errors.Is(err, apierr.ErrNotFound) {
		return err // a tenant that is gone suspends nothing; the handler finds out
	}
	param := machineParam(rt)
	if param == "" {
		return nil
	}
	id, _ := rc.UserValue(param).(string)
	m, err := s.svc.Machines.Get(ctx, id, claims.TenantID)
	if err == nil && m.BillingSuspension != nil {
		return apierr.New(apierr.ErrMachineSuspended, "the machine is suspended: %s", m.BillingSuspension.Reason)
	}
	// Another tenant's machine, or none, is the handler's 404 (the same answer); a
	// machine that could not be read is the handler's to fail on too.
	return nil
}

// machineParam is the path parameter that names a machine on a route a tenant user
// calls ("" for none): the client area's {vmId}, the machines resource's {id}.
func machineParam(rt *api.Route) string {
	switch {
	case strings.Contains(rt.Path, "{vmId}"):
		return "vmId"
	case strings.HasPrefix(rt.Path, "/api/resources/machines/{id}"):
		return "id"
	}
	return ""
}
