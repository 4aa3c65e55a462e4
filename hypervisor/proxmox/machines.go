package proxmox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	pve "github.com/luthermonson/go-proxmox"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
)

// Limits checked before calling Proxmox, Proxmox's own (those of cores, memory and
// disks are hypervisor.MinCores and its siblings, which the sim checks too).
const (
	maxSCSI = 30 // scsi0..scsi30
	// configReaders bounds the parallel config reads of an inventory.
	configReaders = 4
)

// pvestatdCycle is how often pvestatd refreshes the states /cluster/resources shows
// (PVE's default, and its documented upper bound): the list can be that stale.
const pvestatdCycle = 10 * time.Second

// Inventory lists nodes, machines and templates from one /cluster/resources answer,
// plus one config read per machine and template on an online node (bounded
// parallelism). Machines on an offline node carry only their resource summary.
// Machines that vanish between the two reads are left out.
func (d *Driver) Inventory(ctx context.Context) (hypervisor.Inventory, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.Inventory{}, hypervisor.ContextError(err)
	}
	// pvestatd refreshes the states of /cluster/resources every cycle: they may be
	// that old when read.
	asOf := time.Now().Add(-pvestatdCycle)
	view, err := d.resources(ctx)
	if err != nil {
		return hypervisor.Inventory{}, err
	}
	inv := hypervisor.Inventory{Nodes: []hypervisor.Node{}, Machines: []hypervisor.Machine{}, Templates: []hypervisor.Template{}, AsOf: asOf}
	for _, name := range view.sortedNodes() {
		n := view.nodes[name]
		node := hypervisor.Node{ID: name, Status: hypervisor.NodeOffline, CPUCores: int(n.MaxCPU),
			MemoryMB: int(n.MaxMem >> 20), DiskGB: int(n.MaxDisk >> 30), StorageGB: view.imageStorageGB(name)}
		if n.Status == "online" {
			node.Status = hypervisor.NodeOnline
			node.CPU, node.MemBytes, node.DiskBytes = n.CPU, int64(n.Mem), int64(n.Disk)
		}
		inv.Nodes = append(inv.Nodes, node)
	}

	ids := make([]int, 0, len(view.vms))
	for id := range view.vms {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	type result struct {
		cfg  pveconf.VM
		gone bool
	}
	// Nodes that answer 595 to their config reads are down although the resource list
	// does not say so yet: they are reported offline, their VMs from the list alone,
	// rather than failing the whole inventory.
	var unreachableMu sync.Mutex
	unreachable := map[string]bool{}
	results := make([]result, len(ids))
	// The first failure stops the remaining reads: when Proxmox breaks mid-inventory,
	// a thousand VMs must not cost three thousand doomed requests.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		failOnce sync.Once
		firstErr error
	)
	sem := make(chan struct{}, configReaders)
	for i, id := range ids {
		r := view.vms[id]
		if !view.online(r.Node) {
			continue
		}
		sem <- struct{}{}
		if rctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cfg, err := d.vmConfig(rctx, r.Node, id)
			var ue *unreachableError
			switch {
			case errors.Is(err, hypervisor.ErrMachineNotFound):
				results[i].gone = true
			case errors.As(err, &ue) && rctx.Err() == nil:
				unreachableMu.Lock()
				unreachable[r.Node] = true
				unreachableMu.Unlock()
			case err != nil:
				failOnce.Do(func() { firstErr = err; cancel() })
			default:
				results[i].cfg = cfg
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		if ctx.Err() != nil {
			return hypervisor.Inventory{}, hypervisor.ContextError(ctx.Err())
		}
		return hypervisor.Inventory{}, firstErr
	}
	for i := range inv.Nodes {
		if n := &inv.Nodes[i]; unreachable[n.ID] {
			d.log.Warn("node does not answer (595); reported offline", zap.String("node", n.ID))
			*n = hypervisor.Node{ID: n.ID, Status: hypervisor.NodeOffline, CPUCores: n.CPUCores, MemoryMB: n.MemoryMB, DiskGB: n.DiskGB}
		}
	}
	for i, id := range ids {
		r, res := view.vms[id], results[i]
		if res.gone {
			continue
		}
		if r.Template != 1 && r.Status == "running" && view.online(r.Node) && !unreachable[r.Node] {
			// The counters come with the resource list already read: no extra call.
			if inv.Traffic == nil {
				inv.Traffic = map[int]hypervisor.TrafficCounters{}
			}
			inv.Traffic[id] = hypervisor.TrafficCounters{In: r.NetIn, Out: r.NetOut}
		}
		if r.Template == 1 {
			inv.Templates = append(inv.Templates, templateOf(view, r, res.cfg))
			continue
		}
		if res.cfg == nil {
			inv.Machines = append(inv.Machines, pveconf.MachineFromResource(r))
			continue
		}
		inv.Machines = append(inv.Machines, pveconf.Machine(id, r.Node, pveconf.State(r.Status, "", res.cfg["lock"]), res.cfg))
	}
	// The archives, vzdump's own jobs' among them: one listing per node of the backup
	// storage. A failure leaves them unlisted rather than failing the inventory: the
	// machines matter more, and the caller keeps the backups it knew.
	if backups, err := d.allBackups(ctx, view, 0); err == nil {
		inv.Backups, inv.BackupsListed = backups, true
	} else if ctx.Err() == nil {
		d.log.Warn("inventory: the backups could not be listed", zap.Error(err))
	}
	return inv, nil
}

