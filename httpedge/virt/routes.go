// Package virt holds the operator's hypervisor routes, /api/virt/... (machines, their
// power, configuration, disks and console, nodes, usage graphs, templates and the sync
// with the hypervisor), which the edge also serves, undocumented, under the driver's
// own name (/api/sim/..., /api/proxmox/...).
package virt

import (
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/hypervisor"
)

// handlers serve the routes from the services they call.
type handlers struct {
	svc     api.Services
	console Console
	media   Media
}

// Routes are the operator's hypervisor routes under prefix (/api/virt, and the
// driver's own name, /api/sim or /api/proxmox); publicURL is the server's external
// base URL ("": the console's URL is a path); rescueISO the image rescue boots.
func Routes(prefix string, svc api.Services, publicURL, rescueISO string) []api.Route {
	scope := func(c *api.Call) (*string, error) { return c.Scope(), nil }
	h := &handlers{svc: svc, console: Console{Services: svc, PublicURL: publicURL, Param: "id", Scope: scope},
		media: Media{Services: svc, Param: "id", Scope: scope, RescueISO: rescueISO}}
	return h.routes(prefix)
}

func (h *handlers) routes(prefix string) []api.Route {
	tag := "hypervisor"
	tf := map[string]string{"timeframe": "hour (default), day, week, month or year"}
	page := api.PageQuery
	routes := []api.Route{
		{Method: "POST", Path: prefix + "/sync", Access: api.AdminOnly, Handler: h.sync, Tag: tag,
			Summary: "Reconcile the store with the hypervisor's inventory", Reply: inventory.SyncResult{},
			Exempt: "a sync only brings the store in line with the hypervisor, so running it again under a new key is harmless"},
		{Method: "GET", Path: prefix + "/vms", Access: api.AdminOnly, Handler: h.listMachines, Tag: tag,
			Summary: "List machines", Reply: api.Page[machines.Machine]{}, Query: api.WithPage(api.MachineQuery), QueryTypes: api.MachineQueryTypes},
		{Method: "GET", Path: prefix + "/vms/{id}", Access: api.AdminOnly, Handler: h.getMachine, Tag: tag,
			Summary: "One machine (by id or vmid)", Reply: machines.Machine{}},
		{Method: "POST", Path: prefix + "/vms/{id}/actions/{action}", Access: api.AdminOnly, Handler: h.machineAction, Tag: tag,
			Summary: "Run a power action on a machine",
			Description: "Power action: start, stop, shutdown, reboot, reset, suspend, resume (aliases restart, poweroff, kill, boot); another action is 400 listing the allowed ones. " +
				"The work runs as a task: the answer is 202 with the task, and its Location is the task to follow. A machine busy with another task is 409 operation_in_progress.",
			Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, PathTypes: api.PowerActionPath, Stamped: true},
		{Method: "POST", Path: prefix + "/vms/{id}/migrate", Access: api.AdminOnly, Handler: h.migrate, Tag: tag,
			Summary: "Move a machine to another node", Body: MigrateRequest{}, Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true},
		{Method: "PATCH", Path: prefix + "/vms/{id}/config", Access: api.AdminOnly, Handler: h.configure, Tag: tag,
			Summary: "Change name, cores or memory", Body: ConfigRequest{}, Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Patch: true},
		{Method: "POST", Path: prefix + "/vms/{id}/plan", Access: api.AdminOnly, Handler: h.changePlan, Tag: tag,
			Summary: "Move a machine to another plan: a resize to the plan's sizes (a tenant's machine within its quota); disks never shrink",
			Body:    tenants.PlanMove{}, Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Exempt: PlanExempt},
		{Method: "PATCH", Path: prefix + "/vms/{id}/network", Access: api.AdminOnly, Handler: h.network, Tag: tag,
			Summary: "Change network interfaces", Body: NetworkRequest{}, Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted},
		{Method: "POST", Path: prefix + "/vms/{id}/disks", Access: api.AdminOnly, Handler: h.addDisk, Tag: tag,
			Summary: "Attach a new disk; the task result names it", Body: DiskRequest{}, Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true},
		{Method: "POST", Path: prefix + "/vms/{id}/reinstall", Access: api.AdminOnly, Handler: h.reinstall, Tag: tag,
			Summary: "Rebuild the system disk from a template", Body: ReinstallRequest{}, Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true},
		{Method: "GET", Path: prefix + "/vms/{id}/console", Access: api.AdminOnly, Handler: h.console.Ticket, Tag: tag,
			Query: map[string]string{"type": ConsoleTypeDoc}, QueryTypes: ConsoleQueryTypes,
			Summary: "A single-use ticket and the websocket of the machine's console",
			Description: "path is the console websocket's path with the ticket, to be joined to the origin the client uses (ws:// or wss://); " +
				"url is the absolute URL when the server has a public URL set (VMPLANE_PUBLIC_URL), else the same as path: the request's Host header is never used. " +
				"The ticket works once, for 60 s. A stopped machine has no console (409).",
			Reply: ConsoleReply{}},
		{Method: "GET", Path: prefix + "/vms/{id}/console/ws", Access: api.Public, Handler: h.console.Socket, Tag: tag,
			Summary: "Open the console websocket",
			Description: "Upgrades to a websocket bridged to the machine's console (101 Switching Protocols). The ticket query parameter is the credential, not a bearer token: " +
				"a missing, used or expired ticket is 401; a request that is not a websocket upgrade (version 13, with a key) is 400 and does not spend the ticket.",
			Query: map[string]string{"ticket": "the ticket from GET .../console (single use, 60 s)"}, Status: fasthttp.StatusSwitchingProtocols,
			Errors: []int{fasthttp.StatusUnauthorized}},
		{Method: "GET", Path: prefix + "/vms/{id}/usage-graphs", Access: api.AdminOnly, Handler: h.machineUsage, Tag: tag,
			Summary: "A machine's usage graph", Reply: hypervisor.UsageGraph{}, Query: tf},
		{Method: "GET", Path: prefix + "/nodes", Access: api.AdminOnly, Handler: h.listNodes, Tag: tag,
			Summary: "List nodes", Reply: api.Page[capacity.Node]{}, Query: page},
		{Method: "GET", Path: prefix + "/nodes/{id}", Access: api.AdminOnly, Handler: h.getNode, Tag: tag,
			Summary: "One node", Reply: capacity.Node{}},
		{Method: "GET", Path: prefix + "/nodes/{id}/usage-graphs", Access: api.AdminOnly, Handler: h.nodeUsage, Tag: tag,
			Summary: "A node's usage graph", Reply: hypervisor.UsageGraph{}, Query: tf},
		{Method: "GET", Path: prefix + "/cluster/usage-graphs", Access: api.AdminOnly, Handler: h.clusterUsage, Tag: tag,
			Summary: "The cluster's usage graph: the graphs of the nodes that answered summed bucket by bucket; missing_nodes names the others", Reply: inventory.ClusterUsage{}, Query: tf},
		{Method: "GET", Path: prefix + "/templates", Access: api.AdminOnly, Handler: h.listTemplates, Tag: tag,
			Summary: "OS templates known from the last sync", Reply: api.Page[hypervisor.Template]{}, Query: page},
	}
	routes = append(routes, h.media.Routes(prefix+"/vms/{id}", tag, api.AdminOnly, nil)...)
	routes = append(routes, h.billingRoutes(prefix)...)
	routes = append(routes, AddressRoutes(prefix+"/vms/{id}", "id", tag, api.AdminOnly, nil, h.svc, func(c *api.Call) (*string, error) { return c.Scope(), nil })...)
	routes = append(routes, h.usageRoutes(prefix, tag)...)
	routes = append(routes, h.restoreRoutes(prefix, tag)...)
	for i := range routes {
		rt := &routes[i]
		rt.Description = api.Describe(rt) + " Also served under /api/<driver>/" + strings.TrimPrefix(rt.Path, "/api/virt/") +
			" (/api/sim or /api/proxmox, after the deployment's driver): an alias of this operation, not listed in this document."
	}
	return routes
}

