package httpedge

import (
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/apierr"
)

// clientRoutes are the tenant's client area.
func (s *Server) clientRoutes() []Route {
	tag := "client"
	return []Route{
		{Method: "GET", Path: "/api/client/overview", Access: Authenticated, Handler: s.clientOverview, Tag: tag,
			Summary: "The tenant's machines, usage against quota, open alerts and backups", Reply: tenants.Overview{}, Query: tenantQuery},
		{Method: "GET", Path: "/api/client/usage-trends", Access: Authenticated, Handler: s.clientTrends, Tag: tag,
			Summary: "Daily consumption computed from the machines' usage data", Reply: tenants.Trends{},
			Query: map[string]string{"days": "1..365 (default 30)", "tenant_id": tenantQuery["tenant_id"]}},
		{Method: "GET", Path: "/api/client/machines", Access: Authenticated, Handler: s.clientMachines, Tag: tag,
			Summary: "The tenant's machines", Reply: Page[machines.Machine]{},
			Query: withPage(map[string]string{"tenant_id": tenantQuery["tenant_id"], "name": machineQuery["name"],
				"status": machineQuery["status"], "node": machineQuery["node"]}), QueryTypes: machineQueryTypes},
		{Method: "POST", Path: "/api/client/machines", Access: Authenticated, Handler: s.clientCreateMachine, Tag: tag,
			Summary: "Create a machine within the quota (409 quota_exceeded beyond it)", Body: tenants.MachineSpec{},
			Reply: tenants.Provisioned{}, Status: fasthttp.StatusAccepted, Query: tenantQuery, Stamped: true},
		{Method: "PATCH", Path: "/api/client/machines/{vmId}/resources", Access: Authenticated, Handler: s.clientResize, Tag: tag,
			Summary: "Resize a machine within the quota; disks only grow", Body: tenants.ResourceChange{}, Patch: true,
			Reply: TaskReply{}, Status: fasthttp.StatusAccepted, Query: tenantQuery},
		{Method: "POST", Path: "/api/client/machines/{vmId}/actions/{action}", Access: Authenticated, Handler: s.clientMachineAction, Tag: tag,
			Summary: "Run a power action on one of the tenant's machines",
			Description: "Start, stop, shut down, reboot, reset, suspend or resume one of the tenant's machines; another action is 400 listing the allowed ones. " +
				"The work runs as a task: the answer is 202 with the task, and its Location is the task to follow. Another tenant's machine is 404.",
			Reply: TaskReply{}, Status: fasthttp.StatusAccepted, Query: tenantQuery, PathTypes: powerActionPath, Stamped: true},
		{Method: "GET", Path: "/api/client/firewall/rules", Access: Authenticated, Handler: s.clientRules, Tag: tag,
			Summary: "The tenant's firewall rules by position", Reply: Page[tenants.FirewallRule]{},
			Query: withPage(map[string]string{"machine_id": "only the rule set of this machine", "tenant_id": tenantQuery["tenant_id"]})},
		{Method: "POST", Path: "/api/client/firewall/rules", Access: Authenticated, Handler: s.clientCreateRule, Tag: tag,
			Summary: "Add a rule (at position, or last); pushed to the hypervisor", Body: RuleBody{}, Reply: tenants.FirewallRule{}, Stamped: true,
			Status: fasthttp.StatusCreated, Query: tenantQuery},
		{Method: "PATCH", Path: "/api/client/firewall/rules/{id}", Access: Authenticated, Handler: s.clientUpdateRule, Tag: tag,
			Summary: "Change or move a rule", Body: RuleBody{}, Patch: true, Reply: tenants.FirewallRule{}, Query: tenantQuery},
		{Method: "DELETE", Path: "/api/client/firewall/rules/{id}", Access: Authenticated, Handler: s.clientDeleteRule, Tag: tag,
			Summary: "Delete a rule", Status: fasthttp.StatusNoContent, Query: tenantQuery},
	}
}

var tenantQuery = map[string]string{"tenant_id": "operators only: the tenant to act for"}

// tenant is the tenant a client-area call acts for: the user's own, or for an operator
// the one named by ?tenant_id=.
func (c *Call) tenant() (string, error) {
	if !c.IsAdmin() {
		if c.Principal.TenantID == nil {
			return "", apierr.New(apierr.ErrForbidden, "this user belongs to no tenant")
		}
		if t := c.Query("tenant_id"); t != "" && t != *c.Principal.TenantID {
			return "", apierr.New(apierr.ErrForbidden, "tenant_id cannot name another tenant")
		}
		return *c.Principal.TenantID, nil
	}
	t := c.Query("tenant_id")
	if t == "" {
		return "", apierr.Invalid(apierr.Field("tenant_id", "an operator must name the tenant to act for"))
	}
	return t, nil
}

func (s *Server) clientOverview(c *Call) (any, error) {
	t, err := c.tenant()
	if err != nil {
		return nil, err
	}
	return s.svc.Tenants.Overview(c.Context(), t)
}

