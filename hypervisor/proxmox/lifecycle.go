package proxmox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"

	pve "github.com/luthermonson/go-proxmox"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
)

// cleanupTimeout bounds the removal of a half-created machine.
const cleanupTimeout = 2 * time.Minute

// validateCreate checks a spec (hypervisor.CheckCreate) and fills in the defaults a
// clone keeps from a template when the caller names none; the keys go into one
// cloud-init value, a line each.
func validateCreate(spec *hypervisor.CreateSpec) error {
	if err := hypervisor.CheckCreate(spec); err != nil {
		return err
	}
	for i, k := range spec.SSHKeys {
		if strings.ContainsAny(k, "\r\n") {
			return invalid(fmt.Sprintf("ssh_keys[%d]", i), "must be one line")
		}
	}
	return nil
}

// Create clones a template (full clone) and shapes the clone: GET /cluster/nextid when
// no vmid is given, POST clone (newid, full=1, name, target), the clone task and the
// clone lock, then one config write with cores, memory, cloud-init (ciuser=root,
// cipassword, sshkeys URL-encoded, ipconfig0 with spec.Addresses (pveconf.IPConfig),
// else ip=dhcp unless the template sets one) and the template tag; with
// spec.Addresses, the firewall IP set ipfilter-net0 holding exactly them, enforced:
// the firewall on with ipfilter=1, both policies ACCEPT and firewall=1 on the NICs
// (writeIPFilter); a resize of the system disk to
// spec.DiskGB if that is larger, and a start if spec.Start.
//
// Placement: spec.Node if given; else, for a template on shared storage, the online
// node with the lowest share of its memory committed to machines; for a template on
// local storage its own node, because Proxmox cannot clone local disks to another node.
// A clone whose shaping fails is destroyed again (unless ctx ended), so a failed
// Create leaves nothing behind.
func (d *Driver) Create(ctx context.Context, spec hypervisor.CreateSpec) (hypervisor.Machine, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.Machine{}, hypervisor.ContextError(err)
	}
	if err := validateCreate(&spec); err != nil {
		return hypervisor.Machine{}, err
	}
	ctx = withSecrets(ctx, spec.Password)
	view, err := d.resources(ctx)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	tpl, err := findTemplate(view, spec.TemplateID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	tplVMID := int(tpl.VMID)
	if !view.online(tpl.Node) {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s of template %s is offline", tpl.Node, spec.TemplateID)
	}
	tplCfg, err := d.vmConfig(ctx, tpl.Node, tplVMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	node, err := d.place(view, spec.Node, tpl.Node, sharedDisks(view, tplCfg))
	if err != nil {
		return hypervisor.Machine{}, err
	}
	vmid, upid, err := d.startCreateClone(ctx, view, tpl, spec, node)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	if err := d.finishClone(ctx, tpl, vmid, node, upid); err != nil {
		if ctx.Err() != nil {
			d.log.Warn("create cancelled while Proxmox was cloning: the clone may stay; delete it by hand if it does",
				zap.Int("vmid", vmid), zap.String("node", node))
		}
		return hypervisor.Machine{}, err
	}
	m, err := d.shapeClone(ctx, spec, tplVMID, vmid, node)
	if err != nil {
		d.cleanup(ctx, vmid, node, err)
		return hypervisor.Machine{}, err
	}
	return m, nil
}

// place picks the node of a new machine (see Create).
func (d *Driver) place(view *clusterView, want, tplNode string, shared bool) (string, error) {
	if want != "" {
		if _, ok := view.nodes[want]; !ok {
			return "", hypervisor.NewError(hypervisor.ErrNodeNotFound, "node %q does not exist", want).WithKind(apierr.ErrInvalidRequest)
		}
		if !view.online(want) {
			return "", hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s is offline", want)
		}
		if want != tplNode && !shared {
			return "", apierr.New(apierr.ErrInvalidRequest,
				"the template lives on node %s's local storage: Proxmox can only clone it on %s", tplNode, tplNode)
		}
		return want, nil
	}
	if !shared {
		return tplNode, nil
	}
	committed := map[string]uint64{}
	for _, r := range view.vms {
		if r.Template != 1 {
			committed[r.Node] += r.MaxMem
		}
	}
	best, bestLoad := "", 0.0
	for _, n := range view.sortedNodes() {
		r := view.nodes[n]
		if !view.online(n) || r.MaxMem == 0 {
			continue
		}
		load := float64(committed[n]) / float64(r.MaxMem)
		if best == "" || load < bestLoad {
			best, bestLoad = n, load
		}
	}
	if best == "" {
		return "", hypervisor.NewError(hypervisor.ErrNodeOffline, "no node is online")
	}
	return best, nil
}

// sharedDisks reports whether every drive of a config (cloud-init drive included)
// lives on shared storage, so that Proxmox can clone it to any node.
func sharedDisks(view *clusterView, cfg pveconf.VM) bool {
	for _, dk := range cfg.AllDisks() {
		if dk.Storage == "" || (dk.CDROM && !strings.Contains(dk.Volume, "cloudinit")) {
			continue // empty drives and ISO images are not copied
		}
		if !view.shared(dk.Storage) {
			return false
		}
	}
	return true
}

// nextIDAttempts bounds the vmids Create tries when other clients took the ones
// /cluster/nextid offered, as the sim bounds its claims.
const nextIDAttempts = 32

// startCreateClone picks the vmid (spec.VMID, or /cluster/nextid) and starts the clone.
// Picking and cloning hold createMu, so this driver's own creates never race for an id.
// nextid reserves nothing: clients asking at once (members of a vmplane cluster) get the
// same id and the second clone is refused; that one asks again and takes an id above
// the one it lost, up to nextIDAttempts times. A vmid the caller named fails at once.
func (d *Driver) startCreateClone(ctx context.Context, view *clusterView, tpl *pve.ClusterResource, spec hypervisor.CreateSpec, node string) (int, string, error) {
	if spec.VMID != 0 {
		if _, taken := view.vms[spec.VMID]; taken {
			return 0, "", hypervisor.NewError(hypervisor.ErrVMIDInUse, "vmid %d already exists", spec.VMID)
		}
	}
	lost := 0 // the highest vmid another client took first
	for attempt := 1; ; attempt++ {
		d.createMu.Lock()
		vmid := spec.VMID
		var err error
		if vmid == 0 {
			vmid, err = new(pve.Cluster).New(d.api).NextID(ctx)
			vmid, err = max(vmid, lost+1), d.apiError(ctx, err)
		}
		var upid string
		if err == nil {
			upid, err = d.postClone(ctx, tpl, vmid, cmp.Or(spec.Name, fmt.Sprintf("vm-%d", vmid)), node)
		}
		d.createMu.Unlock()
		if errors.Is(err, hypervisor.ErrVMIDInUse) && spec.VMID == 0 && attempt < nextIDAttempts {
			lost = vmid
			continue
		}
		return vmid, upid, err
	}
}

// postClone asks for a full clone of a template.
func (d *Driver) postClone(ctx context.Context, tpl *pve.ClusterResource, vmid int, name, node string) (string, error) {
	body := map[string]any{"newid": vmid, "full": 1}
	if name != "" {
		body["name"] = name
	}
	if node != tpl.Node {
		body["target"] = node
	}
	var id string
	if err := d.call(ctx, http.MethodPost, vmPath(tpl.Node, int(tpl.VMID))+"/clone", nil, body, &id); err != nil {
		if se, ok := statusOf(err); ok && strings.Contains(se.Message, "already exists") {
			return "", hypervisor.NewError(hypervisor.ErrVMIDInUse, "vmid %d already exists", vmid)
		}
		return "", d.apiError(ctx, err)
	}
	return id, nil
}

// finishClone waits for the clone task and for the new VM's lock.
func (d *Driver) finishClone(ctx context.Context, tpl *pve.ClusterResource, vmid int, node, upid string) error {
	if err := d.waitTask(ctx, tpl.Node, upid, fmt.Sprintf("clone template %d to machine %d", tpl.VMID, vmid)); err != nil {
		return err
	}
	_, err := d.waitUnlocked(ctx, node, vmid)
	return err
}

// clone runs a full clone to a given vmid and waits for it.
func (d *Driver) clone(ctx context.Context, tpl *pve.ClusterResource, vmid int, name, node string) error {
	upid, err := d.postClone(ctx, tpl, vmid, name, node)
	if err != nil {
		return err
	}
	return d.finishClone(ctx, tpl, vmid, node, upid)
}

// shapeClone applies a create spec to a fresh clone.
func (d *Driver) shapeClone(ctx context.Context, spec hypervisor.CreateSpec, tplVMID, vmid int, node string) (hypervisor.Machine, error) {
	l := &located{vmid: vmid, node: node, online: true}
	err := d.updateConfig(ctx, l, fmt.Sprintf("configure new machine %d", vmid), func(cfg pveconf.VM) (map[string]any, error) {
		body := map[string]any{
			"cores":  spec.CPUCores,
			"memory": itoa(spec.MemoryMB),
			"ciuser": "root",
			"tags":   pveconf.WithTemplateTag(cfg["tags"], tplVMID),
		}
		if cfg.Int("sockets", 1) != 1 {
			body["sockets"] = 1
		}
		if ipc := pveconf.IPConfig(spec.Addresses); ipc != "" {
			// The addresses vmplane gave the machine win over the template's.
			body["ipconfig0"] = ipc
		} else if cfg["ipconfig0"] == "" {
			body["ipconfig0"] = "ip=dhcp"
		}
		if len(spec.Nameservers) > 0 {
			body["nameserver"] = strings.Join(spec.Nameservers, " ")
		}
		if spec.Password != "" {
			body["cipassword"] = spec.Password
		}
		if len(spec.SSHKeys) > 0 {
			body["sshkeys"] = pve.EncodeSSHKeys(spec.SSHKeys...)
		}
		if len(cfg.NICs()) == 0 {
			body["net0"] = "virtio,bridge=" + d.cfg.DefaultBridge
		}
		return body, nil
	})
	if err != nil {
		return hypervisor.Machine{}, err
	}
	if len(spec.Addresses) > 0 {
		// The clone may carry the template's own ipfilter-net0: writeIPFilter makes it
		// the machine's addresses exactly.
		if err := d.writeIPFilter(ctx, l, spec.Addresses); err != nil {
			return hypervisor.Machine{}, err
		}
	}
	if err := d.growBootDisk(ctx, l, spec.DiskGB); err != nil {
		return hypervisor.Machine{}, err
	}
	if spec.Start {
		if err := d.startTask(ctx, http.MethodPost, node, l.path()+"/status/start", nil, fmt.Sprintf("start machine %d", vmid)); err != nil {
			return hypervisor.Machine{}, err
		}
	}
	return d.machine(ctx, vmid)
}

// growBootDisk resizes the system disk to sizeGB when that is larger than it is.
func (d *Driver) growBootDisk(ctx context.Context, l *located, sizeGB int) error {
	return d.resize(ctx, l, func(cfg pveconf.VM) (string, error) {
		boot, ok := cfg.BootDisk()
		if !ok || sizeGB <= boot.SizeGB {
			return "", nil
		}
		return boot.Key, nil
	}, sizeGB)
}

// cleanup destroys a machine a failed Create or Reinstall left half made. It runs
// with a context of its own (the caller's may carry a short deadline) but not when the
// caller cancelled: then the clone task may still hold the lock and the caller wants
// to stop waiting; the machine is logged for the operator instead.
func (d *Driver) cleanup(ctx context.Context, vmid int, node string, cause error) {
	log := d.log.With(zap.Int("vmid", vmid), zap.String("node", node), zap.String("cause", d.scrub(ctx, cause.Error())))
	if ctx.Err() != nil {
		log.Warn("half-created machine left on Proxmox: the call was cancelled; delete it by hand if it stays")
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := d.destroy(cctx, &located{vmid: vmid, node: node, online: true}); err != nil && !errors.Is(err, hypervisor.ErrMachineNotFound) {
		log.Error("could not delete a half-created machine", zap.String("error", d.scrub(ctx, err.Error())))
		return
	}
	log.Info("deleted a half-created machine")
}

// Destroy stops the machine if it runs, then DELETE with purge=1 (also out of backup
// jobs, replication and HA) and destroy-unreferenced-disks=1, and waits for the task.
func (d *Driver) Destroy(ctx context.Context, ref hypervisor.Ref) error {
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return err
	}
	return d.destroy(ctx, l)
}

func (d *Driver) destroy(ctx context.Context, l *located) error {
	if err := d.stopIfNeeded(ctx, l); err != nil {
		return err
	}
	return d.startTask(ctx, http.MethodDelete, l.node, l.path(), map[string]any{"purge": 1, "destroy-unreferenced-disks": 1},
		fmt.Sprintf("destroy machine %d", l.vmid))
}

// stopIfNeeded hard-stops a machine that is not stopped and reports whether it ran.
func (d *Driver) stopIfNeeded(ctx context.Context, l *located) error {
	_, err := d.stopState(ctx, l)
	return err
}

func (d *Driver) stopState(ctx context.Context, l *located) (hypervisor.State, error) {
	st, err := d.status(ctx, l)
	if err != nil {
		return "", err
	}
	if st.status == "stopped" && st.state == hypervisor.StateStopped {
		return st.state, nil
	}
	return st.state, d.startTask(ctx, http.MethodPost, l.node, l.path()+"/status/stop", nil, fmt.Sprintf("stop machine %d", l.vmid))
}

// reinstallKeep are the config keys a reinstall carries from the old machine to its
// new system: identity, resources, network, cloud-init network settings.
var reinstallKeep = regexp.MustCompile(`^(name|cores|sockets|vcpus|memory|balloon|cpulimit|cpuunits|description|onboot|nameserver|searchdomain|ciuser|sshkeys|ipconfig\d+|net\d+)$`)

// Reinstall rebuilds a machine from a template as docs/proxmox.md describes, since
// Proxmox has no native reinstall: stop, DELETE (purge),
// full clone of the template to the same vmid on the same node, then re-apply what
// the machine was: name, cores, memory, every netN verbatim (MAC, model, bridge, VLAN,
// rate, firewall), cloud-init settings and static addresses, the system disk grown back
// to its old size (or the template's, if larger), empty disks in the place of its
// other disks, and its firewall rules, options and IP sets (the machine's addresses
// in ipfilter-net0 among them; Proxmox deletes all of those with the VM);
// then the new password/keys and a start.
//
// Data on every disk is gone afterwards, data disks included: that is what (A) does.
// The template must be clonable to the machine's node (shared storage, or the same
// node); everything is checked before the old machine is touched.
func (d *Driver) Reinstall(ctx context.Context, ref hypervisor.Ref, spec hypervisor.ReinstallSpec) (hypervisor.Machine, error) {
	for i, k := range spec.SSHKeys {
		if strings.ContainsAny(k, "\r\n") {
			return hypervisor.Machine{}, invalid(fmt.Sprintf("ssh_keys[%d]", i), "must be one line")
		}
	}
	ctx = withSecrets(ctx, spec.Password)
	if err := ctx.Err(); err != nil {
		return hypervisor.Machine{}, hypervisor.ContextError(err)
	}
	view, err := d.resources(ctx)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	l, err := view.locate(ref.VMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	if err := l.live(); err != nil {
		return hypervisor.Machine{}, err
	}
	tpl, err := findTemplate(view, spec.TemplateID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	if !view.online(tpl.Node) {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s of template %s is offline", tpl.Node, spec.TemplateID)
	}
	tplCfg, err := d.vmConfig(ctx, tpl.Node, int(tpl.VMID))
	if err != nil {
		return hypervisor.Machine{}, err
	}
	if tpl.Node != l.node && !sharedDisks(view, tplCfg) {
		return hypervisor.Machine{}, apierr.New(apierr.ErrInvalidRequest,
			"template %s lives on node %s's local storage and cannot be cloned to node %s", spec.TemplateID, tpl.Node, l.node)
	}
	old, err := d.vmConfig(ctx, l.node, l.vmid)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	fw, err := d.readFirewall(ctx, l)
	if err != nil {
		return hypervisor.Machine{}, err
	}

	// From here on the old machine is being replaced; failures are logged loudly.
	fail := func(step string, err error) (hypervisor.Machine, error) {
		d.log.Error("reinstall failed part-way", zap.Int("vmid", l.vmid), zap.String("node", l.node),
			zap.String("step", step), zap.String("error", d.scrub(ctx, err.Error())))
		return hypervisor.Machine{}, err
	}
	if err := d.destroy(ctx, l); err != nil {
		return fail("destroy", err)
	}
	if err := d.clone(ctx, tpl, l.vmid, old["name"], l.node); err != nil {
		return fail("clone", err)
	}
	err = d.updateConfig(ctx, l, fmt.Sprintf("configure reinstalled machine %d", l.vmid), func(fresh pveconf.VM) (map[string]any, error) {
		body := map[string]any{}
		var del []string
		for k, v := range old {
			if reinstallKeep.MatchString(k) {
				body[k] = v
			}
		}
		for k := range fresh {
			if pveconf.NetKeyRE.MatchString(k) && old[k] == "" {
				del = append(del, k)
			}
		}
		if len(del) > 0 {
			body["delete"] = strings.Join(del, ",")
		}
		if body["ciuser"] == nil {
			body["ciuser"] = "root"
		}
		if old["ipconfig0"] == "" && fresh["ipconfig0"] == "" {
			body["ipconfig0"] = "ip=dhcp"
		}
		if spec.Password != "" {
			body["cipassword"] = spec.Password
		}
		if len(spec.SSHKeys) > 0 {
			body["sshkeys"] = pve.EncodeSSHKeys(spec.SSHKeys...)
		}
		body["tags"] = pveconf.WithTemplateTag(old["tags"], int(tpl.VMID))
		return body, nil
	})
	if err != nil {
		return fail("configure", err)
	}
	oldBoot, _ := old.BootDisk()
	if err := d.growBootDisk(ctx, l, oldBoot.SizeGB); err != nil {
		return fail("resize", err)
	}
	if err := d.recreateDisks(ctx, l, old, oldBoot.Key); err != nil {
		return fail("disks", err)
	}
	if err := d.restoreFirewall(ctx, l, fw); err != nil {
		return fail("firewall", err)
	}
	if pveconf.Truthy(fw.options["ipfilter"]) {
		// The saved options and NICs carry the enforced filter already, unless the
		// machine was addressed before vmplane turned its firewall on with it.
		if err := d.enforceIPFilter(ctx, l); err != nil {
			return fail("firewall", err)
		}
	}
	if err := d.startTask(ctx, http.MethodPost, l.node, l.path()+"/status/start", nil, fmt.Sprintf("start machine %d", l.vmid)); err != nil {
		return fail("start", err)
	}
	return d.machine(ctx, l.vmid)
}

// recreateDisks adds, empty, each disk of old (but the boot disk) that the new config
// lacks, with its old storage and size.
func (d *Driver) recreateDisks(ctx context.Context, l *located, old pveconf.VM, bootKey string) error {
	return d.updateConfig(ctx, l, fmt.Sprintf("recreate the data disks of machine %d", l.vmid), func(cfg pveconf.VM) (map[string]any, error) {
		body := map[string]any{}
		for _, dk := range old.Disks() {
			if dk.Key == bootKey {
				continue
			}
			if _, exists := cfg[dk.Key]; exists {
				continue
			}
			body[dk.Key] = fmt.Sprintf("%s:%d", dk.Storage, dk.SizeGB)
		}
		return body, nil
	})
}

// firewallState is a VM's firewall rules, options and IP sets (ipfilter-net0 with the
// machine's addresses among them), saved across a reinstall.
type firewallState struct {
	rules   []pveconf.Rule
	options map[string]any
	ipsets  []savedIPSet
}

func (d *Driver) readFirewall(ctx context.Context, l *located) (firewallState, error) {
	var fw firewallState
	if err := d.get(ctx, l.path()+"/firewall/rules", nil, &fw.rules); err != nil {
		return fw, err
	}
	if err := d.get(ctx, l.path()+"/firewall/options", nil, &fw.options); err != nil {
		return fw, err
	}
	sets, err := d.readIPSets(ctx, l)
	if err != nil {
		return fw, err
	}
	fw.ipsets = sets
	return fw, nil
}

// restoreFirewall makes the new VM's firewall the saved one. The clone copied the
// template's own firewall (qemu-server copies the whole firewall file), so the rules
// are converged to the saved list rather than added on top, the IP sets to the saved
// ones (the template's own deleted), and options the template set that the machine
// did not have are deleted. The IP sets go before the options, so ipfilter is never
// on over a set that does not hold the machine's addresses yet.
func (d *Driver) restoreFirewall(ctx context.Context, l *located, fw firewallState) error {
	want := make([]pveconf.RuleSpec, len(fw.rules))
	sort.SliceStable(fw.rules, func(i, j int) bool { return fw.rules[i].Pos < fw.rules[j].Pos })
	for i, r := range fw.rules {
		want[i] = r.Spec()
	}
	if err := d.convergeRules(ctx, l, want); err != nil {
		return err
	}
	if err := d.restoreIPSets(ctx, l, fw.ipsets); err != nil {
		return err
	}
	var now map[string]any
	if err := d.get(ctx, l.path()+"/firewall/options", nil, &now); err != nil {
		return err
	}
	opts := map[string]any{}
	for k, v := range fw.options {
		if k != "digest" && v != nil {
			opts[k] = v
		}
	}
	var del []string
	for k, v := range now {
		if _, keep := opts[k]; !keep && k != "digest" && v != nil {
			del = append(del, k)
		}
	}
	if len(opts) == 0 && len(del) == 0 {
		return nil
	}
	if len(del) > 0 {
		sort.Strings(del)
		opts["delete"] = strings.Join(del, ",")
	}
	if dg, ok := now["digest"].(string); ok && dg != "" {
		opts["digest"] = dg
	}
	return d.put(ctx, l.path()+"/firewall/options", opts, nil)
}
