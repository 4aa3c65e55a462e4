package proxmox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	pve "github.com/luthermonson/go-proxmox"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
)

// backupNotes is the vzdump notes template: Proxmox does not record a backup's mode
// on the archive, so the driver writes it into the archive's notes and reads it back.
const backupNotes = "vmplane mode=%s"

var notesMode = regexp.MustCompile(`\bvmplane mode=(snapshot|suspend|stop)\b`)

// Backup runs vzdump for the machine to BackupStorage (POST /nodes/{n}/vzdump mode=,
// compress=zstd, remove=0 so that Proxmox's own pruning never deletes what vmplane's
// retention keeps) and returns the archive that appeared. Its id is the volid.
func (d *Driver) Backup(ctx context.Context, ref hypervisor.Ref, mode hypervisor.BackupMode) (hypervisor.Backup, error) {
	switch mode {
	case "":
		mode = hypervisor.BackupSnapshot
	case hypervisor.BackupSnapshot, hypervisor.BackupSuspend, hypervisor.BackupStop:
	default:
		return hypervisor.Backup{}, invalid("mode", "must be snapshot, suspend or stop")
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Backup{}, err
	}
	storage := d.cfg.BackupStorage
	before, err := d.backupsOn(ctx, l.node, storage, ref.VMID)
	if err != nil {
		return hypervisor.Backup{}, err
	}
	seen := map[string]bool{}
	for _, b := range before {
		seen[b.ID] = true
	}
	body := map[string]any{"vmid": itoa(ref.VMID), "mode": string(mode), "storage": storage, "compress": "zstd",
		"remove": 0, "notes-template": fmt.Sprintf(backupNotes, mode)}
	if err := d.startTask(ctx, http.MethodPost, l.node, "/nodes/"+url.PathEscape(l.node)+"/vzdump", body,
		fmt.Sprintf("back up machine %d", ref.VMID)); err != nil {
		return hypervisor.Backup{}, err
	}
	after, err := d.backupsOn(ctx, l.node, storage, ref.VMID)
	if err != nil {
		return hypervisor.Backup{}, err
	}
	var made *hypervisor.Backup
	for i := range after {
		if !seen[after[i].ID] && (made == nil || after[i].CreatedAt.After(made.CreatedAt)) {
			made = &after[i]
		}
	}
	if made == nil {
		return hypervisor.Backup{}, hypervisor.NewError(hypervisor.ErrTaskFailed,
			"back up machine %d: vzdump finished but no new archive is on storage %s of node %s", ref.VMID, storage, l.node)
	}
	if made.Mode == "" {
		made.Mode = mode
	}
	return *made, nil
}

// backupsOn lists a machine's archives on one node's view of a storage.
func (d *Driver) backupsOn(ctx context.Context, node, storage string, vmid int) ([]hypervisor.Backup, error) {
	var items []pve.StorageContent
	q := url.Values{"content": {"backup"}}
	if vmid != 0 {
		q.Set("vmid", itoa(vmid))
	}
	if err := d.get(ctx, "/nodes/"+url.PathEscape(node)+"/storage/"+url.PathEscape(storage)+"/content", q, &items); err != nil {
		return nil, err
	}
	out := make([]hypervisor.Backup, 0, len(items))
	for _, it := range items {
		if (vmid != 0 && int(it.VMID) != vmid) || it.VMID == 0 {
			continue
		}
		b := hypervisor.Backup{ID: it.Volid, VMID: int(it.VMID), Node: node, Storage: storage, SizeBytes: int64(it.Size),
			CreatedAt: time.Unix(int64(it.Ctime), 0).UTC()}
		if m := notesMode.FindStringSubmatch(it.Notes); m != nil {
			b.Mode = hypervisor.BackupMode(m[1])
		}
		out = append(out, b)
	}
	return out, nil
}

