// Package hypervisor holds the boundary between vmplane and a hypervisor cluster: the
// narrow Driver interface, the data it speaks, and its typed errors. Drivers live in
// sub-packages: sim (the embedded simulated cluster) and proxmox (Proxmox VE).
//
// Every call takes a context and is cancellable. Calls that change a machine block until
// the hypervisor has finished the work (a Proxmox driver follows the UPID to its end), so
// callers run them outside any actor mailbox, as tasks.
package hypervisor

import (
	"context"
	"io"
	"time"
)

// Driver is what vmplane needs from a hypervisor cluster.
type Driver interface {
	// Name is the driver's route segment and config name: "sim", "proxmox".
	Name() string
	// Ping reports whether the hypervisor answers; nil means healthy.
	Ping(ctx context.Context) error

	// Inventory lists every node, machine and OS template the hypervisor has now. The
	// caller owns what it returns (the sync reorders its machines in place).
	Inventory(ctx context.Context) (Inventory, error)
	// Machine reads one machine's current state from the hypervisor.
	Machine(ctx context.Context, ref Ref) (Machine, error)

	// Create provisions a new machine from a template and returns it (stopped or
	// running as spec.Start says).
	Create(ctx context.Context, spec CreateSpec) (Machine, error)
	// Destroy stops (if needed) and deletes a machine and its disks.
	Destroy(ctx context.Context, ref Ref) error
	// Power performs a power action. Actions the machine's state forbids fail with
	// apierr.ErrInvalidState.
	Power(ctx context.Context, ref Ref, action PowerAction) error
	// Migrate moves a machine to another node and returns the machine as it is there.
	Migrate(ctx context.Context, ref Ref, targetNode string, online bool) (Machine, error)
	// Configure changes name, cores or memory; nil fields stay as they are.
	Configure(ctx context.Context, ref Ref, change ConfigChange) (Machine, error)
	// SetNetwork changes interfaces by id; nil fields stay as they are.
	SetNetwork(ctx context.Context, ref Ref, changes []InterfaceChange) (Machine, error)
	// AddDisk attaches a new disk and returns it.
	AddDisk(ctx context.Context, ref Ref, sizeGB int, storage string) (Disk, error)
	// ResizeDisk grows a disk to sizeGB; shrinking fails with apierr.ErrInvalidRequest.
	ResizeDisk(ctx context.Context, ref Ref, diskID string, sizeGB int) (Machine, error)
	// Reinstall rebuilds the machine's system disk from a template, keeping its vmid,
	// node, resources and interfaces, and leaves it running.
	Reinstall(ctx context.Context, ref Ref, spec ReinstallSpec) (Machine, error)

	// Console opens the machine's console. The caller must Close it.
	Console(ctx context.Context, ref Ref) (Console, error)
	// Display opens the machine's graphical console (Type "vnc"): an RFB 3.8 stream
	// that offers the caller security None, the driver having authenticated to the
	// hypervisor's VNC server itself, so no hypervisor credential reaches the caller.
	// A machine without a display (Machine.Headless) answers ErrWrongState. The caller
	// must Close it.
	Display(ctx context.Context, ref Ref) (Console, error)

	// Usage returns a usage graph of one machine or node at a timeframe.
	Usage(ctx context.Context, q UsageQuery) (UsageGraph, error)

	// SetFirewall replaces a machine's firewall rule set (in order) and enables the
	// firewall on the machine and its interfaces.
	SetFirewall(ctx context.Context, ref Ref, rules []FirewallRule) error

	// Backup takes a backup now and returns it.
	Backup(ctx context.Context, ref Ref, mode BackupMode) (Backup, error)
	// Backups lists a machine's backups, oldest first.
	Backups(ctx context.Context, ref Ref) ([]Backup, error)
	// DeleteBackup deletes one backup.
	DeleteBackup(ctx context.Context, ref Ref, backupID string) error
	// RestoreBackup restores a machine from one of its backups.
	RestoreBackup(ctx context.Context, ref Ref, backupID string) (Machine, error)
	// RestoreNew restores one of from's backups into a new machine (from may be gone:
	// backups outlive their machine), stopped, with fresh MACs (Proxmox's unique=1),
	// and returns it; the source machine is left as it is.
	RestoreNew(ctx context.Context, from Ref, backupID string, spec RestoreSpec) (Machine, error)

	// Snapshots lists a machine's snapshots, oldest first.
	Snapshots(ctx context.Context, ref Ref) ([]Snapshot, error)
	// CreateSnapshot takes a snapshot of the machine's disks and, with
	// spec.IncludeMemory, of its memory (a running or suspended machine only), and
	// returns it. The spec is checked with CheckSnapshot.
	CreateSnapshot(ctx context.Context, ref Ref, spec SnapshotSpec) (Snapshot, error)
	// RollbackSnapshot brings the machine back to a snapshot (name, resources, disks,
	// interfaces) and returns it: running when the snapshot holds memory, stopped
	// otherwise, as Proxmox leaves it. Later snapshots stay.
	RollbackSnapshot(ctx context.Context, ref Ref, name string) (Machine, error)
	// DeleteSnapshot deletes one snapshot; its children take its parent as theirs.
	DeleteSnapshot(ctx context.Context, ref Ref, name string) error

	// Media: ISO images, CD-ROM drives and boot orders (media.go).
	Media
}

