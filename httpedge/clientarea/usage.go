package clientarea

import (
	"time"

	"github.com/vmplane/vmplane/actors/traffic"
	"github.com/vmplane/vmplane/actors/usage"
	"github.com/vmplane/vmplane/httpedge/api"
)

// usageRoutes are the tenant's own usage, as its invoices count it.
func (h *handlers) usageRoutes() []api.Route {
	q := map[string]string{}
	for k, v := range api.UsageQuery {
		q[k] = v
	}
	for k, v := range tenantQuery {
		q[k] = v
	}
	return []api.Route{
		{Method: "GET", Path: "/api/client/usage", Access: api.Authenticated, Tag: "client", Handler: h.tenantUsage, Query: q, Reply: usage.UsageReport{},
			Summary:     "The tenant's usage for invoices",
			Description: "What the tenant's machines used in the hours [from, to): one line per machine and plan, and the totals."},
		{Method: "GET", Path: "/api/client/machines/{vmId}/usage", Access: api.Authenticated, Tag: "client", Handler: h.machineUsage, Query: q, Reply: usage.UsageReport{},
			Summary:     "The machine's usage for invoices",
			Description: "What the machine used in the hours [from, to): a line per plan it was on, and the totals."},
		{Method: "GET", Path: "/api/client/machines/{vmId}/traffic", Access: api.Authenticated, Tag: "client", Handler: h.machineTraffic, Query: tenantQuery, Reply: traffic.MachineTraffic{},
			Summary: "The machine's traffic this month",
			Description: "The bytes the machine received and sent in the current calendar month (UTC), counted from the hypervisor's counters at each sync, " +
				"with its plan's monthly allowance and what is left of it, and the overage action taken once it went past it."},
	}
}

func (h *handlers) machineTraffic(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	m, err := h.svc.Machines.Get(c.Context(), c.Param("vmId"), &t)
	if err != nil {
		return nil, err
	}
	return h.svc.Traffic.MachineTraffic(c.Context(), m.ID)
}

// usageRange is the range asked for, checked.
func usageRange(c *api.Call) (from, to time.Time, err error) {
	if from, to, err = api.UsageRange(c); err != nil {
		return from, to, err
	}
	return from, to, usage.CheckRange(from, to)
}

func (h *handlers) tenantUsage(c *api.Call) (any, error) {
	from, to, err := usageRange(c)
	if err != nil {
		return nil, err
	}
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	return h.svc.Usage.Tenant(c.Context(), &t, from, to)
}

func (h *handlers) machineUsage(c *api.Call) (any, error) {
	from, to, err := usageRange(c)
	if err != nil {
		return nil, err
	}
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	m, err := h.svc.Machines.Get(c.Context(), c.Param("vmId"), &t)
	if err != nil {
		return nil, err
	}
	return h.svc.Usage.Machine(c.Context(), &t, m.ID, from, to)
}
