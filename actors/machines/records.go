package machines

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/counters"
	"github.com/vmplane/vmplane/actors/machines/nodestate"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// What other packages read of machine records, and the one write they start. Machine
// records, their keys and their codec belong to this package alone: a tenant, the
// insights and the schedules ask here, and a tenant that creates a machine has this
// package put the machine's writes into the tenant's own batch (AddCreate), so that
// the quota it reserves and the record are one durable step.

// Stored returns a machine as its record stands in the store, without asking its
// entity (which may be passivated, or active on another member): what a reader that
// needs no lock on the machine wants, at the cost of one store read. An absent record
// is apierr.ErrNotFound.
func (m *Machines) Stored(ctx context.Context, id string) (Machine, error) {
	rec, err := persistence.Load[record](ctx, m.sys.store, machineKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return Machine{}, apierr.NotFound("machine", id)
	}
	if err != nil {
		return Machine{}, err
	}
	return rec.Machine, nil
}

// holdings returns what each of tenant's machines holds against its quota, by machine
// id: one scan of the tenant index, whose values carry each record's sizes and task
// (written in the same batch as the record). Only an entry from before the values,
// empty, costs a read of its record. It is what a quota read sums while the usage
// counters are not trusted (usage.go), and what they are built from.
func holdings(ctx context.Context, s persistence.Store, tenant string) (map[string]Holding, error) {
	prefix := persistence.Prefix("vm-tenant", tenant)
	out := map[string]Holding{}
	var old []string
	if err := s.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		id := string(k[len(prefix):])
		h, ok, err := readHolding(v)
		switch {
		case err != nil:
			return err
		case ok:
			out[id] = h
		default:
			old = append(old, id)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for _, id := range old {
		rec, err := persistence.Load[record](ctx, s, machineKey(id))
		if errors.Is(err, persistence.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = holdingOf(rec)
	}
	return out, nil
}

// HasMachines reports whether tenant has a machine (a tenant that has one cannot be
// deleted).
func (m *Machines) HasMachines(ctx context.Context, tenant string) (bool, error) {
	found := false
	err := m.sys.store.Scan(ctx, persistence.Prefix("vm-tenant", tenant), nil, 1, func(_, _ []byte) error {
		found = true
		return nil
	})
	return found, err
}

// InStatus returns the machines whose records show status, each with the time its
// record last changed. Through the node/state index once it is trusted (the records
// in that state alone: a million machines' start read every record for the few in
// error, issue 33); else it reads every machine record (decoding only those fields),
// so it is for rebuilds, never for a request.
func (m *Machines) InStatus(ctx context.Context, status string) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	var rec struct {
		ID        string    `json:"id"`
		Status    string    `json:"status"`
		UpdatedAt time.Time `json:"updated_at"`
	}
	keep := func(v []byte) {
		rec.Status = ""
		if _, err := persistence.Decode(v, &rec); err == nil && rec.Status == status {
			out[rec.ID] = rec.UpdatedAt
		} // a corrupt record is reported where it is used
	}
	trusted, err := m.nodeState.Trusted(ctx)
	if err != nil {
		return nil, err
	}
	if trusted {
		_, _, err := kit.ScanIndexMany(ctx, m.sys.store, nodestate.StatePrefix(status), "", 0, machineKey,
			func(_ string, v []byte) (struct{}, bool, error) {
				keep(v)
				return struct{}{}, false, nil
			})
		return out, err
	}
	err = m.sys.store.Scan(ctx, persistence.Prefix("vm"), nil, 0, func(_, v []byte) error {
		keep(v)
		return nil
	})
	return out, err
}

// Creation is a new machine whose writes AddCreate put into a batch. Once the batch is
// durable, Created starts it.
type Creation struct {
	// Machine and Task are the new machine and its create task, as recorded.
	Machine Machine
	Task    tasks.Task
	// op is the create operation with its secrets (password, keys), which the record
	// does not keep: only the hypervisor gets them.
	op Operation
	// counts is the tenant's usage counter as AddCreate read it (CreateRefused).
	counts map[string][]byte
}

// AddCreate puts into b the writes of a new machine of tenant, to be made as spec
// says: its record (provisioning, with its create task in flight), its tenant index
// entry, the task, and the tenant's usage counter, required to hold what AddCreate
// read. planID is the plan the machine is made from (nil: explicit sizes). The tenant calls it in the batch that reserves the machine's quota, so that
// concurrent creates never exceed the quota; nothing is written before b is committed,
// and the machine's entity owns the record from then on. A batch refused because a
// write of another machine moved the counter meanwhile (CreateRefused) is made again.
func (m *Machines) AddCreate(ctx context.Context, b *persistence.Batch, tenant string, spec hypervisor.CreateSpec, planID *string) (*Creation, error) {
	return m.AddCreateAs(ctx, b, persistence.NewID(), tenant, spec, planID)
}

// AddCreateAs is AddCreate for a machine whose id the caller made (persistence.NewID), so
// that other writes of the same batch can name it: the allocations of the addresses
// in spec.Addresses, which the record lists and the hypervisor is given.
func (m *Machines) AddCreateAs(ctx context.Context, b *persistence.Batch, id, tenant string, spec hypervisor.CreateSpec, planID *string) (*Creation, error) {
	now := time.Now().UTC()
	rec := &record{Machine: Machine{ID: id, Addresses: slices.Clone(spec.Addresses), Name: spec.Name, TenantID: &tenant, Node: spec.Node, PlanID: planID,
		Status: StatusProvisioning, CPUCores: spec.CPUCores, MemoryMB: spec.MemoryMB, DiskGB: spec.DiskGB,
		Disks: []hypervisor.Disk{}, Interfaces: []hypervisor.Interface{}, TemplateID: spec.TemplateID,
		Location: hvloc.ID(hvloc.Tag(spec.Location)), CreatedAt: now, UpdatedAt: now}}
	return m.addProvisioning(ctx, b, rec, Operation{Type: OpCreate, Create: &spec})
}

// addProvisioning puts into b the writes of rec, a new machine of its tenant that op
// (a create, a restore into a new machine) makes: the record with op's task in flight
// and the request's audit entry (kit.WithAudit) kept until the task's end, its tenant
// index entry, the task, and the tenant's usage counter, required to hold what it read.
func (m *Machines) addProvisioning(ctx context.Context, b *persistence.Batch, rec *record, op Operation) (*Creation, error) {
	tenant := *rec.TenantID
	task := &tasks.Task{ID: persistence.NewID(), Type: op.taskType(), TargetType: "machine", TargetID: rec.ID, TenantID: &tenant,
		Status: tasks.TaskRunning, CreatedAt: rec.CreatedAt, StartedAt: kit.Ptr(rec.CreatedAt)}
	rec.TaskID = &task.ID
	rec.Op = op.WithoutSecrets()
	rec.OpAudit = kit.AuditOf(ctx).On("", rec.ID, tenant)
	rec.PrevStatus = StatusProvisioning
	val, err := persistence.Encode(recordVersion, rec)
	if err != nil {
		return nil, err
	}
	b.Put(machineKey(rec.ID), val).Put(tenantKey(tenant, rec.ID), tenantIndexValue(rec))
	putNodeState(b, nil, rec)
	if err := tasks.Put(b, task); err != nil {
		return nil, err
	}
	counts, err := counters.Add(ctx, m.sys.store, b, countDelta(nil, rec))
	if err != nil {
		return nil, err
	}
	return &Creation{Machine: rec.Machine, Task: *task, op: op, counts: counts}, nil
}

// Created announces a machine whose AddCreate batch is durable, with its task, and
// starts provisioning it on the hypervisor.
func (m *Machines) Created(c *Creation) {
	Publish(m.sys.Events, c.Machine, "create", "")
	m.sys.Events.Publish(events.EventTask, c.Task.TenantID, &c.Task)
	m.Provision(c.Machine.ID, c.op)
}

// Seed puts into b the record of machine m and its indexes (tenant, vmid in its
// location) as a sync
// adopting it would write them. It exists for other packages' tests, which need
// machines in states (error, crashed, long-lived) that a real run takes minutes to reach
// and must not write machine records themselves. It does not move the tenant's usage
// counter (it cannot read it): a test that reads quotas after seeding rebuilds the
// counters (RebuildCounters).
func Seed(b *persistence.Batch, m Machine) error {
	rec := &record{Machine: m}
	val, err := persistence.Encode(recordVersion, rec)
	if err != nil {
		return err
	}
	b.Put(machineKey(m.ID), val)
	if m.VMID != 0 {
		b.Put(vmidKey(m.Location, m.VMID), []byte(m.ID))
	}
	putTenantIndex(b, nil, rec)
	return nil
}

// Billable is what the hourly usage counts of a machine: its holder, plan and sizes.
type Billable struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	TenantID  *string   `json:"tenant_id"`
	PlanID    *string   `json:"plan_id"`
	CPUCores  int       `json:"cpu_cores"`
	MemoryMB  int       `json:"memory_mb"`
	DiskGB    int       `json:"disk_gb"`
	Snapshots int       `json:"snapshots,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Billables returns every machine as its record stands (decoding only what the usage
// counts). It reads every machine record, so it is for the hourly usage job, never for
// a request.
func (m *Machines) Billables(ctx context.Context) ([]Billable, error) {
	var out []Billable
	err := m.sys.store.Scan(ctx, persistence.Prefix("vm"), nil, 0, func(_, v []byte) error {
		var b Billable
		if _, err := persistence.Decode(v, &b); err != nil {
			return nil // a corrupt record is reported where it is used
		}
		out = append(out, b)
		return nil
	})
	return out, err
}
