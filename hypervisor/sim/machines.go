package sim

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
)

// Limits of the simulated hypervisor, Proxmox's own (those of cores, memory, disks and
// names are hypervisor.MinCores and its siblings, which the Proxmox driver checks too).
const (
	minVMID = hypervisor.MinVMID
	maxVMID = hypervisor.MaxVMID
	maxSCSI = 30 // scsi0..scsi30
)

// Operation names, as FailNext and FailAlways take them. Power operations use the
// action's own name ("start", "stop", ...).
const (
	OpCreate         = "create"
	OpDestroy        = "destroy"
	OpMigrate        = "migrate"
	OpConfigure      = "configure"
	OpSetNetwork     = "set_network"
	OpAddDisk        = "add_disk"
	OpResizeDisk     = "resize_disk"
	OpReinstall      = "reinstall"
	OpSetFirewall    = "set_firewall"
	OpBackup         = "backup"
	OpDeleteBackup   = "delete_backup"
	OpRestore        = "restore"
	OpConsole        = "console"
	OpSnapshot       = "snapshot"
	OpRollback       = "rollback"
	OpDeleteSnapshot = "delete_snapshot"
)

// pendingCreate is a create in flight: its vmid is taken and its memory counts towards
// its node's load, so concurrent creates spread over the nodes.
type pendingCreate struct {
	node     string
	memoryMB int
}

// Create clones a machine from a template. It picks the lowest free vmid ≥ 100 and the
// online node with the least committed memory when the spec leaves them unset.
func (d *Driver) Create(ctx context.Context, spec hypervisor.CreateSpec) (hypervisor.Machine, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.Machine{}, hypervisor.ContextError(err)
	}
	if err := validateCreate(&spec); err != nil {
		return hypervisor.Machine{}, err
	}
	d.catchUp()

	d.mu.Lock()
	if err := d.availableLocked(); err != nil {
		d.mu.Unlock()
		return hypervisor.Machine{}, err
	}
	tpl, err := d.templateLocked(spec.TemplateID)
	if err != nil {
		d.mu.Unlock()
		return hypervisor.Machine{}, err
	}
	vmid := spec.VMID
	if vmid == 0 {
		vmid = d.nextVMIDLocked()
	} else if d.machines.Has(vmid) || d.locks[vmid] != "" {
		d.mu.Unlock()
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrVMIDInUse, "vmid %d already exists", vmid)
	}
	nodeID, err := d.placeLocked(spec.Node)
	if err != nil {
		d.mu.Unlock()
		return hypervisor.Machine{}, err
	}
	d.locks[vmid] = OpCreate
	d.pending[vmid] = pendingCreate{node: nodeID, memoryMB: spec.MemoryMB}
	d.mu.Unlock()
	if d.picked != nil {
		d.picked(vmid)
	}

	waitErr := d.wait(ctx)

	var out hypervisor.Machine
	// build makes the machine under d.mu once the clone is done: with vmid, or, on a
	// shared store where another member took that vmid first, with the next free one
	// (claimNew).
	build := func(vmid int) error {
		if err := d.availableLocked(); err != nil {
			return err
		}
		if n := d.nodeLocked(nodeID); n.Status != hypervisor.NodeOnline {
			return hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s went offline during the create", nodeID)
		}
		if d.machines.Has(vmid) { // AddMachine raced us
			return hypervisor.NewError(hypervisor.ErrVMIDInUse, "vmid %d already exists", vmid)
		}
		if err := d.injectedLocked(vmid, OpCreate); err != nil {
			return err
		}
		name := spec.Name
		if name == "" {
			name = fmt.Sprintf("vm-%d", vmid)
		}
		state := hypervisor.StateStopped
		if spec.Start {
			state = hypervisor.StateRunning
		}
		hm := hypervisor.Machine{
			VMID:        vmid,
			Name:        name,
			Node:        nodeID,
			State:       state,
			CPUCores:    spec.CPUCores,
			MemoryMB:    spec.MemoryMB,
			Disks:       []hypervisor.Disk{{ID: "scsi0", Storage: DefaultStorage, SizeGB: max(spec.DiskGB, tpl.DiskGB)}},
			TemplateID:  tpl.ID,
			Nameservers: append([]string(nil), spec.Nameservers...),
		}
		if len(spec.Addresses) > 0 {
			// The addresses vmplane gave the machine are net0's, as cloud-init would
			// configure them, instead of one of the sim's own pool; its firewall is on,
			// as Proxmox's is to enforce the IP filter (no rules = open).
			hm.Interfaces = []hypervisor.Interface{{ID: "net0", Bridge: DefaultBridge, IPAddresses: hypervisor.Hosts(spec.Addresses), Firewall: true}}
		}
		m := d.insertLocked(hm, d.now())
		out = cloneMachine(m.Machine)
		return nil
	}
	first := func() (int, error) {
		delete(d.locks, vmid)
		delete(d.pending, vmid)
		if waitErr != nil {
			return vmid, waitErr
		}
		if d.machines.Has(vmid) && spec.VMID == 0 {
			// Another member created this vmid while we cloned, and a call since
			// read its machine: the pick was a hint, as /cluster/nextid's is.
			vmid = d.nextVMIDLocked()
		}
		return vmid, build(vmid)
	}
	var next func() (int, error)
	if spec.VMID == 0 {
		next = func() (int, error) {
			v := d.nextVMIDLocked()
			return v, build(v)
		}
	}
	if err := d.claimNew(ctx, first, next); err != nil {
		return hypervisor.Machine{}, err
	}
	d.mu.Lock()
	created := d.created
	d.mu.Unlock()
	if created != nil {
		created(out.VMID)
	}
	return out, nil
}

