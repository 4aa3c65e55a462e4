package apitype

import (
	"encoding/json"
	"time"
)

// Page is one page of a list: its items and the cursor of the next page ("" after
// the last).
type Page[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"next_cursor"`
}

// Quota is a tenant's limits (-1: unlimited), or its usage in an Overview.
type Quota struct {
	Machines int64 `json:"machines"`
	CPUCores int64 `json:"cpu_cores"`
	MemoryMB int64 `json:"memory_mb"`
	DiskGB   int64 `json:"disk_gb"`
	// Backups and Snapshots are counts: the backups on record, the snapshots of the
	// tenant's machines.
	Backups   int64 `json:"backups"`
	Snapshots int64 `json:"snapshots"`
	// BackupGB is the sizes of the backups on record, in GB (a usage rounds up).
	BackupGB int64 `json:"backup_gb"`
}

// QuotaChange sets some limits of a tenant (-1: unlimited); nil fields keep theirs (or
// take the default on create).
type QuotaChange struct {
	Machines *int64 `json:"machines,omitempty"`
	CPUCores *int64 `json:"cpu_cores,omitempty"`
	MemoryMB *int64 `json:"memory_mb,omitempty"`
	DiskGB   *int64 `json:"disk_gb,omitempty"`
	// Backups and Snapshots are counts, unlimited by default.
	Backups   *int64 `json:"backups,omitempty"`
	Snapshots *int64 `json:"snapshots,omitempty"`
	// BackupGB bounds the sizes of the backups on record, in GB; unlimited by default.
	BackupGB *int64 `json:"backup_gb,omitempty"`
}

// Tenant is a customer: the owner of machines, users and rules.
type Tenant struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Quota     Quota     `json:"quota"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// ExternalID is the id another system knows the tenant by (nil: none).
	ExternalID *string `json:"external_id"`
	// RequireTOTP: the tenant's users must sign in with a second factor.
	RequireTOTP bool `json:"require_totp"`
	// Suspension is nil, or why and since when the tenant is suspended.
	Suspension *Suspension `json:"suspension"`
}

// TenantCreate is the body of CreateTenant.
type TenantCreate struct {
	Name  string       `json:"name"`
	Quota *QuotaChange `json:"quota,omitempty"`
	// ExternalID is the id another system (a billing system) knows the tenant by.
	ExternalID string `json:"external_id,omitempty"`
	// RequireTOTP: the tenant's users must sign in with a second factor; one without
	// gets a login that may only enrol one (ErrTOTPEnrolmentRequired elsewhere).
	RequireTOTP bool `json:"require_totp,omitempty"`
}

// TenantChange is the body of UpdateTenant: nil fields keep their value.
type TenantChange struct {
	Name  *string      `json:"name,omitempty"`
	Quota *QuotaChange `json:"quota,omitempty"`
	// ExternalID sets the id another system knows the tenant by (Set), or removes
	// it (Null).
	ExternalID Optional[string] `json:"external_id,omitzero"`
	// RequireTOTP turns the second factor's requirement for the tenant's users on or off.
	RequireTOTP *bool `json:"require_totp,omitempty"`
}

// User is an account: an admin (operator) or a user of one tenant.
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	TenantID  *string   `json:"tenant_id"`
	Disabled  bool      `json:"disabled"`
	CreatedAt time.Time `json:"created_at"`
	// TOTPEnabled says the user's logins ask for a code of a second factor.
	TOTPEnabled bool `json:"totp_enabled"`
	// ExternalID is the id another system knows the user by (nil: none).
	ExternalID *string `json:"external_id"`
}

// TOTPEnrolment is a second factor being enrolled (Client.EnrolTOTP): its secret,
// shown once, and the otpauth:// URI authenticator apps read from a QR code.
type TOTPEnrolment struct {
	Secret string `json:"secret"`
	URI    string `json:"uri"`
}