func (s *Server) clientTrends(c *Call) (any, error) {
	t, err := c.tenant()
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
	return s.svc.Tenants.UsageTrends(c.Context(), t, days, time.Now())
}

func (s *Server) clientMachines(c *Call) (any, error) {
	t, err := c.tenant()
	if err != nil {
		return nil, err
	}
	limit, cursor, err := c.paging()
	if err != nil {
		return nil, err
	}
	if c.Query("name") != "" || c.Query("status") != "" || c.Query("node") != "" {
		items, next, err := s.listMachinesOf(c, &t, cursor, limit)
		if err != nil {
			return nil, err
		}
		return page(items, next), nil
	}
	p, err := s.svc.Machines.TenantPage(c.Context(), t, cursor, limit)
	if err != nil {
		return nil, err
	}
	// A cached page keeps its encoding: a repeated list is a copy of bytes.
	body, err := p.Encoded(func(p *machines.MachinePage) ([]byte, error) { return marshalJSON(page(p.Items, p.Next)) })
	if err != nil {
		return nil, err
	}
	return rawJSON(body), nil
}

func (s *Server) clientCreateMachine(c *Call) (any, error) {
	t, err := c.tenant()
	if err != nil {
		return nil, err
	}
	var spec tenants.MachineSpec
	if err := c.Decode(&spec); err != nil {
		return nil, err
	}
	p, err := s.svc.Tenants.CreateMachine(c.Context(), t, spec)
	if err != nil {
		return nil, err
	}
	return Accepted(p, "/api/tasks/"+p.Task.ID), nil
}

func (s *Server) clientResize(c *Call) (any, error) {
	t, err := c.tenant()
	if err != nil {
		return nil, err
	}
	var ch tenants.ResourceChange
	if err := c.Decode(&ch); err != nil {
		return nil, err
	}
	task, err := s.svc.Tenants.ResizeMachine(c.Context(), t, c.Param("vmId"), ch)
	if err != nil {
		return nil, err
	}
	return accepted(task), nil
}

// clientMachineAction is a power action on one of the tenant's machines: the same
// operation as the operators' /api/virt route, scoped to the tenant (another tenant's
// machine is not found).
func (s *Server) clientMachineAction(c *Call) (any, error) {
	t, err := c.tenant()
	if err != nil {
		return nil, err
	}
	action, err := machines.ParsePowerAction(c.Param("action"))
	if err != nil {
		return nil, err
	}
	task, err := s.svc.Machines.Start(c.Context(), c.Param("vmId"), machines.Operation{Type: machines.OpPower, Action: action}, &t)
	if err != nil {
		return nil, err
	}
	return accepted(task), nil
}

func (s *Server) clientRules(c *Call) (any, error) {
	t, err := c.tenant()
	if err != nil {
		return nil, err
	}
	var machine *string
	if m := c.Query("machine_id"); m != "" {
		machine = &m
	}
	limit, cursor, err := c.paging()
	if err != nil {
		return nil, err
	}
	rules, next, err := s.svc.Firewall.Page(c.Context(), t, machine, cursor, limit)
	if err != nil {
		return nil, err
	}
	return page(rules, next), nil
}

// ruleWrite is the tenant and the body of a rule create or update.
func (c *Call) ruleWrite() (string, tenants.RuleInput, error) {
	t, err := c.tenant()
	if err != nil {
		return "", tenants.RuleInput{}, err
	}
	in, err := c.decodeRule()
	if err != nil {
		return "", tenants.RuleInput{}, err
	}
	if err := c.checkBodyTenant(t); err != nil {
		return "", tenants.RuleInput{}, err
	}
	return t, in, nil
}

func (s *Server) clientCreateRule(c *Call) (any, error) {
	t, in, err := c.ruleWrite()
	if err != nil {
		return nil, err
	}
	r, err := s.svc.Firewall.Create(c.Context(), t, in)
	if err != nil {
		return nil, err
	}
	return Created(r), nil
}

func (s *Server) clientUpdateRule(c *Call) (any, error) {
	t, in, err := c.ruleWrite()
	if err != nil {
		return nil, err
	}
	return s.svc.Firewall.Update(c.Context(), t, c.Param("id"), in)
}

func (s *Server) clientDeleteRule(c *Call) (any, error) {
	t, err := c.tenant()
	if err != nil {
		return nil, err
	}
	if err := s.svc.Firewall.Delete(c.Context(), t, c.Param("id")); err != nil {
		return nil, err
	}
	return NoContent, nil
}

// checkBodyTenant refuses a body whose tenant_id names another tenant.
func (c *Call) checkBodyTenant(tenant string) error {
	if named := c.bodyString("tenant_id"); named != nil && *named != tenant {
		return apierr.New(apierr.ErrForbidden, "tenant_id cannot name another tenant")
	}
	return nil
}
