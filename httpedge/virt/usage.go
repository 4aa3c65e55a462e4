package virt

import (
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/traffic"
	"github.com/vmplane/vmplane/actors/usage"
	"github.com/vmplane/vmplane/httpedge/api"
)

// usageRoutes are a machine's usage for invoices.
func (h *handlers) usageRoutes(prefix, tag string) []api.Route {
	return []api.Route{
		{Method: "GET", Path: prefix + "/vms/{id}/usage", Access: api.AdminOnly, Tag: tag, Handler: h.machineInvoiceUsage,
			KeyScope: auth.ScopeBilling, Query: api.UsageQuery, Reply: usage.UsageReport{},
			Summary: "A machine's usage for invoices",
			Description: "What the machine used in the hours [from, to), from the hourly records: a line per plan it was on, and the totals. " +
				"Operators, and API keys with the billing scope."},
		{Method: "GET", Path: prefix + "/vms/{id}/traffic", Access: api.AdminOnly, Tag: tag, Handler: h.machineTraffic,
			KeyScope: auth.ScopeBilling, Reply: traffic.MachineTraffic{},
			Summary: "A machine's traffic this month",
			Description: "The bytes the machine received and sent in the current calendar month (UTC), with its plan's allowance, what is left " +
				"and the overage action taken once it went past it. Operators, and API keys with the billing scope."},
	}
}

func (h *handlers) machineTraffic(c *api.Call) (any, error) {
	m, err := h.svc.Machines.Get(c.Context(), c.Param("id"), c.Scope())
	if err != nil {
		return nil, err
	}
	return h.svc.Traffic.MachineTraffic(c.Context(), m.ID)
}

func (h *handlers) machineInvoiceUsage(c *api.Call) (any, error) {
	from, to, err := api.UsageRange(c)
	if err != nil {
		return nil, err
	}
	if err := usage.CheckRange(from, to); err != nil {
		return nil, err
	}
	m, err := h.svc.Machines.Get(c.Context(), c.Param("id"), c.Scope())
	if err != nil {
		return nil, err
	}
	return h.svc.Usage.Machine(c.Context(), m.TenantID, m.ID, from, to)
}