// allBackups lists a machine's archives on BackupStorage across the cluster (every
// machine's for vmid 0): one node for a shared storage, every online node that has it
// otherwise (a machine that migrated leaves its older backups on the old node's local
// storage). Backups outlive their machine, as vzdump archives do.
func (d *Driver) allBackups(ctx context.Context, view *clusterView, vmid int) ([]hypervisor.Backup, error) {
	storage := d.cfg.BackupStorage
	nodes := view.storageNodes(storage)
	if len(nodes) == 0 {
		if len(view.storages) > 0 {
			return nil, hypervisor.NewError(hypervisor.ErrUnavailable, "BackupStorage %q is on no online node", storage)
		}
		// A token without Datastore.Audit sees no storages: ask every online node.
		for _, n := range view.sortedNodes() {
			if view.online(n) {
				nodes = append(nodes, n)
			}
		}
	}
	if view.shared(storage) && len(nodes) > 1 {
		pick := nodes[0]
		if r, ok := view.vms[vmid]; ok {
			for _, n := range nodes {
				if n == r.Node {
					pick = n
				}
			}
		}
		nodes = []string{pick}
	}
	var out []hypervisor.Backup
	seen := map[string]bool{}
	for _, n := range nodes {
		list, err := d.backupsOn(ctx, n, storage, vmid)
		if err != nil {
			return nil, err
		}
		for _, b := range list {
			if !seen[b.ID] {
				seen[b.ID] = true
				out = append(out, b)
			}
		}
	}
	hypervisor.SortBackups(out)
	return out, nil
}

// Backups lists a machine's backups, oldest first. A vmid with neither a machine nor
// backups is not found.
func (d *Driver) Backups(ctx context.Context, ref hypervisor.Ref) ([]hypervisor.Backup, error) {
	if err := ctx.Err(); err != nil {
		return nil, hypervisor.ContextError(err)
	}
	view, err := d.resources(ctx)
	if err != nil {
		return nil, err
	}
	list, err := d.allBackups(ctx, view, ref.VMID)
	if err != nil {
		return nil, err
	}
	if _, err := view.locate(ref.VMID); err != nil && len(list) == 0 {
		return nil, err
	}
	return list, nil
}

// findBackup finds one of a machine's backups.
func (d *Driver) findBackup(ctx context.Context, view *clusterView, vmid int, id string) (hypervisor.Backup, error) {
	list, err := d.allBackups(ctx, view, vmid)
	if err != nil {
		return hypervisor.Backup{}, err
	}
	for _, b := range list {
		if b.ID == id {
			return b, nil
		}
	}
	return hypervisor.Backup{}, hypervisor.NewError(hypervisor.ErrBackupNotFound, "machine %d has no backup %q", vmid, id)
}

// DeleteBackup deletes an archive: DELETE /nodes/{n}/storage/{s}/content/{volid}
// (a task in current Proxmox versions).
func (d *Driver) DeleteBackup(ctx context.Context, ref hypervisor.Ref, backupID string) error {
	if err := ctx.Err(); err != nil {
		return hypervisor.ContextError(err)
	}
	view, err := d.resources(ctx)
	if err != nil {
		return err
	}
	b, err := d.findBackup(ctx, view, ref.VMID, backupID)
	if err != nil {
		return err
	}
	path := "/nodes/" + url.PathEscape(b.Node) + "/storage/" + url.PathEscape(b.Storage) + "/content/" + url.PathEscape(b.ID)
	var id string
	if err := d.call(ctx, http.MethodDelete, path, nil, nil, &id); err != nil {
		if se, ok := statusOf(err); ok && strings.Contains(se.Message, "does not exist") {
			return hypervisor.NewError(hypervisor.ErrBackupNotFound, "machine %d has no backup %q", ref.VMID, backupID)
		}
		return d.apiError(ctx, err)
	}
	return d.waitTask(ctx, b.Node, id, fmt.Sprintf("delete backup %s", backupID))
}