// Prober is an optional interface of a driver whose machines sit on no network vmplane
// can reach, the simulated cluster: it answers health probes of the addresses it owns
// itself, from the machines' state, without any traffic. Health checks ask it first
// and probe the network only for an address it does not own (owned false).
type Prober interface {
	// ProbeTCP answers a TCP connect to addr ("host:port"): nil when the machine accepts
	// the connection, else the error a real connect would meet (connection refused,
	// no route to host).
	ProbeTCP(ctx context.Context, addr string) (owned bool, err error)
	// ProbeHTTP answers an HTTP GET of an http(s) URL: the status the machine's web
	// server answers, or the error a real request would meet.
	ProbeHTTP(ctx context.Context, url string) (status int, owned bool, err error)
}

// TaskFollower is an optional interface of a driver whose operations run on the
// hypervisor, not in vmplane's process: a Proxmox task (a migration, a clone, a power
// action) goes on after the process that started it died. A task such a process left
// open is settled only once the hypervisor is done with the machine, so it ends with
// the operation's real outcome instead of "interrupted". The sim needs none: its
// operations die with their process.
type TaskFollower interface {
	// WaitIdle returns nil once the hypervisor runs no task on the machine any more
	// (at once when it runs none), the context's error when ctx ends first, or the
	// error that kept it from looking.
	WaitIdle(ctx context.Context, ref Ref) error
}

// MachinePager is a driver that hands its machines over a page at a time: the
// simulated cluster, whose whole fleet lives in this process. A caller that goes
// through every machine (the sync) then holds one page of copies instead of a second
// copy of the fleet: a million simulated machines' Inventory was 400–630 MB of heap
// (issue 33). A wrapper of such a driver that changes what Inventory answers must
// change these two as well, or the sync reads around it.
type MachinePager interface {
	// InventoryHead is Inventory without the machines: Machines is empty, every other
	// field (the nodes with their usage, the running machines' Traffic) as Inventory's.
	InventoryHead(ctx context.Context) (Inventory, error)
	// MachinePages hands page the machines, deep copies in ascending vmid order, at
	// most n at a time, until every machine was handed over or page returns an error,
	// which MachinePages returns. A page is the caller's to keep or change. Each page
	// is read on its own, so a machine made or destroyed while they are read may be
	// missing (as from an inventory that lags); none is handed over twice.
	MachinePages(ctx context.Context, n int, page func([]Machine) error) error
}

