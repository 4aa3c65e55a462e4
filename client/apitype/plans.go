package apitype

import (
	"time"
)

// Plan is a machine size for sale and what a machine of it may have. A nil count is
// no bound. IPv4 and IPv6Prefix are the addresses each machine of the plan gets from
// the IP pools; TrafficGB is recorded for billing systems, not counted yet.
type Plan struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	CPUCores         int64    `json:"cpu_cores"`
	MemoryMB         int64    `json:"memory_mb"`
	DiskGB           int64    `json:"disk_gb"`
	IPv4             int64    `json:"ipv4"`
	IPv6Prefix       *int64   `json:"ipv6_prefix"`
	TrafficGB        *int64   `json:"traffic_gb"`
	RateMbps         *int64   `json:"rate_mbps"`
	Backups          *int64   `json:"backups"`
	Snapshots        *int64   `json:"snapshots"`
	AllowedTemplates []string `json:"allowed_templates"`
	// LocationID is the location the plan's machines are made in ("default": the one
	// the server's settings configure).
	LocationID string    `json:"location_id"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// PlanSpec is the body of CreatePlan; nil fields take their default (one IPv4
// address, no bounds, every template).
type PlanSpec struct {
	Name             string   `json:"name"`
	CPUCores         int64    `json:"cpu_cores"`
	MemoryMB         int64    `json:"memory_mb"`
	DiskGB           int64    `json:"disk_gb"`
	IPv4             *int64   `json:"ipv4,omitempty"`
	IPv6Prefix       *int64   `json:"ipv6_prefix,omitempty"`
	TrafficGB        *int64   `json:"traffic_gb,omitempty"`
	RateMbps         *int64   `json:"rate_mbps,omitempty"`
	Backups          *int64   `json:"backups,omitempty"`
	Snapshots        *int64   `json:"snapshots,omitempty"`
	AllowedTemplates []string `json:"allowed_templates,omitempty"`
	// LocationID is the location the plan's machines are made in; empty: default.
	LocationID string `json:"location_id,omitempty"`
}

// PlanChange is the body of UpdatePlan: zero fields keep their value, Null clears one
// that may be null.
type PlanChange struct {
	Name             Optional[string]   `json:"name,omitzero"`
	CPUCores         Optional[int64]    `json:"cpu_cores,omitzero"`
	MemoryMB         Optional[int64]    `json:"memory_mb,omitzero"`
	DiskGB           Optional[int64]    `json:"disk_gb,omitzero"`
	IPv4             Optional[int64]    `json:"ipv4,omitzero"`
	IPv6Prefix       Optional[int64]    `json:"ipv6_prefix,omitzero"`
	TrafficGB        Optional[int64]    `json:"traffic_gb,omitzero"`
	RateMbps         Optional[int64]    `json:"rate_mbps,omitzero"`
	Backups          Optional[int64]    `json:"backups,omitzero"`
	Snapshots        Optional[int64]    `json:"snapshots,omitzero"`
	AllowedTemplates Optional[[]string] `json:"allowed_templates,omitzero"`
	// LocationID moves the plan to another location; Null: to the default one.
	LocationID Optional[string] `json:"location_id,omitzero"`
}

// PlanCapacity is how many more machines of a plan fit on the nodes of its location
// now, node by node and in all, by the operator's overcommit ratios.
type PlanCapacity struct {
	PlanID     string     `json:"plan_id"`
	LocationID string     `json:"location_id"`
	Total      int64      `json:"total"`
	Nodes      []NodeRoom `json:"nodes"`
	Overcommit Overcommit `json:"overcommit"`
}

// NodeRoom is one node's room for machines of a plan: its free cores, memory and disk
// (its own times the ratios, less what vmplane's machines on it are given) and how
// many more fit (none on an offline node).
type NodeRoom struct {
	// Node is the node's id, Name its name in its location.
	Node         string `json:"node"`
	Name         string `json:"name"`
	LocationID   string `json:"location_id"`
	Online       bool   `json:"online"`
	Fits         int64  `json:"fits"`
	FreeCPUCores int64  `json:"free_cpu_cores"`
	FreeMemoryMB int64  `json:"free_memory_mb"`
	FreeDiskGB   int64  `json:"free_disk_gb"`
}

// Overcommit are the ratios of a capacity: how many times over a node's cores, memory
// and disk its machines may be given.
type Overcommit struct {
	CPU    float64 `json:"cpu"`
	Memory float64 `json:"memory"`
	Disk   float64 `json:"disk"`
}
