package apitype

import (
	"time"
)

// IPPool is a range of addresses: IPv4 handed out address by address, IPv6 as routed
// /64 prefixes. A pool serves only the machines made in its location, and a pool with
// a Node only machines on that node.
type IPPool struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	CIDR    string   `json:"cidr"`
	Gateway string   `json:"gateway"`
	Node    *string  `json:"node"`
	DNS     []string `json:"dns"`
	Version int64    `json:"version"`
	// LocationID is the location whose machines the pool serves ("default": the one
	// the server's settings configure).
	LocationID string `json:"location_id"`
	// Allocated is how many of the pool's addresses (IPv6: prefixes) machines hold,
	// counting those released but still cooling down.
	Allocated int64     `json:"allocated"`
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
	// LocationID is the location whose machines the pool serves; empty: default.
	LocationID string `json:"location_id,omitempty"`
}

// IPPoolChange is the body of UpdateIPPool: zero fields keep their value, Null clears
// one that may be null. The range never changes.
type IPPoolChange struct {
	Name    Optional[string]   `json:"name,omitzero"`
	Gateway Optional[string]   `json:"gateway,omitzero"`
	Node    Optional[string]   `json:"node,omitzero"`
	DNS     Optional[[]string] `json:"dns,omitzero"`
	// LocationID moves the pool to another location; Null: to the default one.
	LocationID Optional[string] `json:"location_id,omitzero"`
}

// AddressRequest is the body of AddMachineAddress: Version 4 for one more IPv4
// address (Address, when set, the one asked for), 6 for a routed IPv6 /64.
type AddressRequest struct {
	Version int64  `json:"version"`
	Address string `json:"address,omitempty"`
}
