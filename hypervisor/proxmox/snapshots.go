package proxmox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
)

// snapshotPath is the API path of a machine's snapshots, or of one of them.
func snapshotPath(l *located, name ...string) string {
	p := l.path() + "/snapshot"
	for _, n := range name {
		p += "/" + url.PathEscape(n)
	}
	return p
}

// Snapshots lists a machine's snapshots with GET .../snapshot, oldest first
// (hypervisor.SortSnapshots: Proxmox answers them in no order). The entry "current",
// which Proxmox adds for the machine as it is, is not a snapshot and is left out.
func (d *Driver) Snapshots(ctx context.Context, ref hypervisor.Ref) ([]hypervisor.Snapshot, error) {
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return nil, err
	}
	return d.snapshots(ctx, l)
}

func (d *Driver) snapshots(ctx context.Context, l *located) ([]hypervisor.Snapshot, error) {
	var items []map[string]any
	if err := d.get(ctx, snapshotPath(l), nil, &items); err != nil {
		if errors.Is(err, hypervisor.ErrMachineNotFound) {
			return nil, machineNotFound(l.vmid)
		}
		return nil, err
	}
	out := make([]hypervisor.Snapshot, 0, len(items))
	for _, it := range items {
		name, _ := it["name"].(string)
		if name == "" || name == hypervisor.SnapshotCurrent {
			continue
		}
		s := hypervisor.Snapshot{Name: name, IncludesMemory: pveconf.Number(it["vmstate"]) != 0}
		s.Description, _ = it["description"].(string)
		s.Parent, _ = it["parent"].(string)
		if t := pveconf.Number(it["snaptime"]); t > 0 {
			s.CreatedAt = time.Unix(int64(t), 0).UTC()
		}
		out = append(out, s)
	}
	hypervisor.SortSnapshots(out)
	return out, nil
}

// findSnapshot finds one of a machine's snapshots, or answers ErrSnapshotNotFound.
func (d *Driver) findSnapshot(ctx context.Context, l *located, name string) (hypervisor.Snapshot, error) {
	list, err := d.snapshots(ctx, l)
	if err != nil {
		return hypervisor.Snapshot{}, err
	}
	for _, s := range list {
		if s.Name == name {
			return s, nil
		}
	}
	return hypervisor.Snapshot{}, hypervisor.NewError(hypervisor.ErrSnapshotNotFound, "machine %d has no snapshot %q", l.vmid, name)
}

// unlocked reads a machine's live status and refuses work on it while Proxmox holds a
// lock on it (a backup, a migration, another snapshot): qemu-server would fail the
// task with "VM is locked" only once it ran.
func (d *Driver) unlocked(ctx context.Context, l *located) (liveStatus, error) {
	st, err := d.status(ctx, l)
	if err != nil {
		return st, err
	}
	if st.lock != "" {
		return st, hypervisor.NewError(hypervisor.ErrLocked, "machine %d is locked (%s) on Proxmox", l.vmid, st.lock)
	}
	return st, nil
}

// CreateSnapshot is POST .../snapshot snapname= description= vmstate=, and its task.
// What qemu-server checks only inside its task is checked first, for a typed answer:
// no lock, a name not yet used, and memory only of a machine that runs (Proxmox would
// quietly take the disks alone of a stopped one). It answers the snapshot as Proxmox
// then lists it.
func (d *Driver) CreateSnapshot(ctx context.Context, ref hypervisor.Ref, spec hypervisor.SnapshotSpec) (hypervisor.Snapshot, error) {
	if err := hypervisor.CheckSnapshot(spec); err != nil {
		return hypervisor.Snapshot{}, err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Snapshot{}, err
	}
	st, err := d.unlocked(ctx, l)
	if err != nil {
		return hypervisor.Snapshot{}, err
	}
	if spec.IncludeMemory && st.status == "stopped" {
		return hypervisor.Snapshot{}, hypervisor.NewError(hypervisor.ErrMemoryNotRunning, "machine %d is stopped: a snapshot of it cannot hold memory", ref.VMID)
	}
	if _, err := d.findSnapshot(ctx, l, spec.Name); err == nil {
		return hypervisor.Snapshot{}, hypervisor.NewError(hypervisor.ErrSnapshotExists, "machine %d has a snapshot %q already", ref.VMID, spec.Name)
	} else if !errors.Is(err, hypervisor.ErrSnapshotNotFound) {
		return hypervisor.Snapshot{}, err
	}
	body := map[string]any{"snapname": spec.Name}
	if spec.Description != "" {
		body["description"] = spec.Description
	}
	if spec.IncludeMemory {
		body["vmstate"] = 1
	}
	err = d.startTask(ctx, http.MethodPost, l.node, snapshotPath(l), body, fmt.Sprintf("snapshot machine %d as %s", ref.VMID, spec.Name))
	if err != nil {
		return hypervisor.Snapshot{}, snapshotTaskError(err, ref.VMID, spec.Name)
	}
	return d.findSnapshot(ctx, l, spec.Name)
}

// RollbackSnapshot is POST .../snapshot/{name}/rollback, and its task: Proxmox stops
// the machine, brings its config and disks back, and starts it from the saved memory
// when the snapshot has it. The driver does not ask for start=1: a snapshot without
// memory leaves the machine stopped, as on Proxmox.
func (d *Driver) RollbackSnapshot(ctx context.Context, ref hypervisor.Ref, name string) (hypervisor.Machine, error) {
	if err := hypervisor.CheckSnapshotName(ref.VMID, name); err != nil {
		return hypervisor.Machine{}, err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	if _, err := d.unlocked(ctx, l); err != nil {
		return hypervisor.Machine{}, err
	}
	if _, err := d.findSnapshot(ctx, l, name); err != nil {
		return hypervisor.Machine{}, err
	}
	err = d.startTask(ctx, http.MethodPost, l.node, snapshotPath(l, name)+"/rollback", nil, fmt.Sprintf("roll machine %d back to %s", ref.VMID, name))
	if err != nil {
		return hypervisor.Machine{}, snapshotTaskError(err, ref.VMID, name)
	}
	return d.readMachine(ctx, l)
}

// DeleteSnapshot is DELETE .../snapshot/{name}, and its task. force=1 (drop the
// snapshot from the config even when its volumes cannot be deleted) is never sent: a
// snapshot whose disks stay must stay listed.
func (d *Driver) DeleteSnapshot(ctx context.Context, ref hypervisor.Ref, name string) error {
	if err := hypervisor.CheckSnapshotName(ref.VMID, name); err != nil {
		return err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return err
	}
	if _, err := d.unlocked(ctx, l); err != nil {
		return err
	}
	if _, err := d.findSnapshot(ctx, l, name); err != nil {
		return err
	}
	err = d.startTask(ctx, http.MethodDelete, l.node, snapshotPath(l, name), nil, fmt.Sprintf("delete snapshot %s of machine %d", name, ref.VMID))
	return snapshotTaskError(err, ref.VMID, name)
}
