package sim

import (
	"context"
	"slices"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
)

// Snapshots lists a machine's snapshots, oldest first (hypervisor.SortSnapshots).
func (d *Driver) Snapshots(ctx context.Context, ref hypervisor.Ref) ([]hypervisor.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, hypervisor.ContextError(err)
	}
	if err := d.exactMachine(ctx, ref.VMID); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.availableLocked(); err != nil {
		return nil, err
	}
	// Proxmox reads the list on the machine's node: none while that node is down.
	m, err := d.liveMachineLocked(ref.VMID)
	if err != nil {
		return nil, err
	}
	out := make([]hypervisor.Snapshot, 0, len(m.Snapshots))
	for _, s := range m.Snapshots {
		out = append(out, s.Snapshot)
	}
	hypervisor.SortSnapshots(out)
	return out, nil
}

// snapshotIndex finds one of a machine's snapshots, or -1.
func snapshotIndex(m *fleet.Machine, name string) int {
	return slices.IndexFunc(m.Snapshots, func(s world.Snapshot) bool { return s.Snapshot.Name == name })
}

// snapshotLocked finds a live machine and one of its snapshots, or answers
// ErrSnapshotNotFound.
func (d *Driver) snapshotLocked(vmid int, name string) (*fleet.Machine, int, error) {
	m, err := d.liveMachineLocked(vmid)
	if err != nil {
		return nil, -1, err
	}
	i := snapshotIndex(m, name)
	if i < 0 {
		return nil, -1, hypervisor.NewError(hypervisor.ErrSnapshotNotFound, "machine %d has no snapshot %q", vmid, name)
	}
	return m, i, nil
}

// CreateSnapshot takes a snapshot as Proxmox does: it holds the machine's lock while
// it runs, its name is unique on the machine, it keeps the machine as it is (with its
// memory only when asked and the machine runs, suspended included: its memory is
// there), its time is whole seconds, and its parent is the snapshot the machine was
// at, which it becomes.
func (d *Driver) CreateSnapshot(ctx context.Context, ref hypervisor.Ref, spec hypervisor.SnapshotSpec) (hypervisor.Snapshot, error) {
	if err := hypervisor.CheckSnapshot(spec); err != nil {
		return hypervisor.Snapshot{}, err
	}
	var out hypervisor.Snapshot
	err := d.run(ctx, op{
		name: OpSnapshot,
		vmid: ref.VMID,
		check: func() error {
			m, err := d.liveMachineLocked(ref.VMID)
			if err != nil {
				return err
			}
			if snapshotIndex(m, spec.Name) >= 0 {
				return hypervisor.NewError(hypervisor.ErrSnapshotExists, "machine %d has a snapshot %q already", ref.VMID, spec.Name)
			}
			if spec.IncludeMemory && m.State == hypervisor.StateStopped {
				return hypervisor.NewError(hypervisor.ErrMemoryNotRunning, "machine %d is stopped: a snapshot of it cannot hold memory", ref.VMID)
			}
			return nil
		},
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			out = hypervisor.Snapshot{
				Name:           spec.Name,
				Description:    spec.Description,
				CreatedAt:      d.now().UTC().Truncate(1e9),
				IncludesMemory: spec.IncludeMemory,
				Parent:         m.Parent,
			}
			m.Snapshots = append(slices.Clip(m.Snapshots), world.Snapshot{Snapshot: out, Config: cloneMachine(m.Machine)})
			m.Parent = spec.Name
			d.touchMachineLocked(m.VMID)
			return nil
		},
	})
	return out, err
}

// RollbackSnapshot brings the machine back to a snapshot as Proxmox's rollback does:
// the machine is stopped, its name, resources, disks, interfaces and template come
// back from the snapshot, and it is started again from the saved memory when the
// snapshot has it. Its node, usage history and firewall rules stay (Proxmox keeps the
// firewall apart from the config); the snapshot becomes its parent, and later
// snapshots stay.
func (d *Driver) RollbackSnapshot(ctx context.Context, ref hypervisor.Ref, name string) (hypervisor.Machine, error) {
	if err := hypervisor.CheckSnapshotName(ref.VMID, name); err != nil {
		return hypervisor.Machine{}, err
	}
	var out hypervisor.Machine
	err := d.run(ctx, op{
		name:  OpRollback,
		vmid:  ref.VMID,
		check: func() error { _, _, err := d.snapshotLocked(ref.VMID, name); return err },
		apply: func() error {
			m, i, _ := d.snapshotLocked(ref.VMID, name)
			snap := m.Snapshots[i]
			cfg := cloneMachine(snap.Config)
			d.closeConsolesLocked(m.VMID, "machine rolled back")
			d.releaseInterfacesLocked(m)
			d.committed[m.Node] += cfg.MemoryMB - m.MemoryMB
			m.Name, m.CPUCores, m.MemoryMB = cfg.Name, cfg.CPUCores, cfg.MemoryMB
			m.Disks, m.Interfaces, m.TemplateID = cfg.Disks, cfg.Interfaces, cfg.TemplateID
			d.adoptInterfacesLocked(m)
			state := hypervisor.StateStopped
			if snap.Snapshot.IncludesMemory {
				state = hypervisor.StateRunning
			}
			d.setStateLocked(m, state)
			m.Parent = name
			d.touchMachineLocked(m.VMID)
			out = cloneMachine(m.Machine)
			return nil
		},
	})
	return out, err
}

// DeleteSnapshot deletes a snapshot as Proxmox does: under the machine's lock, and
// the snapshots taken from it (and the machine itself, when it is at it) take its
// parent as theirs.
func (d *Driver) DeleteSnapshot(ctx context.Context, ref hypervisor.Ref, name string) error {
	if err := hypervisor.CheckSnapshotName(ref.VMID, name); err != nil {
		return err
	}
	return d.run(ctx, op{
		name:  OpDeleteSnapshot,
		vmid:  ref.VMID,
		check: func() error { _, _, err := d.snapshotLocked(ref.VMID, name); return err },
		apply: func() error {
			m, i, _ := d.snapshotLocked(ref.VMID, name)
			gone := m.Snapshots[i].Snapshot
			list := make([]world.Snapshot, 0, len(m.Snapshots)-1)
			for j, s := range m.Snapshots {
				if j == i {
					continue
				}
				if s.Snapshot.Parent == name {
					s.Snapshot.Parent = gone.Parent
				}
				list = append(list, s)
			}
			m.Snapshots = list
			if m.Parent == name {
				m.Parent = gone.Parent
			}
			d.touchMachineLocked(m.VMID)
			return nil
		},
	})
}

// dropSnapshotsLocked forgets a machine's snapshots, as Proxmox does when the
// machine's disks are replaced (a restore over it, a reinstall, which recreates it).
func (d *Driver) dropSnapshotsLocked(m *fleet.Machine) {
	if len(m.Snapshots) > 0 || m.Parent != "" {
		m.Snapshots, m.Parent = nil, ""
		d.touchMachineLocked(m.VMID)
	}
}
