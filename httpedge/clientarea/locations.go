package clientarea

import (
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/httpedge/api"
)

// locationRoutes are the locations a tenant may make machines in: the operators' list
// (/api/resources/locations, operators only) holds the drivers' settings, this one
// only what a tenant chooses by.
func (h *handlers) locationRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/api/client/locations", Access: api.Authenticated, Handler: h.clientLocations, Tag: "client",
			Summary: "The locations the tenant may make machines in, the default first",
			Description: "The locations (hypervisor clusters) a machine may be made in, as `location_id` of a create names them: " +
				"each one's id, name, whether it is the default, and whether its cluster answers now as the hypervisor watch sees it " +
				"(`available` is false while its `hypervisor_unavailable` alert is open). Nothing of the drivers' settings. " +
				"Paged like every list; an operator names the tenant with `tenant_id`.",
			Reply: api.Page[locations.OfferedLocation]{}, Query: api.WithPage(map[string]string{"tenant_id": tenantQuery["tenant_id"]})},
	}
}

// clientLocations lists the locations for a tenant. Every tenant may make machines in
// every location today; the tenant is still resolved (an operator's unknown tenant is
// 404) so that the route answers as every other client route does.
func (h *handlers) clientLocations(c *api.Call) (any, error) {
	t, err := c.Tenant()
	if err != nil {
		return nil, err
	}
	if c.IsAdmin() {
		if _, err := h.svc.Tenants.Get(c.Context(), t); err != nil {
			return nil, err
		}
	}
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	items, next, err := h.svc.Locations.Offered(c.Context(), cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}
