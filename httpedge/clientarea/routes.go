// Package clientarea holds the tenant's client area, /api/client/...: its overview and
// usage trends, its machines (create, resize, power), its firewall rules and its
// machines' power and backup schedules. An operator acts in it for a tenant named by
// ?tenant_id=.
package clientarea

import (
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/virt"
)

// Options are what the client area needs of the edge beyond the services.
type Options struct {
	Services api.Services
	// PublicURL is the server's external base URL, for the console's absolute URL.
	PublicURL string
	// TenantDelete lets tenant users delete their machines (operators always may).
	TenantDelete bool
	// RequirePlans has tenant users create machines from plans only: a create without
	// plan_id is a 400 (operators may always give explicit sizes).
	RequirePlans bool
	// RescueISO names the image (id or name) a machine's rescue boots.
	RescueISO string
}

// handlers serve the routes from the services they call.
type handlers struct {
	svc          api.Services
	console      virt.Console
	media        virt.Media
	tenantDelete bool
	requirePlans bool
}

// Routes are the client area's routes: the tenant's own, its machines' own, then its
// machines' schedules.
func Routes(o Options) []api.Route {
	scope := func(c *api.Call) (*string, error) {
		t, err := c.Tenant()
		return &t, err
	}
	h := &handlers{svc: o.Services, tenantDelete: o.TenantDelete, requirePlans: o.RequirePlans,
		console: virt.Console{Services: o.Services, PublicURL: o.PublicURL, Param: "vmId", Scope: scope},
		media:   virt.Media{Services: o.Services, Param: "vmId", Scope: scope, RescueISO: o.RescueISO}}
	routes := append(h.clientRoutes(), h.machineRoutes()...)
	routes = append(routes, h.media.Routes("/api/client/machines/{vmId}", "client", api.Authenticated, tenantQuery)...)
	routes = append(routes, h.backupRoutes()...)
	routes = append(routes, h.locationRoutes()...)
	routes = append(routes, h.usageRoutes()...)
	routes = append(routes, virt.AddressRoutes("/api/client/machines/{vmId}", "vmId", "client", api.Authenticated, tenantQuery, h.svc, func(c *api.Call) (*string, error) {
		t, err := c.Tenant()
		return &t, err
	})...)
	return append(routes, h.scheduleRoutes()...)
}