// Ref names a machine on the hypervisor: its vmid, and the node it is believed to be on
// (drivers re-resolve the node when it moved).
type Ref struct {
	VMID int    `json:"vmid"`
	Node string `json:"node"`
	// Location is the hypervisor cluster the machine is in (a location's id); "" is
	// the default location, the one the settings configure. Vmids and node names
	// repeat across clusters: a ref means something only within its location. A
	// single driver ignores it; the dispatcher (hypervisor/locations) routes by it.
	Location string `json:"location,omitempty"`
}

// Inventory is everything a hypervisor has at one moment.
type Inventory struct {
	Nodes     []Node     `json:"nodes"`
	Machines  []Machine  `json:"machines"`
	Templates []Template `json:"templates"`
	// Backups are the archives on the backup storage, every machine's (those vmplane
	// took and those taken outside it, such as Proxmox's vzdump jobs), oldest first,
	// when BackupsListed: a driver that could not list them leaves it false, and the
	// caller keeps what it knew.
	Backups       []Backup `json:"backups,omitempty"`
	BackupsListed bool     `json:"backups_listed,omitempty"`
	// AsOf is the oldest moment the machines' states may describe, for a driver whose
	// inventory lags (Proxmox's /cluster/resources is refreshed by pvestatd every 10
	// s); zero means the states are live. A caller must not let such a state override
	// one it confirmed live after AsOf.
	AsOf time.Time `json:"as_of,omitempty"`
	// Traffic is the network counters of the running machines, by vmid: the bytes
	// each received and sent since its process started (Proxmox's netin and netout),
	// which a restart sets back to 0. A machine not listed counts nothing now (it is
	// stopped, or its node is offline); a driver that counts nothing leaves it nil.
	Traffic map[int]TrafficCounters `json:"traffic,omitempty"`
}

// TrafficCounters are a machine's cumulative network counters, in bytes.
type TrafficCounters struct {
	In  uint64 `json:"in"`
	Out uint64 `json:"out"`
}

// NodeStatus is online or offline.
type NodeStatus string

// Node statuses.
const (
	NodeOnline  NodeStatus = "online"
	NodeOffline NodeStatus = "offline"
)

// Node is one hypervisor host. Its ID is the hypervisor's node name ("pve1").
type Node struct {
	ID string `json:"id"`
	// Location is the cluster the node is in ("": the default location); the
	// dispatcher tags what each location lists.
	Location string     `json:"location,omitempty"`
	Status   NodeStatus `json:"status"`
	CPUCores int        `json:"cpu_cores"`
	MemoryMB int        `json:"memory_mb"`
	DiskGB   int        `json:"disk_gb"`
	// StorageGB is the room for the machines' disks the node has: its storages for
	// disk images (a shared one counted on each node that has it), which on Proxmox
	// are not its DiskGB (the root filesystem); 0 when the driver cannot tell (a
	// Proxmox token without Datastore.Audit sees no storages).
	StorageGB int `json:"storage_gb,omitempty"`
	// Current usage, at the moment of the inventory.
	CPU       float64 `json:"cpu"` // fraction 0..1 of CPUCores
	MemBytes  int64   `json:"mem_bytes"`
	DiskBytes int64   `json:"disk_bytes"`
}

// State is a machine's power state as the hypervisor reports it.
type State string

// Machine states on the hypervisor.
const (
	StateRunning   State = "running"
	StateStopped   State = "stopped"
	StateSuspended State = "suspended"
)

