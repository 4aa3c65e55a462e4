package machines

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/events"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/counters"
	"github.com/vmplane/vmplane/actors/machines/listcache"
	"github.com/vmplane/vmplane/actors/machines/media"
	"github.com/vmplane/vmplane/actors/machines/nodestate"
	"github.com/vmplane/vmplane/actors/machines/obsdigest"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Machine statuses (API.md). The hypervisor reports running, stopped and suspended;
// provisioning and migrating are ours while a task runs; error marks a machine whose
// provisioning failed or that the hypervisor lost.
const (
	StatusProvisioning = "provisioning"
	StatusRunning      = "running"
	StatusStopped      = "stopped"
	StatusSuspended    = "suspended"
	StatusMigrating    = "migrating"
	StatusError        = "error"
)

// Machine is a virtual machine as the API shows it.
type Machine struct {
	ID         string                 `json:"id"`
	VMID       int                    `json:"vmid"`
	Name       string                 `json:"name"`
	TenantID   *string                `json:"tenant_id"`
	Node       string                 `json:"node"`
	Status     string                 `json:"status"`
	CPUCores   int                    `json:"cpu_cores"`
	MemoryMB   int                    `json:"memory_mb"`
	DiskGB     int                    `json:"disk_gb"`
	Disks      []hypervisor.Disk      `json:"disks"`
	Interfaces []hypervisor.Interface `json:"interfaces"`
	TemplateID string                 `json:"template_id"`
	TaskID     *string                `json:"task_id"`
	CreatedAt  time.Time              `json:"created_at"`
	UpdatedAt  time.Time              `json:"updated_at"`
	// Firewall is the outcome of the last push of the machine's firewall rules; null
	// until the first push.
	Firewall *FirewallState `json:"firewall"`
	// PlanID is the plan the machine was made from or last moved to; null for a
	// machine made from explicit sizes (or adopted). Records written before plans
	// existed lack the field and read as null: an optional field needs no schema
	// version of its own.
	PlanID *string `json:"plan_id"`
	// Media is the ISO image in the machine's CD-ROM drive; null for none.
	Media *MountedISO `json:"media"`
	// BootOrder lists the devices the machine boots from (cdrom, disk, net), in order;
	// absent until the hypervisor reported the machine (while it is provisioned).
	BootOrder []string `json:"boot_order,omitempty"`
	// Rescue says the machine runs the rescue system, until it is turned off.
	Rescue bool `json:"rescue"`
	// BillingSuspension is null, or why and since when an operator suspended the
	// machine for billing (SuspendBilling).
	BillingSuspension *BillingSuspension `json:"billing_suspension"`
	// TerminateAt is null, or when the machine is deleted with its snapshots and
	// backups (Terminate); a cancel takes it back until then.
	TerminateAt *time.Time `json:"terminate_at"`
	// Display says the machine has a display, so a graphical (vnc) console besides
	// the serial one. A record written before the field existed reads false until the
	// hypervisor next reports the machine (the sync at start-up does).
	Display bool `json:"display"`
	// Addresses are the addresses (IPv6: routed prefixes) vmplane gave the machine
	// from its IP pools when it was made; absent: none (its network is configured
	// outside vmplane).
	Addresses []hypervisor.Address `json:"addresses,omitempty"`
	// Location is the hypervisor cluster the machine is in ("default": the one the
	// settings configure). Its vmid and node name are unique within it only.
	Location hvloc.ID `json:"location_id"`
}

// record is a machine as stored under vm/<id>. Only this package reads or writes it:
// other packages ask (Machines.Stored, TenantUsage, InStatus) or, to create a machine in
// their own batch, call Machines.AddCreate.
type record struct {
	Machine
	// Op is the operation of the task in flight (TaskID), secrets removed, so that a
	// restart can tell from the hypervisor's state whether it finished.
	Op *Operation `json:"op,omitempty"`
	// OpAudit is the audit entry of the request that started Op: the task's end is
	// recorded under the same actor and request id (outcomeAudit). Kept while the task
	// runs only; not in Op, which travels between members in messages.
	OpAudit *kit.AuditEntry `json:"op_audit,omitempty"`
	// PrevStatus is the status before the task in flight changed it (migrating), to
	// return to when the task fails and the hypervisor cannot tell.
	PrevStatus string `json:"prev_status,omitempty"`
	// StateAt is when a task last recorded the machine's state as the hypervisor
	// reported it live. A sync's observation older than that (Proxmox's resource list
	// lags by a pvestatd cycle) must not move the state back.
	StateAt time.Time `json:"state_at,omitempty"`
	// Snapshots is how many snapshots the hypervisor listed for the machine after the
	// last task that could change them (a snapshot's, a rollback's, a restore's): what
	// the tenant's snapshot quota counts (Holding).
	Snapshots int `json:"snapshots,omitempty"`
	// RescueBoot is the boot order to restore when rescue is turned off.
	RescueBoot []string `json:"rescue_boot,omitempty"`
}

const recordVersion = 1

// machineKey is the key of a machine's record: vm/<id>.
func machineKey(id string) []byte { return persistence.Key("vm", id) }

// tenantKey indexes a tenant's machines: vm-tenant/<tenant>/<machine>.
func tenantKey(tenant, id string) []byte { return persistence.Key("vm-tenant", tenant, id) }

// Holding is what a machine holds against its tenant's quota as its record stands, and
// its task in flight: the value of its tenant index key. It is written in the same
// batch as every write of the record, so it never differs from it: the sum of a
// tenant's index (holdings) is what its usage counter is built from and checked
// against, and what a quota read sums while the counters are not trusted, in one scan
// instead of one read per machine. A store written before it has empty values: readers
// then read the record.
type Holding struct {
	CPUCores int    `json:"cpu_cores"`
	MemoryMB int    `json:"memory_mb"`
	DiskGB   int    `json:"disk_gb"`
	TaskID   string `json:"task_id,omitempty"`
	// Snapshots is the record's count of the machine's snapshots, summed for the
	// tenant's snapshot quota (TenantSnapshots); it moves no usage counter.
	Snapshots int `json:"snapshots,omitempty"`
}

const tenantEntryVersion = 1

// holdingOf is the tenant index entry of r.
func holdingOf(r *record) Holding {
	e := Holding{CPUCores: r.CPUCores, MemoryMB: r.MemoryMB, DiskGB: r.DiskGB, Snapshots: r.Snapshots}
	if r.TaskID != nil {
		e.TaskID = *r.TaskID
	}
	return e
}

// tenantIndexValue is the tenant index value of r.
func tenantIndexValue(r *record) []byte {
	val, err := persistence.Encode(tenantEntryVersion, holdingOf(r))
	if err != nil {
		return nil // cannot happen for ints and a string; an empty value is read as unknown
	}
	return val
}

// readHolding decodes a tenant index value; ok is false for an empty one (written
// before entries had a value), whose record must be read instead.
func readHolding(val []byte) (e Holding, ok bool, err error) {
	if len(val) == 0 {
		return e, false, nil
	}
	if _, err := persistence.Decode(val, &e); err != nil {
		return e, false, err
	}
	return e, true, nil
}

// putTenantIndex keeps the tenant index (and the media and node/state indexes) in step with a record's tenant and sizes. The
// tenants' usage counters move with it, in the same batch, through commitReleasing
// (countDelta), which reads and requires them.
func putTenantIndex(b *persistence.Batch, prev *record, next *record) {
	putMediaIndex(b, prev, next)
	putNodeState(b, prev, next)
	var was, is string
	if prev != nil && prev.TenantID != nil {
		was = *prev.TenantID
	}
	if next != nil && next.TenantID != nil {
		is = *next.TenantID
	}
	if was != "" && was != is {
		b.Del(tenantKey(was, prev.ID))
	}
	if is != "" {
		b.Put(tenantKey(is, next.ID), tenantIndexValue(next))
	}
}
func vmidKey(loc hvloc.ID, vmid int) []byte {
	if loc == "" {
		return persistence.Key("vm-vmid", strconv.Itoa(vmid))
	}
	return persistence.Key("vm-vmid-at", string(loc), strconv.Itoa(vmid))
}

