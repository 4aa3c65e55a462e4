package resources

import (
	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/httpedge/api"
)

// ipPoolResources are the registry entry of IP address pools. A pool belongs to no
// tenant and says how the operator's network is laid out, so operators alone read and
// write them; a tenant sees the addresses its machines hold on the machines.
func (h *handlers) ipPoolResources() []resource {
	svc := h.svc
	return []resource{
		{name: "ip-pools", read: api.AdminOnly, write: api.AdminOnly, summary: "IP address pools", item: itemOf[addresses.Pool](),
			query: locationQuery, createBody: addresses.PoolSpec{}, updateBody: addresses.PoolChange{},
			exempt: "pool names are unique: the retry of a create that applied is a 409 naming the pool, never a second pool",
			list: func(c *api.Call, _ *string, cursor string, limit int) (any, string, error) {
				return svc.IPPools.List(c.Context(), locationFilter(c), cursor, limit)
			},
			get: func(c *api.Call, _ *string, id string) (any, error) { return svc.IPPools.Get(c.Context(), id) },
			create: func(c *api.Call, _ *string, _ *string) (any, error) {
				var b addresses.PoolSpec
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				p, err := svc.IPPools.Create(c.Context(), b)
				if err != nil {
					return nil, err
				}
				return api.Created(p), nil
			},
			update: func(c *api.Call, _ *string, id string) (any, error) {
				var b addresses.PoolChange
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				return svc.IPPools.Update(c.Context(), id, b, c.Nulls())
			},
			delete: func(c *api.Call, _ *string, id string) (any, error) {
				return api.NoContent, svc.IPPools.Delete(c.Context(), id)
			},
		},
	}
}
