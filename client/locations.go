package client

import (
	"context"
	"iter"
	"net/http"
)

// Locations: the hypervisor clusters machines are made in, the server's configured
// driver ("default") first. Operators alone read and write them; a tenant reads the
// ones it may make machines in (ClientLocations), without their settings.

// CreateLocation adds a location (operators); a taken name is ErrConflict, settings
// its driver refuses ErrInvalidRequest.
func (c *Client) CreateLocation(ctx context.Context, spec LocationSpec) (*Location, error) {
	return callFor[Location](ctx, c, http.MethodPost, "/api/resources/locations", nil, spec)
}

// Location reads one location ("default": the configured driver).
func (c *Client) Location(ctx context.Context, id string) (*Location, error) {
	return getRecord[Location](ctx, c, "/api/resources/locations/"+esc(id))
}

// UpdateLocation renames a location or replaces its proxmox settings (operators); the
// default location is ErrConflict.
func (c *Client) UpdateLocation(ctx context.Context, id string, ch LocationChange) (*Location, error) {
	return callFor[Location](ctx, c, http.MethodPatch, "/api/resources/locations/"+esc(id), nil, ch)
}

// DeleteLocation deletes a location (operators); the default one, or one that
// machines, nodes or pools belong to, is ErrConflict.
func (c *Client) DeleteLocation(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/locations/"+esc(id))
}

// LocationsPage reads one page of locations.
func (c *Client) LocationsPage(ctx context.Context, opt ListOptions) (Page[Location], error) {
	return getPage[Location](ctx, c, "/api/resources/locations", opt.values())
}

// Locations yields every location, the default one first, then the others oldest
// first.
func (c *Client) Locations(ctx context.Context, opt ListOptions) iter.Seq2[Location, error] {
	return all(ctx, opt, c.LocationsPage)
}

// ClientLocationsPage reads one page of the locations the tenant may make machines in
// (GET /api/client/locations; an operator's client names the tenant with ForTenant).
func (c *Client) ClientLocationsPage(ctx context.Context, opt ListOptions) (Page[OfferedLocation], error) {
	q := opt.values()
	for k, v := range c.clientQuery() {
		q[k] = v
	}
	return getPage[OfferedLocation](ctx, c, "/api/client/locations", q)
}

// ClientLocations yields every location the tenant may make machines in, the default
// one first.
func (c *Client) ClientLocations(ctx context.Context, opt ListOptions) iter.Seq2[OfferedLocation, error] {
	return all(ctx, opt, c.ClientLocationsPage)
}