// Ref is the machine as its location's hypervisor knows it: vmids and node names are
// unique within one location only, and the ref's location routes every call.
func (m *Machine) Ref() hypervisor.Ref {
	return hypervisor.Ref{VMID: m.VMID, Node: m.Node, Location: string(m.Location)}
}

// Operation is one change of a machine, run on the hypervisor as a task.
type Operation struct {
	Type       string                 `json:"type"`
	Action     hypervisor.PowerAction `json:"action,omitempty"`
	TargetNode string                 `json:"target_node,omitempty"`
	Online     bool                   `json:"online,omitempty"`
	// AutoOnline lets the machine choose: online when running, offline when stopped.
	AutoOnline  bool                         `json:"auto_online,omitempty"`
	Config      *hypervisor.ConfigChange     `json:"config,omitempty"`
	Interfaces  []hypervisor.InterfaceChange `json:"interfaces,omitempty"`
	DiskSizeGB  int                          `json:"disk_size_gb,omitempty"`
	DiskStorage string                       `json:"disk_storage,omitempty"`
	Reinstall   *hypervisor.ReinstallSpec    `json:"reinstall,omitempty"`
	Create      *hypervisor.CreateSpec       `json:"create,omitempty"`
	// DiskGrowGB is how much a resize grows the system disk by.
	DiskGrowGB int `json:"disk_grow_gb,omitempty"`
	// PlanID, on a resize, is the plan the machine moves to: the record takes it when
	// the resize succeeds.
	PlanID *string `json:"plan_id,omitempty"`
	// BackupMode, Retention and Prunable describe a backup (OpBackup): after it is
	// taken, the oldest of Prunable (a schedule's earlier backups, by hypervisor id)
	// beyond Retention are deleted. Retention 0 deletes nothing.
	BackupMode string   `json:"backup_mode,omitempty"`
	Retention  int      `json:"retention,omitempty"`
	Prunable   []string `json:"prunable,omitempty"`
	// OnDemand marks a backup a user asked for, outside any schedule: the task's end
	// writes its record, with Note (a schedule's run writes its own).
	OnDemand bool   `json:"on_demand,omitempty"`
	Note     string `json:"note,omitempty"`
	// Snapshot is the snapshot an OpSnapshot takes; SnapshotName is the one a
	// rollback or a delete names.
	Snapshot     *hypervisor.SnapshotSpec `json:"snapshot,omitempty"`
	SnapshotName string                   `json:"snapshot_name,omitempty"`
	// BackupID is our id of the backup an OpRestore brings back and Archive the
	// hypervisor's name of it; StartAfter starts the machine once it is restored.
	BackupID   string `json:"backup_id,omitempty"`
	Archive    string `json:"archive,omitempty"`
	StartAfter bool   `json:"start_after,omitempty"`
	// Change is a media operation's (actors/machines/media): the image, the boot
	// order, rescue on or off.
	media.Change
	// Purge, on a destroy, deletes the machine's snapshots and backups first: a
	// termination's (Terminate), which starts only when it is due.
	Purge bool `json:"purge,omitempty"`
	// Restore is the backup an OpRestoreNew restores into a new machine, and where.
	Restore *RestoreTarget `json:"restore,omitempty"`
}

// Operation types.
const (
	OpPower     = "power"
	OpMigrate   = "migrate"
	OpConfig    = "config"
	OpNetwork   = "network"
	OpAddDisk   = "disk"
	OpReinstall = "reinstall"
	// OpCreate provisions the machine on the hypervisor (its record exists already,
	// written by the tenant that reserved its quota).
	OpCreate = "create"
	// OpDestroy deletes the machine from the hypervisor, then its record.
	OpDestroy = "destroy"
	// OpResize changes cores and memory and grows the system disk in one task.
	OpResize = "resize"
	// OpBackup takes a backup and prunes the schedule's older ones past retention;
	// the task's result is a backups.Result.
	OpBackup = "backup"
	// OpSnapshot takes a snapshot (Snapshot); its result is the hypervisor.Snapshot.
	OpSnapshot = "snapshot"
	// OpSnapshotRollback brings the machine back to the snapshot SnapshotName.
	OpSnapshotRollback = "snapshot_rollback"
	// OpSnapshotDelete deletes the snapshot SnapshotName.
	OpSnapshotDelete = "snapshot_delete"
	// OpRestore restores the machine over itself from one of its backups: stopped
	// first if it runs, started afterwards when StartAfter says so.
	OpRestore = "restore"
)

// taskType names the task of an operation: vm.start, vm.migrate, ...
func (op Operation) taskType() string {
	if op.Type == OpPower {
		return "vm." + string(op.Action)
	}
	return "vm." + op.Type
}

// WithoutSecrets is the operation as it may be stored.
func (op Operation) WithoutSecrets() *Operation {
	c := op
	if c.Reinstall != nil {
		r := *c.Reinstall
		r.Password, r.SSHKeys = "", nil
		c.Reinstall = &r
	}
	if c.Create != nil {
		r := *c.Create
		r.Password, r.SSHKeys = "", nil
		c.Create = &r
	}
	return &c
}

// allowed says which operations each status admits: the machine state table of
// docs/routes.md. Anything else is 409 invalid_state.
func allowed(status string, op Operation) bool {
	if op.Type == OpDestroy {
		return status != StatusProvisioning && status != StatusMigrating
	}
	if provisions(&op) {
		return false // only a new record is provisioned, by the tenant that made it
	}
	if op.Type == OpPower && status != StatusError {
		// The hypervisor's power state machine, the one every driver follows.
		_, ok := hypervisor.PowerTransition(hypervisor.State(status), op.Action)
		return ok
	}
	switch status {
	case StatusRunning:
		if op.Type == OpMigrate {
			return op.Online
		}
		return true
	case StatusStopped:
		return true
	case StatusSuspended:
		return false
	case StatusError:
		return (op.Type == OpPower && (op.Action == hypervisor.ActionStart || op.Action == hypervisor.ActionStop)) || op.Type == OpReinstall
	}
	return false
}

// Messages of a machine entity.
type (
	getMachine struct{ Tenant *string }
	getRef     struct{ Tenant *string }
	startOp    struct {
		Op     Operation
		Tenant *string
		// TaskID, when set, is the id the task gets (see StartAs).
		TaskID string
		// Stamp, for a request made with an Idempotency-Key, is the key's claim,
		// which the write that records the task carries (kit.Stamp).
		Stamp *kit.Stamp
	}
	// opDone reports the end of a task's hypervisor work.
	opDone struct {
		TaskID   string
		Observed *hypervisor.Machine
		Result   json.RawMessage
		Err      *apierr.Error
		// Snapshots is the machine's count of snapshots after a task that may change
		// it, when the hypervisor could list them.
		Snapshots *int
	}
	// observe brings the record in line with the hypervisor (sync). At is the moment
	// the observation describes at the earliest; zero means now.
	observe struct {
		M  hypervisor.Machine
		At time.Time
	}
	// vanish removes the record of a machine the hypervisor no longer has (sync), as
	// the hypervisor was at At.
	vanish struct{ At time.Time }
	// settle finishes a task left open by a previous process.
	settle struct{ TaskID string }
	// provision starts the create task of a record its tenant just wrote. The
	// operation carries the secrets (password, keys) that the record does not.
	provision struct{ Op Operation }
	// assignTenant moves a machine to another tenant (or none): an operator's act.
	assignTenant struct{ TenantID *string }
	// machineRef is what callers need to talk to the hypervisor about a machine.
	machineRef struct {
		Ref    hypervisor.Ref
		Status string
		ID     string
		// Display is the record's Display.
		Display bool `json:",omitempty"`
	}
)