// RestoreBackup restores a machine from one of its backups with POST /nodes/{n}/qemu
// vmid= archive= force=1. An existing machine is stopped first (Proxmox restores only
// over a stopped VM) and started again if it was running, as a user expects of
// "restore"; a machine that no longer exists comes back, stopped, on the node that
// holds the archive. An archive on another node's local storage cannot be read from
// the machine's node: that is refused before anything is stopped. The machine keeps
// the addresses vmplane holds for it: Proxmox writes the archive's config and firewall
// file over the machine's, so a machine with an ipfilter-net0 gets that set, its
// ipfilter option and its ipconfig0 back as they were before the restore
// (readAddressing, writeAddressing), before it is started again.
func (d *Driver) RestoreBackup(ctx context.Context, ref hypervisor.Ref, backupID string) (hypervisor.Machine, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.Machine{}, hypervisor.ContextError(err)
	}
	view, err := d.resources(ctx)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	b, err := d.findBackup(ctx, view, ref.VMID, backupID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	node := b.Node
	wasRunning := false
	var addr addressing
	addressed := false
	l, err := view.locate(ref.VMID)
	switch {
	case err == nil:
		if err := l.live(); err != nil {
			return hypervisor.Machine{}, err
		}
		if l.node != b.Node && !view.shared(b.Storage) {
			return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrWrongState,
				"backup %s is on node %s's local storage but machine %d is on node %s: migrate it back first, or use a shared BackupStorage",
				backupID, b.Node, ref.VMID, l.node)
		}
		node = l.node
		if addr, addressed, err = d.readAddressing(ctx, l); err != nil {
			return hypervisor.Machine{}, err
		}
		prev, err := d.stopState(ctx, l)
		if err != nil {
			return hypervisor.Machine{}, err
		}
		wasRunning = prev == hypervisor.StateRunning
	case errors.Is(err, hypervisor.ErrMachineNotFound):
		if !view.online(node) {
			return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s holding backup %s is offline", node, backupID)
		}
	default:
		return hypervisor.Machine{}, err
	}
	body := map[string]any{"vmid": ref.VMID, "archive": b.ID, "force": 1}
	if err := d.startTask(ctx, http.MethodPost, node, "/nodes/"+url.PathEscape(node)+"/qemu", body,
		fmt.Sprintf("restore machine %d from %s", ref.VMID, backupID)); err != nil {
		return hypervisor.Machine{}, err
	}
	if _, err := d.waitUnlocked(ctx, node, ref.VMID); err != nil {
		return hypervisor.Machine{}, err
	}
	if addressed {
		if err := d.writeAddressing(ctx, &located{vmid: ref.VMID, node: node, online: true}, addr); err != nil {
			return hypervisor.Machine{}, err
		}
	}
	if wasRunning {
		if err := d.startTask(ctx, http.MethodPost, node, vmPath(node, ref.VMID)+"/status/start", nil,
			fmt.Sprintf("start machine %d", ref.VMID)); err != nil {
			return hypervisor.Machine{}, err
		}
	}
	return d.machine(ctx, ref.VMID)
}

// RestoreNew restores one of from's backups into a new machine with POST
// /nodes/{n}/qemu vmid= archive= unique=1 (new MACs) and name= when one is given (an
// option beside the archive overrides the archive's, Proxmox VE 7.2 and later), waits
// for the restore task and the VM's lock, and returns the machine, stopped. The node
// is spec.Node, else the archive's own when it lies on a node's local storage (no
// other node can read it), else the least loaded online node. The vmid is spec.VMID
// or /cluster/nextid's, taken again above one another client restored or cloned to
// first, as Create does. With spec.Addresses, the restored machine's ipconfig0 is
// rewritten to them (the backup's would clash with its source); a restore whose
// rewrite fails is destroyed again.
func (d *Driver) RestoreNew(ctx context.Context, from hypervisor.Ref, backupID string, spec hypervisor.RestoreSpec) (hypervisor.Machine, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.Machine{}, hypervisor.ContextError(err)
	}
	if spec.Name != "" && !hypervisor.ValidVMName(spec.Name) {
		return hypervisor.Machine{}, apierr.Invalid(apierr.Field("name", "must be a DNS name"))
	}
	view, err := d.resources(ctx)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	b, err := d.findBackup(ctx, view, from.VMID, backupID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	shared := view.shared(b.Storage)
	if spec.Node != "" && !shared && spec.Node != b.Node {
		return hypervisor.Machine{}, apierr.New(apierr.ErrInvalidRequest,
			"backup %s lies on node %s's local storage: Proxmox can only restore it on %s", backupID, b.Node, b.Node)
	}
	node, err := d.place(view, spec.Node, b.Node, shared)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	if spec.VMID != 0 {
		if _, taken := view.vms[spec.VMID]; taken {
			return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrVMIDInUse, "vmid %d already exists", spec.VMID)
		}
	}
	var vmid int
	lost := 0
	for attempt := 1; ; attempt++ {
		d.createMu.Lock()
		vmid = spec.VMID
		if vmid == 0 {
			vmid, err = new(pve.Cluster).New(d.api).NextID(ctx)
			vmid, err = max(vmid, lost+1), d.apiError(ctx, err)
		}
		var upid string
		if err == nil {
			body := map[string]any{"vmid": vmid, "archive": b.ID, "unique": 1}
			if spec.Name != "" {
				body["name"] = spec.Name
			}
			if err = d.call(ctx, http.MethodPost, "/nodes/"+url.PathEscape(node)+"/qemu", nil, body, &upid); err != nil {
				if se, ok := statusOf(err); ok && strings.Contains(se.Message, "already exists") {
					err = hypervisor.NewError(hypervisor.ErrVMIDInUse, "vmid %d already exists", vmid)
				} else {
					err = d.apiError(ctx, err)
				}
			}
		}
		d.createMu.Unlock()
		if errors.Is(err, hypervisor.ErrVMIDInUse) && spec.VMID == 0 && attempt < nextIDAttempts {
			lost = vmid
			continue
		}
		if err != nil {
			return hypervisor.Machine{}, err
		}
		if err := d.waitTask(ctx, node, upid, fmt.Sprintf("restore %s as machine %d", backupID, vmid)); err != nil {
			return hypervisor.Machine{}, err
		}
		break
	}
	if _, err := d.waitUnlocked(ctx, node, vmid); err != nil {
		return hypervisor.Machine{}, err
	}
	if err := d.readdress(ctx, vmid, node, spec.Addresses); err != nil {
		// A copy that would answer on the backup's addresses is not the machine asked
		// for: it goes again, as a create's clone that could not be shaped.
		d.cleanup(ctx, vmid, node, err)
		return hypervisor.Machine{}, err
	}
	return d.machine(ctx, vmid)
}