// Machine reads one machine, re-resolving its node. On an offline node only the
// resource summary is known.
func (d *Driver) Machine(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	return d.machine(ctx, ref.VMID)
}

// Power performs POST status/{action} and follows its task. suspend pauses the guest in
// memory; resume of a hibernated guest (stopped with lock=suspended) is a start, which
// is how Proxmox resumes from disk.
func (d *Driver) Power(ctx context.Context, ref hypervisor.Ref, action hypervisor.PowerAction) error {
	if err := hypervisor.ValidatePowerAction(action); err != nil {
		return err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return err
	}
	st, err := d.status(ctx, l)
	if err != nil {
		return err
	}
	// The shared state machine, checked before Proxmox is asked: a forbidden action
	// is a clear 409 instead of a failed task.
	if _, err := hypervisor.CheckPower(ref.VMID, st.state, action); err != nil {
		return err
	}
	pveAction := string(action)
	if action == hypervisor.ActionResume && st.status == "stopped" {
		pveAction = "start"
	}
	return d.startTask(ctx, http.MethodPost, l.node, l.path()+"/status/"+pveAction, nil,
		fmt.Sprintf("%s machine %d", action, ref.VMID))
}

// migratePreconditions is GET .../migrate. go-proxmox's type decodes "running" as a
// bool, which fails on the 0/1 Proxmox sends, so the driver reads it itself.
type migratePreconditions struct {
	Running         any                       `json:"running"`
	AllowedNodes    []string                  `json:"allowed_nodes"`
	NotAllowedNodes map[string]notAllowedNode `json:"not_allowed_nodes"`
	LocalDisks      []struct {
		Volid     string `json:"volid"`
		DriveName string `json:"drivename"`
	} `json:"local_disks"`
	LocalResources []string `json:"local_resources"`
}

// notAllowedNode says why a node cannot take the machine.
type notAllowedNode struct {
	UnavailableStorages []string `json:"unavailable_storages"`
	UnavailableRes      []string `json:"unavailable-resources"`
}