// Machine is one virtual machine as the hypervisor sees it.
type Machine struct {
	VMID int    `json:"vmid"`
	Name string `json:"name"`
	Node string `json:"node"`
	// Location is the cluster the machine is in ("": the default location); the
	// dispatcher tags what each location answers.
	Location   string      `json:"location,omitempty"`
	State      State       `json:"state"`
	CPUCores   int         `json:"cpu_cores"`
	MemoryMB   int         `json:"memory_mb"`
	Disks      []Disk      `json:"disks"`
	Interfaces []Interface `json:"interfaces"`
	TemplateID string      `json:"template_id"`
	// Media is the ISO image in the machine's CD-ROM drive; "" for none.
	Media string `json:"media,omitempty"`
	// BootOrder lists the devices the machine boots from (BootDevices), in order.
	BootOrder []string `json:"boot_order,omitempty"`
	// Headless says the machine has no display, so no graphical console (Proxmox:
	// "vga: none" or "vga: serialN"). The zero value, a display, is what machines
	// recorded before the field existed have.
	Headless bool `json:"headless,omitempty"`
	// Summary says only the cluster's list of resources was read, because the
	// machine's node is down (Proxmox answers nothing about its configuration): its
	// state, node, cores and memory are known, but its disks (only their total),
	// interfaces, media, boot order and display are not, and a record keeps what it
	// knew of them.
	Summary bool `json:"summary,omitempty"`
	// Nameservers are the resolvers cloud-init gives the guest (Proxmox's
	// nameserver), as the machine was created with them; none: the template's or DHCP's.
	Nameservers []string `json:"nameservers,omitempty"`
}

// DiskGB is the sum of the machine's disk sizes.
func (m Machine) DiskGB() int {
	n := 0
	for _, d := range m.Disks {
		n += d.SizeGB
	}
	return n
}

// Disk is one virtual disk ("scsi0").
type Disk struct {
	ID      string `json:"id"`
	Storage string `json:"storage"`
	SizeGB  int    `json:"size_gb"`
}

// Interface is one network interface ("net0").
type Interface struct {
	ID          string   `json:"id"`
	MAC         string   `json:"mac"`
	Bridge      string   `json:"bridge"`
	VLAN        int      `json:"vlan"`      // 0: untagged
	RateMbps    int      `json:"rate_mbps"` // 0: unlimited
	Firewall    bool     `json:"firewall"`
	IPAddresses []string `json:"ip_addresses"`
}

// Address is an address (or, for IPv6, a routed prefix) vmplane gave a machine from
// one of its pools, with what the machine's network configuration needs of it.
type Address struct {
	// Address is the address, or the prefix's first address for IPv6.
	Address string `json:"address"`
	// Prefix is the length of the network the address is in (IPv4: the pool's; IPv6:
	// the routed prefix's, 64).
	Prefix  int    `json:"prefix"`
	Gateway string `json:"gateway"`
	Version int    `json:"version"`
	// Pool is the id of the pool the address is from.
	Pool string `json:"pool"`
	// PTR is the address's reverse DNS name, as its tenant set it (empty: none); the
	// drivers have no use for it.
	PTR string `json:"ptr,omitempty"`
}

// Template is an OS template machines are created and reinstalled from.
type Template struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	OS     string `json:"os"`
	DiskGB int    `json:"disk_gb"` // minimum system disk
	// Node, when set, is the one node that can make machines from the template (its
	// disks are on that node's local storage); empty: any node can.
	Node string `json:"node,omitempty"`
	// Location is the cluster that has the template ("": the default location).
	Location string `json:"location,omitempty"`
}

// CreateSpec describes a new machine.
type CreateSpec struct {
	// VMID 0: the driver picks the next free vmid; when another client (another
	// member of a vmplane cluster) takes it first, the driver takes the next one
	// rather than failing. A vmid given that exists fails with ErrVMIDInUse.
	VMID int    `json:"vmid"`
	Name string `json:"name"`
	Node string `json:"node"` // "": the driver picks the least loaded online node
	// Location is the cluster the machine is made in ("": the default location).
	Location   string   `json:"location,omitempty"`
	TemplateID string   `json:"template_id"`
	CPUCores   int      `json:"cpu_cores"`
	MemoryMB   int      `json:"memory_mb"`
	DiskGB     int      `json:"disk_gb"`
	Password   string   `json:"password,omitempty"`
	SSHKeys    []string `json:"ssh_keys,omitempty"`
	Start      bool     `json:"start"`
	// Addresses are the addresses vmplane gave the machine from its pools; none: the
	// machine's network is configured outside vmplane (DHCP, the template).
	Addresses []Address `json:"addresses,omitempty"`
	// Nameservers are the resolvers the guest is told to use (the DNS of the pools
	// its addresses are from); none: the template's or DHCP's.
	Nameservers []string `json:"nameservers,omitempty"`
}