// Machines is the service in front of the machines kind.
type Machines struct {
	sys  *system
	kind *kit.Kind
	// alloc keeps what the machines allocate on each node (Allocated).
	alloc *capacity.Allocations
	// running maps the id of each task whose hypervisor work runs in this process to
	// its cancel function: a task with no entry here was left by an earlier process.
	running sync.Map
	wg      sync.WaitGroup
	// stopping is set by stop: work cancelled by a shutdown is not reported as failed,
	// because the hypervisor may still finish it (a Proxmox task outlives our polling);
	// the task stays open and the next start settles it against the hypervisor's state.
	stopping atomic.Bool
	// beginMu orders registering work (begin) before Stop's walk and wait: work
	// either is registered before Stop sets stopping, and is cancelled and waited for,
	// or sees stopping and never starts (a WaitGroup's Add after its Wait began would
	// start a goroutine that outlives Stop).
	beginMu sync.Mutex
	// lists caches tenants' first list pages (machinelists.go).
	lists *listcache.Cache[Machine]
	// listsGate says whether lists may serve a read (exact on a cluster member too).
	listsGate *persistence.CacheGate
	// OpTimeout bounds one task's hypervisor work.
	OpTimeout time.Duration
	// counters keeps the tenants' usage counters (usage.go).
	counters *counters.Counters
	// nodeState keeps the index of machines by node and state (machinelists.go).
	nodeState *nodestate.Index
	// digests keep the trust in the sync's digests of the records (observed.go).
	digests *obsdigest.Digests
	// terminations are the timers of the machines marked for termination.
	terminations kit.EntityTimers
}

func startMachines(s *system) *Machines {
	m := &Machines{sys: s, OpTimeout: 10 * time.Minute, lists: newMachineLists(s.store), alloc: newAllocations(s.store)}
	m.listsGate = persistence.NewCacheGate(s.store, m.lists.Clear)
	m.terminations.Clock = s.rt.Clock
	m.kind = s.rt.StartKind("machines", 5*time.Minute, func(id string) kit.Entity {
		return &machineEntity{sys: s, ms: m, id: id}
	}, nil)
	m.counters = counters.Start(counters.Deps{Runtime: s.rt, Counting: s.keeping(counters.Feature), Index: indexOf(s.store)})
	m.nodeState = nodestate.Start(nodestate.Deps{Runtime: s.rt, Keeping: s.keeping(nodestate.Feature), Records: nodeStateRecords(s.store)})
	m.digests = obsdigest.Start(obsdigest.Deps{Runtime: s.rt, Keeping: s.keeping(obsdigest.Feature), Records: digestRecords(s.store)})
	return m
}

// Stop cancels the hypervisor work in flight and waits for it; its tasks are settled by
// the next start.
func (m *Machines) Stop() {
	m.counters.Stop()
	m.nodeState.Stop()
	m.digests.Stop()
	m.terminations.Stop()
	m.beginMu.Lock()
	m.stopping.Store(true)
	m.beginMu.Unlock()
	m.running.Range(func(_, v any) bool {
		v.(context.CancelFunc)()
		return true
	})
	m.wg.Wait()
}

func (m *Machines) ask(ctx context.Context, id string, msg any) (any, error) {
	return kit.Ask[any](ctx, m.kind, id, msg)
}

// Get returns one machine. With a tenant scope, another tenant's machine is not found.
func (m *Machines) Get(ctx context.Context, id string, tenant *string) (Machine, error) {
	return askMachine[Machine](ctx, m, id, &getMachine{Tenant: tenant})
}

// askMachine is the one way from what a caller sent (a record id or a vmid) to a
// machine's entity, which checks the tenant scope. A machine that does not exist and
// one outside the caller's scope answer the same not-found, naming only what the
// caller sent: never the record id a vmid resolved to.
func askMachine[T any](ctx context.Context, m *Machines, sent string, msg any) (T, error) {
	id, err := m.Resolve(ctx, sent)
	if err == nil {
		var v T
		if v, err = kit.Ask[T](ctx, m.kind, id, msg); err == nil {
			return v, nil
		}
	}
	var zero T
	return zero, NotFoundAs(err, sent)
}

// NotFoundAs makes a not-found error name the machine as the caller sent it.
func NotFoundAs(err error, sent string) error {
	if errors.Is(err, apierr.ErrNotFound) {
		return apierr.NotFound("machine", sent)
	}
	return err
}

// Resolve accepts a record id or, for operators used to Proxmox, a vmid.
func (m *Machines) Resolve(ctx context.Context, id string) (string, error) {
	if id == "" || len(id) > 64 {
		return "", apierr.NotFound("machine", id)
	}
	if _, err := strconv.Atoi(id); err == nil {
		// The default location's vmid: another location's repeat them.
		v, err := m.sys.store.Get(ctx, persistence.Key("vm-vmid", id))
		if errors.Is(err, persistence.ErrNotFound) {
			return "", apierr.NotFound("machine", id)
		}
		if err != nil {
			return "", err
		}
		return string(v), nil
	}
	return id, nil
}

// Start validates an operation against the machine's state, records its task and
// runs it on the hypervisor. It returns the task at once. Made with an Idempotency-Key
// (ctx carries its stamp), the write that records the task carries the key's claim,
// and the retry of a start that applied without an answer gets the task it made. A
// restore is started by Restore, which checks that its backup is the machine's.
func (m *Machines) Start(ctx context.Context, id string, op Operation, tenant *string) (tasks.Task, error) {
	if op.Type == OpRestore {
		return tasks.Task{}, apierr.New(apierr.ErrInternal, "a restore is started by Machines.Restore")
	}
	return m.start(ctx, id, op, tenant)
}

// start is Start for every operation.
func (m *Machines) start(ctx context.Context, id string, op Operation, tenant *string) (tasks.Task, error) {
	st := kit.StampOf(ctx)
	if t, ok, err := kit.Recorded[tasks.Task](st); ok {
		return t, err
	}
	// Existence and scope first: an unknown machine, or one outside the tenant's
	// scope, is a 404 whatever the operation's own faults, which must not tell a
	// tenant about a machine it cannot see.
	ref, err := m.Ref(ctx, id, tenant)
	if err != nil {
		return tasks.Task{}, err
	}
	if err := op.validate(); err != nil {
		return tasks.Task{}, err
	}
	// Here as well as in the entity: the driver's typed error (its reason) survives
	// only where it is made, not a trip through the actor.
	if err := checkMachineOp(op, &Machine{ID: ref.ID, Status: ref.Status}); err != nil {
		return tasks.Task{}, err
	}
	if err := m.precheckSnapshot(ctx, ref.Ref, op); err != nil {
		return tasks.Task{}, err
	}
	if op.Type == OpMigrate && ref.Ref.Location != "" {
		// The node as the machine's location names it; its record's id is
		// name@location (capacity.NodeID), which the caller may have sent.
		op.TargetNode = strings.TrimSuffix(op.TargetNode, "@"+ref.Ref.Location)
	}
	if op.Type == OpMigrate || op.Type == OpReinstall {
		if err := m.precheck(ctx, ref.ID, ref.Ref.Location, op); err != nil {
			return tasks.Task{}, err
		}
	}
	if err := m.checkQuota(ctx, id, op); err != nil {
		return tasks.Task{}, err
	}
	return askMachine[tasks.Task](ctx, m, id, &startOp{Op: op, Tenant: tenant, Stamp: st})
}

