package resources

import (
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/httpedge/api"
)

// planResources are the registry entry of plans. A plan belongs to no tenant: every
// signed-in user reads them (a tenant sees what it can move to), operators write them.
func (h *handlers) planResources() []resource {
	svc := h.svc
	return []resource{
		{name: "plans", read: api.Authenticated, write: api.AdminOnly, summary: "plans", item: itemOf[plans.Plan](),
			query: locationQuery, createBody: plans.PlanSpec{}, updateBody: plans.PlanChange{},
			exempt: "plan names are unique: the retry of a create that applied is a 409 naming the plan, never a second plan",
			list: func(c *api.Call, _ *string, cursor string, limit int) (any, string, error) {
				return svc.Plans.List(c.Context(), locationFilter(c), cursor, limit)
			},
			get: func(c *api.Call, _ *string, id string) (any, error) { return svc.Plans.Get(c.Context(), id) },
			create: func(c *api.Call, _ *string, _ *string) (any, error) {
				var b plans.PlanSpec
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				p, err := svc.Plans.Create(c.Context(), b)
				if err != nil {
					return nil, err
				}
				return api.Created(p), nil
			},
			update: func(c *api.Call, _ *string, id string) (any, error) {
				var b plans.PlanChange
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				return svc.Plans.Update(c.Context(), id, b, c.Nulls())
			},
			delete: func(c *api.Call, _ *string, id string) (any, error) {
				return api.NoContent, svc.Plans.Delete(c.Context(), id)
			},
		},
	}
}

// planRoutes are the plans' routes beyond the registry's: a plan's capacity.
func (h *handlers) planRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/api/resources/plans/{id}/capacity", Access: api.Authenticated, Tag: "resources",
			Query:   map[string]string{"location": "the plan's location (its id; default: the default location): another is 400"},
			Summary: "How many more machines of a plan fit now", Reply: plans.PlanCapacity{},
			Description: "How many more machines of the plan fit on the nodes of its location now, node by node and in all: each node's cores, memory and disk " +
				"times the operator's overcommit ratios (VMPLANE_OVERCOMMIT_CPU, _MEMORY, _DISK), less what vmplane's machines on it are given " +
				"(not what they use). An offline node fits none. Placement of a create that names no node uses the same arithmetic.",
			Handler: func(c *api.Call) (any, error) {
				return h.svc.Plans.Capacity(c.Context(), c.Param("id"), locationFilter(c))
			}},
	}
}

// locationQuery is the filter of the lists of records that belong to a location
// (plans, IP pools).
var locationQuery = map[string]string{"location": "only the records of this location (its id; default: the default location)"}

// locationFilter is a list's location filter: nil when the query names none.
func locationFilter(c *api.Call) *string {
	if l := c.Query("location"); l != "" {
		return &l
	}
	return nil
}