// Session is one of the user's logins that has not ended (Client.Sessions).
type Session struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	// LastUsedAt is the last sign-in or refresh of the session.
	LastUsedAt time.Time `json:"last_used_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	ClientAddr string    `json:"client_address"`
	UserAgent  string    `json:"user_agent"`
	// Method is how the session was opened: "password", "totp" (a password and a
	// code of the second factor), "recovery_code" (a password and a recovery code) or
	// "login_link" (a login link an operator or a billing system made).
	Method string `json:"method"`
	// Current is the client's own session.
	Current bool `json:"current"`
}

// LoginLink is a single-use link that signs a tenant user in (Client.CreateLoginLink).
type LoginLink struct {
	// URL is the link to open in a browser; nil when the server has no public URL
	// set (then join /login-link?token=<Token> to the server's address).
	URL *string `json:"url"`
	// Token signs the user in once (WithLoginLink).
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// UserCreate is the body of CreateUser; TenantID is required for RoleUser.
type UserCreate struct {
	Email    string `json:"email"`
	Name     string `json:"name"`
	Role     string `json:"role"`
	Password string `json:"password"`
	TenantID string `json:"tenant_id,omitempty"`
	// ExternalID is the id another system (a billing system) knows the user by.
	ExternalID string `json:"external_id,omitempty"`
}

// UserChange is the body of UpdateUser: nil fields keep their value. A change of
// password, role, tenant or Disabled ends every login of the user.
type UserChange struct {
	Name     *string `json:"name,omitempty"`
	Password *string `json:"password,omitempty"`
	Role     *string `json:"role,omitempty"`
	TenantID *string `json:"tenant_id,omitempty"`
	Disabled *bool   `json:"disabled,omitempty"`
	// ExternalID sets the id another system knows the user by (Set), or removes it
	// (Null).
	ExternalID Optional[string] `json:"external_id,omitzero"`
}

// Template is an image machines are created from.
type Template struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	OS     string `json:"os"`
	DiskGB int64  `json:"disk_gb"`
	// Node is the one node that can make machines from the template (its disks are on
	// that node's local storage); empty: any node can.
	Node string `json:"node,omitempty"`
	// Location is the location (its id) that has the template; absent: the default
	// one. Another location's template id is id@location.
	Location string `json:"location,omitempty"`
}

// Disk is one disk of a machine.
type Disk struct {
	ID      string `json:"id"`
	Storage string `json:"storage"`
	SizeGB  int64  `json:"size_gb"`
}

// Interface is one network interface of a machine.
type Interface struct {
	ID          string   `json:"id"`
	MAC         string   `json:"mac"`
	Bridge      string   `json:"bridge"`
	VLAN        int64    `json:"vlan"`
	RateMbps    int64    `json:"rate_mbps"`
	Firewall    bool     `json:"firewall"`
	IPAddresses []string `json:"ip_addresses"`
}

// FirewallState is whether a machine's firewall rules are applied on its node.
type FirewallState struct {
	State     string    `json:"state"`
	Reason    string    `json:"reason,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Machine is a virtual machine.
