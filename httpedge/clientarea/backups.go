package clientarea

import (
	"slices"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/hypervisor"
)

// A machine's backups (taken on demand, restored over it) and snapshots: each change
// runs as a task of the machine (202), one at a time; a suspended machine, or one busy
// with another task, answers 409 with the reason.

// RestoreBody is the body of POST .../backups/{id}/restore.
type RestoreBody struct {
	// StartAfter starts the machine once it is restored (it is stopped first).
	StartAfter bool `json:"start_after,omitempty"`
}

func (h *handlers) backupRoutes() []api.Route {
	tag := "client"
	vm := "/api/client/machines/{vmId}"
	return []api.Route{
		{Method: "GET", Path: vm + "/backups", Access: api.Authenticated, Handler: h.backups, Tag: tag,
			Summary: "The machine's backups, newest first", Reply: api.Page[backups.Backup]{}, Query: api.WithPage(tenantQuery)},
		{Method: "POST", Path: vm + "/backups", Access: api.Authenticated, Handler: h.backupNow, Tag: tag, Query: tenantQuery,
			Summary: "Take a backup now", Body: machines.BackupRequest{}, Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true,
			Description: "Takes a backup of the machine as a task (mode snapshot by default; suspend and stop pause or stop the machine meanwhile), with the note given. " +
				"The task's result names the backup, which GET .../backups lists. Past the tenant's backup quota, 409 quota_exceeded."},
		{Method: "POST", Path: vm + "/backups/{id}/restore", Access: api.Authenticated, Handler: h.restore, Tag: tag, Query: tenantQuery,
			Summary: "Restore the machine over itself from one of its backups", Body: RestoreBody{}, Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true,
			Description: "Stops the machine if it runs, replaces its disks and configuration with the backup's, and starts it again when start_after is true. " +
				"What was written since the backup is lost. A backup of another machine is 404."},
		{Method: "GET", Path: vm + "/snapshots", Access: api.Authenticated, Handler: h.snapshots, Tag: tag,
			Summary: "The machine's snapshots, oldest first", Reply: api.Page[hypervisor.Snapshot]{}, Query: api.WithPage(tenantQuery),
			Description: "The snapshots the hypervisor holds of the machine (also those taken outside vmplane); next_cursor is the name of a page's last snapshot."},
		{Method: "POST", Path: vm + "/snapshots", Access: api.Authenticated, Handler: h.snapshot, Tag: tag, Query: tenantQuery,
			Summary: "Take a snapshot", Body: machines.SnapshotRequest{}, Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true,
			Description: "Takes a snapshot of the machine's disks, and with include_memory of a running machine its memory too, as a task. " +
				"A name the machine has already is 409; a memory snapshot of a machine that is not running is 400; past the tenant's snapshot quota, 409 quota_exceeded."},
		{Method: "POST", Path: vm + "/snapshots/{name}/rollback", Access: api.Authenticated, Handler: h.rollback, Tag: tag, Query: tenantQuery,
			Summary: "Roll the machine back to a snapshot", Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true,
			Description: "Returns the machine's disks (and, for a snapshot with memory, its running state) to the snapshot's, as a task; a snapshot without memory leaves the machine stopped. " +
				"What was written since is lost. A snapshot the machine does not have is 404."},
		{Method: "DELETE", Path: vm + "/snapshots/{name}", Access: api.Authenticated, Handler: h.deleteSnapshot, Tag: tag, Query: tenantQuery,
			Summary: "Delete a snapshot", Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted,
			Description: "Deletes the snapshot (the machine stays as it is), as a task. A snapshot the machine does not have is 404."},
	}
}

func (h *handlers) backups(c *api.Call) (any, error) {
	t, limit, cursor, err := tenantPage(c)
	if err != nil {
		return nil, err
	}
	items, next, err := h.svc.Backups.OfMachineNewest(c.Context(), c.Param("vmId"), &t, cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}

// taskOf answers the task a machine call started.
func taskOf(task tasks.Task, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return api.TaskAccepted(task), nil
}

// tenantPage is the tenant a client-area list acts for, and the page it asks for.
func tenantPage(c *api.Call) (tenant string, limit int, cursor string, err error) {
	if tenant, err = c.Tenant(); err == nil {
		limit, cursor, err = c.Paging()
	}
	return tenant, limit, cursor, err
}

// tenantAnd is the tenant a client-area call acts for, and its body decoded.
func tenantAnd[T any](c *api.Call) (string, T, error) {
	var body T
	t, err := c.Tenant()
	if err == nil {
		err = c.Decode(&body)
	}
	return t, body, err
}

func (h *handlers) backupNow(c *api.Call) (any, error) {
	t, req, err := tenantAnd[machines.BackupRequest](c)
	if err != nil {
		return nil, err
	}
	return taskOf(h.svc.Machines.BackupNow(c.Context(), c.Param("vmId"), &t, req))
}

func (h *handlers) restore(c *api.Call) (any, error) {
	t, req, err := tenantAnd[RestoreBody](c)
	if err != nil {
		return nil, err
	}
	return taskOf(h.svc.Machines.Restore(c.Context(), c.Param("vmId"), &t, machines.RestoreRequest{BackupID: c.Param("id"), StartAfter: req.StartAfter}))
}

func (h *handlers) snapshots(c *api.Call) (any, error) {
	t, limit, cursor, err := tenantPage(c)
	if err != nil {
		return nil, err
	}
	all, err := h.svc.Machines.Snapshots(c.Context(), c.Param("vmId"), &t)
	if err != nil {
		return nil, err
	}
	start := 0
	if cursor != "" {
		i := slices.IndexFunc(all, func(s hypervisor.Snapshot) bool { return s.Name == cursor })
		if i < 0 {
			return nil, kit.BadCursor()
		}
		start = i + 1
	}
	page, last := kit.PageSlice(all, start, limit, func(hypervisor.Snapshot) bool { return true })
	next := ""
	if last >= 0 {
		next = page[len(page)-1].Name
	}
	return api.PageOf(page, next), nil
}

func (h *handlers) snapshot(c *api.Call) (any, error) {
	t, req, err := tenantAnd[machines.SnapshotRequest](c)
	if err != nil {
		return nil, err
	}
	return taskOf(h.svc.Machines.CreateSnapshot(c.Context(), c.Param("vmId"), &t, req))
}

func (h *handlers) rollback(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	return taskOf(h.svc.Machines.RollbackSnapshot(c.Context(), c.Param("vmId"), &t, c.Param("name")))
}

func (h *handlers) deleteSnapshot(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	return taskOf(h.svc.Machines.DeleteSnapshot(c.Context(), c.Param("vmId"), &t, c.Param("name")))
}