// MigrateRequest is the body of POST .../migrate.
type MigrateRequest struct {
	TargetNode string `json:"target_node" openapi:"required,minLength=1,limit=hypervisor.name"`
	// Online defaults to whether the machine is running.
	Online *bool `json:"online,omitempty"`
}

// ConfigRequest is the body of PATCH .../config.
type ConfigRequest struct {
	Name     *string `json:"name,omitempty" openapi:"limit=machine.name"`
	CPUCores *int    `json:"cpu_cores,omitempty" openapi:"limit=machine.cores"`
	MemoryMB *int    `json:"memory_mb,omitempty" openapi:"limit=machine.memory_mb"`
}

// NetworkRequest is the body of PATCH .../network.
type NetworkRequest struct {
	Interfaces []hypervisor.InterfaceChange `json:"interfaces" openapi:"required,minItems=1,limit=hypervisor.interfaces"`
}

// DiskRequest is the body of POST .../disks.
type DiskRequest struct {
	SizeGB  int    `json:"size_gb" openapi:"required,limit=machine.disk_gb"`
	Storage string `json:"storage,omitempty" openapi:"minLength=1,limit=hypervisor.name"`
}

// ReinstallRequest is the body of POST .../reinstall.
type ReinstallRequest struct {
	TemplateID string   `json:"template_id" openapi:"required,minLength=1,limit=id"`
	Password   string   `json:"password,omitempty" openapi:"limit=machine.password"`
	SSHKeys    []string `json:"ssh_keys,omitempty" openapi:"limit=machine.ssh_keys,items.limit=machine.ssh_key"`
}

