package apitype

import (
	"time"
)

// IPPool is a range of addresses: IPv4 handed out address by address, IPv6 as routed
// /64 prefixes. A pool with a Node serves only machines on that node.
type IPPool struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	CIDR    string   `json:"cidr"`
	Gateway string   `json:"gateway"`
	Node    *string  `json:"node"`
	DNS     []string `json:"dns"`
	Version int64    `json:"version"`
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
}

// IPPoolChange is the body of UpdateIPPool: zero fields keep their value, Null clears
// one that may be null. The range never changes.
type IPPoolChange struct {
	Name    Optional[string]   `json:"name,omitzero"`
	Gateway Optional[string]   `json:"gateway,omitzero"`
	Node    Optional[string]   `json:"node,omitzero"`
	DNS     Optional[[]string] `json:"dns,omitzero"`
}

// AddressRequest is the body of AddMachineAddress: Version 4 for one more IPv4
// address (Address, when set, the one asked for), 6 for a routed IPv6 /64.
type AddressRequest struct {
	Version int64  `json:"version"`
	Address string `json:"address,omitempty"`
}