// OnCreated makes every later Create call hook with the new machine's vmid once the
// machine exists (Inventory lists it) and before Create returns: a test holds a create
// there, where the hypervisor has the machine and its caller does not know it yet. A
// nil hook removes it.
func (d *Driver) OnCreated(hook func(vmid int)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.created = hook
}

// validateCreate checks the spec's own values as a Proxmox node would, and fills in
// the defaults a clone keeps from its template (hypervisor.CheckCreate).
func validateCreate(spec *hypervisor.CreateSpec) error { return hypervisor.CheckCreate(spec) }

// Destroy stops the machine if needed and deletes it with its disks and firewall rules.
// Its backups stay on the backup storage, as vzdump archives do, and can be restored.
func (d *Driver) Destroy(ctx context.Context, ref hypervisor.Ref) error {
	return d.run(ctx, op{
		name:  OpDestroy,
		vmid:  ref.VMID,
		check: func() error { _, err := d.liveMachineLocked(ref.VMID); return err },
		apply: func() error {
			d.removeLocked(ref.VMID, "machine destroyed")
			return nil
		},
	})
}

// Power performs a power action along hypervisor.PowerTransition, the state machine
// every driver shares.
func (d *Driver) Power(ctx context.Context, ref hypervisor.Ref, action hypervisor.PowerAction) error {
	if err := hypervisor.ValidatePowerAction(action); err != nil {
		return err
	}
	var to hypervisor.State
	return d.run(ctx, op{
		name: string(action),
		vmid: ref.VMID,
		check: func() error {
			m, err := d.liveMachineLocked(ref.VMID)
			if err != nil {
				return err
			}
			to, err = hypervisor.CheckPower(ref.VMID, m.State, action)
			return err
		},
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			if action == hypervisor.ActionReboot || action == hypervisor.ActionReset {
				d.closeConsolesLocked(ref.VMID, "machine rebooting")
			}
			d.setStateLocked(m, to)
			return nil
		},
	})
}

// Migrate moves a machine to another node. A stopped machine moves offline; a running
// or suspended one only with online=true (live migration), as Proxmox requires.
func (d *Driver) Migrate(ctx context.Context, ref hypervisor.Ref, targetNode string, online bool) (hypervisor.Machine, error) {
	if targetNode == "" {
		return hypervisor.Machine{}, invalid("target_node", "is required")
	}
	var out hypervisor.Machine
	err := d.run(ctx, op{
		name: OpMigrate,
		vmid: ref.VMID,
		check: func() error {
			m, err := d.liveMachineLocked(ref.VMID)
			if err != nil {
				return err
			}
			target := d.nodeLocked(targetNode)
			switch {
			case target == nil:
				return hypervisor.NewError(hypervisor.ErrNodeNotFound, "target node %q does not exist", targetNode).WithKind(apierr.ErrInvalidRequest)
			case target.ID == m.Node:
				return hypervisor.NewError(hypervisor.ErrSameNode, "machine %d is already on node %s", ref.VMID, targetNode)
			case target.Status != hypervisor.NodeOnline:
				return hypervisor.NewError(hypervisor.ErrNodeOffline, "target node %s is offline", targetNode)
			case m.State != hypervisor.StateStopped && !online:
				return hypervisor.NewError(hypervisor.ErrWrongState, "machine %d is %s: migrate it online or stop it first", ref.VMID, m.State)
			}
			return nil
		},
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			d.closeConsolesLocked(ref.VMID, "machine migrated")
			d.committed[m.Node] -= m.MemoryMB
			d.committed[targetNode] += m.MemoryMB
			m.Node = targetNode
			d.touchMachineLocked(m.VMID)
			out = cloneMachine(m.Machine)
			return nil
		},
	})
	return out, err
}

