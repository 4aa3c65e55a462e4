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
	return getPage[IPPool](ctx, c, "/api/resources/ip-pools", opt.values())
}

// IPPools yields every pool, oldest first.
func (c *Client) IPPools(ctx context.Context, opt ListOptions) iter.Seq2[IPPool, error] {
	return all(ctx, opt, c.IPPoolsPage)
}
