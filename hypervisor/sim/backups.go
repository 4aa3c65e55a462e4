package sim

import (
	"context"
	"fmt"

	"github.com/vmplane/vmplane/hypervisor"
)

// SetFirewall checks the rules with hypervisor.ValidateFirewallRules (the rules every
// driver takes), replaces the machine's rule set (stored as a copy, in order) and
// enables the firewall on every interface, as Proxmox needs both the rules and
// firewall=1 on the NIC.
// Like Proxmox's firewall API, it does not take the machine's lock: rules change while a
// power action or a config change runs.
func (d *Driver) SetFirewall(ctx context.Context, ref hypervisor.Ref, rules []hypervisor.FirewallRule) error {
	if err := hypervisor.ValidateFirewallRules(rules); err != nil {
		return err
	}
	rules = append([]hypervisor.FirewallRule{}, rules...)
	return d.run(ctx, op{
		name:   OpSetFirewall,
		vmid:   ref.VMID,
		noLock: true,
		check:  func() error { _, err := d.liveMachineLocked(ref.VMID); return err },
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			d.firewall[ref.VMID] = rules
			d.touchMachineLocked(ref.VMID)
			for i := range m.Interfaces {
				m.Interfaces[i].Firewall = true
			}
			return nil
		},
	})
}

// Firewall returns a copy of the rules last pushed to a machine (nil when none), so
// tests can check what vmplane sent to the hypervisor.
func (d *Driver) Firewall(vmid int) []hypervisor.FirewallRule {
	d.catchUp()
	d.mu.Lock()
	defer d.mu.Unlock()
	rules, ok := d.firewall[vmid]
	if !ok {
		return nil
	}
	return append([]hypervisor.FirewallRule{}, rules...)
}

// Backup takes a vzdump-like backup to BackupStorage. Its id follows Proxmox's archive
// naming (vzdump-qemu-<vmid>-<YYYY_MM_DD-hh_mm_ss>, suffixed -2, -3... within a second)
// and its size is a seeded share of the machine's disks. The machine ends in the state it
// started in, whatever the mode.
func (d *Driver) Backup(ctx context.Context, ref hypervisor.Ref, mode hypervisor.BackupMode) (hypervisor.Backup, error) {
	switch mode {
	case "":
		mode = hypervisor.BackupSnapshot
	case hypervisor.BackupSnapshot, hypervisor.BackupSuspend, hypervisor.BackupStop:
	default:
		return hypervisor.Backup{}, invalid("mode", "must be snapshot, suspend or stop")
	}
	var out hypervisor.Backup
	err := d.run(ctx, op{
		name:  OpBackup,
		vmid:  ref.VMID,
		check: func() error { _, err := d.liveMachineLocked(ref.VMID); return err },
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			now := d.now().UTC()
			base := fmt.Sprintf("vzdump-qemu-%d-%s", m.VMID, now.Format("2006_01_02-15_04_05"))
			id := base
			for i := 2; d.backupCfg[id].VMID != 0; i++ {
				id = fmt.Sprintf("%s-%d", base, i)
			}
			share := 0.15 + 0.35*unit(mix(d.seed, tagBackup, uint64(m.VMID), uint64(len(d.backups[m.VMID]))))
			out = hypervisor.Backup{
				ID:        id,
				VMID:      m.VMID,
				Node:      m.Node,
				Storage:   BackupStorage,
				Mode:      mode,
				SizeBytes: int64(share * float64(int64(m.DiskGB())<<30)),
				CreatedAt: now,
			}
			d.backups[m.VMID] = append(d.backups[m.VMID], out)
			d.backupCfg[id] = cloneMachine(m.Machine)
			d.backupSeq[id] = d.nextBackupSeq
			d.nextBackupSeq++
			d.touchBackupLocked(m.VMID, id)
			return nil
		},
	})
	return out, err
}

// Backups lists a machine's backups, oldest first. Backups outlive their machine, so a
// destroyed machine's backups are still listed; a vmid with neither is not found.
func (d *Driver) Backups(ctx context.Context, ref hypervisor.Ref) ([]hypervisor.Backup, error) {
	if err := ctx.Err(); err != nil {
		return nil, hypervisor.ContextError(err)
	}
	d.catchUp()
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.availableLocked(); err != nil {
		return nil, err
	}
	list := d.backups[ref.VMID]
	if !d.machines.Has(ref.VMID) && len(list) == 0 {
		return nil, hypervisor.NewError(hypervisor.ErrMachineNotFound, "machine %d not found", ref.VMID)
	}
	out := append([]hypervisor.Backup{}, list...)
	hypervisor.SortBackups(out)
	return out, nil
}

// backupIndexLocked finds one of a machine's backups, or answers ErrBackupNotFound.
func (d *Driver) backupIndexLocked(vmid int, id string) (int, error) {
	for i, b := range d.backups[vmid] {
		if b.ID == id {
			return i, nil
		}
	}
	return -1, hypervisor.NewError(hypervisor.ErrBackupNotFound, "machine %d has no backup %q", vmid, id)
}

