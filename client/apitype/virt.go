package apitype

import (
	"time"
)

// Node is a hypervisor node. Its ID is the hypervisor's node name.
type Node struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Status   string `json:"status"` // online, offline
	CPUCores int64  `json:"cpu_cores"`
	MemoryMB int64  `json:"memory_mb"`
	DiskGB   int64  `json:"disk_gb"`
	// StorageGB is the room for the machines' disks (the node's storages for disk
	// images); 0 when the hypervisor does not tell.
	StorageGB int64     `json:"storage_gb"`
	Usage     NodeUsage `json:"usage"`
	UpdatedAt time.Time `json:"updated_at"`
	// LocationID is the hypervisor cluster the node is in ("default": the one the
	// server's settings configure); Name is its name there, ID unique across them.
	LocationID string `json:"location_id"`
}

// NodeUsage is a node's load at the last sync.
type NodeUsage struct {
	CPU       float64 `json:"cpu"` // fraction 0..1 of CPUCores
	MemBytes  int64   `json:"mem_bytes"`
	DiskBytes int64   `json:"disk_bytes"`
}

// SyncResult is what a sync of the hypervisor's inventory found.
type SyncResult struct {
	Nodes    int64 `json:"nodes"`
	Machines struct {
		Added   int64 `json:"added"`
		Updated int64 `json:"updated"`
		Removed int64 `json:"removed"`
	} `json:"machines"`
	// Backups counts the records of archives taken outside vmplane (a vzdump job of
	// Proxmox's own) that the sync adopted (origin "external"), and of those gone
	// from the hypervisor that it removed.
	Backups struct {
		Adopted int64 `json:"adopted"`
		Removed int64 `json:"removed"`
	} `json:"backups"`
	DurationMS int64 `json:"duration_ms"`
	// LocationsUnavailable names the locations whose inventory could not be read:
	// their machines, nodes and templates were left as they were.
	LocationsUnavailable []string `json:"locations_unavailable,omitempty"`
}

// Console is a ticket for a machine's serial console: a websocket at Path (joined
// to the origin the client reached the server at, as ws:// or wss://) or at URL, when
// the server knows its public URL. The ticket works once, within 60 seconds.
type Console struct {
	Type      string    `json:"type"`
	URL       string    `json:"url"`
	Path      string    `json:"path"`
	Ticket    string    `json:"ticket"`
	ExpiresAt time.Time `json:"expires_at"`
}

// MachineConfig is the body of ConfigureMachine: fields left zero keep their value.
type MachineConfig struct {
	Name     Optional[string] `json:"name,omitzero"`
	CPUCores Optional[int64]  `json:"cpu_cores,omitzero"`
	MemoryMB Optional[int64]  `json:"memory_mb,omitzero"`
}

// InterfaceChange changes one network interface, named by ID (net0, ...); fields
// left zero keep their value.
type InterfaceChange struct {
	ID       string           `json:"id"`
	Bridge   Optional[string] `json:"bridge,omitzero"`
	VLAN     Optional[int64]  `json:"vlan,omitzero"`
	RateMbps Optional[int64]  `json:"rate_mbps,omitzero"`
	Firewall Optional[bool]   `json:"firewall,omitzero"`
}

// DiskSpec is the body of AddDisk.
type DiskSpec struct {
	SizeGB  int64  `json:"size_gb"`
	Storage string `json:"storage,omitempty"` // default: the machine's first disk's
}

// Reinstall is the body of ReinstallMachine: the template to rebuild the system disk
// from, and the new credentials.
type Reinstall struct {
	TemplateID string   `json:"template_id"`
	Password   string   `json:"password,omitempty"`
	SSHKeys    []string `json:"ssh_keys,omitempty"`
}
