package client

import "github.com/vmplane/vmplane/client/apitype"

// The records of the API, and the bodies the calls send, are the types of package
// apitype (one file a kind there, as here), aliased here so that callers keep their
// names: client.Machine is apitype.Machine, and either spelling takes the other.
type (
	Alert = apitype.Alert

	APIKey     = apitype.APIKey
	NewAPIKey  = apitype.NewAPIKey
	APIKeySpec = apitype.APIKeySpec

	AuditEntry = apitype.AuditEntry

	Backup         = apitype.Backup
	RestoreNewSpec = apitype.RestoreNewSpec

	Suspension        = apitype.Suspension
	SuspendSpec       = apitype.SuspendSpec
	BillingSuspension = apitype.BillingSuspension

	Event = apitype.Event

	FirewallRulePatch = apitype.FirewallRulePatch

	HealthCheck       = apitype.HealthCheck
	CheckResult       = apitype.CheckResult
	ProbeResult       = apitype.ProbeResult
	HealthCheckSpec   = apitype.HealthCheckSpec
	HealthCheckChange = apitype.HealthCheckChange

	IPPool         = apitype.IPPool
	IPPoolSpec     = apitype.IPPoolSpec
	IPPoolChange   = apitype.IPPoolChange
	AddressRequest = apitype.AddressRequest

	Location            = apitype.Location
	LocationProxmox     = apitype.LocationProxmox
	LocationSpec        = apitype.LocationSpec
	LocationProxmoxSpec = apitype.LocationProxmoxSpec
	LocationChange      = apitype.LocationChange
	OfferedLocation     = apitype.OfferedLocation

	ISO        = apitype.ISO
	ISOSpec    = apitype.ISOSpec
	ISOAdded   = apitype.ISOAdded
	MountedISO = apitype.MountedISO

	MachineDetail = apitype.MachineDetail
	Snapshot      = apitype.Snapshot
	SnapshotSpec  = apitype.SnapshotSpec
	BackupSpec    = apitype.BackupSpec

	MachineChange = apitype.MachineChange

	MonitoringOverview = apitype.MonitoringOverview
	OverviewNodes      = apitype.OverviewNodes
	OverviewMachines   = apitype.OverviewMachines
	OverviewAlerts     = apitype.OverviewAlerts
	OverviewChecks     = apitype.OverviewChecks
	OverviewCapacity   = apitype.OverviewCapacity
	FaultyDeployment   = apitype.FaultyDeployment
	ClusterForecast    = apitype.ClusterForecast
	ResourceForecast   = apitype.ResourceForecast
	ForecastPoint      = apitype.ForecastPoint
	Trends             = apitype.Trends
	TrendPoint         = apitype.TrendPoint
	UsageGraph         = apitype.UsageGraph
	ClusterUsage       = apitype.ClusterUsage
	UsagePoint         = apitype.UsagePoint

	OIDCProvider = apitype.OIDCProvider

	Plan         = apitype.Plan
	PlanSpec     = apitype.PlanSpec
	PlanChange   = apitype.PlanChange
	PlanCapacity = apitype.PlanCapacity
	NodeRoom     = apitype.NodeRoom
	Overcommit   = apitype.Overcommit

	ScheduleBase         = apitype.ScheduleBase
	PowerSchedule        = apitype.PowerSchedule
	BackupSchedule       = apitype.BackupSchedule
	PowerScheduleSpec    = apitype.PowerScheduleSpec
	PowerScheduleChange  = apitype.PowerScheduleChange
	BackupScheduleSpec   = apitype.BackupScheduleSpec
	BackupScheduleChange = apitype.BackupScheduleChange

	Optional[T any]  = apitype.Optional[T]
	Page[T any]      = apitype.Page[T]
	Quota            = apitype.Quota
	QuotaChange      = apitype.QuotaChange
	Tenant           = apitype.Tenant
	TenantCreate     = apitype.TenantCreate
	TenantChange     = apitype.TenantChange
	User             = apitype.User
	TOTPEnrolment    = apitype.TOTPEnrolment
	Session          = apitype.Session
	LoginLink        = apitype.LoginLink
	UserCreate       = apitype.UserCreate
	UserChange       = apitype.UserChange
	Template         = apitype.Template
	Disk             = apitype.Disk
	Interface        = apitype.Interface
	FirewallState    = apitype.FirewallState
	Machine          = apitype.Machine
	MachineAddress   = apitype.MachineAddress
	MachineSpec      = apitype.MachineSpec
	Resize           = apitype.Resize
	Task             = apitype.Task
	FirewallRule     = apitype.FirewallRule
	FirewallRuleSpec = apitype.FirewallRuleSpec
	MachineCounts    = apitype.MachineCounts
	Overview         = apitype.Overview
	Health           = apitype.Health
	ClusterHealth    = apitype.ClusterHealth
	MemberStatus     = apitype.MemberStatus

	UsageLine      = apitype.UsageLine
	UsageReport    = apitype.UsageReport
	MachineTraffic = apitype.MachineTraffic
	TrafficOverage = apitype.TrafficOverage

	Node            = apitype.Node
	NodeUsage       = apitype.NodeUsage
	SyncResult      = apitype.SyncResult
	Console         = apitype.Console
	MachineConfig   = apitype.MachineConfig
	InterfaceChange = apitype.InterfaceChange
	DiskSpec        = apitype.DiskSpec
	Reinstall       = apitype.Reinstall

	Webhook         = apitype.Webhook
	NewWebhook      = apitype.NewWebhook
	WebhookSpec     = apitype.WebhookSpec
	WebhookChange   = apitype.WebhookChange
	WebhookDelivery = apitype.WebhookDelivery
	WebhookAttempt  = apitype.WebhookAttempt
)

// ListOptions selects one page: at most Limit items (1..500; 0: the server's
// default of 50) after Cursor (a previous page's NextCursor; "" for the first).
type ListOptions struct {
	Limit  int
	Cursor string
}

// LocationFilter selects the records of one location in the lists of records that
// belong to one (plans, IP pools): its id, or "default"; empty does not filter.
type LocationFilter struct {
	Location string
	ListOptions
}

// MachineFilter selects machines in Machines and MachinesPage; empty fields do not filter.
type MachineFilter struct {
	Name   string
	Node   string
	Status string
	// TenantID: operators only, the tenant whose machines to list.
	TenantID string
	ListOptions
}

// Roles of a user.
const (
	RoleAdmin = "admin"
	RoleUser  = "user"
)

// Task states (Task.Status).
const (
	TaskQueued    = apitype.TaskQueued
	TaskRunning   = apitype.TaskRunning
	TaskSucceeded = apitype.TaskSucceeded
	TaskFailed    = apitype.TaskFailed
)

// Set is an Optional sent as v.
func Set[T any](v T) Optional[T] { return apitype.Set(v) }

// Null is an Optional sent as JSON null: the server clears the field.
func Null[T any]() Optional[T] { return apitype.Null[T]() }