// precheck validates what an operation names outside the machine: the target node of a
// migration must exist in the machine's location loc (400) and be online (409); a
// reinstall's template must exist in the machine's location, and be one the
// machine's plan offers.
func (m *Machines) precheck(ctx context.Context, id, loc string, op Operation) error {
	switch op.Type {
	case OpMigrate:
		n, err := m.sys.Nodes.Get(ctx, capacity.NodeID(loc, op.TargetNode))
		if errors.Is(err, apierr.ErrNotFound) {
			return apierr.Invalid(apierr.Field("target_node", "no node %s", op.TargetNode))
		}
		if err != nil {
			return err
		}
		if n.Status != string(hypervisor.NodeOnline) {
			return apierr.New(apierr.ErrInvalidState, "node %s is %s", n.ID, n.Status)
		}
	case OpReinstall:
		if m.sys.templates == nil {
			return nil
		}
		var tloc string
		var err error = apierr.ErrNotFound
		if id := op.Reinstall.TemplateID; loc != "" && !strings.HasSuffix(id, "@"+loc) {
			// The location's own template named by its id there (debian-12 for
			// debian-12@loc): the dispatcher takes either form.
			tloc, err = m.sys.templates(ctx, id+"@"+loc)
		}
		if errors.Is(err, apierr.ErrNotFound) {
			tloc, err = m.sys.templates(ctx, op.Reinstall.TemplateID)
		}
		if errors.Is(err, apierr.ErrNotFound) {
			return apierr.Invalid(apierr.Field("template_id", "no template %s", op.Reinstall.TemplateID))
		} else if err != nil {
			return err
		}
		if tloc != loc {
			// The hypervisor of the machine's location has no disks of another's.
			return apierr.Invalid(apierr.Field("template_id", "template %s is in location %s, not %s",
				op.Reinstall.TemplateID, hvloc.Name(tloc), hvloc.Name(loc)))
		}
		if m.sys.templateAllowed == nil {
			return nil
		}
		rec, err := m.Stored(ctx, id)
		if err != nil || rec.PlanID == nil {
			return err
		}
		return m.sys.templateAllowed(ctx, *rec.PlanID, op.Reinstall.TemplateID)
	}
	return nil
}

// Ref returns the hypervisor reference of a machine, for reads that go to the driver
// without changing the machine (usage graphs, console).
func (m *Machines) Ref(ctx context.Context, id string, tenant *string) (machineRef, error) {
	return askMachine[machineRef](ctx, m, id, &getRef{Tenant: tenant})
}

// List returns machines in creation order, after the cursor (a machine id).
func (m *Machines) List(ctx context.Context, cursor string, limit int, filter func(*Machine) bool) ([]Machine, string, error) {
	return kit.ScanPage(ctx, m.sys.store, persistence.Prefix("vm"), cursor, limit, func(rec *record) (Machine, bool) {
		return rec.Machine, filter == nil || filter(&rec.Machine)
	})
}

// ListTenant returns one tenant's machines in creation order.
//
// The slice may be shared with other callers (see TenantPage): read it, do not modify it.
func (m *Machines) ListTenant(ctx context.Context, tenant, cursor string, limit int) ([]Machine, string, error) {
	p, err := m.TenantPage(ctx, tenant, cursor, limit)
	if err != nil {
		return nil, "", err
	}
	return p.Items, p.Next, nil
}

// listTenant reads a page of tenant's machines from the store.
func (m *Machines) listTenant(ctx context.Context, tenant, cursor string, limit int) ([]Machine, string, error) {
	// The page's records in one read: on a cluster, one request to etcd, not ten.
	return kit.ScanIndexMany(ctx, m.sys.store, persistence.Prefix("vm-tenant", tenant), cursor, limit, machineKey, func(_ string, val []byte) (Machine, bool, error) {
		var rec record
		if _, err := persistence.Decode(val, &rec); err != nil {
			return Machine{}, false, err
		}
		return rec.Machine, true, nil
	})
}

// Usage returns a usage graph of one machine.
func (m *Machines) Usage(ctx context.Context, id string, tf hypervisor.Timeframe, tenant *string) (hypervisor.UsageGraph, error) {
	ref, err := m.Ref(ctx, id, tenant)
	if err != nil {
		return hypervisor.UsageGraph{}, err
	}
	return m.sys.driver.Usage(ctx, hypervisor.UsageQuery{Scope: hypervisor.ScopeMachine, Ref: ref.Ref, Timeframe: tf})
}

// Destroy deletes a machine from the hypervisor and then its record.
func (m *Machines) Destroy(ctx context.Context, id string, tenant *string) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpDestroy}, tenant)
}

// Assign moves a machine to a tenant, or to none: an operator's act, outside quota.
func (m *Machines) Assign(ctx context.Context, id string, tenant *string) (Machine, error) {
	// The machine first: an unknown one is a 404 whatever tenant the body names.
	if _, err := m.Ref(ctx, id, nil); err != nil {
		return Machine{}, err
	}
	if tenant != nil {
		if err := m.sys.tenantExists(ctx, *tenant); err != nil {
			return Machine{}, apierr.Invalid(apierr.Field("tenant_id", "no tenant %s", *tenant))
		}
	}
	return askMachine[Machine](ctx, m, id, &assignTenant{TenantID: tenant})
}

// machineEntity owns one machine record and is its lock: one operation at a time.
type machineEntity struct {
	sys   *system
	ms    *Machines
	id    string
	rec   *record
	audit *kit.AuditEntry // the entry of the request being handled, its writes carry
}

func (e *machineEntity) Load() error {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	var err error
	e.rec, err = kit.LoadOptional[record](ctx, e.sys.store, machineKey(e.id))
	return err
}

// Busy keeps an entity with a task in flight from passivating.
func (e *machineEntity) Busy() bool { return e.rec != nil && e.rec.TaskID != nil }

func (e *machineEntity) Handle(ctx *kit.Ctx, msg any) {
	e.audit = ctx.Audit()
	if e.rec == nil {
		if d, ok := msg.(*opDone); ok {
			e.finishOrphan(d)
			ctx.Respond(capacity.Changed{})
			return
		}
		ctx.Fail(apierr.NotFound("machine", e.id))
		return
	}
	switch m := msg.(type) {
	case *getMachine:
		if !kit.InScope(m.Tenant, e.rec.TenantID) {
			ctx.Fail(apierr.NotFound("machine", e.id))
			return
		}
		ctx.Respond(e.rec.Machine)
	case *getRef:
		if !kit.InScope(m.Tenant, e.rec.TenantID) {
			ctx.Fail(apierr.NotFound("machine", e.id))
			return
		}
		ctx.Respond(machineRef{Ref: e.ref(), Status: e.rec.Status, ID: e.id, Display: e.rec.Display})
	case *startOp:
		e.start(ctx, m)
	case *opDone:
		e.finish(m)
		ctx.Respond(capacity.Changed{Changed: true})
	case *observe:
		ctx.Respond(capacity.Changed{Changed: e.observe(m)})
	case *firewallPushed:
		ctx.Respond(capacity.Changed{Changed: e.setFirewallState(m)})
	case *vanish:
		ctx.Respond(capacity.Changed{Changed: e.vanish(m.At)})
	case *settle:
		e.settle(ctx, m.TaskID)
		ctx.Respond(capacity.Changed{})
	case *provision:
		if e.rec.TaskID == nil || !provisions(e.rec.Op) {
			ctx.Fail(apierr.New(apierr.ErrConflict, "machine %s is not awaiting provisioning", e.id))
			return
		}
		if _, running := e.ms.running.Load(*e.rec.TaskID); !running {
			e.ms.run(e.id, *e.rec.TaskID, e.ref(), m.Op)
		}
		ctx.Respond(capacity.Changed{Changed: true})
	case *markTerminate:
		got, err := e.markTerminate(m)
		respond(ctx, got, err)
	case *cancelTerminate:
		got, err := e.cancelTerminate()
		respond(ctx, got, err)
	case *suspendBilling:
		c, err := e.suspendBilling(m)
		respond(ctx, c, err)
	case *unsuspendBilling:
		c, err := e.unsuspendBilling()
		respond(ctx, c, err)
	case *changeAddresses:
		got, err := e.changeAddresses(m)
		respond(ctx, got, err)
	case *addAddress:
		got, err := e.addAddress(m)
		respond(ctx, got, err)
	case *removeAddress:
		got, err := e.removeAddress(m)
		respond(ctx, got, err)
	case *assignTenant:
		next := *e.rec
		next.TenantID = m.TenantID
		next.UpdatedAt = time.Now().UTC()
		if err := e.saveWith(&next, nil, "assign", nil, e.reassignAddresses(m.TenantID)); err != nil {
			ctx.Fail(err)
			return
		}
		ctx.Respond(e.rec.Machine)
	default:
		ctx.Fail(apierr.New(apierr.ErrInternal, "unexpected message"))
	}
}