// DeleteBackup deletes one backup. Like deleting a volume in Proxmox it does not lock the
// machine, so it may run beside the machine's other operations.
func (d *Driver) DeleteBackup(ctx context.Context, ref hypervisor.Ref, backupID string) error {
	return d.run(ctx, op{
		name:   OpDeleteBackup,
		vmid:   ref.VMID,
		noLock: true,
		check:  func() error { _, err := d.backupIndexLocked(ref.VMID, backupID); return err },
		apply: func() error {
			i, _ := d.backupIndexLocked(ref.VMID, backupID)
			list := d.backups[ref.VMID]
			d.backups[ref.VMID] = append(list[:i:i], list[i+1:]...)
			if len(d.backups[ref.VMID]) == 0 {
				delete(d.backups, ref.VMID)
			}
			delete(d.backupCfg, backupID)
			delete(d.backupSeq, backupID)
			d.touchBackupLocked(ref.VMID, backupID)
			return nil
		},
	})
}

// RestoreBackup brings a machine back to a backup's configuration (name, resources,
// disks, interfaces, template). An existing machine keeps its node, power state (a
// running one is stopped, restored and started again, which is what a user expects of
// "restore") and usage history; its snapshots go, as a Proxmox restore over a VM
// replaces its disks and config. A machine that no longer exists is recreated, stopped,
// on the backup's node or, when that is offline, the least loaded one.
func (d *Driver) RestoreBackup(ctx context.Context, ref hypervisor.Ref, backupID string) (hypervisor.Machine, error) {
	var out hypervisor.Machine
	err := d.run(ctx, op{
		name: OpRestore,
		vmid: ref.VMID,
		check: func() error {
			if _, err := d.backupIndexLocked(ref.VMID, backupID); err != nil {
				return err
			}
			if d.machines.Has(ref.VMID) {
				_, err := d.liveMachineLocked(ref.VMID)
				return err
			}
			return nil
		},
		apply: func() error {
			cfg := cloneMachine(d.backupCfg[backupID])
			m, exists := d.machines.Get(ref.VMID)
			if !exists {
				nodeID := cfg.Node
				if n := d.nodeLocked(nodeID); n == nil || n.Status != hypervisor.NodeOnline {
					var err error
					if nodeID, err = d.placeLocked(""); err != nil {
						return err
					}
				}
				cfg.Node = nodeID
				cfg.State = hypervisor.StateStopped
				out = cloneMachine(d.insertLocked(cfg, d.now()).Machine)
				return nil
			}
			d.closeConsolesLocked(m.VMID, "machine restoring")
			d.dropSnapshotsLocked(m)
			d.releaseInterfacesLocked(m)
			d.committed[m.Node] += cfg.MemoryMB - m.MemoryMB
			m.Name, m.CPUCores, m.MemoryMB = cfg.Name, cfg.CPUCores, cfg.MemoryMB
			m.Disks, m.Interfaces, m.TemplateID = cfg.Disks, cfg.Interfaces, cfg.TemplateID
			d.adoptInterfacesLocked(m)
			d.touchMachineLocked(m.VMID)
			out = cloneMachine(m.Machine)
			return nil
		},
	})
	return out, err
}

// RestoreNew restores one of from's backups as a new machine: the vmid given or the
// next free one, on the node given or the least loaded online one, stopped, named as
// asked or as the backup holds it. Its interfaces get fresh MACs and addresses (as
// Proxmox's unique=1 gives new MACs), so that it never clashes with the source: net0
// those of spec.Addresses when there are.
func (d *Driver) RestoreNew(ctx context.Context, from hypervisor.Ref, backupID string, spec hypervisor.RestoreSpec) (hypervisor.Machine, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.Machine{}, hypervisor.ContextError(err)
	}
	if spec.Name != "" && !hypervisor.ValidVMName(spec.Name) {
		return hypervisor.Machine{}, invalid("name", "must be a DNS name")
	}
	d.catchUp()
	d.mu.Lock()
	vmid := spec.VMID
	if vmid == 0 {
		vmid = d.nextVMIDLocked()
	}
	d.mu.Unlock()
	var out hypervisor.Machine
	err := d.run(ctx, op{
		name: OpRestore,
		vmid: vmid,
		check: func() error {
			if _, err := d.backupIndexLocked(from.VMID, backupID); err != nil {
				return err
			}
			if d.machines.Has(vmid) {
				return hypervisor.NewError(hypervisor.ErrVMIDInUse, "vmid %d already exists", vmid)
			}
			_, err := d.placeLocked(spec.Node)
			return err
		},
		apply: func() error {
			node, err := d.placeLocked(spec.Node)
			if err != nil {
				return err
			}
			cfg := cloneMachine(d.backupCfg[backupID])
			cfg.VMID, cfg.Node, cfg.State = vmid, node, hypervisor.StateStopped
			cfg.Media = ""
			if spec.Name != "" {
				cfg.Name = spec.Name
			}
			for i := range cfg.Interfaces {
				cfg.Interfaces[i].MAC, cfg.Interfaces[i].IPAddresses = "", nil
			}
			if len(spec.Addresses) > 0 {
				// The addresses vmplane gave the copy are net0's, as a create's are.
				if len(cfg.Interfaces) == 0 {
					cfg.Interfaces = []hypervisor.Interface{{ID: "net0", Bridge: DefaultBridge}}
				}
				cfg.Interfaces[0].IPAddresses = hypervisor.Hosts(spec.Addresses)
				for i := range cfg.Interfaces {
					cfg.Interfaces[i].Firewall = true // the IP filter's, as on Proxmox
				}
			}
			out = cloneMachine(d.insertLocked(cfg, d.now()).Machine)
			return nil
		},
	})
	return out, err
}