// ConsoleReply is the answer of GET .../console. URL is absolute (ws:// or wss://) only
// when the server has a public URL configured; otherwise it equals Path, a path with
// the ticket that the client joins to the origin it reached the server at.
type ConsoleReply struct {
	Type      string    `json:"type"`
	URL       string    `json:"url"`
	Path      string    `json:"path"`
	Ticket    string    `json:"ticket"`
	ExpiresAt time.Time `json:"expires_at"`
}

func (h *handlers) sync(c *api.Call) (any, error) {
	return h.svc.Inventory.Sync(c.Context())
}

func (h *handlers) listMachines(c *api.Call) (any, error) {
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	var tenant *string
	if t := c.Query("tenant_id"); t != "" {
		tenant = &t
	}
	items, next, err := api.ListMachines(c, h.svc.Machines, tenant, cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}

func (h *handlers) getMachine(c *api.Call) (any, error) {
	return h.svc.Machines.Get(c.Context(), c.Param("id"), c.Scope())
}

func (h *handlers) startOp(c *api.Call, op machines.Operation) (any, error) {
	t, err := h.svc.Machines.Start(c.Context(), c.Param("id"), op, c.Scope())
	if err != nil {
		return nil, err
	}
	return api.TaskAccepted(t), nil
}

func (h *handlers) machineAction(c *api.Call) (any, error) {
	action, err := machines.ParsePowerAction(c.Param("action"))
	if err != nil {
		return nil, err
	}
	return h.startOp(c, machines.Operation{Type: machines.OpPower, Action: action})
}

func (h *handlers) migrate(c *api.Call) (any, error) {
	var req MigrateRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	op := machines.Operation{Type: machines.OpMigrate, TargetNode: req.TargetNode, AutoOnline: req.Online == nil}
	if req.Online != nil {
		op.Online = *req.Online
	}
	return h.startOp(c, op)
}

func (h *handlers) configure(c *api.Call) (any, error) {
	var req ConfigRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return h.startOp(c, machines.Operation{Type: machines.OpConfig,
		Config: &hypervisor.ConfigChange{Name: req.Name, CPUCores: req.CPUCores, MemoryMB: req.MemoryMB}})
}

func (h *handlers) changePlan(c *api.Call) (any, error) {
	var req tenants.PlanMove
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	task, err := h.svc.Tenants.ChangeAnyPlan(c.Context(), c.Param("id"), req.PlanID)
	if err != nil {
		return nil, err
	}
	return api.TaskAccepted(task), nil
}

func (h *handlers) network(c *api.Call) (any, error) {
	var req NetworkRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return h.startOp(c, machines.Operation{Type: machines.OpNetwork, Interfaces: req.Interfaces})
}

func (h *handlers) addDisk(c *api.Call) (any, error) {
	var req DiskRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return h.startOp(c, machines.Operation{Type: machines.OpAddDisk, DiskSizeGB: req.SizeGB, DiskStorage: req.Storage})
}

func (h *handlers) reinstall(c *api.Call) (any, error) {
	var req ReinstallRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return h.startOp(c, machines.Operation{Type: machines.OpReinstall,
		Reinstall: &hypervisor.ReinstallSpec{TemplateID: req.TemplateID, Password: req.Password, SSHKeys: req.SSHKeys}})
}

func (h *handlers) machineUsage(c *api.Call) (any, error) {
	tf, err := api.Timeframe(c)
	if err != nil {
		return nil, err
	}
	return h.svc.Machines.Usage(c.Context(), c.Param("id"), tf, c.Scope())
}

func (h *handlers) nodeUsage(c *api.Call) (any, error) {
	tf, err := api.Timeframe(c)
	if err != nil {
		return nil, err
	}
	return h.svc.Nodes.Usage(c.Context(), c.Param("id"), tf, time.Time{})
}

func (h *handlers) clusterUsage(c *api.Call) (any, error) {
	tf, err := api.Timeframe(c)
	if err != nil {
		return nil, err
	}
	return h.svc.Inventory.Usage(c.Context(), tf)
}

func (h *handlers) listNodes(c *api.Call) (any, error) {
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	items, next, err := h.svc.Nodes.List(c.Context(), cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}

func (h *handlers) getNode(c *api.Call) (any, error) {
	return h.svc.Nodes.Get(c.Context(), c.Param("id"))
}

func (h *handlers) listTemplates(c *api.Call) (any, error) {
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	items, next, err := h.svc.Inventory.TemplatePage(c.Context(), cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}

// PlanExempt is why a move to a plan carries no Idempotency-Key claim: the retry of a
// move that applied finds the machine on the plan with its sizes, and is refused.
const PlanExempt = "the retry of a move that applied finds the machine on the plan already, and is refused (400)"
