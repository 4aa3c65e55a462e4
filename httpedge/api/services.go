package api

import (
	"context"
	"github.com/vmplane/vmplane/actors/addresses"
	"io"
	"net/netip"
	"time"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/audit"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/consoles"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/limiter"
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/actors/traffic"
	"github.com/vmplane/vmplane/actors/usage"
	"github.com/vmplane/vmplane/actors/webhooks"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Services are what the edge asks of the actors, one interface per service listing
// only the calls the handlers make, so that a reader sees what the edge depends on and
// a test can hand it fakes. The application fills it from the running actors.System;
// a Server built without it (the OpenAPI document, the route table's tests) serves no
// request that needs one.
type Services struct {
	// Machines, Nodes, Inventory (the sync with the hypervisor and its templates),
	// Tasks, Consoles and Backups are the machines' area.
	Machines  Machines
	Nodes     Nodes
	Inventory Inventory
	Tasks     Tasks
	Consoles  Consoles
	Backups   Backups
	// ISOs is the ISO library machines mount and boot their rescue system from.
	ISOs ISOs
	// Tenants and their Firewall rules.
	Tenants  Tenants
	Firewall Firewall
	// Plans are the machine sizes sold, and their capacity.
	Plans Plans
	// Webhooks send the events to URLs users name.
	Webhooks Webhooks
	// IPPools are the address pools machines get their addresses from.
	IPPools IPPools
	// Usage is what the machines used, hour by hour, for invoices.
	Usage Usage
	// Locations are the hypervisor clusters machines are made in.
	Locations Locations
	// Traffic is a machine's network traffic this month, against its plan's allowance.
	Traffic Traffic
	// Users and the answers kept for Idempotency-Keys are the auth area.
	Users       Users
	Idempotency Idempotency
	// APIKeys are the keys programs call the API with.
	APIKeys APIKeys
	// Limiter holds the rate limits.
	Limiter Limiter
	// Events is the bus behind GET /api/events.
	Events Events
	// Alerts, HealthChecks, Insights (faulty deployments), History (forecasts) and
	// Monitoring (the overview) are the monitoring area.
	Alerts       Alerts
	HealthChecks HealthChecks
	Insights     Insights
	History      History
	Monitoring   Monitoring
	// PowerSchedules and BackupSchedules are the schedules.
	PowerSchedules  ScheduleService[schedules.PowerSchedule]
	BackupSchedules ScheduleService[schedules.BackupSchedule]
	// System is what /api/health and /metrics read of the system as a whole.
	System System
	// Audit is the audit log (nil: nothing is recorded).
	Audit Audit
}

// Audit is what the edge asks of audit.Log: to record an entry the change did not
// carry (a refusal), and to read the log.
type Audit interface {
	Record(ctx context.Context, e *audit.Entry) error
	List(ctx context.Context, tenant *string, f audit.Filter, cursor string, limit int) ([]audit.Entry, string, error)
}

// Machines is what the edge asks of machines.Machines.
type Machines interface {
	Get(ctx context.Context, id string, tenant *string) (machines.Machine, error)
	List(ctx context.Context, cursor string, limit int, filter func(*machines.Machine) bool) ([]machines.Machine, string, error)
	ListWhere(ctx context.Context, cursor string, limit int, w machines.Where) ([]machines.Machine, string, error)
	ListTenant(ctx context.Context, tenant, cursor string, limit int) ([]machines.Machine, string, error)
	TenantPage(ctx context.Context, tenant, cursor string, limit int) (*machines.MachinePage, error)
	Start(ctx context.Context, id string, op machines.Operation, tenant *string) (tasks.Task, error)
	Destroy(ctx context.Context, id string, tenant *string) (tasks.Task, error)
	Assign(ctx context.Context, id string, tenant *string) (machines.Machine, error)
	Usage(ctx context.Context, id string, tf hypervisor.Timeframe, tenant *string) (hypervisor.UsageGraph, error)
	// A machine's snapshots, backups on demand and restores (tasks).
	Snapshots(ctx context.Context, id string, tenant *string) ([]hypervisor.Snapshot, error)
	CreateSnapshot(ctx context.Context, id string, tenant *string, in machines.SnapshotRequest) (tasks.Task, error)
	RollbackSnapshot(ctx context.Context, id string, tenant *string, name string) (tasks.Task, error)
	DeleteSnapshot(ctx context.Context, id string, tenant *string, name string) (tasks.Task, error)
	BackupNow(ctx context.Context, id string, tenant *string, in machines.BackupRequest) (tasks.Task, error)
	Restore(ctx context.Context, id string, tenant *string, in machines.RestoreRequest) (tasks.Task, error)
	// A machine's CD-ROM drive, boot order and rescue system (tasks).
	MountISO(ctx context.Context, id string, tenant *string, iso machines.MountedISO) (tasks.Task, error)
	EjectISO(ctx context.Context, id string, tenant *string) (tasks.Task, error)
	SetBootOrder(ctx context.Context, id string, tenant *string, in machines.BootOrderRequest) (tasks.Task, error)
	Rescue(ctx context.Context, id string, tenant *string, enabled bool, iso *machines.MountedISO) (tasks.Task, error)
	// A machine's billing suspension (operators and billing systems).
	SuspendBilling(ctx context.Context, id, reason, action string) (machines.Machine, error)
	UnsuspendBilling(ctx context.Context, id string, start bool) (machines.Machine, error)
	// A machine's termination (delete with its snapshots and backups, after a grace).
	Terminate(ctx context.Context, id string) (machines.Machine, error)
	CancelTerminate(ctx context.Context, id string) (machines.Machine, error)
	// A change of the addresses a machine holds (an address's reverse name).
	ChangeAddresses(ctx context.Context, id string, tenant *string, c machines.AddressChange) (machines.Machine, error)
	// One more address from the IP pools, or one fewer.
	AddAddress(ctx context.Context, id string, tenant *string, r machines.AddressRequest) (machines.Machine, error)
	RemoveAddress(ctx context.Context, id string, tenant *string, address string) (machines.Machine, error)
	// CounterRetries is for /metrics (vmplane_usage_counter_retries_total).
	CounterRetries() uint64
}

// ISOs is what the edge asks of isos.ISOs.
type ISOs interface {
	Add(ctx context.Context, in isos.NewISO) (isos.ISOAdded, error)
	Get(ctx context.Context, id string, scope *string) (isos.ISO, error)
	List(ctx context.Context, scope *string, cursor string, limit int) ([]isos.ISO, string, error)
	Delete(ctx context.Context, id string, scope *string) error
	Mountable(ctx context.Context, id string, scope *string, orName bool) (machines.MountedISO, error)
	// Upload receives the content of an image added with upload (size bytes of body).
	Upload(ctx context.Context, id string, scope *string, body io.Reader, size int64) (isos.ISO, error)
}

// Nodes is what the edge asks of capacity.Nodes.
type Nodes interface {
	Get(ctx context.Context, id string) (capacity.Node, error)
	List(ctx context.Context, cursor string, limit int) ([]capacity.Node, string, error)
	Usage(ctx context.Context, id string, tf hypervisor.Timeframe, end time.Time) (hypervisor.UsageGraph, error)
}

// Inventory is what the edge asks of the sync with the hypervisor (inventory.Inventory).
type Inventory interface {
	Sync(ctx context.Context) (inventory.SyncResult, error)
	Usage(ctx context.Context, tf hypervisor.Timeframe) (inventory.ClusterUsage, error)
	Template(ctx context.Context, id string) (hypervisor.Template, error)
	TemplatePage(ctx context.Context, cursor string, limit int) ([]hypervisor.Template, string, error)
}

// Tasks is what the edge asks of tasks.Tasks.
type Tasks interface {
	Get(ctx context.Context, id string, tenant *string) (tasks.Task, error)
	List(ctx context.Context, tenant *string, cursor string, limit int) ([]tasks.Task, string, error)
	OfMachine(ctx context.Context, machineID string, tenant *string, cursor string, limit int) ([]tasks.Task, string, error)
}

// Consoles is what the edge asks of consoles.Consoles.
type Consoles interface {
	Issue(ctx context.Context, machineID string, tenant *string, typ string, who consoles.ConsoleSession) (consoles.ConsoleTicket, error)
	Redeem(ctx context.Context, machineID, ticket string) (hypervisor.Console, consoles.ConsoleSession, error)
}

// Backups is what the edge asks of machines.Backups (the records are actors/backups').
type Backups interface {
	Get(ctx context.Context, id string, scope *string) (backups.Backup, error)
	List(ctx context.Context, tenant *string, machineID, cursor string, limit int) ([]backups.Backup, string, error)
	Delete(ctx context.Context, id string, scope *string) error
	OfMachineNewest(ctx context.Context, machineID string, tenant *string, cursor string, limit int) ([]backups.Backup, string, error)
}

// Tenants is what the edge asks of tenants.Tenants.
type Tenants interface {
	Get(ctx context.Context, id string) (tenants.Tenant, error)
	List(ctx context.Context, cursor string, limit int) ([]tenants.Tenant, string, error)
	CreateTenant(ctx context.Context, nt tenants.NewTenant) (tenants.Tenant, error)
	ByExternalID(ctx context.Context, ext string) (tenants.Tenant, error)
	Update(ctx context.Context, id string, c tenants.TenantChange) (tenants.Tenant, error)
	Delete(ctx context.Context, id string) error
	CreateMachine(ctx context.Context, tenantID string, spec tenants.MachineSpec) (tenants.Provisioned, error)
	// RestoreNew restores a backup into a new machine of a tenant, within its quota.
	RestoreNew(ctx context.Context, backupID string, req tenants.RestoreNewRequest) (tenants.Provisioned, error)
	ResizeMachine(ctx context.Context, tenantID, machineID string, c tenants.ResourceChange) (tasks.Task, error)
	ChangePlan(ctx context.Context, tenantID, machineID, planID string) (tasks.Task, error)
	ChangeAnyPlan(ctx context.Context, machineID, planID string) (tasks.Task, error)
	Overview(ctx context.Context, tenant string) (tenants.Overview, error)
	UsageTrends(ctx context.Context, tenant string, days int, now time.Time) (tenants.Trends, error)
	// A tenant's suspension: set and ended by operators and billing systems, checked
	// by the edge before a tenant user's write (CheckActive).
	Suspend(ctx context.Context, id, reason, action string) (tenants.Tenant, error)
	Unsuspend(ctx context.Context, id string, start bool) (tenants.Tenant, error)
	CheckActive(ctx context.Context, id string) error
}

// Usage is what the edge asks of usage.Usage.
type Usage interface {
	Tenant(ctx context.Context, tenant *string, from, to time.Time) (usage.UsageReport, error)
	Machine(ctx context.Context, tenant *string, machine string, from, to time.Time) (usage.UsageReport, error)
}

// Traffic is what the edge asks of the traffic counting (actors.System).
type Traffic interface {
	MachineTraffic(ctx context.Context, id string) (traffic.MachineTraffic, error)
}

// Plans is what the edge asks of plans.Plans.
type Plans interface {
	Get(ctx context.Context, id string) (plans.Plan, error)
	List(ctx context.Context, location *string, cursor string, limit int) ([]plans.Plan, string, error)
	Create(ctx context.Context, s plans.PlanSpec) (plans.Plan, error)
	Update(ctx context.Context, id string, c plans.PlanChange, nulls map[string]bool) (plans.Plan, error)
	Delete(ctx context.Context, id string) error
	Capacity(ctx context.Context, id string, location *string) (plans.PlanCapacity, error)
}

// Locations is what the edge asks of locations.Locations.
type Locations interface {
	Get(ctx context.Context, id string) (locations.Location, error)
	List(ctx context.Context, cursor string, limit int) ([]locations.Location, string, error)
	Create(ctx context.Context, s locations.LocationSpec) (locations.Location, error)
	Update(ctx context.Context, id string, c locations.LocationChange) (locations.Location, error)
	Delete(ctx context.Context, id string) error
	// Offered are the locations as tenants see them (GET /api/client/locations).
	Offered(ctx context.Context, cursor string, limit int) ([]locations.OfferedLocation, string, error)
}

// Webhooks is what the edge asks of webhooks.Webhooks; scope is a tenant user's
// tenant (nil: an operator, who sees every webhook).
type Webhooks interface {
	Get(ctx context.Context, id string, scope *string) (webhooks.Webhook, error)
	List(ctx context.Context, scope *string, cursor string, limit int) ([]webhooks.Webhook, string, error)
	Create(ctx context.Context, s webhooks.WebhookSpec) (webhooks.NewWebhook, error)
	Update(ctx context.Context, id string, c webhooks.WebhookChange, scope *string) (webhooks.Webhook, error)
	Delete(ctx context.Context, id string, scope *string) error
	Deliveries(ctx context.Context, id string, scope *string, cursor string, limit int) ([]webhooks.Delivery, string, error)
	Redeliver(ctx context.Context, id, delivery string, scope *string) (webhooks.Delivery, error)
}

// IPPools is what the edge asks of addresses.Addresses about pools.
type IPPools interface {
	Get(ctx context.Context, id string) (addresses.Pool, error)
	List(ctx context.Context, location *string, cursor string, limit int) ([]addresses.Pool, string, error)
	Create(ctx context.Context, s addresses.PoolSpec) (addresses.Pool, error)
	Update(ctx context.Context, id string, c addresses.PoolChange, nulls map[string]bool) (addresses.Pool, error)
	Delete(ctx context.Context, id string) error
}

// Firewall is what the edge asks of the tenants' firewall rules (tenants.Firewall).
type Firewall interface {
	TenantOf(ctx context.Context, id string) (string, error)
	Get(ctx context.Context, tenant, id string) (tenants.FirewallRule, error)
	Page(ctx context.Context, tenant string, machineID *string, cursor string, limit int) ([]tenants.FirewallRule, string, error)
	ListAll(ctx context.Context, cursor string, limit int) ([]tenants.FirewallRule, string, error)
	Create(ctx context.Context, tenant string, in tenants.RuleInput) (tenants.FirewallRule, error)
	Update(ctx context.Context, tenant, id string, in tenants.RuleInput) (tenants.FirewallRule, error)
	Delete(ctx context.Context, tenant, id string) error
}

// Users is what the edge asks of auth.Users.
type Users interface {
	Login(ctx context.Context, email, password string, from auth.Client) (auth.Session, error)
	ChangePassword(ctx context.Context, userID, sessionID, current, next string) (auth.Session, error)
	Sessions(ctx context.Context, userID, current, cursor string, limit int) ([]auth.SessionInfo, string, error)
	EndSession(ctx context.Context, userID, id string) error
	Refresh(ctx context.Context, token string) (auth.Session, error)
	Logout(ctx context.Context, userID, token string) error
	Authorize(ctx context.Context, userID, sessionID string, gen uint64) error
	Get(ctx context.Context, id string) (auth.User, error)
	List(ctx context.Context, tenant *string, cursor string, limit int) ([]auth.User, string, error)
	CreateUser(ctx context.Context, nu auth.NewUser) (auth.User, error)
	ByExternalID(ctx context.Context, ext string) (auth.User, error)
	Update(ctx context.Context, id string, c auth.UserChange) (auth.User, error)
	Delete(ctx context.Context, id string) error
	// A forgotten password.
	RequestPasswordReset(email string) error
	ResetPassword(ctx context.Context, token, newPassword string) error
	// The second factor.
	EnrolTOTP(ctx context.Context, userID, issuer string) (signin.TOTPEnrolment, error)
	ConfirmTOTP(ctx context.Context, userID, sessionID, code string) (signin.RecoveryCodeList, error)
	DisableTOTP(ctx context.Context, userID, code string) error
	ResetTOTP(ctx context.Context, userID string) error
	ChallengeEmail(ctx context.Context, challenge string) (string, error)
	LoginTOTP(ctx context.Context, challenge, code string) (auth.Session, error)
	CreateLoginLink(ctx context.Context, userID string) (signin.LoginLink, error)
	LoginLinkEmail(ctx context.Context, token string) (string, error)
	RedeemLoginLink(ctx context.Context, token string, from auth.Client) (auth.Session, error)
	// Single sign-on (OpenID Connect).
	StartOIDC(ctx context.Context, s signin.OIDCSignIn) (signin.OIDCStarted, error)
	TakeOIDC(ctx context.Context, provider, state, secret string) (signin.OIDCSignIn, error)
	LoginExternal(ctx context.Context, l signin.ExternalLogin, from auth.Client) (auth.Session, error)
}

// APIKeys is what the edge asks of auth.APIKeys.
type APIKeys interface {
	Create(ctx context.Context, owner auth.User, spec auth.APIKeySpec) (auth.NewAPIKey, error)
	Get(ctx context.Context, id string, scope *string) (auth.APIKey, error)
	List(ctx context.Context, scope *string, cursor string, limit int) ([]auth.APIKey, string, error)
	Revoke(ctx context.Context, id string, scope *string) error
	Authenticate(ctx context.Context, secret string, addr netip.Addr) (auth.KeyPrincipal, error)
}

// Idempotency is what the edge asks of auth.Idempotency.
type Idempotency interface {
	Claim(ctx context.Context, user, key, requestHash string, stamped bool) (auth.Claimed, error)
	Complete(ctx context.Context, user, key, token string, a *auth.Answer, keep bool) error
}

// Limiter is what the edge asks of limiter.Limiter.
type Limiter interface {
	Take(ctx context.Context, key string, buckets ...string) (limiter.Decision, error)
	LoginAttempt(ctx context.Context, email, addr string) (limiter.LoginDecision, error)
	LoginDone(t limiter.LoginTicket, outcome limiter.LoginOutcome)
}

// Events is what the edge asks of the event bus (events.Events).
type Events interface {
	Latest() uint64
	Subscribe(lastID uint64, tenant *string) (backlog []events.Event, sub *events.Subscription, gone bool)
}

// Alerts is what the edge asks of alerts.Alerts.
type Alerts interface {
	Get(ctx context.Context, id string, scope *string) (alerts.Alert, error)
	List(ctx context.Context, f alerts.AlertFilter, scope *string, cursor string, limit int) ([]alerts.Alert, string, error)
	Acknowledge(ctx context.Context, id string, scope *string) (alerts.Alert, error)
}

// HealthChecks is what the edge asks of monitoring.HealthChecks.
type HealthChecks interface {
	Get(ctx context.Context, id string, scope *string) (monitoring.HealthCheck, error)
	List(ctx context.Context, tenant *string, cursor string, limit int) ([]monitoring.HealthCheck, string, error)
	Create(ctx context.Context, spec monitoring.HealthCheckSpec, scope *string) (monitoring.HealthCheck, error)
	Update(ctx context.Context, id string, ch monitoring.HealthCheckChange, scope *string) (monitoring.HealthCheck, error)
	Delete(ctx context.Context, id string, scope *string) error
}

// Insights is what the edge asks of monitoring.Insights.
type Insights interface {
	FaultyDeployments(ctx context.Context) (monitoring.FaultyDeployments, error)
}

// History is what the edge asks of monitoring.History.
type History interface {
	Forecast(ctx context.Context, horizonDays int, now time.Time) (monitoring.ClusterForecast, error)
}

// Monitoring is what the edge asks of monitoring.Monitoring.
type Monitoring interface {
	Overview(ctx context.Context) (monitoring.MonitoringOverview, error)
}

// System is what the edge reads of the running system as a whole (actors.System):
// its health checks, its live entities, its store's figures and its driver's name.
type System interface {
	Health(ctx context.Context) actors.Health
	Kinds() map[string]int
	Store() persistence.Store
	Driver() hypervisor.Driver
}

// ScheduleService is what power and backup schedules both offer.
type ScheduleService[T any] interface {
	Create(ctx context.Context, tenant string, in schedules.ScheduleInput) (T, error)
	Get(ctx context.Context, id string, scope *string) (T, error)
	Update(ctx context.Context, id string, scope *string, in schedules.ScheduleInput) (T, error)
	Delete(ctx context.Context, id string, scope *string) error
	List(ctx context.Context, tenant *string, machineID, cursor string, limit int) ([]T, string, error)
}