type Machine struct {
	ID         string         `json:"id"`
	VMID       int64          `json:"vmid"`
	Name       string         `json:"name"`
	Node       string         `json:"node"`
	Status     string         `json:"status"`
	CPUCores   int64          `json:"cpu_cores"`
	MemoryMB   int64          `json:"memory_mb"`
	DiskGB     int64          `json:"disk_gb"`
	Disks      []Disk         `json:"disks"`
	Interfaces []Interface    `json:"interfaces"`
	TemplateID string         `json:"template_id"`
	TenantID   *string        `json:"tenant_id"`
	TaskID     *string        `json:"task_id"`
	Firewall   *FirewallState `json:"firewall"`
	CreatedAt  time.Time      `json:"created_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
	// PlanID is the plan the machine was made from or moved to (nil: explicit sizes).
	PlanID *string `json:"plan_id"`
	// Media is the image in the machine's CD-ROM drive (nil: none); BootOrder the
	// devices it boots from; Rescue whether it runs the rescue system.
	Media     *MountedISO `json:"media"`
	BootOrder []string    `json:"boot_order,omitempty"`
	Rescue    bool        `json:"rescue"`
	// Display says the machine has a display, so a vnc console (ConsoleVNC).
	Display bool `json:"display"`
	// BillingSuspension is nil, or why and since when an operator suspended the
	// machine for billing (SuspendMachineBilling).
	BillingSuspension *BillingSuspension `json:"billing_suspension"`
	// TerminateAt is nil, or when the machine is deleted with its snapshots and
	// backups (TerminateMachine).
	TerminateAt *time.Time `json:"terminate_at"`
	// Addresses are the addresses (IPv6: routed prefixes) the machine got from the
	// IP pools when it was made; empty: none.
	Addresses []MachineAddress `json:"addresses,omitempty"`
	// LocationID is the hypervisor cluster the machine is in ("default": the one the
	// server's settings configure).
	LocationID string `json:"location_id"`
}

// MachineAddress is an address a machine got from an IP pool: an IPv4 address in a
// network of Prefix bits, or an IPv6 /64 prefix (Address its first address; the
// machine is configured with its ::1).
type MachineAddress struct {
	Address string `json:"address"`
	Prefix  int64  `json:"prefix"`
	Gateway string `json:"gateway"`
	Version int64  `json:"version"`
	// Pool is the id of the pool the address is from.
	Pool string `json:"pool"`
	// PTR is the address's reverse DNS name (SetMyMachineAddressPTR); empty: none.
	PTR string `json:"ptr,omitempty"`
}

// MachineSpec is the body of CreateMachine: a plan (PlanID) or the three sizes.
type MachineSpec struct {
	Name       string `json:"name"`
	TemplateID string `json:"template_id"`
	// PlanID gives the machine a plan's sizes; the sizes are then left zero.
	PlanID   string   `json:"plan_id,omitempty"`
	CPUCores int64    `json:"cpu_cores,omitempty"`
	MemoryMB int64    `json:"memory_mb,omitempty"`
	DiskGB   int64    `json:"disk_gb,omitempty"`
	Node     string   `json:"node,omitempty"`
	Password string   `json:"password,omitempty"`
	SSHKeys  []string `json:"ssh_keys,omitempty"`
	// IPv4 and IPv6 ask the IP pools for addresses for a machine of explicit sizes
	// (operators only; a plan gives its own): nil takes none.
	IPv4 *int64 `json:"ipv4,omitempty"`
	IPv6 *bool  `json:"ipv6,omitempty"`
	// LocationID is the location the machine is made in: a plan's machine is made in
	// the plan's (naming another is ErrInvalidRequest); empty: the plan's, or default.
	LocationID string `json:"location_id,omitempty"`
	// Address asks for the machine's first IPv4 address ("": the lowest free);
	// a held one is ErrAddressTaken, one in no usable pool ErrAddressUnusable.
	Address string `json:"address,omitempty"`
}

// Resize is the body of ResizeMachine: zero fields keep their value.
type Resize struct {
	CPUCores int64 `json:"cpu_cores,omitempty"`
	MemoryMB int64 `json:"memory_mb,omitempty"`
	DiskGB   int64 `json:"disk_gb,omitempty"`
}

// Task states.
const (
	TaskQueued    = "queued"
	TaskRunning   = "running"
	TaskSucceeded = "succeeded"
	TaskFailed    = "failed"
)

// Task is slow work the server does after answering 202.
type Task struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	TargetType string          `json:"target_type"`
	TargetID   string          `json:"target_id"`
	TenantID   *string         `json:"tenant_id"`
	Status     string          `json:"status"`
	Error      *string         `json:"error"`
	CreatedAt  time.Time       `json:"created_at"`
	StartedAt  *time.Time      `json:"started_at"`
	FinishedAt *time.Time      `json:"finished_at"`
	Result     json.RawMessage `json:"result"`
}

// Done reports whether the task has ended (succeeded or failed).
func (t *Task) Done() bool { return t.Status == TaskSucceeded || t.Status == TaskFailed }

// FirewallRule is one rule of a tenant's firewall, for all its machines or one.
type FirewallRule struct {
	ID          string    `json:"id"`
	TenantID    string    `json:"tenant_id"`
	MachineID   *string   `json:"machine_id"`
	Direction   string    `json:"direction"`
	Action      string    `json:"action"`
	Protocol    string    `json:"protocol"`
	Source      *string   `json:"source"`
	Destination *string   `json:"destination"`
	Port        *string   `json:"port"`
	Enabled     bool      `json:"enabled"`
	Position    int64     `json:"position"`
	Comment     string    `json:"comment"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// FirewallRuleSpec is the body of CreateFirewallRule (and, with nil or zero fields
// left out, of UpdateFirewallRule).
type FirewallRuleSpec struct {
	Direction   string  `json:"direction,omitempty"` // in, out
	Action      string  `json:"action,omitempty"`    // accept, drop, reject
	Protocol    string  `json:"protocol,omitempty"`  // tcp, udp, icmp, any
	MachineID   *string `json:"machine_id,omitempty"`
	Source      *string `json:"source,omitempty"`
	Destination *string `json:"destination,omitempty"`
	Port        *string `json:"port,omitempty"`
	Enabled     *bool   `json:"enabled,omitempty"`
	Position    *int64  `json:"position,omitempty"`
	Comment     *string `json:"comment,omitempty"`
}

// MachineCounts counts a tenant's machines.
type MachineCounts struct {
	Total   int64 `json:"total"`
	Running int64 `json:"running"`
	Stopped int64 `json:"stopped"`
}

// Overview is a tenant's dashboard: machines, usage against quota, open alerts.
type Overview struct {
	Machines     MachineCounts `json:"machines"`
	Usage        Quota         `json:"usage"`
	Quota        Quota         `json:"quota"`
	AlertsOpen   int64         `json:"alerts_open"`
	Backups      int64         `json:"backups"`
	MissingNodes []string      `json:"missing_nodes"`
}

// Health is the answer of GET /api/health.
type Health struct {
	Status  string          `json:"status"`
	Version string          `json:"version"`
	UptimeS int64           `json:"uptime_s"`
	Checks  json.RawMessage `json:"checks"`
	// Cluster is set by a member of a cluster (nil on a single node).
	Cluster *ClusterHealth `json:"cluster,omitempty"`
}

// ClusterHealth is the cluster as the member that answered sees it.
type ClusterHealth struct {
	// Node is the answering member's name.
	Node string `json:"node"`
	// Store is where the cluster's state lives: "etcd".
	Store string `json:"store"`
	// Lease is the member's lease: "held" (healthy), "unconfirmed" (etcd did not renew
	// it in time, or has not said whether it survived an outage) or "lost".
	Lease string `json:"lease"`
	// Members are the live members.
	Members []MemberStatus `json:"members"`
}

// MemberStatus is one live member of a cluster.
type MemberStatus struct {
	Name   string `json:"name"`
	Addr   string `json:"addr"`
	Status string `json:"status"`
}