// clientRoutes are the tenant's client area.
func (h *handlers) clientRoutes() []api.Route {
	tag := "client"
	return []api.Route{
		{Method: "GET", Path: "/api/client/overview", Access: api.Authenticated, Handler: h.clientOverview, Tag: tag,
			Summary: "The tenant's machines, usage against quota, open alerts and backups", Reply: tenants.Overview{}, Query: tenantQuery},
		{Method: "GET", Path: "/api/client/usage-trends", Access: api.Authenticated, Handler: h.clientTrends, Tag: tag,
			Summary: "Daily consumption computed from the machines' usage data", Reply: tenants.Trends{},
			Query: map[string]string{"days": "1..365 (default 30)", "tenant_id": tenantQuery["tenant_id"]}},
		{Method: "GET", Path: "/api/client/machines", Access: api.Authenticated, Handler: h.clientMachines, Tag: tag,
			Summary: "The tenant's machines", Reply: api.Page[machines.Machine]{},
			Query: api.WithPage(map[string]string{"tenant_id": tenantQuery["tenant_id"], "name": api.MachineQuery["name"],
				"status": api.MachineQuery["status"], "node": api.MachineQuery["node"]}), QueryTypes: api.MachineQueryTypes},
		{Method: "POST", Path: "/api/client/machines", Access: api.Authenticated, Handler: h.clientCreateMachine, Tag: tag,
			Summary: "Create a machine within the quota (409 quota_exceeded beyond it)", Body: tenants.MachineSpec{},
			Reply: tenants.Provisioned{}, Status: fasthttp.StatusAccepted, Query: tenantQuery, Stamped: true},
		{Method: "POST", Path: "/api/client/machines/{vmId}/plan", Access: api.Authenticated, Handler: h.clientChangePlan, Tag: tag,
			Summary: "Move a machine to another plan: a resize to the plan's sizes within the quota; disks never shrink", Body: tenants.PlanMove{},
			Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted,
			Exempt: virt.PlanExempt, Query: tenantQuery},
		{Method: "PATCH", Path: "/api/client/machines/{vmId}/resources", Access: api.Authenticated, Handler: h.clientResize, Tag: tag,
			Summary: "Resize a machine within the quota; disks only grow", Body: tenants.ResourceChange{}, Patch: true,
			Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Query: tenantQuery},
		{Method: "POST", Path: "/api/client/machines/{vmId}/actions/{action}", Access: api.Authenticated, Handler: h.clientMachineAction, Tag: tag,
			Summary: "Run a power action on one of the tenant's machines",
			Description: "Start, stop, shut down, reboot, reset, suspend or resume one of the tenant's machines; another action is 400 listing the allowed ones. " +
				"The work runs as a task: the answer is 202 with the task, and its Location is the task to follow. Another tenant's machine is 404.",
			Reply: api.TaskReply{}, Status: fasthttp.StatusAccepted, Query: tenantQuery, PathTypes: api.PowerActionPath, Stamped: true},
		{Method: "GET", Path: "/api/client/firewall/rules", Access: api.Authenticated, Handler: h.clientRules, Tag: tag,
			Summary: "The tenant's firewall rules by position", Reply: api.Page[tenants.FirewallRule]{},
			Query: api.WithPage(map[string]string{"machine_id": "only the rule set of this machine", "tenant_id": tenantQuery["tenant_id"]})},
		{Method: "POST", Path: "/api/client/firewall/rules", Access: api.Authenticated, Handler: h.clientCreateRule, Tag: tag,
			Summary: "Add a rule (at position, or last); pushed to the hypervisor", Body: RuleBody{}, Reply: tenants.FirewallRule{}, Stamped: true,
			Status: fasthttp.StatusCreated, Query: tenantQuery},
		{Method: "PATCH", Path: "/api/client/firewall/rules/{id}", Access: api.Authenticated, Handler: h.clientUpdateRule, Tag: tag,
			Summary: "Change or move a rule", Body: RuleBody{}, Patch: true, Reply: tenants.FirewallRule{}, Query: tenantQuery},
		{Method: "DELETE", Path: "/api/client/firewall/rules/{id}", Access: api.Authenticated, Handler: h.clientDeleteRule, Tag: tag,
			Summary: "Delete a rule", Status: fasthttp.StatusNoContent, Query: tenantQuery},
	}
}

var tenantQuery = map[string]string{"tenant_id": "operators only: the tenant to act for"}

func (h *handlers) clientOverview(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	return h.svc.Tenants.Overview(c.Context(), t)
}

func (h *handlers) clientTrends(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	days := 30
	if v := c.Query("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 365 {
			return nil, apierr.Invalid(apierr.Field("days", "must be 1..365"))
		}
		days = n
	}
	return h.svc.Tenants.UsageTrends(c.Context(), t, days, time.Now())
}

func (h *handlers) clientMachines(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	if c.Query("name") != "" || c.Query("status") != "" || c.Query("node") != "" {
		items, next, err := api.ListMachines(c, h.svc.Machines, &t, cursor, limit)
		if err != nil {
			return nil, err
		}
		return api.PageOf(items, next), nil
	}
	p, err := h.svc.Machines.TenantPage(c.Context(), t, cursor, limit)
	if err != nil {
		return nil, err
	}
	// A cached page keeps its encoding: a repeated list is a copy of bytes.
	body, err := p.Encoded(func(p *machines.MachinePage) ([]byte, error) { return api.MarshalJSON(api.PageOf(p.Items, p.Next)) })
	if err != nil {
		return nil, err
	}
	return api.RawJSON(body), nil
}

func (h *handlers) clientCreateMachine(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	var spec tenants.MachineSpec
	if err := c.Decode(&spec); err != nil {
		return nil, err
	}
	if err := CheckPlanRequired(c, h.requirePlans, spec); err != nil {
		return nil, err
	}
	if err := CheckOperatorFields(c, spec); err != nil {
		return nil, err
	}
	p, err := h.svc.Tenants.CreateMachine(c.Context(), t, spec)
	if err != nil {
		return nil, err
	}
	return api.Accepted(p, "/api/tasks/"+p.Task.ID), nil
}

