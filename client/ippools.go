package client

import (
	"context"
	"iter"
	"net/http"
)

// IP pools: the ranges machines are given their addresses from. Operators alone read
// and write them.

// CreateIPPool creates a pool (operators); a taken name is ErrConflict.
func (c *Client) CreateIPPool(ctx context.Context, spec IPPoolSpec) (*IPPool, error) {
	return callFor[IPPool](ctx, c, http.MethodPost, "/api/resources/ip-pools", nil, spec)
}

// IPPool reads one pool.
func (c *Client) IPPool(ctx context.Context, id string) (*IPPool, error) {
	return getRecord[IPPool](ctx, c, "/api/resources/ip-pools/"+esc(id))
}

// UpdateIPPool changes the fields of a pool that ch sets (operators).
func (c *Client) UpdateIPPool(ctx context.Context, id string, ch IPPoolChange) (*IPPool, error) {
	return callFor[IPPool](ctx, c, http.MethodPatch, "/api/resources/ip-pools/"+esc(id), nil, ch)
}

// DeleteIPPool deletes a pool (operators); one with allocated addresses is ErrConflict.
func (c *Client) DeleteIPPool(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/ip-pools/"+esc(id))
}

// IPPoolsPage reads one page of pools.
func (c *Client) IPPoolsPage(ctx context.Context, opt ListOptions) (Page[IPPool], error) {
	return c.IPPoolsPageIn(ctx, LocationFilter{ListOptions: opt})
}

// IPPoolsPageIn reads one page of the pools of f.Location (every pool when empty).
func (c *Client) IPPoolsPageIn(ctx context.Context, f LocationFilter) (Page[IPPool], error) {
	return getPage[IPPool](ctx, c, "/api/resources/ip-pools", f.values())
}

// IPPoolsIn yields every pool of f.Location (every pool when empty), oldest first.
func (c *Client) IPPoolsIn(ctx context.Context, f LocationFilter) iter.Seq2[IPPool, error] {
	return allIn(ctx, f, c.IPPoolsPageIn)
}

// IPPools yields every pool, oldest first.
func (c *Client) IPPools(ctx context.Context, opt ListOptions) iter.Seq2[IPPool, error] {
	return all(ctx, opt, c.IPPoolsPage)
}

// SetMachineAddressPTR sets the reverse DNS name of address, one of the addresses
// machine holds from the pools (an IPv6 prefix by its first address or the machine's
// ::1 in it), as an operator; "" clears it. Where the server pushes names to a DNS
// server, a server with no reverse zone for the address is ErrDNSZoneMissing and one
// that is down ErrDNSUnavailable, and nothing is stored.
func (c *Client) SetMachineAddressPTR(ctx context.Context, machineID, address, ptr string) (*Machine, error) {
	return callFor[Machine](ctx, c, http.MethodPut, "/api/virt/vms/"+esc(machineID)+"/addresses/"+esc(address)+"/ptr", nil, map[string]string{"ptr": ptr})
}

// SetMyMachineAddressPTR is SetMachineAddressPTR on one of the tenant's machines.
func (c *Client) SetMyMachineAddressPTR(ctx context.Context, machineID, address, ptr string) (*Machine, error) {
	return callFor[Machine](ctx, c, http.MethodPut, "/api/client/machines/"+esc(machineID)+"/addresses/"+esc(address)+"/ptr", c.clientQuery(), map[string]string{"ptr": ptr})
}

// AddMachineAddress gives machine one more address from the IP pools, as an operator
// (r.Version 4: an IPv4 address, r.Address the one asked for; 6: a routed /64). A
// machine of a plan holds at most the plan's counts (ErrConflict past them); no free
// address is ErrPoolExhausted, an address held ErrAddressTaken, one in no pool usable
// on the machine's node ErrAddressUnusable. It answers the machine with the address.
func (c *Client) AddMachineAddress(ctx context.Context, machineID string, r AddressRequest) (*Machine, error) {
	return callFor[Machine](ctx, c, http.MethodPost, "/api/virt/vms/"+esc(machineID)+"/addresses", nil, r)
}

// AddMyMachineAddress is AddMachineAddress on one of the tenant's machines, within its
// plan (a machine of no plan is ErrConflict for a tenant).
func (c *Client) AddMyMachineAddress(ctx context.Context, machineID string, r AddressRequest) (*Machine, error) {
	return callFor[Machine](ctx, c, http.MethodPost, "/api/client/machines/"+esc(machineID)+"/addresses", c.clientQuery(), r)
}

// RemoveMachineAddress takes address (an IPv6 prefix by its first address or the
// machine's ::1 in it) from machine, as an operator: the pool releases it after the
// cool-down. The machine's primary (first) address is ErrConflict, one it does not
// hold ErrNotFound.
func (c *Client) RemoveMachineAddress(ctx context.Context, machineID, address string) (*Machine, error) {
	return callFor[Machine](ctx, c, http.MethodDelete, "/api/virt/vms/"+esc(machineID)+"/addresses/"+esc(address), nil, nil)
}

// RemoveMyMachineAddress is RemoveMachineAddress on one of the tenant's machines.
func (c *Client) RemoveMyMachineAddress(ctx context.Context, machineID, address string) (*Machine, error) {
	return callFor[Machine](ctx, c, http.MethodDelete, "/api/client/machines/"+esc(machineID)+"/addresses/"+esc(address), c.clientQuery(), nil)
}
