package client

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// IP pools: the ranges machines are given their addresses from. Operators alone read
// and write them.

// IPPool is a range of addresses: IPv4 handed out address by address, IPv6 as routed
// /64 prefixes. A pool with a Node serves only machines on that node.
type IPPool struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CIDR      string    `json:"cidr"`
	Gateway   string    `json:"gateway"`
	Node      *string   `json:"node"`
	DNS       []string  `json:"dns"`
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// IPPoolSpec is the body of CreateIPPool; the version comes from CIDR.
type IPPoolSpec struct {
	Name    string   `json:"name"`
	CIDR    string   `json:"cidr"`
	Gateway string   `json:"gateway"`
	Node    *string  `json:"node,omitempty"`
	DNS     []string `json:"dns,omitempty"`
}

// IPPoolChange is the body of UpdateIPPool: zero fields keep their value, Null clears
// one that may be null. The range never changes.
type IPPoolChange struct {
	Name    Optional[string]   `json:"name,omitzero"`
	Gateway Optional[string]   `json:"gateway,omitzero"`
	Node    Optional[string]   `json:"node,omitzero"`
	DNS     Optional[[]string] `json:"dns,omitzero"`
}

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
