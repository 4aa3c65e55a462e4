package virt

import (
	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/httpedge/api"
)

// restoreRoutes are an operator's restore of a backup into a new machine. A tenant
// restores over its own machine in the client area; a new machine from a backup is
// the operator's to make, since it may go to another tenant than the backup's.
func (h *handlers) restoreRoutes(prefix, tag string) []api.Route {
	return []api.Route{
		{Method: "POST", Path: prefix + "/backups/{id}/restore", Access: api.AdminOnly, Handler: h.restoreNew, Tag: tag,
			Summary: "Restore a backup into a new machine", Body: tenants.RestoreNewRequest{}, Reply: tenants.Provisioned{},
			Status: fasthttp.StatusAccepted, Stamped: true,
			Description: "Makes a new machine of the backup (the backup's machine, if it still exists, stays as it is): in the tenant tenant_id names, else the backup's, " +
				"within that tenant's quota as a create is (409 quota_exceeded beyond it; a suspended tenant is 403 tenant_suspended), " +
				"on node (else the hypervisor's choice: the backup's node when its storage is local to one), named name (else the backup's machine's name), " +
				"started once restored when start_after is true. The quota counts the sizes of the backup's machine's record, or none when that machine is gone; " +
				"the new machine's record takes the restored sizes from the hypervisor when the task ends. " +
				"The answer is 202 with the machine (provisioning) and its vm.restore_new task. An unknown backup is 404; an unknown tenant or node is 400."},
	}
}

func (h *handlers) restoreNew(c *api.Call) (any, error) {
	var req tenants.RestoreNewRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	p, err := h.svc.Tenants.RestoreNew(c.Context(), c.Param("id"), req)
	if err != nil {
		return nil, err
	}
	return api.Accepted(p, "/api/tasks/"+p.Task.ID), nil
}