func (e *machineEntity) ref() hypervisor.Ref { return e.rec.Ref() }

func (e *machineEntity) start(ctx *kit.Ctx, m *startOp) {
	if !kit.InScope(m.Tenant, e.rec.TenantID) {
		ctx.Fail(apierr.NotFound("machine", e.id))
		return
	}
	if m.TaskID != "" {
		// A start under an id chosen by its caller (a schedule's run) may be retried by
		// another member after its first caller died: the task it made is the answer.
		rctx, cancel := e.sys.rt.Work()
		defer cancel()
		if t, err := tasks.Load(rctx, e.ms.sys.store, m.TaskID); err == nil {
			ctx.Respond(*t)
			return
		} else if !errors.Is(err, persistence.ErrNotFound) {
			ctx.Fail(err)
			return
		}
	}
	if m.Op.Purge {
		if err := e.purgeDue(e.sys.rt.Clock.Now()); err != nil {
			ctx.Fail(err)
			return
		}
	}
	if m.Tenant != nil && e.rec.BillingSuspension != nil {
		ctx.Fail(machineSuspended(e.rec.BillingSuspension))
		return
	}
	if m.Tenant != nil && e.rec.TerminateAt != nil {
		ctx.Fail(apierr.New(apierr.ErrInvalidState, "machine %s is to be deleted at %s", e.id, e.rec.TerminateAt.Format(time.RFC3339)))
		return
	}
	if e.rec.TaskID != nil {
		ctx.Fail(apierr.New(apierr.ErrOperationInProgress, "machine %s has task %s in progress", e.id, *e.rec.TaskID))
		return
	}
	if m.Op.Type == OpMigrate && m.Op.AutoOnline {
		m.Op.Online, m.Op.AutoOnline = e.rec.Status == StatusRunning, false
	}
	if err := m.Op.checkAgainst(&e.rec.Machine); err != nil {
		ctx.Fail(err)
		return
	}
	media.Prepare(m.Op.Type, &m.Op.Change, e.rec.BootOrder, e.rec.RescueBoot)
	now := time.Now().UTC()
	taskID := m.TaskID
	if taskID == "" {
		taskID = persistence.NewID()
	}
	task := &tasks.Task{ID: taskID, Type: m.Op.taskType(), TargetType: "machine", TargetID: e.id,
		TenantID: e.rec.TenantID, Status: tasks.TaskRunning, CreatedAt: now, StartedAt: kit.Ptr(now)}
	next := *e.rec
	next.TaskID = &task.ID
	next.Op = m.Op.WithoutSecrets()
	next.OpAudit = e.audit.On("", e.id, kit.Deref(e.rec.TenantID))
	next.PrevStatus = e.rec.Status
	if m.Op.Type == OpMigrate {
		next.Status = StatusMigrating
	}
	next.UpdatedAt = now
	if err := e.saveCounted(&next, task, m); err != nil {
		ctx.Fail(err)
		return
	}
	// Hypervisor work runs outside the mailbox and reports back as a message.
	e.ms.run(e.id, task.ID, e.ref(), m.Op)
	ctx.Respond(*task)
}

// save persists the machine record, and the task when given, in one durable batch, and
// publishes the change with its cause.
func (e *machineEntity) save(next *record, task *tasks.Task, cause string) error {
	return e.saveStamped(next, task, cause, nil)
}

// saveStamped is save whose batch carries st, the claim of the request's
// Idempotency-Key, with the task as its reply.
func (e *machineEntity) saveStamped(next *record, task *tasks.Task, cause string, st *kit.Stamp) error {
	return e.saveWith(next, task, cause, st, nil)
}

// saveWith is saveStamped whose batch also carries what extra puts into it (the
// record of a backup taken on demand, with its task's end).
func (e *machineEntity) saveWith(next *record, task *tasks.Task, cause string, st *kit.Stamp, extra func(*persistence.Batch) error) error {
	val, err := persistence.Encode(recordVersion, next)
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(machineKey(e.id), val)
	if extra != nil {
		if err := extra(b); err != nil {
			return err
		}
	}
	if st != nil {
		if err := st.Carry(b, *task); err != nil {
			return err
		}
	}
	if err := e.sys.rt.Audit(b, e.audit.On("", e.id, kit.Deref(next.TenantID))); err != nil {
		return err
	}
	var displaced string
	moved := e.rec == nil || e.rec.VMID != next.VMID || e.rec.Location != next.Location
	if next.VMID != 0 {
		if moved {
			displaced = e.vmidHolder(next.Location, next.VMID)
		}
		b.Put(vmidKey(next.Location, next.VMID), []byte(e.id))
	}
	released, releasedAt := 0, hvloc.ID("")
	if e.rec != nil && moved {
		released, releasedAt = e.rec.VMID, e.rec.Location
	}
	putTenantIndex(b, e.rec, next)
	if task != nil {
		if err := tasks.Put(b, task); err != nil {
			return err
		}
	}
	if err := e.commitReleasing(b, releasedAt, released, countDelta(e.rec, next)); err != nil {
		return err
	}
	if displaced != "" {
		// The hypervisor gave this machine a vmid another record still shows: that
		// machine is gone (removed behind our back; Proxmox hands out the lowest free
		// vmid again), and its record goes now, not at a sync, which matches records
		// by vmid and would never see it again.
		e.ms.kind.Send(displaced, &vanish{At: time.Now().UTC()})
	}
	previous := ""
	if e.rec != nil {
		previous = e.rec.Status
	}
	e.rec = next
	Publish(e.sys.Events, next.Machine, cause, previous)
	if task != nil {
		e.sys.Events.Publish(events.EventTask, task.TenantID, task)
		e.sys.Tasks.Ended(task)
	}
	return nil
}

// commitReleasing commits b and, with it, deletes the index key of vmid in location
// loc if the key still names this record (vmid 0: none), and moves the usage counters by d (countDelta).
// Another record may hold the vmid by now (the hypervisor gave it to a new machine,
// see save): its key stays.
func (e *machineEntity) commitReleasing(b *persistence.Batch, loc hvloc.ID, vmid int, d map[string]counters.Usage) error {
	return e.ms.counters.Commit(b, d, func(b *persistence.Batch) error {
		if vmid == 0 {
			return e.sys.rt.Commit(b)
		}
		key := vmidKey(loc, vmid)
		with := &persistence.Batch{Ops: slices.Clone(b.Ops), Conds: slices.Clone(b.Conds)}
		with.Del(key).Require(persistence.IfValue(key, []byte(e.id)))
		err := e.sys.rt.Commit(with)
		if persistence.IsConditionFailed(err) {
			// The key names another record, or none (or b's own conditions failed, and
			// fail again).
			return e.sys.rt.Commit(b)
		}
		return err
	})
}

