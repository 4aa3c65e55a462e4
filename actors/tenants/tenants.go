package tenants

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/plans"

	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Tenant is a customer: a name and a quota. Its machines, firewall rules and schedules
// are its own, and nothing of it is visible to another tenant.
type Tenant struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Quota     Quota     `json:"quota"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// ExternalID is the id another system (a billing system) knows the tenant by:
	// unique among tenants, null when none.
	ExternalID *string `json:"external_id"`
	// RequireTOTP: the tenant's users must sign in with a second factor. A user without
	// one gets a session that may only enrol one (and read its own account) until it
	// has; false in records from before the field.
	RequireTOTP bool `json:"require_totp"`
	// Suspension is null, or why and since when the tenant is suspended (Suspend).
	Suspension *Suspension `json:"suspension"`
}

// Quota is what a tenant may hold at most; Usage what it holds. A limit of
// Unlimited (-1) means no limit. Backups and Snapshots are counts (the backups on
// record, taken on demand or by schedules; the snapshots of its machines), BackupGB
// the sizes of the backups on record, in GB (a usage shows them rounded up): they bound
// what a tenant creates on demand, and are unlimited by default. Snapshots have no
// size bound: Proxmox does not tell a snapshot's size.
type Quota struct {
	Machines  int `json:"machines"`
	CPUCores  int `json:"cpu_cores"`
	MemoryMB  int `json:"memory_mb"`
	DiskGB    int `json:"disk_gb"`
	Backups   int `json:"backups"`
	Snapshots int `json:"snapshots"`
	BackupGB  int `json:"backup_gb"`
}

// UnmarshalJSON reads a quota whose backups, snapshots or backup_gb are absent (a tenant record
// written before they existed) as unlimited in them, as DefaultQuota is: the fields
// came without a schema version of their own, since nothing else of the record changed.
func (q *Quota) UnmarshalJSON(b []byte) error {
	type plain Quota
	p := plain{Backups: Unlimited, Snapshots: Unlimited, BackupGB: Unlimited}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*q = Quota(p)
	return nil
}

// Usage is what a tenant's machines hold, counted against its quota.
type Usage = Quota

// Unlimited as a quota limit lets a tenant hold as much of it as it likes.
const Unlimited = -1

// MaxQuotaLimit is the largest quota limit, a 32-bit integer's, so that every client's
// integers hold it.
const MaxQuotaLimit = math.MaxInt32

// MinNameLen and MaxNameLen bound a tenant's name.
const MinNameLen, MaxNameLen = 1, 100

// QuotaChange is a partial quota: on a tenant create, omitted limits take their
// default (DefaultQuota); on a change, omitted limits keep their value. A partial
// quota never zeroes the limits it does not name.
type QuotaChange struct {
	Machines *int `json:"machines,omitempty" openapi:"limit=tenant.quota" doc:"-1: unlimited; omitted: the default on create, unchanged on a patch"`
	CPUCores *int `json:"cpu_cores,omitempty" openapi:"limit=tenant.quota" doc:"-1: unlimited; omitted: the default on create, unchanged on a patch"`
	MemoryMB *int `json:"memory_mb,omitempty" openapi:"limit=tenant.quota" doc:"-1: unlimited; omitted: the default on create, unchanged on a patch"`
	DiskGB   *int `json:"disk_gb,omitempty" openapi:"limit=tenant.quota" doc:"-1: unlimited; omitted: the default on create, unchanged on a patch"`
	// Backups and Snapshots are counts; unlimited by default.
	Backups   *int `json:"backups,omitempty" openapi:"limit=tenant.quota" doc:"-1: unlimited; omitted: the default (unlimited) on create, unchanged on a patch"`
	Snapshots *int `json:"snapshots,omitempty" openapi:"limit=tenant.quota" doc:"-1: unlimited; omitted: the default (unlimited) on create, unchanged on a patch"`
	// BackupGB bounds the sizes of the backups on record, in GB; unlimited by default.
	BackupGB *int `json:"backup_gb,omitempty" openapi:"limit=tenant.quota" doc:"GB of backups on record; -1: unlimited; omitted: the default (unlimited) on create, unchanged on a patch"`
}

// applyTo returns q with the limits c names replaced.
func (c *QuotaChange) applyTo(q Quota) Quota {
	if c == nil {
		return q
	}
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&q.Machines, c.Machines)
	set(&q.CPUCores, c.CPUCores)
	set(&q.MemoryMB, c.MemoryMB)
	set(&q.DiskGB, c.DiskGB)
	set(&q.Backups, c.Backups)
	set(&q.Snapshots, c.Snapshots)
	set(&q.BackupGB, c.BackupGB)
	return q
}

// DefaultQuota applies to a tenant created without one.
var DefaultQuota = Quota{Machines: 10, CPUCores: 32, MemoryMB: 65536, DiskGB: 1000, Backups: Unlimited, Snapshots: Unlimited, BackupGB: Unlimited}

const tenantVersion = 1

func tenantKey(id string) []byte { return persistence.Key("tenant", id) }

// Tenants is the service in front of the tenants kind. The tenant actor is what makes
// quota hold under concurrency: it checks and reserves, and writes a new machine's
// record in the same durable batch, one request at a time.
type Tenants struct {
	sys  *system
	kind *kit.Kind
	// sweep is the loop of EnforceSuspensions.
	sweep *kit.Loop
	// lastRuleWrite is each tenant's latest firewall rule write
	// (*persistence.Pending), which outlives the entity (see firewall.go).
	lastRuleWrite sync.Map
}

// TenantChange is a partial change of a tenant: the quota merges (limits it omits
// keep their value).
type TenantChange struct {
	Name  *string      `json:"name,omitempty" openapi:"limit=tenant.name"`
	Quota *QuotaChange `json:"quota,omitempty"`
	// ExternalID sets the id another system knows the tenant by; null removes it.
	ExternalID *string `json:"external_id,omitempty" openapi:"nullable,limit=external_id"`
	// ClearExternalID removes the external id (the body had "external_id": null).
	ClearExternalID bool `json:"-"`
	// RequireTOTP turns the second factor's requirement for the tenant's users on or off.
	RequireTOTP *bool `json:"require_totp,omitempty"`
}

// tenantChange is a TenantChange as it travels to the tenant's entity, which may be
// active on another member: the same fields under the same names, ClearExternalID
// included, which the API's JSON leaves out (the edge sets it from "external_id":
// null). The conversion between the two stops compiling when they drift apart.
type tenantChange struct {
	Name            *string      `json:"name,omitempty"`
	Quota           *QuotaChange `json:"quota,omitempty"`
	ExternalID      *string      `json:"external_id,omitempty"`
	ClearExternalID bool         `json:"clear_external_id,omitempty"`
	RequireTOTP     *bool        `json:"require_totp,omitempty"`
}

// MachineSpec is a tenant's request for a new machine: its sizes are a plan's
// (PlanID) or given one by one, never both.
type MachineSpec struct {
	Name       string `json:"name" openapi:"required,limit=machine.name"`
	TemplateID string `json:"template_id" openapi:"required,minLength=1,limit=id"`
	// PlanID names the plan whose sizes the machine gets; the template must be one
	// the plan allows.
	PlanID   *string  `json:"plan_id,omitempty" openapi:"limit=id" doc:"the plan whose sizes the machine gets; with it, cpu_cores, memory_mb and disk_gb are omitted"`
	CPUCores int      `json:"cpu_cores,omitempty" openapi:"limit=machine.cores" doc:"required without plan_id"`
	MemoryMB int      `json:"memory_mb,omitempty" openapi:"limit=machine.memory_mb" doc:"required without plan_id"`
	DiskGB   int      `json:"disk_gb,omitempty" openapi:"limit=machine.disk_gb" doc:"required without plan_id"`
	Node     string   `json:"node,omitempty" openapi:"limit=hypervisor.name"`
	Password string   `json:"password,omitempty" openapi:"limit=machine.password"`
	SSHKeys  []string `json:"ssh_keys,omitempty" openapi:"limit=machine.ssh_keys,items.limit=machine.ssh_key"`
	// IPv4 and IPv6 are the addresses the machine gets from the IP pools: a plan's
	// (ipv4, and a routed /64 when it has ipv6_prefix), or, for explicit sizes, what
	// an operator asks for here (default none: the network is configured outside
	// vmplane, as before pools existed).
	IPv4 *int  `json:"ipv4,omitempty" openapi:"limit=plan.ipv4" doc:"operators, without plan_id: IPv4 addresses from the IP pools (default 0); a plan gives its own"`
	IPv6 *bool `json:"ipv6,omitempty" doc:"operators, without plan_id: a routed IPv6 /64 from the IP pools (default false); a plan gives one when it has ipv6_prefix"`
	// LocationID is the location the machine is made in: its plan's (a body naming
	// another is refused), or the one named, or the default one. In the message to the
	// tenant's entity it holds the location's tag.
	LocationID string `json:"location_id,omitempty" openapi:"limit=id" doc:"the location the machine is made in (GET /api/resources/locations): a plan's machine is made in the plan's (naming another is 400); omitted: the plan's, or default"`
	// Address is the IPv4 address asked for, the machine's first (addresses.Want).
	Address *string `json:"address,omitempty" openapi:"limit=ip_pool.address" doc:"the IPv4 address asked for, the machine's first: a free host address of an IP pool usable on the machine's node (held or cooling down: 409 address_taken; in no such pool: 422 address_unusable); the machine must get an IPv4 address (its plan's ipv4, or ipv4 for explicit sizes: 400 otherwise); omitted: the lowest free"`
}

// ResourceChange is a tenant's resize of a machine; disks only grow.
type ResourceChange struct {
	CPUCores *int `json:"cpu_cores,omitempty" openapi:"limit=machine.cores"`
	MemoryMB *int `json:"memory_mb,omitempty" openapi:"limit=machine.memory_mb"`
	DiskGB   *int `json:"disk_gb,omitempty" openapi:"limit=machine.disk_gb"`
}

// Provisioned is the answer of a machine create.
type Provisioned struct {
	Machine machines.Machine `json:"machine"`
	Task    tasks.Task       `json:"task"`
}

// Messages of a tenant entity.
type (
	getTenant    struct{}
	createTenant struct {
		T Tenant
		// Stamp, for a create made with an Idempotency-Key, is the key's claim,
		// which the create's write carries (kit.Stamp).
		Stamp *kit.Stamp
	}
	updateTenant  struct{ C tenantChange }
	deleteTenant  struct{}
	tenantUsage   struct{}
	createMachine struct {
		Spec MachineSpec
		// Stamp: as createTenant's; the write that records the machine and its
		// task carries it.
		Stamp *kit.Stamp
	}
	reserveResize struct {
		MachineID string
		Change    ResourceChange
		// PlanID and PlanName, for a move to a plan (ChangePlan), name the plan whose
		// sizes Change holds: the machine's record takes it when the resize is done.
		PlanID, PlanName string
	}
	// resizeReserved tells the service what operation to start.
	resizeReserved struct{ Op machines.Operation }
	resizeStarted  struct{ MachineID, TaskID string }
	releaseResize  struct{ MachineID string }
)

func startTenants(s *system) *Tenants {
	t := &Tenants{sys: s}
	t.kind = s.rt.StartKind("tenants", 10*time.Minute, func(id string) kit.Entity {
		return &tenantEntity{sys: s, id: id, pending: map[string]pendingResize{}}
	}, nil)
	t.sweep = s.rt.EveryOnOne("suspension sweep", SuspensionSweepInterval, false, func(ctx context.Context, _ time.Time) {
		if err := t.EnforceSuspensions(ctx); err != nil {
			s.log.Warn("the suspension sweep could not list the tenants", zap.Error(err))
		}
	})
	return t
}

// Stop ends the suspension sweep; the entities stop with the runtime's kinds.
func (t *Tenants) Stop() { t.sweep.Stop() }

func (t *Tenants) tell(id string, msg any) {
	t.kind.Send(id, msg)
}

// Get returns one tenant.
func (t *Tenants) Get(ctx context.Context, id string) (Tenant, error) {
	if id == "" || len(id) > 64 {
		return Tenant{}, apierr.NotFound("tenant", id)
	}
	return kit.Ask[Tenant](ctx, t.kind, id, &getTenant{})
}

// Create creates a tenant. The limits quota omits take their default. Its name must be
// free, ignoring case: the tenant's batch requires the name's index key absent. Made
// with an Idempotency-Key (ctx carries its stamp), its write carries the key's claim,
// and the retry of a create that applied without an answer gets the tenant it created.
func (t *Tenants) Create(ctx context.Context, name string, quota *QuotaChange) (Tenant, error) {
	return t.CreateTenant(ctx, NewTenant{Name: name, Quota: quota})
}

// NewTenant is a tenant to create.
type NewTenant struct {
	Name  string
	Quota *QuotaChange
	// ExternalID, when set, must be no other tenant's.
	ExternalID *string
	// RequireTOTP: the tenant's users must sign in with a second factor.
	RequireTOTP bool
}

// CreateTenant is Create with every field of a new tenant, its external id among them.
func (t *Tenants) CreateTenant(ctx context.Context, nt NewTenant) (Tenant, error) {
	name, quota := nt.Name, nt.Quota
	st := kit.StampOf(ctx)
	if r, ok, err := kit.Recorded[Tenant](st); ok {
		return r, err
	}
	ten := Tenant{ID: persistence.NewID(), Name: name, Quota: quota.applyTo(DefaultQuota), ExternalID: nt.ExternalID, RequireTOTP: nt.RequireTOTP}
	if err := validateTenant(ten.Name, ten.Quota); err != nil {
		return Tenant{}, err
	}
	if err := checkExternalID(nt.ExternalID); err != nil {
		return Tenant{}, err
	}
	// A taken name is refused without activating an entity; the write checks again.
	if err := nameFree(ctx, t.sys.store, name, ""); err != nil {
		return Tenant{}, err
	}
	return kit.Ask[Tenant](ctx, t.kind, ten.ID, &createTenant{T: ten, Stamp: st})
}

// Update changes a tenant's name or quota; the limits a quota change omits keep their
// value. Lowering a quota below the usage is allowed: it stops growth, it does not
// destroy machines.
func (t *Tenants) Update(ctx context.Context, id string, c TenantChange) (Tenant, error) {
	// The tenant first: an unknown one is a 404 whatever the change would meet (a
	// taken name is a 409 only for a tenant that exists).
	if _, err := t.Get(ctx, id); err != nil {
		return Tenant{}, err
	}
	if c.Name != nil {
		if err := nameFree(ctx, t.sys.store, *c.Name, id); err != nil {
			return Tenant{}, err
		}
	}
	if err := checkExternalID(c.ExternalID); err != nil {
		return Tenant{}, err
	}
	return kit.Ask[Tenant](ctx, t.kind, id, &updateTenant{C: tenantChange(c)})
}

// Delete deletes a tenant that has no machines and no users left.
func (t *Tenants) Delete(ctx context.Context, id string) error {
	_, err := kit.Ask[kit.Done](ctx, t.kind, id, &deleteTenant{})
	return err
}

// List returns tenants in creation order.
func (t *Tenants) List(ctx context.Context, cursor string, limit int) ([]Tenant, string, error) {
	return kit.ScanPage(ctx, t.sys.store, persistence.Prefix("tenant"), cursor, limit, func(r *Tenant) (Tenant, bool) { return *r, true })
}

// Usage returns what a tenant's machines hold now.
func (t *Tenants) Usage(ctx context.Context, id string) (Usage, error) {
	return kit.Ask[Usage](ctx, t.kind, id, &tenantUsage{})
}

// CreateMachine checks the quota, reserves it and records the new machine in one
// durable step, then starts provisioning. Concurrent creates can never exceed the quota.
// Made with an Idempotency-Key, that step carries the key's claim (kit.Stamp), and the
// retry of a create that applied without an answer gets the machine and task it made.
func (t *Tenants) CreateMachine(ctx context.Context, tenantID string, spec MachineSpec) (Provisioned, error) {
	st := kit.StampOf(ctx)
	if r, ok, err := kit.Recorded[Provisioned](st); ok {
		return r, err
	}
	plan, err := t.fromPlan(ctx, &spec)
	if err != nil {
		return Provisioned{}, err
	}
	if err := addressesOf(&spec, plan); err != nil {
		return Provisioned{}, err
	}
	if err := t.locationOf(ctx, &spec, plan); err != nil {
		return Provisioned{}, err
	}
	if spec.Node == "" && spec.Address != nil && t.sys.Addresses != nil {
		// An address asked for of a pool bound to a node is served there alone.
		if spec.Node, err = t.sys.Addresses.NodeOf(ctx, *spec.Address); err != nil {
			return Provisioned{}, err
		}
	}
	tpl, err := t.validateSpec(ctx, spec, plan)
	if err != nil {
		return Provisioned{}, err
	}
	if spec.Node != "" {
		if err := t.nodeOf(ctx, &spec); err != nil {
			return Provisioned{}, err
		}
	} else {
		// vmplane places the machine on the node of its location with the most room
		// for it by the capacity arithmetic (capacity.Room); a template that only one
		// node can clone goes there, if it has room.
		room, err := t.sys.Nodes.Place(ctx, spec.LocationID, capacity.Size{CPUCores: spec.CPUCores, MemoryMB: spec.MemoryMB, DiskGB: spec.DiskGB}, tpl.Node)
		if err != nil {
			return Provisioned{}, err
		}
		spec.Node = room.Name
	}
	return kit.Ask[Provisioned](ctx, t.kind, tenantID, &createMachine{Spec: spec, Stamp: st})
}

// ResizeMachine grows or shrinks cores and memory and grows the disk of one of the
// tenant's machines, within its quota.
func (t *Tenants) ResizeMachine(ctx context.Context, tenantID, machineID string, c ResourceChange) (tasks.Task, error) {
	if c.CPUCores == nil && c.MemoryMB == nil && c.DiskGB == nil {
		return tasks.Task{}, apierr.Invalid(apierr.Field("body", "cpu_cores, memory_mb or disk_gb is required"))
	}
	var f []apierr.FieldError
	if c.CPUCores != nil && (*c.CPUCores < machines.MinCores || *c.CPUCores > machines.MaxCores) {
		f = append(f, apierr.Field("cpu_cores", "must be %d..%d", machines.MinCores, machines.MaxCores))
	}
	if c.MemoryMB != nil && (*c.MemoryMB < machines.MinMemoryMB || *c.MemoryMB > machines.MaxMemoryMB) {
		f = append(f, apierr.Field("memory_mb", "must be %d..%d", machines.MinMemoryMB, machines.MaxMemoryMB))
	}
	if c.DiskGB != nil && (*c.DiskGB < machines.MinDiskGB || *c.DiskGB > machines.MaxDiskGB) {
		f = append(f, apierr.Field("disk_gb", "must be %d..%d", machines.MinDiskGB, machines.MaxDiskGB))
	}
	if len(f) > 0 {
		return tasks.Task{}, apierr.Invalid(f...)
	}
	id, err := t.sys.Machines.Resolve(ctx, machineID)
	if err != nil {
		return tasks.Task{}, err
	}
	r, err := kit.Ask[resizeReserved](ctx, t.kind, tenantID, &reserveResize{MachineID: id, Change: c})
	if err != nil {
		return tasks.Task{}, machines.NotFoundAs(err, machineID)
	}
	task, err := t.sys.Machines.Start(ctx, id, r.Op, &tenantID)
	if err != nil {
		t.tell(tenantID, &releaseResize{MachineID: id})
		return tasks.Task{}, machines.NotFoundAs(err, machineID)
	}
	t.tell(tenantID, &resizeStarted{MachineID: id, TaskID: task.ID})
	return task, nil
}

func validateTenant(name string, q Quota) error {
	var f []apierr.FieldError
	if len(name) < MinNameLen || len(name) > MaxNameLen {
		f = append(f, apierr.Field("name", "must be %d..%d characters", MinNameLen, MaxNameLen))
	}
	for _, l := range []struct {
		name  string
		limit int
	}{{"machines", q.Machines}, {"cpu_cores", q.CPUCores}, {"memory_mb", q.MemoryMB}, {"disk_gb", q.DiskGB},
		{"backups", q.Backups}, {"snapshots", q.Snapshots}, {"backup_gb", q.BackupGB}} {
		switch {
		case l.limit < Unlimited:
			f = append(f, apierr.Field("quota."+l.name, "must be a limit of 0 or more, or -1 for unlimited"))
		case l.limit > MaxQuotaLimit:
			f = append(f, apierr.Field("quota."+l.name, "must be at most %d", MaxQuotaLimit))
		}
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}

// validateSpec checks a create's fields and answers its template, which must be one
// of the create's location (s.LocationID, settled by locationOf).
func (t *Tenants) validateSpec(ctx context.Context, s MachineSpec, plan *plans.Plan) (hypervisor.Template, error) {
	var tpl hypervisor.Template
	var f []apierr.FieldError
	if !machines.ValidName(s.Name) {
		f = append(f, machines.NameFieldError())
	}
	if s.CPUCores < machines.MinCores || s.CPUCores > machines.MaxCores {
		f = append(f, apierr.Field("cpu_cores", "must be %d..%d", machines.MinCores, machines.MaxCores))
	}
	if s.MemoryMB < machines.MinMemoryMB || s.MemoryMB > machines.MaxMemoryMB {
		f = append(f, apierr.Field("memory_mb", "must be %d..%d", machines.MinMemoryMB, machines.MaxMemoryMB))
	}
	if s.DiskGB < machines.MinDiskGB || s.DiskGB > machines.MaxDiskGB {
		f = append(f, apierr.Field("disk_gb", "must be %d..%d", machines.MinDiskGB, machines.MaxDiskGB))
	}
	if s.Password != "" && (len(s.Password) < machines.MinPasswordLen || len(s.Password) > machines.MaxPasswordLen) {
		f = append(f, machines.PasswordFieldError())
	}
	var err error
	if s.TemplateID == "" {
		f = append(f, apierr.Field("template_id", "is required"))
	} else if tpl, err = t.templateIn(ctx, s.LocationID, s.TemplateID); errors.Is(err, apierr.ErrNotFound) {
		f = append(f, apierr.Field("template_id", "no template %s", s.TemplateID))
	} else if err != nil {
		return tpl, err
	} else if tpl.Location != s.LocationID {
		// The hypervisor of the create's location has no disks of another's template.
		f = append(f, apierr.Field("template_id", "template %s is in location %s, not %s",
			s.TemplateID, hvloc.Name(tpl.Location), hvloc.Name(s.LocationID)))
	} else if s.DiskGB >= machines.MinDiskGB && s.DiskGB < tpl.DiskGB {
		// The hypervisor would enlarge the disk to the template's size behind the
		// quota's back: the tenant asks for what it gets.
		f = append(f, apierr.Field("disk_gb", "must be at least %d: the minimum of template %s", tpl.DiskGB, s.TemplateID))
	}
	if plan != nil && tpl.ID != "" && !plan.Allows(tpl.ID, tpl.Name) {
		f = append(f, apierr.Field("template_id", "template not allowed by plan %s (it allows %s)", plan.Name, strings.Join(plan.AllowedTemplates, ", ")))
	}
	if len(f) > 0 {
		return tpl, apierr.Invalid(f...)
	}
	return tpl, nil
}

// templateIn reads the template id a create in the location tagged loc names: its own
// location's by the id there (debian-12 for debian-12@loc, as the dispatcher takes
// either form), else the template of that id wherever it is (which validateSpec then
// refuses when it is of another location).
func (t *Tenants) templateIn(ctx context.Context, loc, id string) (hypervisor.Template, error) {
	if loc != "" && !strings.HasSuffix(id, "@"+loc) {
		if tpl, err := t.sys.Inventory.Template(ctx, inventory.TemplateID(loc, id)); !errors.Is(err, apierr.ErrNotFound) {
			return tpl, err
		}
	}
	return t.sys.Inventory.Template(ctx, id)
}

// pendingResize is quota held for a resize whose task has not finished: until then the
// machine's record still shows the old sizes.
type pendingResize struct {
	delta  Usage
	taskID string
}

type tenantEntity struct {
	sys     *system
	id      string
	rec     *Tenant
	rules   []*FirewallRule // in position order: rules[i].Position is i+1
	ruleIDs map[string]*FirewallRule
	pending map[string]pendingResize
	push    pushState
	fw      fwWrites
	// audit is the audit entry of the request being handled, which its write carries.
	audit *kit.AuditEntry
}

func (e *tenantEntity) Load() error {
	e.setRules(nil)
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	var err error
	if e.rec, err = kit.LoadOptional[Tenant](ctx, e.sys.store, tenantKey(e.id)); err != nil || e.rec == nil {
		return err
	}
	e.sys.standing.publish(e.id, e.rec)
	return e.loadRules()
}

func (e *tenantEntity) Busy() bool {
	return len(e.pending) > 0 || e.push.running || e.push.scheduled
}

// HandedOff counts the rule writes not yet durable: they keep the entity from being
// passivated, and the store's writer, not a message, ends them.
func (e *tenantEntity) HandedOff() *atomic.Int64 { return &e.fw.inflight }

var _ kit.HandsOff = (*tenantEntity)(nil)

func (e *tenantEntity) Handle(ctx *kit.Ctx, msg any) {
	e.audit = ctx.Audit()
	if m, ok := msg.(*createTenant); ok {
		e.create(ctx, m.T, m.Stamp)
		return
	}
	if e.rec == nil {
		ctx.Fail(apierr.NotFound("tenant", e.id))
		return
	}
	switch m := msg.(type) {
	case *getTenant:
		ctx.Respond(*e.rec)
	case *updateTenant:
		e.update(ctx, TenantChange(m.C))
	case *deleteTenant:
		e.delete(ctx)
	case *tenantUsage:
		u, err := e.usage()
		if err == nil {
			u.Backups, u.Snapshots, u.BackupGB, err = e.counts()
		}
		if err != nil {
			ctx.Fail(err)
			return
		}
		ctx.Respond(u)
	case *createMachine:
		e.createMachine(ctx, m.Spec, m.Stamp)
	case *restoreMachine:
		e.restoreMachine(ctx, m)
	case *reserveResize:
		e.reserveResize(ctx, m)
	case *resizeStarted:
		if p, ok := e.pending[m.MachineID]; ok {
			p.taskID = m.TaskID
			e.pending[m.MachineID] = p
		}
	case *releaseResize:
		delete(e.pending, m.MachineID)
	case *suspendTenant:
		e.suspend(ctx, m)
	case *suspendedMachines:
		e.suspendedMachines(ctx, m)
	case *unsuspendTenant:
		e.unsuspend(ctx)
	default:
		e.handleFirewall(ctx, msg)
	}
}

// save writes t. A name it takes (not the entity's before, ignoring case) must be
// free: the batch requires its index key absent, and frees the old name's key. st,
// when set, is the claim of the request's Idempotency-Key: the write carries it, with
// t as its reply.
func (e *tenantEntity) save(t *Tenant, st *kit.Stamp) error {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	// The standing published is withdrawn for the write: a check meanwhile asks the
	// entity; the caller publishes the new one (setRec) once the write is durable.
	e.sys.standing.withdraw(t.ID)
	val, err := persistence.Encode(tenantVersion, t)
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(tenantKey(t.ID), val)
	if err := st.Carry(b, *t); err != nil {
		return err
	}
	if err := e.sys.rt.Audit(b, e.audit.On("", t.ID, t.ID)); err != nil {
		return err
	}
	key := nameKey(t.Name)
	switch {
	case e.rec == nil || kit.FoldName(e.rec.Name) != kit.FoldName(t.Name):
		b.Require(persistence.IfAbsent(key)).Put(key, []byte(t.ID))
		if e.rec != nil {
			if err := e.freeName(b); err != nil {
				return err
			}
		}
	default:
		// The same name, ignoring case: the key is the tenant's already, or another
		// tenant's of the same name from before the index (left to it), or absent
		// (a tenant deleted meanwhile had it: taken now, as a create would).
		holder, err := nameHolder(ctx, e.sys.store, t.Name)
		if err != nil {
			return err
		}
		if holder == "" {
			b.Require(persistence.IfAbsent(key)).Put(key, []byte(t.ID))
		}
	}
	if t.ExternalID != nil && (e.rec == nil || e.rec.ExternalID == nil || *e.rec.ExternalID != *t.ExternalID) {
		ext := externalKey(*t.ExternalID)
		b.Require(persistence.IfAbsent(ext)).Put(ext, []byte(t.ID))
		if e.rec != nil && e.rec.ExternalID != nil {
			b.Del(externalKey(*e.rec.ExternalID))
		}
	}
	if t.ExternalID == nil && e.rec != nil && e.rec.ExternalID != nil {
		b.Del(externalKey(*e.rec.ExternalID)) // removed: free for another tenant
	}
	if err := e.sys.rt.Commit(b); persistence.IsConditionFailed(err) {
		if t.ExternalID != nil {
			if holder, gerr := e.sys.store.Get(ctx, externalKey(*t.ExternalID)); gerr == nil && string(holder) != t.ID {
				return apierr.New(apierr.ErrConflict, "another tenant has external_id %s", *t.ExternalID)
			}
		}
		return nameConflict(ctx, e.sys.store, t.Name, t.ID)
	} else if err != nil {
		return err
	}
	return nil
}

// freeName adds to b the removal of the index key of the entity's current name, when it
// is this tenant's (an index built over two tenants of one name keeps the other's).
func (e *tenantEntity) freeName(b *persistence.Batch) error {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	holder, err := nameHolder(ctx, e.sys.store, e.rec.Name)
	if err != nil {
		return err
	}
	if holder == e.id {
		b.Del(nameKey(e.rec.Name))
	}
	return nil
}

func (e *tenantEntity) create(ctx *kit.Ctx, t Tenant, st *kit.Stamp) {
	if e.rec != nil {
		ctx.Fail(apierr.New(apierr.ErrConflict, "tenant %s exists", e.id))
		return
	}
	now := time.Now().UTC()
	t.CreatedAt, t.UpdatedAt = now, now
	if err := e.save(&t, st); err != nil {
		ctx.Fail(err)
		return
	}
	e.setRec(&t)
	ctx.Respond(t)
}

func (e *tenantEntity) update(ctx *kit.Ctx, c TenantChange) {
	next := *e.rec
	if c.Name != nil {
		next.Name = *c.Name
	}
	next.Quota = c.Quota.applyTo(next.Quota)
	if c.ExternalID != nil {
		next.ExternalID = kit.Ptr(*c.ExternalID)
	}
	if c.ClearExternalID {
		next.ExternalID = nil
	}
	if c.RequireTOTP != nil {
		next.RequireTOTP = *c.RequireTOTP
	}
	if err := validateTenant(next.Name, next.Quota); err != nil {
		ctx.Fail(err)
		return
	}
	next.UpdatedAt = time.Now().UTC()
	if err := e.save(&next, nil); err != nil {
		ctx.Fail(err)
		return
	}
	e.setRec(&next)
	ctx.Respond(next)
}

func (e *tenantEntity) delete(ctx *kit.Ctx) {
	rctx, cancel := e.sys.rt.Work()
	defer cancel()
	hasMachines, err := e.sys.Machines.HasMachines(rctx, e.id)
	if err != nil {
		ctx.Fail(err)
		return
	}
	hasUsers, err := e.sys.hasUsers(rctx, e.id)
	if err != nil {
		ctx.Fail(err)
		return
	}
	// Schedules and backups would be orphaned (backups hold space on the hypervisor).
	hasSchedules, err := e.sys.hasSchedules(rctx, e.id)
	if err != nil {
		ctx.Fail(err)
		return
	}
	backups, err := e.sys.Backups.Count(rctx, e.id, 1)
	if err != nil {
		ctx.Fail(err)
		return
	}
	// A webhook of a deleted tenant would get nothing, and only operators would see it.
	hasWebhooks, err := e.sys.hasWebhooks(rctx, e.id)
	if err != nil {
		ctx.Fail(err)
		return
	}
	if hasMachines || hasUsers || hasSchedules || hasWebhooks || backups > 0 {
		ctx.Fail(apierr.New(apierr.ErrConflict, "tenant %s still has machines, users, schedules, webhooks or backups; delete them first", e.id))
		return
	}
	e.sys.standing.withdraw(e.id)
	b := new(persistence.Batch).Del(tenantKey(e.id))
	if e.rec.ExternalID != nil {
		b.Del(externalKey(*e.rec.ExternalID))
	}
	if err := e.freeName(b); err != nil {
		ctx.Fail(err)
		return
	}
	for _, r := range e.rules {
		b.Del(ruleKey(e.id, r.ID)).Del(persistence.Key("fw-rule", r.ID))
	}
	// What the machines and the schedules kept of the tenant goes too: no key is left
	// under its id.
	e.sys.Machines.ForgetTenant(b, e.id)
	e.sys.forgetTenant(b, e.id)
	if err := e.sys.rt.Audit(b, e.audit.On("", e.id, e.id)); err != nil {
		ctx.Fail(err)
		return
	}
	if err := e.sys.rt.Commit(b); err != nil {
		ctx.Fail(err)
		return
	}
	e.setRec(nil)
	e.setRules(nil)
	// No incarnation of a deleted tenant loads its rules (Load stops at the absent
	// record), and its id is never reused: nothing will wait for its rule writes.
	e.sys.Tenants.lastRuleWrite.Delete(e.id)
	e.fw.handle = nil
	ctx.Respond(kit.Done{})
}

// usage is what the tenant's machines hold (machines.TenantUsage: their counter, one
// read) plus the resizes whose tasks are still running. The reservations are pruned
// first, each by a read of its machine (a reservation whose machine is gone, moved to
// another tenant or past its task is over: its record tells the truth now), and the
// counter read after: a resize that ends between the two is counted twice for this one
// check, never not at all, so the check errs on the quota's side.
func (e *tenantEntity) usage() (Usage, error) {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	for id, p := range e.pending {
		m, err := e.sys.Machines.Stored(ctx, id)
		if err != nil && !errors.Is(err, apierr.ErrNotFound) {
			return Usage{}, err
		}
		if err != nil || m.TenantID == nil || *m.TenantID != e.id || (p.taskID != "" && (m.TaskID == nil || *m.TaskID != p.taskID)) {
			delete(e.pending, id)
		}
	}
	mu, err := e.sys.Machines.TenantUsage(ctx, e.id)
	if err != nil {
		return Usage{}, err
	}
	u := Usage{Machines: mu.Machines, CPUCores: mu.CPUCores, MemoryMB: mu.MemoryMB, DiskGB: mu.DiskGB}
	for _, p := range e.pending {
		u.CPUCores += p.delta.CPUCores
		u.MemoryMB += p.delta.MemoryMB
		u.DiskGB += p.delta.DiskGB
	}
	return u, nil
}

// counts are the tenant's backups on record (their number and GB, rounded up) and its
// machines' snapshots, which the machines count against the quota when one is asked
// for (machines.Limits); a machine create's check leaves them out, so only the usage
// answer reads them.
func (e *tenantEntity) counts() (backups, snapshots, backupGB int, err error) {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	held, err := e.sys.Backups.TenantHeld(ctx, e.id)
	if err != nil {
		return 0, 0, 0, err
	}
	snapshots, err = e.sys.Machines.TenantSnapshots(ctx, e.id)
	return held.Count, snapshots, int((held.Bytes + gib - 1) / gib), err
}

// gib is a GB of the quotas, 2^30 bytes, as the machines count it.
const gib = int64(1) << 30

// Limits returns a tenant's quotas of backups and snapshots: what the machines'
// Deps.Limits asks before a snapshot or a backup on demand.
func (t *Tenants) Limits(ctx context.Context, id string) (machines.Limits, error) {
	ten, err := t.Get(ctx, id)
	if err != nil {
		return machines.Limits{}, err
	}
	return machines.Limits{Backups: ten.Quota.Backups, Snapshots: ten.Quota.Snapshots, BackupGB: ten.Quota.BackupGB}, nil
}

// overQuota names what a change would push past the quota, or returns nil.
func overQuota(q Quota, u Usage, add Usage) error {
	var over []apierr.FieldError
	check := func(field string, have, plus, limit int) {
		if limit != Unlimited && plus > 0 && have+plus > limit {
			over = append(over, apierr.Field(field, "quota %d, in use %d, asked for %d more", limit, have, plus))
		}
	}
	check("machines", u.Machines, add.Machines, q.Machines)
	check("cpu_cores", u.CPUCores, add.CPUCores, q.CPUCores)
	check("memory_mb", u.MemoryMB, add.MemoryMB, q.MemoryMB)
	check("disk_gb", u.DiskGB, add.DiskGB, q.DiskGB)
	if len(over) == 0 {
		return nil
	}
	e := apierr.New(apierr.ErrQuotaExceeded, "the tenant's quota of %s is exceeded", over[0].Field)
	e.Fields = over
	return e
}

// createTries bounds the creates made again because another machine's write moved the
// tenant's usage counter between the quota check and the commit.
const createTries = 100

func (e *tenantEntity) createMachine(ctx *kit.Ctx, s MachineSpec, st *kit.Stamp) {
	need := Usage{Machines: 1, CPUCores: s.CPUCores, MemoryMB: s.MemoryMB, DiskGB: s.DiskGB}
	e.provision(ctx, st, need, wantOf(s), func(actx context.Context, b *persistence.Batch, id string, g addresses.Grant) (*machines.Creation, error) {
		return e.sys.Machines.AddCreateAs(actx, b, id, e.id, hypervisor.CreateSpec{Name: s.Name, Node: s.Node, Location: s.LocationID, TemplateID: s.TemplateID,
			CPUCores: s.CPUCores, MemoryMB: s.MemoryMB, DiskGB: s.DiskGB, Password: s.Password, SSHKeys: s.SSHKeys, Start: true,
			Addresses: g.Addresses, Nameservers: g.DNS}, s.PlanID)
	})
}

// addMachine puts into b the writes of a new machine (a create's, a restore's) with
// the id the tenant made and the addresses it was given; actx carries the request's
// audit entry, which goes with the machine's operation.
type addMachine func(actx context.Context, b *persistence.Batch, id string, g addresses.Grant) (*machines.Creation, error)

// provision records a new machine of the tenant (a create, a restore into a new
// machine) in one durable batch with what it embodies: the quota it takes (need,
// checked against the tenant's usage counter, which the batch requires unchanged),
// the addresses want asks for (allocated in the same batch), the request's audit
// entry and the Idempotency-Key's claim (st). A batch refused because another
// machine's write moved the counter, or another allocation took one of the addresses,
// is made again; then the machine's task starts and ctx is answered.
func (e *tenantEntity) provision(ctx *kit.Ctx, st *kit.Stamp, need Usage, want addresses.Want, add addMachine) {
	rctx, cancel := e.sys.rt.Work()
	defer cancel()
	for try := 1; ; try++ {
		u, err := e.usage()
		if err != nil {
			ctx.Fail(err)
			return
		}
		if err := overQuota(e.rec.Quota, u, need); err != nil {
			ctx.Fail(err)
			return
		}
		// The machine's writes go into the tenant's batch, with the reservation they
		// embody and the addresses it is given, before any machine actor exists for
		// it; from then on its actor owns it.
		b := new(persistence.Batch)
		id := persistence.NewID()
		grant, err := e.allocate(rctx, b, want, id)
		if err != nil {
			ctx.Fail(err)
			return
		}
		// The request's entry goes with the machine's operation: the operation's end
		// is recorded under it.
		c, err := add(kit.WithAudit(rctx, e.audit), b, id, grant)
		if err != nil {
			ctx.Fail(err)
			return
		}
		reply := Provisioned{Machine: c.Machine, Task: c.Task}
		if err := st.Carry(b, reply); err != nil {
			ctx.Fail(err)
			return
		}
		if err := e.sys.rt.Audit(b, e.audit.On("", c.Machine.ID, e.id)); err != nil {
			ctx.Fail(err)
			return
		}
		err = e.sys.rt.Commit(b)
		if persistence.IsConditionFailed(err) && try < createTries {
			// A delete or a resize of another machine moved the counter: the quota is
			// checked again on what it holds now.
			if again, rerr := e.sys.Machines.CreateRefused(rctx, c); rerr == nil && again {
				continue
			}
			// Another create (on any member) took one of the addresses first, or
			// the pool changed: the addresses are chosen again.
			if taken, terr := e.taken(rctx, grant); terr == nil && taken {
				continue
			}
		}
		if err != nil {
			ctx.Fail(err)
			return
		}
		e.sys.Machines.Created(c)
		ctx.Respond(reply)
		return
	}
}

func (e *tenantEntity) reserveResize(ctx *kit.Ctx, m *reserveResize) {
	rctx, cancel := e.sys.rt.Work()
	defer cancel()
	rec, err := e.sys.Machines.Stored(rctx, m.MachineID)
	if errors.Is(err, apierr.ErrNotFound) || (err == nil && (rec.TenantID == nil || *rec.TenantID != e.id)) {
		ctx.Fail(apierr.NotFound("machine", m.MachineID))
		return
	}
	if err != nil {
		ctx.Fail(err)
		return
	}
	// usage prunes the reservations of resizes that have ended.
	u, err := e.usage()
	if err != nil {
		ctx.Fail(err)
		return
	}
	if _, ok := e.pending[m.MachineID]; ok || rec.TaskID != nil {
		ctx.Fail(apierr.New(apierr.ErrOperationInProgress, "machine %s has an operation in progress", rec.ID))
		return
	}
	op, delta, err := resizeOp(rec, m.Change, m.PlanID, m.PlanName)
	if err != nil {
		ctx.Fail(err)
		return
	}
	if err := overQuota(e.rec.Quota, u, delta); err != nil {
		ctx.Fail(err)
		return
	}
	// Shrinking cores or memory frees quota only when the task has done it, so a
	// negative delta is held as zero until then.
	e.pending[m.MachineID] = pendingResize{delta: Usage{CPUCores: max(delta.CPUCores, 0), MemoryMB: max(delta.MemoryMB, 0), DiskGB: delta.DiskGB}}
	ctx.Respond(resizeReserved{Op: op})
}

// setRec makes rec the tenant's record in memory, and publishes its standing: called
// once its write is durable, before the change is answered (on a cluster member, a
// suspension or a deletion only after the fence: standings.ended).
func (e *tenantEntity) setRec(rec *Tenant) {
	prev := e.rec
	e.rec = rec
	e.sys.standing.publish(e.id, rec)
	e.sys.standing.ended(prev, rec)
}

// Absent implements kit.Absence.
func (e *tenantEntity) Absent() bool { return e.rec == nil }

// The runtime finds these behaviours by interface: the compiler checks them, since a
// misnamed method would silently turn them off.
var (
	_ kit.Absence = (*tenantEntity)(nil)
	_ kit.Busy    = (*tenantEntity)(nil)
)

// MaxExternalIDLen bounds an external id.
const MaxExternalIDLen = 128

// externalKey indexes tenants by external id: tenant-ext/<id>.
func externalKey(ext string) []byte { return persistence.Key("tenant-ext", ext) }

func checkExternalID(ext *string) error {
	if ext != nil && (*ext == "" || len(*ext) > MaxExternalIDLen || strings.ContainsAny(*ext, "/\x00")) {
		return apierr.Invalid(apierr.Field("external_id", "must be 1..%d characters, without / or NUL", MaxExternalIDLen))
	}
	return nil
}

// ByExternalID finds the tenant another system knows by ext; none is not found.
func (t *Tenants) ByExternalID(ctx context.Context, ext string) (Tenant, error) {
	id, err := t.sys.store.Get(ctx, externalKey(ext))
	if errors.Is(err, persistence.ErrNotFound) {
		return Tenant{}, apierr.NotFound("tenant with external_id", ext)
	}
	if err != nil {
		return Tenant{}, err
	}
	return t.Get(ctx, string(id))
}