// Migrate moves a machine: our checks first (target exists, differs, is online; a
// running machine only online), then Proxmox's preconditions, then POST migrate with
// online=1 for a running machine and with-local-disks=1 when it has local disks, and
// the task. It answers the machine as it is on the target.
func (d *Driver) Migrate(ctx context.Context, ref hypervisor.Ref, targetNode string, online bool) (hypervisor.Machine, error) {
	if targetNode == "" {
		return hypervisor.Machine{}, invalid("target_node", "is required")
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	switch _, known := l.view.nodes[targetNode]; {
	case !known:
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrNodeNotFound, "target node %q does not exist", targetNode).WithKind(apierr.ErrInvalidRequest)
	case targetNode == l.node:
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrSameNode, "machine %d is already on node %s", ref.VMID, targetNode)
	case !l.view.online(targetNode):
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrNodeOffline, "target node %s is offline", targetNode)
	}
	st, err := d.status(ctx, l)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	if st.state != hypervisor.StateStopped && !online {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrWrongState, "machine %d is %s: migrate it online or stop it first", ref.VMID, st.state)
	}

	var pre migratePreconditions
	if err := d.get(ctx, l.path()+"/migrate", url.Values{"target": {targetNode}}, &pre); err != nil {
		return hypervisor.Machine{}, err
	}
	// Proxmox answers allowed/not-allowed nodes for stopped machines only, and lists
	// every node under not_allowed_nodes, the allowed ones without reasons.
	why := pre.NotAllowedNodes[targetNode]
	if reasons := append(append([]string{}, why.UnavailableStorages...), why.UnavailableRes...); len(reasons) > 0 {
		return hypervisor.Machine{}, apierr.New(apierr.ErrInvalidRequest,
			"node %s cannot take machine %d: not available there: %s", targetNode, ref.VMID, strings.Join(reasons, ", "))
	}
	if pre.AllowedNodes != nil && !slices.Contains(pre.AllowedNodes, targetNode) {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrNodeOffline,
			"Proxmox does not offer node %s as a migration target for machine %d", targetNode, ref.VMID)
	}
	if len(pre.LocalResources) > 0 {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrWrongState,
			"machine %d uses local devices (%s) and cannot migrate", ref.VMID, strings.Join(pre.LocalResources, ", "))
	}
	body := map[string]any{"target": targetNode}
	if st.state != hypervisor.StateStopped {
		body["online"] = 1
	}
	if len(pre.LocalDisks) > 0 {
		body["with-local-disks"] = 1
	}
	if err := d.startTask(ctx, http.MethodPost, l.node, l.path()+"/migrate", body,
		fmt.Sprintf("migrate machine %d to %s", ref.VMID, targetNode)); err != nil {
		return hypervisor.Machine{}, err
	}
	return d.machine(ctx, ref.VMID)
}

// validateConfigChange checks a change the way the sim does, plus Proxmox's DNS-name rule.
func validateConfigChange(change hypervisor.ConfigChange) error {
	if c := change.Name; c != nil && !hypervisor.ValidVMName(*c) {
		return invalid("name", hypervisor.VMNameRule)
	}
	if c := change.CPUCores; c != nil && (*c < hypervisor.MinCores || *c > hypervisor.MaxCores) {
		return invalid("cpu_cores", "must be %d..%d", hypervisor.MinCores, hypervisor.MaxCores)
	}
	if c := change.MemoryMB; c != nil && *c < hypervisor.MinMemoryMB {
		return invalid("memory_mb", "must be at least %d", hypervisor.MinMemoryMB)
	}
	return nil
}