// vmidHolder is the id of another record that holds vmid of location loc in the
// index, or "".
func (e *machineEntity) vmidHolder(loc hvloc.ID, vmid int) string {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	v, err := e.sys.store.Get(ctx, vmidKey(loc, vmid))
	if err != nil || string(v) == e.id {
		return ""
	}
	return string(v)
}

// begin registers a task's work, which Stop cancels and waits for, unless Stop has
// begun: then it reports false and the work must not start.
func (m *Machines) begin(taskID string, cancel context.CancelFunc) bool {
	m.beginMu.Lock()
	defer m.beginMu.Unlock()
	if m.stopping.Load() {
		return false
	}
	m.running.Store(taskID, cancel)
	m.wg.Add(1)
	return true
}

// run performs an operation's hypervisor work on its own goroutine.
func (m *Machines) run(machineID, taskID string, ref hypervisor.Ref, op Operation) {
	ctx, cancel := context.WithTimeout(context.Background(), m.OpTimeout)
	if !m.begin(taskID, cancel) {
		// Stopping: the task stays open, and the next start settles it.
		cancel()
		return
	}
	go func() {
		defer m.wg.Done()
		defer cancel()
		// A panic in the driver fails this task and unlocks the machine; the record
		// keeps its status from before the task.
		defer kit.Recover(m.sys.log, "machine task "+op.taskType(), func(err error) {
			m.report(machineID, taskID, &opDone{TaskID: taskID, Err: apierr.From(err)})
		})
		var (
			observed *hypervisor.Machine
			result   json.RawMessage
			err      error
		)
		if op.Purge {
			err = m.purge(ctx, machineID, ref)
		}
		if err == nil {
			observed, result, err = execute(ctx, m.sys.driver, ref, op)
		}
		if err != nil && m.stopping.Load() {
			m.running.Delete(taskID)
			return
		}
		if err != nil && observed == nil {
			// Refresh what the hypervisor says, so the record is right even on failure.
			octx, ocancel := context.WithTimeout(context.Background(), 10*time.Second)
			if hm, oerr := m.sys.driver.Machine(octx, ref); oerr == nil {
				observed = &hm
			}
			ocancel()
		}
		done := &opDone{TaskID: taskID, Observed: observed, Result: result}
		if touchesSnapshots(op) && ref.VMID != 0 {
			// The count the tenant's snapshot quota sums: the hypervisor's, after
			// the task, whatever its outcome.
			lctx, lcancel := context.WithTimeout(context.Background(), 10*time.Second)
			if list, lerr := m.sys.driver.Snapshots(lctx, ref); lerr == nil {
				done.Snapshots = kit.Ptr(len(list))
			}
			lcancel()
		}
		if err != nil {
			done.Err = apierr.From(err)
			if done.Err.Code == apierr.ErrInternal.Code {
				// Driver errors that are not typed still carry a useful message.
				done.Err.Detail = err.Error()
			}
		}
		m.report(machineID, taskID, done)
	}()
}

// report hands a task's outcome to its machine and forgets the task.
func (m *Machines) report(machineID, taskID string, done *opDone) {
	defer m.running.Delete(taskID)
	dctx, dcancel := context.WithTimeout(context.Background(), kit.DefaultTimeout)
	defer dcancel()
	if _, err := m.ask(dctx, machineID, done); err != nil {
		m.sys.log.Warn("task result not recorded; the next start settles it",
			zap.String("task_id", taskID), zap.Error(err))
	}
}

// execute performs one operation on the driver and returns the machine as the
// hypervisor reports it afterwards and the task's result.
func execute(ctx context.Context, d hypervisor.Driver, ref hypervisor.Ref, op Operation) (*hypervisor.Machine, json.RawMessage, error) {
	var (
		hm     hypervisor.Machine
		err    error
		result any
	)
	switch op.Type {
	case OpPower:
		if err = d.Power(ctx, ref, op.Action); err == nil {
			hm, err = d.Machine(ctx, ref)
		}
	case OpMigrate:
		hm, err = d.Migrate(ctx, ref, op.TargetNode, op.Online)
		result = map[string]string{"from_node": ref.Node, "to_node": op.TargetNode}
	case OpConfig:
		hm, err = d.Configure(ctx, ref, *op.Config)
	case OpNetwork:
		hm, err = d.SetNetwork(ctx, ref, op.Interfaces)
	case OpAddDisk:
		var disk hypervisor.Disk
		if disk, err = d.AddDisk(ctx, ref, op.DiskSizeGB, op.DiskStorage); err == nil {
			result = map[string]any{"disk": disk}
			hm, err = d.Machine(ctx, ref)
		}
	case OpReinstall:
		hm, err = d.Reinstall(ctx, ref, *op.Reinstall)
		result = map[string]string{"template_id": op.Reinstall.TemplateID}
	case OpCreate:
		hm, err = d.Create(ctx, *op.Create)
		if err == nil {
			result = map[string]any{"vmid": hm.VMID, "node": hm.Node}
		}
	case OpRestoreNew:
		if hm, result, err = restoreNew(ctx, d, op); err != nil && hm.VMID != 0 {
			// Restored, not started: the record learns the machine all the same.
			return &hm, nil, err
		}
	case OpBackup:
		var res backups.Result
		if res.Backup, err = d.Backup(ctx, ref, hypervisor.BackupMode(op.BackupMode)); err == nil {
			res.Pruned, res.Missing, res.PruneErrors = backups.Prune(ctx, d, ref, res.Backup, op.Retention, op.Prunable)
			result = res
			if hm, err = d.Machine(ctx, ref); err != nil {
				// The backup exists: the failed task still names it, so that a
				// backup on demand is recorded (onDemandBackup).
				raw, _ := json.Marshal(result)
				return nil, raw, err
			}
		}
	case OpSnapshot, OpSnapshotRollback, OpSnapshotDelete, OpRestore:
		hm, result, err = executeMachineOp(ctx, d, ref, op)
	case OpMountISO, OpEjectISO, OpBootOrder, OpRescue:
		hm, result, err = media.Execute(ctx, d, ref, op.Type, op.Change)
	case OpDestroy:
		// A machine whose provisioning failed has nothing on the hypervisor (vmid 0),
		// and one already gone is as good as destroyed: either way the record goes.
		if ref.VMID == 0 {
			return nil, nil, nil
		}
		if err = d.Destroy(ctx, ref); err == nil || errors.Is(err, hypervisor.ErrMachineNotFound) {
			return nil, nil, nil
		}
	case OpResize:
		if op.Config != nil {
			hm, err = d.Configure(ctx, ref, *op.Config)
		} else if op.DiskGrowGB == 0 {
			// A move to a plan of the sizes the machine has: nothing to change, and
			// the machine as it is now is what the task observed.
			hm, err = d.Machine(ctx, ref)
		}
		if err == nil && op.DiskGrowGB > 0 {
			if hm.VMID == 0 {
				hm, err = d.Machine(ctx, ref)
			}
			if err == nil && len(hm.Disks) == 0 {
				// The record showed a disk, the hypervisor has none now (detached
				// behind our back): nothing to grow.
				err = ErrNoDiskToGrow()
			}
			if err == nil {
				disk := hm.Disks[0]
				hm, err = d.ResizeDisk(ctx, ref, disk.ID, disk.SizeGB+op.DiskGrowGB)
			}
		}
	default:
		err = apierr.New(apierr.ErrInvalidRequest, "unknown operation %q", op.Type)
	}
	if err != nil {
		return nil, nil, err
	}
	var raw json.RawMessage
	if result != nil {
		raw, _ = json.Marshal(result)
	}
	return &hm, raw, nil
}

