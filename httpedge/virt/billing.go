package virt

import (
	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/httpedge/api"
)

// BillingSuspend is the body of POST .../vms/{id}/suspend-billing.
type BillingSuspend struct {
	// Reason is what the machine's tenant users are told when a change is refused.
	Reason string `json:"reason" openapi:"required,limit=suspension.reason"`
	// Action is what happens to the machine if it runs: stop (the default), suspend
	// (on the hypervisor) or none.
	Action string `json:"action,omitempty" openapi:"enum=stop|suspend|none"`
}

// BillingUnsuspend is the body of POST .../vms/{id}/unsuspend-billing.
type BillingUnsuspend struct {
	// Start starts (or resumes) the machine if the suspension stopped (or suspended) it.
	Start bool `json:"start,omitempty"`
}

// billingRoutes are one machine's suspension for billing: an operator's, or a billing
// system's with an API key of the billing scope.
func (h *handlers) billingRoutes(prefix string) []api.Route {
	tag := "hypervisor"
	return []api.Route{
		{Method: "POST", Path: prefix + "/vms/{id}/suspend-billing", Access: api.AdminOnly, Handler: h.suspendBilling, Tag: tag,
			Summary: "Suspend one machine for billing", Body: BillingSuspend{}, Reply: machines.Machine{},
			Exempt: "suspending a suspended machine only sets the reason again",
			Description: "Records billing_suspension on the machine: its tenant's users may still read it, but every change, power action and console of theirs " +
				"answers 403 machine_suspended with the reason (a machine suspended on the hypervisor stays so: the tenant cannot resume it). " +
				"A running machine is stopped, suspended on the hypervisor, or left running (action, default stop), as a task started once the suspension is recorded. " +
				"Suspending a suspended machine sets the reason and changes nothing else. The power state suspended (status) is the hypervisor's, apart from this. " +
				"Operators, and API keys with the billing scope."},
		{Method: "POST", Path: prefix + "/vms/{id}/unsuspend-billing", Access: api.AdminOnly, Handler: h.unsuspendBilling, Tag: tag,
			Summary: "End one machine's billing suspension", Body: BillingUnsuspend{}, Reply: machines.Machine{},
			Exempt: "unsuspending a machine that is not suspended changes nothing",
			Description: "Clears billing_suspension; with start, a machine the suspension stopped (or suspended) is started (or resumed), as a task. " +
				"A machine that is not suspended is answered as it is. It also takes back a pending termination. Operators, and API keys with the billing scope."},
		{Method: "POST", Path: prefix + "/vms/{id}/terminate", Access: api.AdminOnly, Handler: h.terminate, Tag: tag,
			Summary: "Terminate a machine: delete it with every snapshot and backup", Reply: machines.Machine{}, Status: fasthttp.StatusAccepted,
			Exempt: "terminating a machine marked already keeps its due time",
			Description: "Marks the machine for deletion with all its snapshots and backups at terminate_at: now plus the server's grace period (VMPLANE_TERMINATE_GRACE, default 0). " +
				"Within the grace the machine is stopped, its tenant's users can change nothing of it (409), and DELETE on this path or unsuspend-billing takes the termination back. " +
				"At the due time the deletion runs as a task (a destroy that purges first; task_id while it runs), also after a restart; machine.terminated and machine.deleted follow. " +
				"The answer is the machine as marked. Operators, and API keys with the billing scope."},
		{Method: "DELETE", Path: prefix + "/vms/{id}/terminate", Access: api.AdminOnly, Handler: h.cancelTerminate, Tag: tag,
			Summary: "Take a machine's termination back", Reply: machines.Machine{}, Status: fasthttp.StatusOK,
			Description: "Clears terminate_at while the grace lasts (the machine stays stopped); a machine not marked is answered as it is; once the deletion has begun it is 409 invalid_state. " +
				"Operators, and API keys with the billing scope."},
	}
}

func (h *handlers) terminate(c *api.Call) (any, error) {
	m, err := h.svc.Machines.Terminate(c.Context(), c.Param("id"))
	if err != nil {
		return nil, err
	}
	return api.Reply{Status: fasthttp.StatusAccepted, Body: m}, nil
}

func (h *handlers) cancelTerminate(c *api.Call) (any, error) {
	return h.svc.Machines.CancelTerminate(c.Context(), c.Param("id"))
}

func (h *handlers) suspendBilling(c *api.Call) (any, error) {
	var b BillingSuspend
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	return h.svc.Machines.SuspendBilling(c.Context(), c.Param("id"), b.Reason, b.Action)
}

func (h *handlers) unsuspendBilling(c *api.Call) (any, error) {
	var b BillingUnsuspend
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	return h.svc.Machines.UnsuspendBilling(c.Context(), c.Param("id"), b.Start)
}
