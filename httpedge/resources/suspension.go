package resources

import (
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/httpedge/api"
)

// TenantSuspend is the body of POST /api/resources/tenants/{id}/suspend.
type TenantSuspend struct {
	// Reason is what the tenant's users are told when a write is refused.
	Reason string `json:"reason" openapi:"required,limit=suspension.reason"`
	// Action is what happens to the machines that run: stop, suspend (on the
	// hypervisor) or none; omitted, the server's default (VMPLANE_SUSPEND_ACTION).
	Action string `json:"action,omitempty" openapi:"enum=stop|suspend|none"`
}

// TenantUnsuspend is the body of POST /api/resources/tenants/{id}/unsuspend.
type TenantUnsuspend struct {
	// Start starts (or resumes) the machines the suspension stopped (or suspended).
	Start bool `json:"start,omitempty"`
}

// suspensionRoutes are a tenant's suspension for non-payment: an operator's, or a
// billing system's with an API key of the billing scope.
func (h *handlers) suspensionRoutes() []api.Route {
	base := "/api/resources/tenants/{id}"
	return []api.Route{
		{Method: "POST", Path: base + "/suspend", Access: api.AdminOnly, Tag: "resources", Handler: h.suspendTenant,
			Summary: "Suspend a tenant", Body: TenantSuspend{}, Reply: tenants.Tenant{},
			Exempt: "suspending a suspended tenant only sets the reason again",
			Description: "Suspends a tenant (for non-payment, say): its users may still sign in, read and end their sessions, but every other write, " +
				"power action and console of theirs answers 403 tenant_suspended with the reason. Its running machines are stopped, suspended on the hypervisor, " +
				"or left running (action; omitted: the server's VMPLANE_SUSPEND_ACTION), as machine tasks started once the suspension is recorded; " +
				"suspension.machines lists them. Suspending a suspended tenant sets the reason and changes nothing else. Operators, and API keys with the billing scope."},
		{Method: "POST", Path: base + "/unsuspend", Access: api.AdminOnly, Tag: "resources", Handler: h.unsuspendTenant,
			Summary: "Unsuspend a tenant", Body: TenantUnsuspend{}, Reply: tenants.Tenant{},
			Exempt: "unsuspending a tenant that is not suspended changes nothing",
			Description: "Ends a tenant's suspension; with start, the machines it stopped or suspended (suspension.machines) are started or resumed, " +
				"as machine tasks, and no others. A tenant that is not suspended is answered as it is. Operators, and API keys with the billing scope."},
	}
}

func (h *handlers) suspendTenant(c *api.Call) (any, error) {
	var b TenantSuspend
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	return h.svc.Tenants.Suspend(c.Context(), c.Param("id"), b.Reason, b.Action)
}

func (h *handlers) unsuspendTenant(c *api.Call) (any, error) {
	var b TenantUnsuspend
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	return h.svc.Tenants.Unsuspend(c.Context(), c.Param("id"), b.Start)
}
