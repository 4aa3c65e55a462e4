package resources

import (
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/usage"
	"github.com/vmplane/vmplane/httpedge/api"
)

// usageRoutes are a tenant's usage for invoices: an operator's read, or a billing
// system's with an API key of the billing scope.
func (h *handlers) usageRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/api/resources/tenants/{id}/usage", Access: api.AdminOnly, Tag: "resources", Handler: h.tenantUsage,
			KeyScope: auth.ScopeBilling, Query: api.UsageQuery, Reply: usage.UsageReport{},
			Summary: "A tenant's usage for invoices",
			Description: "What the tenant's machines used in the hours [from, to), from the hourly records (read twice, the same): one line per machine and plan " +
				"(hours, core-hours, memory MB-hours, disk GB-hours, backups and snapshots held, traffic) and their totals; gaps counts the hours no record covers. " +
				"Operators, and API keys with the billing scope."},
	}
}

func (h *handlers) tenantUsage(c *api.Call) (any, error) {
	from, to, err := api.UsageRange(c)
	if err != nil {
		return nil, err
	}
	if err := usage.CheckRange(from, to); err != nil {
		return nil, err
	}
	id := c.Param("id")
	if _, err := h.svc.Tenants.Get(c.Context(), id); err != nil {
		return nil, err
	}
	return h.svc.Usage.Tenant(c.Context(), &id, from, to)
}