// Configure changes name, cores and memory with one POST config guarded by the
// config's digest; Proxmox hot-plugs what it can and keeps the rest pending until the
// next boot. cores is the machine's vCPU count, so sockets are set to 1 if they were not.
func (d *Driver) Configure(ctx context.Context, ref hypervisor.Ref, change hypervisor.ConfigChange) (hypervisor.Machine, error) {
	if err := validateConfigChange(change); err != nil {
		return hypervisor.Machine{}, err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	err = d.updateConfig(ctx, l, fmt.Sprintf("configure machine %d", ref.VMID), func(cfg pveconf.VM) (map[string]any, error) {
		body := map[string]any{}
		if change.Name != nil && *change.Name != cfg["name"] {
			body["name"] = *change.Name
		}
		if change.CPUCores != nil && *change.CPUCores != cfg.CPUCores() {
			body["cores"] = *change.CPUCores
			if cfg.Int("sockets", 1) != 1 {
				body["sockets"] = 1
			}
		}
		if change.MemoryMB != nil && *change.MemoryMB != cfg.MemoryMB() {
			body["memory"] = strconv.Itoa(*change.MemoryMB)
		}
		return body, nil
	})
	if err != nil {
		return hypervisor.Machine{}, err
	}
	return d.readMachine(ctx, l)
}

// updateConfig is a read-modify-write of a VM's config: it reads the config, lets
// change compute the body from it (nothing to write: done), and writes it with the
// config's digest. When someone changed the config between the read and the write
// (errModified, from the request or from the config task), it starts over from a
// fresh read, up to modifiedAttempts times, and then fails with 409 conflict.
func (d *Driver) updateConfig(ctx context.Context, l *located, what string, change func(cfg pveconf.VM) (map[string]any, error)) error {
	for attempt := 1; ; attempt++ {
		cfg, err := d.vmConfig(ctx, l.node, l.vmid)
		if err != nil {
			return err
		}
		body, err := change(cfg)
		if err != nil || len(body) == 0 {
			return err
		}
		err = d.writeConfig(ctx, l, cfg, body, what)
		if !errors.Is(err, errModified) {
			return err
		}
		if attempt >= modifiedAttempts {
			return hypervisor.NewError(errModified, "%s: the configuration of machine %d changed on Proxmox during each of %d attempts; retry (%s)",
				what, l.vmid, attempt, modifiedText)
		}
		d.log.Info("config changed on Proxmox meanwhile; reading it again", zap.Int("vmid", l.vmid), zap.Int("attempt", attempt))
	}
}

// writeConfig is POST config (the asynchronous API: it may run a task, for hot-plug)
// with the digest of the config the change was computed from, so a concurrent edit by
// an operator fails instead of being overwritten.
func (d *Driver) writeConfig(ctx context.Context, l *located, cfg pveconf.VM, body map[string]any, what string) error {
	if dg := cfg["digest"]; dg != "" {
		body["digest"] = dg
	}
	return d.startTask(ctx, http.MethodPost, l.node, l.path()+"/config", body, what)
}

// validateInterfaceChanges checks changes the way the sim does.
func validateInterfaceChanges(changes []hypervisor.InterfaceChange) error {
	for i, c := range changes {
		field := func(f string) string { return fmt.Sprintf("interfaces[%d].%s", i, f) }
		switch {
		case c.ID == "":
			return invalid(field("id"), "is required")
		case c.Bridge != nil && *c.Bridge == "":
			return invalid(field("bridge"), "must not be empty")
		case c.Bridge != nil && strings.ContainsAny(*c.Bridge, ",= \t"):
			return invalid(field("bridge"), "must be a bridge name")
		case c.VLAN != nil && (*c.VLAN < 0 || *c.VLAN > 4094):
			return invalid(field("vlan"), "must be 0..4094")
		case c.RateMbps != nil && *c.RateMbps < 0:
			return invalid(field("rate_mbps"), "must be 0 or more")
		}
	}
	return nil
}

// SetNetwork rewrites the named netN entries, keeping model, MAC and every option it
// does not change, in one digest-guarded config write; one unknown id rejects the lot.
// rate_mbps is megabits per second; Proxmox's rate is megabytes per second.
func (d *Driver) SetNetwork(ctx context.Context, ref hypervisor.Ref, changes []hypervisor.InterfaceChange) (hypervisor.Machine, error) {
	if err := validateInterfaceChanges(changes); err != nil {
		return hypervisor.Machine{}, err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	err = d.updateConfig(ctx, l, fmt.Sprintf("set the network of machine %d", ref.VMID), func(cfg pveconf.VM) (map[string]any, error) {
		return networkBody(cfg, ref.VMID, changes)
	})
	if err != nil {
		return hypervisor.Machine{}, err
	}
	return d.readMachine(ctx, l)
}

// networkBody computes the netN entries that changes rewrite in cfg.
func networkBody(cfg pveconf.VM, vmid int, changes []hypervisor.InterfaceChange) (map[string]any, error) {
	body := map[string]any{}
	for _, c := range changes {
		raw, ok := cfg[c.ID]
		if !ok || !pveconf.NetKeyRE.MatchString(c.ID) {
			return nil, hypervisor.NewError(hypervisor.ErrInterfaceNotFound, "machine %d has no interface %q", vmid, c.ID)
		}
		if prev, ok := body[c.ID].(string); ok { // two changes of one NIC apply in order
			raw = prev
		}
		n := pveconf.ParseNet(raw)
		if c.Bridge != nil {
			n.Set("bridge", *c.Bridge)
		}
		if c.VLAN != nil {
			n.Set("tag", itoaNonZero(*c.VLAN))
		}
		if c.RateMbps != nil {
			n.Set("rate", pveconf.RateMBps(*c.RateMbps))
		}
		if c.Firewall != nil {
			n.Set("firewall", strconv.Itoa(pveconf.BoolInt(*c.Firewall)))
		}
		body[c.ID] = n.String()
	}
	for k, v := range body {
		if v == cfg[k] {
			delete(body, k)
		}
	}
	return body, nil
}

func itoaNonZero(i int) string {
	if i == 0 {
		return ""
	}
	return strconv.Itoa(i)
}

// AddDisk allocates a new disk as the lowest free scsiN ("STORAGE:SIZE" makes Proxmox
// allocate SIZE GiB on STORAGE).
func (d *Driver) AddDisk(ctx context.Context, ref hypervisor.Ref, sizeGB int, storage string) (hypervisor.Disk, error) {
	if sizeGB < hypervisor.MinDiskGB {
		return hypervisor.Disk{}, invalid("size_gb", "must be at least %d", hypervisor.MinDiskGB)
	}
	if storage == "" {
		storage = d.cfg.DefaultStorage
	}
	if strings.ContainsAny(storage, ":,= \t") {
		return hypervisor.Disk{}, invalid("storage", "must be a storage name")
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Disk{}, err
	}
	if !l.view.hasStorage(storage, l.node) {
		return hypervisor.Disk{}, invalid("storage", "node %s has no storage %q", l.node, storage)
	}
	// The slot is picked again on each attempt: a concurrent edit may have taken it.
	key := ""
	err = d.updateConfig(ctx, l, fmt.Sprintf("add a disk to machine %d", ref.VMID), func(cfg pveconf.VM) (map[string]any, error) {
		slot := -1
		for i := 0; i <= maxSCSI && slot < 0; i++ {
			if _, used := cfg["scsi"+strconv.Itoa(i)]; !used {
				slot = i
			}
		}
		if slot < 0 {
			return nil, invalid("disks", "machine %d has no free scsi slot", ref.VMID)
		}
		key = "scsi" + strconv.Itoa(slot)
		return map[string]any{key: fmt.Sprintf("%s:%d", storage, sizeGB)}, nil
	})
	if err != nil {
		return hypervisor.Disk{}, err
	}
	out := hypervisor.Disk{ID: key, Storage: storage, SizeGB: sizeGB}
	if now, err := d.vmConfig(ctx, l.node, l.vmid); err == nil {
		if dk, ok := now.Disk(key); ok {
			out = hypervisor.Disk{ID: key, Storage: dk.Storage, SizeGB: dk.SizeGB}
		}
	}
	return out, nil
}

// ResizeDisk grows a disk with PUT resize to an absolute size. Shrinking is refused
// before Proxmox is asked (it cannot shrink), and the same size is a no-op.
func (d *Driver) ResizeDisk(ctx context.Context, ref hypervisor.Ref, diskID string, sizeGB int) (hypervisor.Machine, error) {
	if sizeGB < hypervisor.MinDiskGB {
		return hypervisor.Machine{}, invalid("size_gb", "must be at least %d", hypervisor.MinDiskGB)
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	if err := d.resize(ctx, l, func(cfg pveconf.VM) (string, error) {
		dk, ok := cfg.Disk(diskID)
		if !ok {
			return "", hypervisor.NewError(hypervisor.ErrDiskNotFound, "machine %d has no disk %q", ref.VMID, diskID)
		}
		if sizeGB < dk.SizeGB {
			return "", hypervisor.NewError(hypervisor.ErrDiskShrink,
				"disk %s of machine %d is %d GB: disks only grow, not to %d GB", diskID, ref.VMID, dk.SizeGB, sizeGB)
		}
		if sizeGB == dk.SizeGB {
			return "", nil
		}
		return diskID, nil
	}, sizeGB); err != nil {
		return hypervisor.Machine{}, err
	}
	return d.readMachine(ctx, l)
}

// resize is PUT resize (Proxmox 8+ answers a UPID, older versions nothing) of the
// disk pick names in a fresh config ("": nothing to do), with that config's digest.
// Like updateConfig it starts over when the config changed meanwhile: the absolute
// size makes a repeated resize harmless.
func (d *Driver) resize(ctx context.Context, l *located, pick func(cfg pveconf.VM) (string, error), sizeGB int) error {
	for attempt := 1; ; attempt++ {
		cfg, err := d.vmConfig(ctx, l.node, l.vmid)
		if err != nil {
			return err
		}
		disk, err := pick(cfg)
		if err != nil || disk == "" {
			return err
		}
		body := map[string]any{"disk": disk, "size": fmt.Sprintf("%dG", sizeGB)}
		if dg := cfg["digest"]; dg != "" {
			body["digest"] = dg
		}
		what := fmt.Sprintf("resize disk %s of machine %d", disk, l.vmid)
		err = d.startTask(ctx, http.MethodPut, l.node, l.path()+"/resize", body, what)
		if !errors.Is(err, errModified) {
			return err
		}
		if attempt >= modifiedAttempts {
			return hypervisor.NewError(errModified, "%s: the configuration changed on Proxmox during each of %d attempts; retry (%s)", what, attempt, modifiedText)
		}
	}
}

// findTemplate resolves a template id: "tpl-<vmid>" (what Inventory reports), a bare
// vmid, a template's exact name, or "tpl-<name>" (the sim's style, so ids such as
// "tpl-debian-12" keep working when a template is named "debian-12"). Names must be
// unique to be used.
func findTemplate(view *clusterView, id string) (*pve.ClusterResource, error) {
	if id == "" {
		return nil, hypervisor.NewError(hypervisor.ErrTemplateNotFound, "no template given")
	}
	stripped := strings.TrimPrefix(id, "tpl-")
	if vmid, err := strconv.Atoi(stripped); err == nil {
		if r, ok := view.vms[vmid]; ok && r.Template == 1 {
			return r, nil
		}
	}
	for _, name := range []string{id, stripped} {
		var match *pve.ClusterResource
		for _, r := range view.vms {
			if r.Template == 1 && r.Name == name {
				if match != nil {
					return nil, hypervisor.NewError(hypervisor.ErrTemplateNotFound, "template name %q is ambiguous: use tpl-<vmid>", name)
				}
				match = r
			}
		}
		if match != nil {
			return match, nil
		}
	}
	return nil, hypervisor.NewError(hypervisor.ErrTemplateNotFound, "template %q does not exist", id)
}