// PowerAction is one of the hypervisor's power actions.
type PowerAction string

// Power actions, named as Proxmox names them.
const (
	ActionStart    PowerAction = "start"
	ActionStop     PowerAction = "stop"
	ActionShutdown PowerAction = "shutdown"
	ActionReboot   PowerAction = "reboot"
	ActionReset    PowerAction = "reset"
	ActionSuspend  PowerAction = "suspend"
	ActionResume   PowerAction = "resume"
)

// PowerActions lists every power action in the contract's order.
var PowerActions = []PowerAction{ActionStart, ActionStop, ActionShutdown, ActionReboot, ActionReset, ActionSuspend, ActionResume}

// ConfigChange is a partial change of a machine's configuration.
type ConfigChange struct {
	Name     *string `json:"name,omitempty"`
	CPUCores *int    `json:"cpu_cores,omitempty"`
	MemoryMB *int    `json:"memory_mb,omitempty"`
}

// InterfaceChange is a partial change of one interface, named by ID.
type InterfaceChange struct {
	ID       string  `json:"id" openapi:"required,minLength=1,limit=hypervisor.interface_id"`
	Bridge   *string `json:"bridge,omitempty" openapi:"minLength=1,limit=hypervisor.name"`
	VLAN     *int    `json:"vlan,omitempty" openapi:"limit=machine.vlan"`
	RateMbps *int    `json:"rate_mbps,omitempty" openapi:"limit=machine.rate_mbps"`
	Firewall *bool   `json:"firewall,omitempty"`
}

// ReinstallSpec names the template and the new credentials.
type ReinstallSpec struct {
	TemplateID string   `json:"template_id"`
	Password   string   `json:"password,omitempty"`
	SSHKeys    []string `json:"ssh_keys,omitempty"`
}

// Console is an open console session: bytes written go to the machine's console,
// bytes read come from it.
type Console interface {
	// Close may be called more than once, and from another goroutine than Read's.
	io.ReadWriteCloser
	// Type is "serial" or "vnc".
	Type() string
}

// Timeframe is one of the five usage graph timeframes.
type Timeframe string

// Timeframes, with the Proxmox VE 9 resolutions.
const (
	TimeframeHour  Timeframe = "hour"
	TimeframeDay   Timeframe = "day"
	TimeframeWeek  Timeframe = "week"
	TimeframeMonth Timeframe = "month"
	TimeframeYear  Timeframe = "year"
)

// Resolution returns the bucket width and point count of a timeframe in Proxmox VE
// 9's layout (which the sim keeps), and false for an unknown timeframe. It is not what
// every hypervisor keeps (Proxmox VE 8 keeps 70 points per timeframe above the hour):
// a graph's own ResolutionSeconds is what its points are spaced by.
func (t Timeframe) Resolution() (step time.Duration, points int, ok bool) {
	switch t {
	case TimeframeHour:
		return time.Minute, 60, true
	case TimeframeDay:
		return time.Minute, 1440, true
	case TimeframeWeek:
		return 30 * time.Minute, 336, true
	case TimeframeMonth:
		return 30 * time.Minute, 1440, true
	case TimeframeYear:
		return 6 * time.Hour, 1440, true
	}
	return 0, 0, false
}

// Timeframes lists the valid timeframes.
var Timeframes = []Timeframe{TimeframeHour, TimeframeDay, TimeframeWeek, TimeframeMonth, TimeframeYear}

// UsageScope says whether a usage query is about a machine or a node.
type UsageScope string

// Usage scopes.
const (
	ScopeMachine UsageScope = "machine"
	ScopeNode    UsageScope = "node"
)

