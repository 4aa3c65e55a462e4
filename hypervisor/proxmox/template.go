package proxmox

import (
	"strconv"

	pve "github.com/luthermonson/go-proxmox"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
)

// templateOf describes a template VM: id "tpl-<vmid>" (stable across renames, unlike
// the name), its name, an OS guessed from the name (or ostype), and its system disk
// size, the minimum of machines created from it. A template whose disks are not all on
// shared storage (or whose config could not be read) names its node: Proxmox clones it
// there only.
func templateOf(view *clusterView, r *pve.ClusterResource, cfg pveconf.VM) hypervisor.Template {
	t := hypervisor.Template{ID: "tpl-" + strconv.FormatUint(r.VMID, 10), Name: r.Name, OS: pveconf.GuessOS(r.Name, cfg["ostype"])}
	if cfg == nil || !sharedDisks(view, cfg) {
		t.Node = r.Node
	}
	if d, ok := cfg.BootDisk(); ok {
		t.DiskGB = d.SizeGB
	} else {
		t.DiskGB = int((r.MaxDisk + 1<<30 - 1) >> 30)
	}
	return t
}