func (h *handlers) clientResize(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	var ch tenants.ResourceChange
	if err := c.Decode(&ch); err != nil {
		return nil, err
	}
	task, err := h.svc.Tenants.ResizeMachine(c.Context(), t, c.Param("vmId"), ch)
	if err != nil {
		return nil, err
	}
	return api.TaskAccepted(task), nil
}

// clientChangePlan moves one of the tenant's machines to a plan.
func (h *handlers) clientChangePlan(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	var b tenants.PlanMove
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	task, err := h.svc.Tenants.ChangePlan(c.Context(), t, c.Param("vmId"), b.PlanID)
	if err != nil {
		return nil, err
	}
	return api.TaskAccepted(task), nil
}

// CheckPlanRequired refuses a tenant user's create without a plan when the operator
// has required plans (require); an operator may always give explicit sizes.
func CheckPlanRequired(c *api.Call, require bool, spec tenants.MachineSpec) error {
	if require && spec.PlanID == nil && !c.IsAdmin() {
		e := apierr.Invalid(apierr.Field("plan_id", "is required: machines are made from plans here"))
		e.Detail = "plan_id is required: machines are made from plans here"
		return e
	}
	return nil
}

// CheckOperatorFields refuses the fields of a create only an operator may give (the
// addresses of a machine of explicit sizes) in a tenant user's create: a tenant's
// machine gets the addresses of its plan.
func CheckOperatorFields(c *api.Call, spec tenants.MachineSpec) error {
	if c.IsAdmin() {
		return nil
	}
	var f []apierr.FieldError
	if spec.IPv4 != nil {
		f = append(f, apierr.Field("ipv4", "is for operators: a tenant's machine gets the addresses of its plan"))
	}
	if spec.IPv6 != nil {
		f = append(f, apierr.Field("ipv6", "is for operators: a tenant's machine gets the addresses of its plan"))
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}

// clientMachineAction is a power action on one of the tenant's machines: the same
// operation as the operators' /api/virt route, scoped to the tenant (another tenant's
// machine is not found).
func (h *handlers) clientMachineAction(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	action, err := machines.ParsePowerAction(c.Param("action"))
	if err != nil {
		return nil, err
	}
	task, err := h.svc.Machines.Start(c.Context(), c.Param("vmId"), machines.Operation{Type: machines.OpPower, Action: action}, &t)
	if err != nil {
		return nil, err
	}
	return api.TaskAccepted(task), nil
}

func (h *handlers) clientRules(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	var machine *string
	if m := c.Query("machine_id"); m != "" {
		machine = &m
	}
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	rules, next, err := h.svc.Firewall.Page(c.Context(), t, machine, cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(rules, next), nil
}

// ruleWrite is the tenant and the body of a rule create or update.
func ruleWrite(c *api.Call) (string, tenants.RuleInput, error) {
	t, err := c.Tenant()
	if err != nil {
		return "", tenants.RuleInput{}, err
	}
	in, err := DecodeRule(c)
	if err != nil {
		return "", tenants.RuleInput{}, err
	}
	if err := c.CheckBodyTenant(t); err != nil {
		return "", tenants.RuleInput{}, err
	}
	return t, in, nil
}

func (h *handlers) clientCreateRule(c *api.Call) (any, error) {
	t, in, err := ruleWrite(c)
	if err != nil {
		return nil, err
	}
	r, err := h.svc.Firewall.Create(c.Context(), t, in)
	if err != nil {
		return nil, err
	}
	return api.Created(r), nil
}

func (h *handlers) clientUpdateRule(c *api.Call) (any, error) {
	t, in, err := ruleWrite(c)
	if err != nil {
		return nil, err
	}
	return h.svc.Firewall.Update(c.Context(), t, c.Param("id"), in)
}

func (h *handlers) clientDeleteRule(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	if err := h.svc.Firewall.Delete(c.Context(), t, c.Param("id")); err != nil {
		return nil, err
	}
	return api.NoContent, nil
}