// Configure changes name, cores or memory. Proxmox hot-plugs or defers such changes
// to the next boot; the sim applies them at once in any state.
func (d *Driver) Configure(ctx context.Context, ref hypervisor.Ref, change hypervisor.ConfigChange) (hypervisor.Machine, error) {
	if c := change.Name; c != nil && !hypervisor.ValidVMName(*c) {
		return hypervisor.Machine{}, invalid("name", hypervisor.VMNameRule)
	}
	if c := change.CPUCores; c != nil && (*c < hypervisor.MinCores || *c > hypervisor.MaxCores) {
		return hypervisor.Machine{}, invalid("cpu_cores", "must be %d..%d", hypervisor.MinCores, hypervisor.MaxCores)
	}
	if c := change.MemoryMB; c != nil && *c < hypervisor.MinMemoryMB {
		return hypervisor.Machine{}, invalid("memory_mb", "must be at least %d", hypervisor.MinMemoryMB)
	}
	var out hypervisor.Machine
	err := d.run(ctx, op{
		name:  OpConfigure,
		vmid:  ref.VMID,
		check: func() error { _, err := d.liveMachineLocked(ref.VMID); return err },
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			if change.Name != nil {
				m.Name = *change.Name
			}
			if change.CPUCores != nil {
				m.CPUCores = *change.CPUCores
			}
			if change.MemoryMB != nil {
				d.committed[m.Node] += *change.MemoryMB - m.MemoryMB
				m.MemoryMB = *change.MemoryMB
			}
			d.touchMachineLocked(m.VMID)
			out = cloneMachine(m.Machine)
			return nil
		},
	})
	return out, err
}

// SetNetwork changes interfaces by id, all or nothing: one unknown id rejects the lot.
func (d *Driver) SetNetwork(ctx context.Context, ref hypervisor.Ref, changes []hypervisor.InterfaceChange) (hypervisor.Machine, error) {
	for i, c := range changes {
		field := func(f string) string { return fmt.Sprintf("interfaces[%d].%s", i, f) }
		switch {
		case c.ID == "":
			return hypervisor.Machine{}, invalid(field("id"), "is required")
		case c.Bridge != nil && *c.Bridge == "":
			return hypervisor.Machine{}, invalid(field("bridge"), "must not be empty")
		case c.VLAN != nil && (*c.VLAN < 0 || *c.VLAN > 4094):
			return hypervisor.Machine{}, invalid(field("vlan"), "must be 0..4094")
		case c.RateMbps != nil && *c.RateMbps < 0:
			return hypervisor.Machine{}, invalid(field("rate_mbps"), "must be 0 or more")
		}
	}
	var out hypervisor.Machine
	err := d.run(ctx, op{
		name: OpSetNetwork,
		vmid: ref.VMID,
		check: func() error {
			m, err := d.liveMachineLocked(ref.VMID)
			if err != nil {
				return err
			}
			for _, c := range changes {
				if nicIndex(m, c.ID) < 0 {
					return hypervisor.NewError(hypervisor.ErrInterfaceNotFound, "machine %d has no interface %q", ref.VMID, c.ID)
				}
			}
			return nil
		},
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			for _, c := range changes {
				nic := &m.Interfaces[nicIndex(m, c.ID)]
				if c.Bridge != nil {
					nic.Bridge = *c.Bridge
				}
				if c.VLAN != nil {
					nic.VLAN = *c.VLAN
				}
				if c.RateMbps != nil {
					nic.RateMbps = *c.RateMbps
				}
				if c.Firewall != nil {
					nic.Firewall = *c.Firewall
				}
			}
			d.touchMachineLocked(m.VMID)
			out = cloneMachine(m.Machine)
			return nil
		},
	})
	return out, err
}

