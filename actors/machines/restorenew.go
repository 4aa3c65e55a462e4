package machines

import (
	"context"
	"slices"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// A backup restored into a new machine (an operator's act): the tenant that receives
// the machine reserves its quota and has AddRestore put the machine's writes into its
// own batch, as a create does (AddCreate), so concurrent creates and restores of one
// tenant never exceed its quota. The machine's task (vm.restore_new) then calls the
// driver's RestoreNew instead of Create.

// OpRestoreNew restores a backup (Restore) into a new machine, whose record exists
// already (written by the tenant that reserved its quota), as OpCreate provisions one.
const OpRestoreNew = "restore_new"

// RestoreTarget is what an OpRestoreNew restores and where.
type RestoreTarget struct {
	// From is the backup's machine on the hypervisor (it may be gone: backups outlive
	// their machine); BackupID is our id of the backup and Archive the hypervisor's.
	From     hypervisor.Ref `json:"from"`
	BackupID string         `json:"backup_id"`
	Archive  string         `json:"archive"`
	// Name and Node are the new machine's ("": the backup's name, and the node the
	// driver picks: the backup's when its storage is local to one).
	Name string `json:"name,omitempty"`
	Node string `json:"node,omitempty"`
	// StartAfter starts the new machine once it is restored (it is restored stopped).
	StartAfter bool `json:"start_after,omitempty"`
	// Addresses are those the machine was given from the IP pools (its record lists
	// them): the driver puts them in place of the backup's; none: the backup's stay.
	Addresses []hypervisor.Address `json:"addresses,omitempty"`
}

// RestoreSizes are the sizes a restore's record holds (and its tenant's quota counts)
// until the restore is done: those of the backup's machine's record while it exists,
// zero otherwise. Once restored, the record takes the sizes the hypervisor reports.
type RestoreSizes struct {
	CPUCores   int
	MemoryMB   int
	DiskGB     int
	TemplateID string
	PlanID     *string
}

// AddRestore puts into b the writes of a new machine of tenant that restores r, as
// AddCreate does for a create: its record (provisioning, named name, with its
// vm.restore_new task in flight), its tenant index entry, the task, and the tenant's
// usage counter, required to hold what AddRestore read (CreateRefused). Once b is
// durable, Created starts the restore.
func (m *Machines) AddRestore(ctx context.Context, b *persistence.Batch, tenant string, r RestoreTarget, name, node string, s RestoreSizes) (*Creation, error) {
	return m.AddRestoreAs(ctx, b, persistence.NewID(), tenant, r, name, node, s)
}

// AddRestoreAs is AddRestore for a machine whose id the caller made, as AddCreateAs
// is AddCreate's: the allocations of r.Addresses in the same batch name it, and the
// record lists them.
func (m *Machines) AddRestoreAs(ctx context.Context, b *persistence.Batch, id, tenant string, r RestoreTarget, name, node string, s RestoreSizes) (*Creation, error) {
	now := time.Now().UTC()
	rec := &record{Machine: Machine{ID: id, Addresses: slices.Clone(r.Addresses), Name: name, TenantID: &tenant, Node: node, PlanID: s.PlanID,
		Status: StatusProvisioning, CPUCores: s.CPUCores, MemoryMB: s.MemoryMB, DiskGB: s.DiskGB,
		Disks: []hypervisor.Disk{}, Interfaces: []hypervisor.Interface{}, TemplateID: s.TemplateID,
		Location: hvloc.ID(hvloc.Tag(r.From.Location)), CreatedAt: now, UpdatedAt: now}}
	return m.addProvisioning(ctx, b, rec, Operation{Type: OpRestoreNew, Restore: &r})
}

// provisions says whether op is the first operation of a record its tenant wrote
// (a create, a restore into a new machine): started by Created, never by a request.
func provisions(op *Operation) bool {
	return op != nil && (op.Type == OpCreate || op.Type == OpRestoreNew)
}

// restoreNew restores the backup into a new machine and starts it when asked. A
// machine that was restored but could not be started is returned with the error, so
// that the record learns its vmid (rather than the sync adopting it as a stranger).
func restoreNew(ctx context.Context, d hypervisor.Driver, op Operation) (hypervisor.Machine, any, error) {
	r := op.Restore
	hm, err := d.RestoreNew(ctx, r.From, r.Archive, hypervisor.RestoreSpec{Node: r.Node, Name: r.Name, Addresses: r.Addresses})
	if err != nil {
		return hm, nil, err
	}
	result := map[string]any{"vmid": hm.VMID, "node": hm.Node, "backup_id": r.BackupID}
	if r.StartAfter && hm.State != hypervisor.StateRunning {
		// In the backup's location, where the dispatcher restored it (hm.Location).
		ref := hypervisor.Ref{VMID: hm.VMID, Node: hm.Node, Location: hm.Location}
		if err := d.Power(ctx, ref, hypervisor.ActionStart); err != nil {
			return hm, result, err
		}
		if started, err := d.Machine(ctx, ref); err == nil {
			hm = started
		}
	}
	return hm, result, nil
}

// reachedRestoreNew reports whether hm, found by settleMachine, is the restore done:
// restored under the name asked for, and running if it was to be started.
func reachedRestoreNew(hm hypervisor.Machine, op Operation) bool {
	r := op.Restore
	return r != nil && hm.VMID != 0 && (r.Name == "" || r.Name == hm.Name) &&
		(!r.StartAfter || hm.State == hypervisor.StateRunning)
}

// settleMachine reads the machine a task left open by an earlier process worked on.
// A create or a restore into a new machine that had not recorded its vmid yet (the
// record learns it when the task ends) is looked for in the inventory: the one
// machine named as the record is that no record knows by its vmid. Both make the
// machine under that name (a create's is required), and the sync adopts no machine
// while one is in flight, so it is theirs. (A restore of a gone machine's backup
// with no name asked is given one, "restored-<hex>", for this.)
func (m *Machines) settleMachine(ctx context.Context, ref hypervisor.Ref, op *Operation, name string) (hypervisor.Machine, error) {
	if ref.VMID != 0 || !provisions(op) || name == "" {
		return m.sys.driver.Machine(ctx, ref)
	}
	// The machine's own location's: another location's machines, whose vmids the
	// index of this one does not hold, could bear the name.
	drv, err := hvloc.LocationOf(m.sys.driver, ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	inv, err := drv.Inventory(ctx)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	known, err := m.VMIDs(ctx, ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	var found []hypervisor.Machine
	for _, hm := range inv.Machines {
		if _, ok := known.Get(hm.VMID); !ok && hm.Name == name {
			hm.Location = ref.Location // read from the location's own driver: untagged
			found = append(found, hm)
		}
	}
	if len(found) != 1 {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrMachineNotFound, "no machine %s restored", name)
	}
	return found[0], nil
}