// UsageQuery asks for one usage graph. For ScopeNode, Ref.Node names the node.
type UsageQuery struct {
	Scope     UsageScope `json:"scope"`
	Ref       Ref        `json:"ref"`
	Timeframe Timeframe  `json:"timeframe"`
	// End is the end of the graph; zero means now. Buckets are aligned to the step.
	End time.Time `json:"end"`
}

// UsageGraph is a series of evenly spaced usage points, oldest first.
// ResolutionSeconds is the spacing of the points, as the hypervisor keeps them.
type UsageGraph struct {
	Timeframe         Timeframe    `json:"timeframe"`
	ResolutionSeconds int          `json:"resolution_seconds"`
	Points            []UsagePoint `json:"points"`
}

// UsagePoint is one bucket. A nil field is a gap (no data for that bucket).
type UsagePoint struct {
	Time          time.Time `json:"time"`
	CPU           *float64  `json:"cpu"` // fraction 0..1 of CPUCores
	CPUCores      *float64  `json:"cpu_cores"`
	MemBytes      *float64  `json:"mem_bytes"`
	MemTotalBytes *float64  `json:"mem_total_bytes"`
	NetInBps      *float64  `json:"net_in_bps"`
	NetOutBps     *float64  `json:"net_out_bps"`
	DiskReadBps   *float64  `json:"disk_read_bps"`
	DiskWriteBps  *float64  `json:"disk_write_bps"`
}

// FirewallRule is one rule as pushed to the hypervisor, in evaluation order.
type FirewallRule struct {
	Direction   string `json:"direction"` // in | out
	Action      string `json:"action"`    // accept | drop | reject
	Protocol    string `json:"protocol"`  // tcp | udp | icmp | any
	Port        string `json:"port,omitempty"`
	Source      string `json:"source,omitempty"`
	Destination string `json:"destination,omitempty"`
	Enabled     bool   `json:"enabled"`
	Comment     string `json:"comment,omitempty"`
}

// BackupMode is how a backup is taken.
type BackupMode string

// Backup modes, as Proxmox vzdump names them.
const (
	BackupSnapshot BackupMode = "snapshot"
	BackupSuspend  BackupMode = "suspend"
	BackupStop     BackupMode = "stop"
)

// Backup is one stored backup of a machine.
type Backup struct {
	ID   string `json:"id"`
	VMID int    `json:"vmid"`
	Node string `json:"node"`
	// Location is the cluster the backup is stored in ("": the default location).
	Location  string     `json:"location,omitempty"`
	Storage   string     `json:"storage"`
	Mode      BackupMode `json:"mode"`
	SizeBytes int64      `json:"size_bytes"`
	CreatedAt time.Time  `json:"created_at"`
}

// RestoreSpec says where a backup is restored as a new machine.
type RestoreSpec struct {
	// VMID 0: the driver picks the next free vmid; a vmid given that exists fails
	// with ErrVMIDInUse.
	VMID int `json:"vmid,omitempty"`
	// Node "": the backup's node when its storage is local to one, else the least
	// loaded online node.
	Node string `json:"node,omitempty"`
	// Name "": the name the backup holds.
	Name string `json:"name,omitempty"`
	// Addresses are the addresses vmplane gave the new machine from its pools, which
	// replace the backup's network configuration (net0's, cloud-init's ipconfig0);
	// none: the machine keeps what the backup holds.
	Addresses []Address `json:"addresses,omitempty"`
}

// Snapshot is one snapshot of a machine: its configuration and disks, and with
// IncludesMemory its memory, as they were at CreatedAt.
type Snapshot struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	// IncludesMemory says the snapshot holds the machine's memory (Proxmox's vmstate):
	// a rollback to it leaves the machine running where it was.
	IncludesMemory bool `json:"includes_memory"`
	// Parent is the snapshot the machine was at when this one was taken (the last
	// taken or rolled back to); "" for none.
	Parent string `json:"parent,omitempty"`
}

// SnapshotSpec asks for a new snapshot.
type SnapshotSpec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// IncludeMemory saves the memory of a running machine with the snapshot.
	IncludeMemory bool `json:"include_memory,omitempty"`
}
