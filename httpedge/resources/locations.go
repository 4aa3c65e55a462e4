package resources

import (
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/httpedge/api"
)

// locationResources are the registry entry of locations: the hypervisor clusters
// machines are made in. Their settings hold the operator's infrastructure, so
// operators alone read and write them; the default location ("default", the server's
// configured driver) is listed first and is neither changed nor deleted.
func (h *handlers) locationResources() []resource {
	svc := h.svc
	return []resource{
		{name: "locations", read: api.AdminOnly, write: api.AdminOnly, summary: "locations (hypervisor clusters)", item: itemOf[locations.Location](),
			createBody: locations.LocationSpec{}, updateBody: locations.LocationChange{},
			exempt: "location names are unique: the retry of a create that applied is a 409 naming the location, never a second one",
			list: func(c *api.Call, _ *string, cursor string, limit int) (any, string, error) {
				return svc.Locations.List(c.Context(), cursor, limit)
			},
			get: func(c *api.Call, _ *string, id string) (any, error) { return svc.Locations.Get(c.Context(), id) },
			create: func(c *api.Call, _ *string, _ *string) (any, error) {
				var b locations.LocationSpec
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				l, err := svc.Locations.Create(c.Context(), b)
				if err != nil {
					return nil, err
				}
				return api.Created(l), nil
			},
			update: func(c *api.Call, _ *string, id string) (any, error) {
				var b locations.LocationChange
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				return svc.Locations.Update(c.Context(), id, b)
			},
			delete: func(c *api.Call, _ *string, id string) (any, error) {
				return api.NoContent, svc.Locations.Delete(c.Context(), id)
			},
		},
	}
}
