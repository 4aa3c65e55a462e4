package clientarea

import (
	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/virt"
	"github.com/vmplane/vmplane/hypervisor"
)

// One of the tenant's machines, whole: what it is, its console, its graphs, a reinstall
// and its delete (where the operator allows it). Every route names the machine by id or
// vmid; another tenant's machine is 404.

// MachineDetail is one of the tenant's machines with what belongs to it: its disks,
// interfaces (and their addresses) and firewall state, as the machine has them, and its
// power and backup schedules, and its last task.
type MachineDetail struct {
	machines.Machine
	PowerSchedules  []schedules.PowerSchedule  `json:"power_schedules"`
	BackupSchedules []schedules.BackupSchedule `json:"backup_schedules"`
	// LastTask is the machine's newest task (null before any).
	LastTask *tasks.Task `json:"last_task"`
}

// ErrDeleteOff is the answer to a tenant's delete of a machine where the operator
// keeps deletes to operators (the default).
var ErrDeleteOff = apierr.New(apierr.ErrForbidden, "this server lets only operators delete machines (VMPLANE_TENANT_DELETE)")

// machineRoutes are the routes of one of the tenant's machines.
func (h *handlers) machineRoutes() []api.Route {
	tag := "client"
	vm := "/api/client/machines/{vmId}"
	tf := map[string]string{"timeframe": "hour (default), day, week, month or year", "tenant_id": tenantQuery["tenant_id"]}
	return []api.Route{
		{Method: "GET", Path: vm, Access: api.Authenticated, Handler: h.machine, Tag: tag, Query: tenantQuery,
			Summary: "One of the tenant's machines, with its disks, interfaces, firewall state, schedules and last task", Reply: MachineDetail{}},
		{Method: "DELETE", Path: vm, Access: api.Authenticated, Handler: h.deleteMachine, Tag: tag, Query: tenantQuery,
			Summary: "Delete one of the tenant's machines, where the operator allows tenants to", Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted,
			Errors: []int{fasthttp.StatusForbidden},
			Description: "Deletes the machine from the hypervisor, then its record, as a task (202; its Location is the task). " +
				"Tenant users may do so only where the operator allows it (VMPLANE_TENANT_DELETE, off by default): otherwise 403 forbidden. Operators always may."},
		{Method: "POST", Path: vm + "/reinstall", Access: api.Authenticated, Handler: h.reinstall, Tag: tag, Query: tenantQuery,
			Summary: "Rebuild the machine's system disk from a template, with a new password or SSH keys", Body: virt.ReinstallRequest{},
			Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true},
		{Method: "GET", Path: vm + "/console", Access: api.Authenticated, Handler: h.console.Ticket, Tag: tag,
			Query: map[string]string{"tenant_id": tenantQuery["tenant_id"], "type": virt.ConsoleTypeDoc}, QueryTypes: virt.ConsoleQueryTypes,
			Summary: "A single-use ticket and the websocket of the machine's console",
			Description: "path is the console websocket's path with the ticket, to be joined to the origin the client uses (ws:// or wss://); " +
				"url is the absolute URL when the server has a public URL set (VMPLANE_PUBLIC_URL), else the same as path. " +
				"The ticket works once, for 60 s, and the console lasts as long as the login that asked for it. A stopped machine has no console (409).",
			Reply: virt.ConsoleReply{}},
		{Method: "GET", Path: vm + "/console/ws", Access: api.Public, Handler: h.console.Socket, Tag: tag,
			Summary: "Open the console websocket",
			Description: "Upgrades to a websocket bridged to the machine's console (101 Switching Protocols). The ticket query parameter is the credential, not a bearer token: " +
				"a missing, used or expired ticket is 401; a request that is not a websocket upgrade (version 13, with a key) is 400 and does not spend the ticket.",
			Query: map[string]string{"ticket": "the ticket from GET .../console (single use, 60 s)"}, Status: fasthttp.StatusSwitchingProtocols,
			Errors: []int{fasthttp.StatusUnauthorized}},
		{Method: "GET", Path: vm + "/tasks", Access: api.Authenticated, Handler: h.tasks, Tag: tag, Query: api.WithPage(tenantQuery),
			Summary: "The machine's tasks, newest first", Reply: api.Page[tasks.Task]{}},
		{Method: "GET", Path: vm + "/usage-graphs", Access: api.Authenticated, Handler: h.usage, Tag: tag,
			Summary: "The machine's usage graph: CPU, memory, disk and network over the timeframe", Reply: hypervisor.UsageGraph{}, Query: tf},
	}
}

func (h *handlers) machine(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	m, err := h.svc.Machines.Get(c.Context(), c.Param("vmId"), &t)
	if err != nil {
		return nil, err
	}
	d := MachineDetail{Machine: m}
	if d.PowerSchedules, err = all(func(cursor string) ([]schedules.PowerSchedule, string, error) {
		return h.svc.PowerSchedules.List(c.Context(), &t, m.ID, cursor, api.MaxPageLimit)
	}); err != nil {
		return nil, err
	}
	if d.BackupSchedules, err = all(func(cursor string) ([]schedules.BackupSchedule, string, error) {
		return h.svc.BackupSchedules.List(c.Context(), &t, m.ID, cursor, api.MaxPageLimit)
	}); err != nil {
		return nil, err
	}
	last, _, err := h.svc.Tasks.OfMachine(c.Context(), m.ID, &t, "", 1)
	if err != nil {
		return nil, err
	}
	if len(last) > 0 {
		d.LastTask = &last[0]
	}
	return d, nil
}

func (h *handlers) tasks(c *api.Call) (any, error) {
	t, limit, cursor, err := tenantPage(c)
	if err != nil {
		return nil, err
	}
	m, err := h.svc.Machines.Get(c.Context(), c.Param("vmId"), &t)
	if err != nil {
		return nil, err
	}
	items, next, err := h.svc.Tasks.OfMachine(c.Context(), m.ID, &t, cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}

// all reads every page of a list (a machine's schedules: few, and bounded by the
// tenant's schedule limit).
func all[T any](page func(cursor string) ([]T, string, error)) ([]T, error) {
	out := []T{}
	for cursor := ""; ; {
		items, next, err := page(cursor)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		cursor = next
	}
}

func (h *handlers) deleteMachine(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	if !c.IsAdmin() && !h.tenantDelete {
		return nil, ErrDeleteOff
	}
	return taskOf(h.svc.Machines.Destroy(c.Context(), c.Param("vmId"), &t))
}

func (h *handlers) reinstall(c *api.Call) (any, error) {
	t, req, err := tenantAnd[virt.ReinstallRequest](c)
	if err != nil {
		return nil, err
	}
	return taskOf(h.svc.Machines.Start(c.Context(), c.Param("vmId"), machines.Operation{Type: machines.OpReinstall,
		Reinstall: &hypervisor.ReinstallSpec{TemplateID: req.TemplateID, Password: req.Password, SSHKeys: req.SSHKeys}}, &t))
}

func (h *handlers) usage(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	tf, err := api.Timeframe(c)
	if err != nil {
		return nil, err
	}
	return h.svc.Machines.Usage(c.Context(), c.Param("vmId"), tf, &t)
}