// finish records a task's outcome and unlocks the machine.
func (e *machineEntity) finish(d *opDone) {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	task, err := tasks.Load(ctx, e.sys.store, d.TaskID)
	if err != nil {
		e.sys.log.Error("task record missing", zap.String("task_id", d.TaskID), zap.Error(err))
		return
	}
	if task.Finished() && (e.rec.TaskID == nil || *e.rec.TaskID != d.TaskID) {
		// A second report of a task already recorded (a report retried after a
		// panic): the first outcome stands.
		return
	}
	now := time.Now().UTC()
	task.FinishedAt = &now
	task.Result = d.Result
	if d.Err != nil {
		task.Status = tasks.TaskFailed
		task.Error = kit.Ptr(d.Err.Error())
	} else {
		task.Status = tasks.TaskSucceeded
	}
	next := *e.rec
	var op *Operation
	if next.TaskID != nil && *next.TaskID == d.TaskID {
		op = next.Op
		opAudit := next.OpAudit
		next.TaskID, next.Op, next.OpAudit = nil, nil, nil
		// The task's end is recorded, in the batch that records it, under the request
		// that started it.
		e.audit = outcomeAudit(opAudit, task)
		if d.Observed == nil && next.PrevStatus != "" {
			next.Status = next.PrevStatus
		}
		next.PrevStatus = ""
	}
	if op != nil && op.Type == OpDestroy && d.Err == nil {
		if op.Purge {
			e.terminated()
		}
		e.remove(task)
		return
	}
	if provisions(op) && d.Err != nil && d.Observed == nil {
		// Provisioning failed: the record stays, marked, so the tenant and operators
		// see what happened (faulty deployments); deleting it releases its quota.
		next.Status = StatusError
	}
	if d.Observed != nil {
		applyObserved(&next.Machine, *d.Observed)
		next.StateAt = now
	}
	if d.Snapshots != nil {
		next.Snapshots = *d.Snapshots
	}
	if op != nil && op.Type == OpResize && op.PlanID != nil && d.Err == nil {
		next.PlanID = kit.Ptr(*op.PlanID)
	}
	if d.Err == nil && op != nil {
		f := media.Finish(op.Type, op.Change, next.Media, next.Rescue, next.RescueBoot)
		next.Media, next.Rescue, next.RescueBoot = f.Media, f.Rescue, f.RescueBoot
	}
	next.UpdatedAt = now
	extra := putOnDemandBackup(onDemandBackup(&next, op, task))
	if err := e.saveWith(&next, task, "task", nil, extra); err != nil {
		e.sys.log.Error("cannot record task outcome", zap.String("task_id", d.TaskID), zap.Error(err))
	}
}

// remove deletes the record and its indexes with the task's outcome, after a destroy.
func (e *machineEntity) remove(task *tasks.Task) {
	b := new(persistence.Batch).Del(machineKey(e.id)).Del(terminateKey(e.id))
	putTenantIndex(b, e.rec, nil)
	if err := e.releaseAddresses(b); err != nil {
		e.sys.log.Error("cannot release the addresses of a destroyed machine", zap.String("machine_id", e.id), zap.Error(err))
		return
	}
	if err := tasks.Put(b, task); err != nil {
		e.sys.log.Error("cannot encode task", zap.Error(err))
		return
	}
	if err := e.sys.rt.Audit(b, e.audit.On("", e.id, kit.Deref(e.rec.TenantID))); err != nil {
		e.sys.log.Error("cannot record the task's end in the audit log", zap.Error(err))
		return
	}
	if err := e.commitReleasing(b, e.rec.Location, e.rec.VMID, countDelta(e.rec, nil)); err != nil {
		e.sys.log.Error("cannot remove destroyed machine", zap.String("machine_id", e.id), zap.Error(err))
		return
	}
	e.sys.Events.Publish(events.EventTask, task.TenantID, task)
	e.sys.Tasks.Ended(task)
	e.sys.Events.Publish(events.EventMachineDeleted, e.rec.TenantID, map[string]string{"id": e.id})
	e.rec = nil
}

// finishOrphan records the outcome of a task whose machine record is gone.
func (e *machineEntity) finishOrphan(d *opDone) {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	task, err := tasks.Load(ctx, e.sys.store, d.TaskID)
	if err != nil {
		return
	}
	now := time.Now().UTC()
	task.FinishedAt, task.Status = &now, tasks.TaskFailed
	task.Error = kit.Ptr("the machine was removed while the task ran")
	b := new(persistence.Batch)
	if tasks.Put(b, task) == nil && e.sys.rt.Commit(b) == nil {
		e.sys.Tasks.Ended(task)
	}
}

// applyObserved copies the hypervisor's view of a machine into the record. A summary
// (the machine's node is down) knows no configuration: the record keeps its disks,
// interfaces, media, boot order and display rather than lose them until the node is
// back (a task settled after a restart while the node was down once cleared them).
func applyObserved(m *Machine, hm hypervisor.Machine) {
	m.VMID = hm.VMID
	if hm.Name != "" {
		m.Name = hm.Name
	}
	m.Node = hm.Node
	m.Status = string(hm.State)
	m.CPUCores = hm.CPUCores
	m.MemoryMB = hm.MemoryMB
	if hm.Summary {
		if hm.TemplateID != "" {
			m.TemplateID = hm.TemplateID
		}
		return
	}
	m.Disks = append([]hypervisor.Disk{}, hm.Disks...)
	m.DiskGB = hm.DiskGB()
	m.Interfaces = append([]hypervisor.Interface{}, hm.Interfaces...)
	if hm.TemplateID != "" {
		m.TemplateID = hm.TemplateID
	}
	m.Media, m.BootOrder = media.Observe(m.Media, hm)
	m.Display = !hm.Headless
}

// observe updates the record from the hypervisor unless a task owns the machine now.
// An observation older than the state a task last confirmed (StateAt) is dropped whole:
// it may predate the task's end, and not only the status but the node (a migration),
// cores, memory and disks it shows may be the ones the task changed.
func (e *machineEntity) observe(m *observe) bool {
	if e.rec.TaskID != nil {
		return false
	}
	if hvloc.ID(m.M.Location) != e.rec.Location {
		// Another location's machine of the same vmid: never this one's (a machine
		// does not leave its cluster).
		return false
	}
	if !m.At.IsZero() && m.At.Before(e.rec.StateAt) {
		return false
	}
	next := *e.rec
	applyObserved(&next.Machine, m.M)
	if machineEqual(&next.Machine, &e.rec.Machine) {
		return false
	}
	next.UpdatedAt = time.Now().UTC()
	if err := e.save(&next, nil, "sync"); err != nil {
		e.sys.log.Error("cannot record observed machine", zap.String("machine_id", e.id), zap.Error(err))
		return false
	}
	return true
}

func machineEqual(a, b *Machine) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// vanish deletes the record of a machine the hypervisor no longer has, as of at. A
// machine with a task in flight is left alone: the task's end tells what happened; so
// is one whose last task ended after at (a create that finished while the inventory
// that lacks it was in flight) or that was created after at.
func (e *machineEntity) vanish(at time.Time) bool {
	if e.rec.TaskID != nil {
		return false
	}
	if !at.IsZero() && (at.Before(e.rec.StateAt) || at.Before(e.rec.CreatedAt)) {
		return false
	}
	b := new(persistence.Batch).Del(machineKey(e.id))
	putTenantIndex(b, e.rec, nil)
	if err := e.releaseAddresses(b); err != nil {
		e.sys.log.Error("cannot release the addresses of a vanished machine", zap.String("machine_id", e.id), zap.Error(err))
		return false
	}
	if err := e.commitReleasing(b, e.rec.Location, e.rec.VMID, countDelta(e.rec, nil)); err != nil {
		e.sys.log.Error("cannot remove vanished machine", zap.String("machine_id", e.id), zap.Error(err))
		return false
	}
	e.sys.Events.Publish(events.EventMachineDeleted, e.rec.TenantID, map[string]string{"id": e.id})
	e.rec = nil
	return true
}