// nicIndex finds an interface by id, or -1.
func nicIndex(m *fleet.Machine, id string) int {
	for i, nic := range m.Interfaces {
		if nic.ID == id {
			return i
		}
	}
	return -1
}

// AddDisk attaches a new disk as the lowest free scsiN.
func (d *Driver) AddDisk(ctx context.Context, ref hypervisor.Ref, sizeGB int, storage string) (hypervisor.Disk, error) {
	if sizeGB < hypervisor.MinDiskGB {
		return hypervisor.Disk{}, invalid("size_gb", "must be at least %d", hypervisor.MinDiskGB)
	}
	if storage == "" {
		storage = DefaultStorage
	}
	var out hypervisor.Disk
	err := d.run(ctx, op{
		name: OpAddDisk,
		vmid: ref.VMID,
		check: func() error {
			m, err := d.liveMachineLocked(ref.VMID)
			if err != nil {
				return err
			}
			if freeSCSI(m) < 0 {
				return invalid("disks", "machine %d has no free scsi slot", ref.VMID)
			}
			return nil
		},
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			out = hypervisor.Disk{ID: "scsi" + strconv.Itoa(freeSCSI(m)), Storage: storage, SizeGB: sizeGB}
			m.Disks = append(m.Disks, out)
			d.touchMachineLocked(m.VMID)
			return nil
		},
	})
	return out, err
}

// freeSCSI returns the lowest unused scsi slot, or -1 when all are taken.
func freeSCSI(m *fleet.Machine) int {
	used := make(map[string]bool, len(m.Disks))
	for _, dk := range m.Disks {
		used[dk.ID] = true
	}
	for i := 0; i <= maxSCSI; i++ {
		if !used["scsi"+strconv.Itoa(i)] {
			return i
		}
	}
	return -1
}

// ResizeDisk grows a disk. Growing to the current size is a no-op, as in Proxmox.
func (d *Driver) ResizeDisk(ctx context.Context, ref hypervisor.Ref, diskID string, sizeGB int) (hypervisor.Machine, error) {
	if sizeGB < hypervisor.MinDiskGB {
		return hypervisor.Machine{}, invalid("size_gb", "must be at least %d", hypervisor.MinDiskGB)
	}
	var out hypervisor.Machine
	err := d.run(ctx, op{
		name: OpResizeDisk,
		vmid: ref.VMID,
		check: func() error {
			m, err := d.liveMachineLocked(ref.VMID)
			if err != nil {
				return err
			}
			i := diskIndex(m, diskID)
			if i < 0 {
				return hypervisor.NewError(hypervisor.ErrDiskNotFound, "machine %d has no disk %q", ref.VMID, diskID)
			}
			if cur := m.Disks[i].SizeGB; sizeGB < cur {
				return hypervisor.NewError(hypervisor.ErrDiskShrink, "disk %s of machine %d is %d GB: disks only grow, not to %d GB", diskID, ref.VMID, cur, sizeGB)
			}
			return nil
		},
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			m.Disks[diskIndex(m, diskID)].SizeGB = sizeGB
			d.touchMachineLocked(m.VMID)
			out = cloneMachine(m.Machine)
			return nil
		},
	})
	return out, err
}

// diskIndex finds a disk by id, or -1.
func diskIndex(m *fleet.Machine, id string) int {
	for i, dk := range m.Disks {
		if dk.ID == id {
			return i
		}
	}
	return -1
}

// Reinstall rebuilds the system disk (scsi0) from a template, growing it to the
// template's minimum if needed, and leaves the machine running. vmid, node, resources,
// other disks, interfaces and firewall rules stay (Proxmox pattern B in proxmox.md);
// snapshots go, as the Proxmox driver's reinstall recreates the VM without them.
func (d *Driver) Reinstall(ctx context.Context, ref hypervisor.Ref, spec hypervisor.ReinstallSpec) (hypervisor.Machine, error) {
	var out hypervisor.Machine
	err := d.run(ctx, op{
		name: OpReinstall,
		vmid: ref.VMID,
		check: func() error {
			if _, err := d.liveMachineLocked(ref.VMID); err != nil {
				return err
			}
			_, err := d.templateLocked(spec.TemplateID)
			return err
		},
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			tpl, _ := d.templateLocked(spec.TemplateID)
			if i := diskIndex(m, "scsi0"); i >= 0 {
				m.Disks[i].SizeGB = max(m.Disks[i].SizeGB, tpl.DiskGB)
			} else {
				m.Disks = append([]hypervisor.Disk{{ID: "scsi0", Storage: DefaultStorage, SizeGB: tpl.DiskGB}}, m.Disks...)
			}
			m.TemplateID = tpl.ID
			d.dropSnapshotsLocked(m)
			d.touchMachineLocked(m.VMID)
			d.closeConsolesLocked(ref.VMID, "machine reinstalling")
			d.setStateLocked(m, hypervisor.StateRunning)
			out = cloneMachine(m.Machine)
			return nil
		},
	})
	return out, err
}