// readdress gives a restored machine the addresses vmplane gave it, as Create writes
// them: its cloud-init ipconfig0 (POST /nodes/{n}/qemu/{vmid}/config), then the IP set
// ipfilter-net0 with exactly those addresses, enforced (writeIPFilter). The
// restore wrote the backup's firewall file over the new vmid, source's addresses in
// its ipfilter-net0 included, so the set is replaced, not added to. Nothing without
// addresses: the backup's configuration and firewall stay.
func (d *Driver) readdress(ctx context.Context, vmid int, node string, addrs []hypervisor.Address) error {
	ipc := pveconf.IPConfig(addrs)
	if ipc == "" {
		return nil
	}
	l := &located{vmid: vmid, node: node, online: true}
	err := d.updateConfig(ctx, l, fmt.Sprintf("address restored machine %d", vmid), func(pveconf.VM) (map[string]any, error) {
		return map[string]any{"ipconfig0": ipc}, nil
	})
	if err != nil {
		return err
	}
	return d.writeIPFilter(ctx, l, addrs)
}

// addressing is what vmplane wrote of a machine's addresses: ipconfig0 and the IP
// set ipfilter-net0 (nil when the machine has none), with the ipfilter option.
type addressing struct {
	ipconfig0 string
	entries   []ipsetEntry
	ipfilter  bool
}

// readAddressing reads a machine's addressing; ok is false when vmplane never gave it
// addresses (no ipfilter-net0).
func (d *Driver) readAddressing(ctx context.Context, l *located) (addressing, bool, error) {
	entries, ok, err := d.ipset(ctx, l, ipfilterSet)
	if err != nil || !ok {
		return addressing{}, false, err
	}
	cfg, err := d.vmConfig(ctx, l.node, l.vmid)
	if err != nil {
		return addressing{}, false, err
	}
	var opts map[string]any
	if err := d.get(ctx, l.path()+"/firewall/options", nil, &opts); err != nil {
		return addressing{}, false, err
	}
	if entries == nil {
		entries = []ipsetEntry{}
	}
	return addressing{ipconfig0: cfg["ipconfig0"], entries: entries, ipfilter: pveconf.Truthy(opts["ipfilter"])}, true, nil
}

// writeAddressing puts a machine's addressing back after a restore over it: the
// archive's firewall file and config replaced the machine's, and may carry the
// addresses the machine had when it was backed up, not the ones vmplane holds for it
// now.
func (d *Driver) writeAddressing(ctx context.Context, l *located, a addressing) error {
	if err := d.convergeIPSet(ctx, l, ipfilterSet, ipfilterComment, a.entries); err != nil {
		return err
	}
	if a.ipfilter {
		// The archive may predate the filter's firewall (an older backup, or one from
		// before vmplane turned it on): enforced again, as SetAddresses would.
		if err := d.enforceIPFilter(ctx, l); err != nil {
			return err
		}
	}
	return d.updateConfig(ctx, l, fmt.Sprintf("address restored machine %d", l.vmid), func(cfg pveconf.VM) (map[string]any, error) {
		if a.ipconfig0 == "" || cfg["ipconfig0"] == a.ipconfig0 {
			return nil, nil
		}
		return map[string]any{"ipconfig0": a.ipconfig0}, nil
	})
}