// settle finishes a task left open when an earlier process stopped: the hypervisor is
// asked for the machine, and the task succeeded if the machine is as the operation
// meant it to be, or failed saying it was interrupted. On a driver whose operations
// outlive their process (hypervisor.TaskFollower: a Proxmox migration or power action
// goes on after its owner died), the machine is read only once the hypervisor runs no
// task on it any more, bounded by OpTimeout, so the task ends with the operation's real
// outcome rather than failed while Proxmox is about to finish it.
func (e *machineEntity) settle(ctx *kit.Ctx, taskID string) {
	if e.rec.TaskID == nil || *e.rec.TaskID != taskID {
		// The machine moved on; close the stale task record alone.
		e.finishOrphanLike(taskID)
		return
	}
	if _, running := e.ms.running.Load(taskID); running {
		return
	}
	if e.ms.sys.store.Shared() && provisions(e.rec.Op) && e.rec.VMID == 0 &&
		time.Since(e.rec.UpdatedAt) < provisionInFlight {
		// In a cluster, a member that left makes the others settle every open task;
		// a create this young may have its provision message (told by the tenant,
		// perhaps from another member) still on its way: settling it now would fail a
		// create that is about to start. The next revive settles it if it never does.
		return
	}
	ref, op, before, tenant, name := e.ref(), e.rec.Op, e.rec.DiskGB, e.rec.TenantID, e.rec.Name
	ms := e.ms
	// Registered as running while it waits: a second settle of the task is a no-op,
	// and Stop cancels the wait, leaving the task open for the next owner.
	wctx, wcancel := context.WithCancel(context.Background())
	if !ms.begin(taskID, wcancel) {
		wcancel()
		return
	}
	go func() {
		defer ms.wg.Done()
		defer ms.running.Delete(taskID)
		defer wcancel()
		defer kit.Recover(ms.sys.log, "settling task "+taskID, func(err error) {
			ms.report(e.id, taskID, &opDone{TaskID: taskID, Err: apierr.From(err)})
		})
		if f, ok := ms.sys.driver.(hypervisor.TaskFollower); ok {
			bound := ms.OpTimeout
			if bound <= 0 {
				bound = 10 * time.Minute
			}
			ictx, icancel := context.WithTimeout(wctx, bound)
			err := f.WaitIdle(ictx, ref)
			icancel()
			if ms.stopping.Load() {
				return
			}
			if err != nil {
				// Settled as it is now: never left running for want of an answer.
				ms.sys.log.Warn("could not follow the hypervisor's work on a machine; settling its task now",
					zap.String("task_id", taskID), zap.String("machine_id", e.id), zap.Error(err))
			}
		}
		octx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		done := &opDone{TaskID: taskID}
		hm, err := ms.settleMachine(octx, ref, op, name)
		if err == nil {
			done.Observed = &hm
		}
		ok := err == nil && op != nil && reached(hm, *op, before)
		if err == nil && op != nil && !ok {
			if ok, err = ms.settleEvidence(octx, e.id, tenant, taskID, ref, *op, done); err != nil {
				ms.sys.log.Warn("could not tell whether a task left open was done", zap.String("task_id", taskID), zap.Error(err))
			}
		}
		if !ok {
			done.Err = apierr.New(apierr.ErrUnavailable, "vmplane restarted while this task ran; the machine's state was refreshed from the hypervisor")
		}
		dctx, dcancel := context.WithTimeout(context.Background(), kit.DefaultTimeout)
		defer dcancel()
		_, _ = ms.ask(dctx, e.id, done)
	}()
}

func (e *machineEntity) finishOrphanLike(taskID string) {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	task, err := tasks.Load(ctx, e.sys.store, taskID)
	if err != nil || task.Finished() {
		return
	}
	e.finishOrphan(&opDone{TaskID: taskID})
}

// reached reports whether the hypervisor's machine shows an operation as done;
// diskBefore is the record's disk size when the operation began.
func reached(hm hypervisor.Machine, op Operation, diskBefore int) bool {
	sized := func(c *hypervisor.ConfigChange) bool {
		return c == nil || (c.Name == nil || *c.Name == hm.Name) &&
			(c.CPUCores == nil || *c.CPUCores == hm.CPUCores) && (c.MemoryMB == nil || *c.MemoryMB == hm.MemoryMB)
	}
	switch op.Type {
	case OpPower:
		// Reboot and reset leave the state as it was: their effect cannot be seen.
		to, ok := hypervisor.PowerTarget(op.Action)
		return ok && op.Action != hypervisor.ActionReboot && op.Action != hypervisor.ActionReset && hm.State == to
	case OpMigrate:
		return hm.Node == op.TargetNode
	case OpConfig:
		return op.Config != nil && sized(op.Config)
	case OpResize:
		// A resize asks only for a change (the request is refused otherwise), so the
		// new sizes in place are the resize done.
		return sized(op.Config) && (op.DiskGrowGB == 0 || hm.DiskGB() >= diskBefore+op.DiskGrowGB)
	case OpCreate:
		// A create configures sizes and cloud-init in one write, then grows the disk,
		// then starts the machine: all of it in place is the create done.
		c := op.Create
		return c != nil && hm.VMID != 0 && (c.Name == "" || c.Name == hm.Name) &&
			(c.CPUCores == 0 || c.CPUCores == hm.CPUCores) && (c.MemoryMB == 0 || c.MemoryMB == hm.MemoryMB) &&
			hm.DiskGB() >= c.DiskGB && (!c.Start || hm.State == hypervisor.StateRunning)
	case OpMountISO, OpEjectISO, OpBootOrder, OpRescue:
		return media.Reached(hm, op.Type, op.Change)
	case OpRestoreNew:
		return reachedRestoreNew(hm, op)
	}
	// Reboots, disks, networks, reinstalls and restores leave no trace to tell them by
	// on the machine; snapshots and on-demand backups are told by settleEvidence.
	return false
}

// SettleOpenTasks walks the tasks left open by an earlier process and settles each.
func (m *Machines) SettleOpenTasks(ctx context.Context) error {
	type open struct{ task, machine string }
	var list []open
	err := tasks.ScanOpen(ctx, m.sys.store, func(task, machine string) error {
		list = append(list, open{task, machine})
		return nil
	})
	if err != nil {
		return err
	}
	for _, o := range list {
		m.kind.Send(o.machine, &settle{TaskID: o.task})
	}
	if len(list) > 0 {
		m.sys.log.Info("settling tasks left open by the previous run", zap.Int("tasks", len(list)))
	}
	return nil
}

// provisionInFlight is how long after a create was recorded its provision message may
// still be on its way (kit forwards a told message for up to 30 s).
const provisionInFlight = 30 * time.Second

// Absent implements kit.Absence.
func (e *machineEntity) Absent() bool { return e.rec == nil }

// The runtime finds these behaviours by interface: the compiler checks them, since a
// misnamed method would silently turn them off.
var (
	_ kit.Absence = (*machineEntity)(nil)
	_ kit.Busy    = (*machineEntity)(nil)
)

// Provision tells a machine whose record was just created (by its tenant, which holds
// the quota) to start its first operation; the task is already in the record.
func (m *Machines) Provision(id string, op Operation) { m.kind.Send(id, &provision{Op: op}) }