// templateLocked finds a template or answers ErrTemplateNotFound.
func (d *Driver) templateLocked(id string) (hypervisor.Template, error) {
	for _, t := range d.templates {
		if t.ID == id {
			return t, nil
		}
	}
	return hypervisor.Template{}, hypervisor.NewError(hypervisor.ErrTemplateNotFound, "template %q does not exist", id)
}

// nextVMIDLocked returns the lowest free vmid ≥ 100, as Proxmox's /cluster/nextid does.
// A vmid locked by a create or restore in flight counts as taken.
func (d *Driver) nextVMIDLocked() int {
	v := max(d.vmidHint, minVMID)
	for {
		if !d.machines.Has(v) && d.locks[v] == "" {
			d.vmidHint = v
			return v
		}
		v++
	}
}

// placeLocked resolves the node of a new machine: the named one (which must exist and be
// online) or the online node with the lowest share of committed memory.
func (d *Driver) placeLocked(want string) (string, error) {
	if want != "" {
		n := d.nodeLocked(want)
		if n == nil {
			return "", hypervisor.NewError(hypervisor.ErrNodeNotFound, "node %q does not exist", want).WithKind(apierr.ErrInvalidRequest)
		}
		if n.Status != hypervisor.NodeOnline {
			return "", hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s is offline", want)
		}
		return n.ID, nil
	}
	committed := make(map[string]int, len(d.nodes))
	for id, mb := range d.committed {
		committed[id] = mb
	}
	for _, p := range d.pending {
		committed[p.node] += p.memoryMB
	}
	var best *node
	var bestLoad float64
	for _, n := range d.nodes {
		if n.Status != hypervisor.NodeOnline {
			continue
		}
		load := float64(committed[n.ID]) / float64(n.MemoryMB)
		if best == nil || load < bestLoad {
			best, bestLoad = n, load
		}
	}
	if best == nil {
		return "", hypervisor.NewError(hypervisor.ErrNodeOffline, "no node is online")
	}
	return best.ID, nil
}

// insertLocked adds a machine, giving it a net0 when it has none, and records its
// creation for the usage graphs.
func (d *Driver) insertLocked(hm hypervisor.Machine, createdAt time.Time) *fleet.Machine {
	m := &fleet.Machine{Machine: cloneMachine(hm), CreatedAt: createdAt}
	if len(m.Interfaces) == 0 {
		m.Interfaces = []hypervisor.Interface{{ID: "net0", Bridge: DefaultBridge}}
	}
	d.adoptInterfacesLocked(m)
	m.RecordState(createdAt, m.State)
	d.machines.Put(m)
	d.committed[m.Node] += m.MemoryMB
	d.touchMachineLocked(m.VMID)
	return m
}

// adoptInterfacesLocked registers a machine's MACs and pool addresses. A missing or
// colliding MAC gets a seeded one; a pool address held by another machine is dropped;
// a net0 left without an address gets the lowest free one. Two machines never share a
// MAC or an address, even after restores and machines added behind our back.
func (d *Driver) adoptInterfacesLocked(m *fleet.Machine) {
	for i := range m.Interfaces {
		nic := &m.Interfaces[i]
		nic.MAC = strings.ToUpper(nic.MAC)
		if nic.MAC == "" || d.macs.Has(nic.MAC) {
			nic.MAC = d.newMACLocked(m.VMID, i)
		}
		d.macs.Add(nic.MAC)
		ips := nic.IPAddresses[:0:0]
		for _, ip := range nic.IPAddresses {
			if d.ips.Mark(ip) {
				ips = append(ips, ip)
			}
		}
		if len(ips) == 0 && i == 0 {
			if ip, ok := d.newAddressLocked(m.VMID); ok {
				ips = []string{ip}
			}
		}
		nic.IPAddresses = ips
	}
}

// newAddressLocked takes the address of a new machine's net0: the lowest free one. On
// a shared store, where members create machines at once each from its own view of
// the pool, it is the vmid's own (the vmid's offset from 100 in the pool) when that is
// free: the vmid is unique across members (claimNew), so its address is too.
func (d *Driver) newAddressLocked(vmid int) (string, bool) {
	if d.shared.Load() && vmid >= minVMID {
		return d.ips.TakeAt(uint64(vmid - minVMID))
	}
	return d.ips.Take()
}

// releaseInterfacesLocked frees a machine's MACs and addresses.
func (d *Driver) releaseInterfacesLocked(m *fleet.Machine) {
	for _, nic := range m.Interfaces {
		d.macs.Remove(strings.ToUpper(nic.MAC))
		for _, ip := range nic.IPAddresses {
			d.ips.Release(ip)
		}
	}
}

// removeLocked deletes a machine and frees what it held. Backups outlive it.
func (d *Driver) removeLocked(vmid int, why string) {
	m, ok := d.machines.Get(vmid)
	if !ok {
		return
	}
	d.releaseInterfacesLocked(m)
	d.closeConsolesLocked(vmid, why)
	d.machines.Remove(vmid)
	d.committed[m.Node] -= m.MemoryMB
	delete(d.firewall, vmid)
	d.vmidHint = min(d.vmidHint, vmid)
	d.touchMachineLocked(vmid)
}

// newMACLocked derives a MAC in the Proxmox OUI (BC:24:11) from the seed, vmid and
// interface index, so it is stable for a seed; a collision moves on to the next salt.
func (d *Driver) newMACLocked(vmid, index int) string {
	for salt := uint64(0); ; salt++ {
		h := mix(d.seed, tagMAC, uint64(vmid), uint64(index), salt)
		mac := fmt.Sprintf("BC:24:11:%02X:%02X:%02X", byte(h>>16), byte(h>>8), byte(h))
		if !d.macs.Has(mac) {
			return mac
		}
	}
}

// seedDemoMachines creates n demo machines with seeded sizes, templates and histories,
// created between 1 and 400 days ago, mostly running, so a fresh demo looks lived-in.
func (d *Driver) seedDemoMachines(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seedDemoMachinesLocked(n)
}

// seedDemoMachinesLocked is seedDemoMachines with d.mu held.
func (d *Driver) seedDemoMachinesLocked(n int) {
	if n <= 0 {
		return
	}
	r := newRand(d.seed, tagDemo)
	cores := []int{1, 2, 2, 4, 4, 8}
	memory := []int{1024, 2048, 4096, 4096, 8192, 16384}
	disks := []int{20, 40, 40, 80, 160}
	now := d.now()
	d.machines.Reserve(n)
	for i := 1; i <= n; i++ {
		tpl := d.templates[r.IntN(len(d.templates))]
		vmid := d.nextVMIDLocked()
		nodeID, err := d.placeLocked("")
		if err != nil {
			return
		}
		age := 24*time.Hour + time.Duration(r.Int64N(int64(399*24*time.Hour)))
		created := now.Add(-age).Truncate(time.Second)
		m := d.insertLocked(hypervisor.Machine{
			VMID:       vmid,
			Name:       fmt.Sprintf("demo-%03d", i),
			Node:       nodeID,
			State:      hypervisor.StateRunning,
			CPUCores:   cores[r.IntN(len(cores))],
			MemoryMB:   memory[r.IntN(len(memory))],
			Disks:      []hypervisor.Disk{{ID: "scsi0", Storage: DefaultStorage, SizeGB: max(tpl.DiskGB, disks[r.IntN(len(disks))])}},
			TemplateID: tpl.ID,
		}, created)
		// Most demo machines run; some were stopped or suspended at a seeded moment.
		switch p := r.Float64(); {
		case p < 0.14:
			m.State = hypervisor.StateStopped
		case p < 0.20:
			m.State = hypervisor.StateSuspended
		}
		if m.State != hypervisor.StateRunning {
			at := created.Add(time.Duration(r.Float64() * float64(now.Sub(created))))
			m.RecordState(at, m.State)
		}
		d.packLocked(m)
	}
}

// packLocked packs m when it fits (fleet): the driver keeps its compact form, not m.
// The MAC set holds a MAC's bits, not m's string, so nothing keeps m alive.
func (d *Driver) packLocked(m *fleet.Machine) { d.machines.PutPacked(m) }
