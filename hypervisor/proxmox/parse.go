package proxmox

import (
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"

	pve "github.com/luthermonson/go-proxmox"

	"github.com/vmplane/vmplane/hypervisor"
)

// vmConfig is a VM's config as flat strings. Proxmox answers some keys as JSON
// numbers and others as strings (memory became a property string in PVE 8), so
// everything is normalised to the text the config file holds.
type vmConfig map[string]string

func configFromJSON(raw map[string]any) vmConfig {
	c := make(vmConfig, len(raw))
	for k, v := range raw {
		switch x := v.(type) {
		case nil:
		case string:
			c[k] = x
		case float64:
			c[k] = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			c[k] = strconv.Itoa(boolInt(x))
		case json.Number:
			c[k] = x.String()
		default:
			b, _ := json.Marshal(x)
			c[k] = string(b)
		}
	}
	return c
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// intOf reads a numeric key, or a property string whose default key is numeric
// ("memory: current=4096"), falling back to def.
func (c vmConfig) intOf(key string, def int) int {
	s := c[key]
	if i := strings.IndexByte(s, ','); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimPrefix(s, "current=")
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// cpuCores is cores × sockets, the vCPUs the guest sees (Proxmox defaults: 1 and 1).
func (c vmConfig) cpuCores() int { return c.intOf("cores", 1) * c.intOf("sockets", 1) }

// memoryMB is the configured memory (Proxmox's default is 512 MiB).
func (c vmConfig) memoryMB() int { return c.intOf("memory", 512) }

// diskKeyRE matches the config keys of disk buses vmplane reports.
var diskKeyRE = regexp.MustCompile(`^(scsi|virtio|sata|ide)(\d+)$`)

// busOrder sorts disks the way Proxmox's GUI lists them.
var busOrder = map[string]int{"scsi": 0, "virtio": 1, "sata": 2, "ide": 3}

// diskEntry is one parsed disk line, "local-lvm:vm-100-disk-0,size=32G".
type diskEntry struct {
	key     string
	bus     string
	index   int
	storage string
	volume  string
	sizeGB  int
	cdrom   bool // ISO images and cloud-init drives: not disks to vmplane
}

// allDisks lists every drive, cdroms included, in bus order.
func (c vmConfig) allDisks() []diskEntry {
	var out []diskEntry
	for k, v := range c {
		m := diskKeyRE.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		idx, _ := strconv.Atoi(m[2])
		e := diskEntry{key: k, bus: m[1], index: idx}
		parts := strings.Split(v, ",")
		if st, vol, ok := strings.Cut(parts[0], ":"); ok {
			e.storage, e.volume = st, vol
		}
		if parts[0] == "none" || strings.Contains(e.volume, "cloudinit") {
			e.cdrom = true
		}
		for _, p := range parts[1:] {
			switch {
			case p == "media=cdrom":
				e.cdrom = true
			case strings.HasPrefix(p, "size="):
				e.sizeGB = parseSizeGB(strings.TrimPrefix(p, "size="))
			}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].bus != out[j].bus {
			return busOrder[out[i].bus] < busOrder[out[j].bus]
		}
		return out[i].index < out[j].index
	})
	return out
}

// disks lists the VM's disks (no cdroms, no cloud-init drive).
func (c vmConfig) disks() []diskEntry {
	var out []diskEntry
	for _, d := range c.allDisks() {
		if !d.cdrom {
			out = append(out, d)
		}
	}
	return out
}

// bootDisk is the system disk: scsi0 when there is one, else the first disk.
func (c vmConfig) bootDisk() (diskEntry, bool) {
	ds := c.disks()
	for _, d := range ds {
		if d.key == "scsi0" {
			return d, true
		}
	}
	if len(ds) > 0 {
		return ds[0], true
	}
	return diskEntry{}, false
}

// disk finds a disk by key.
func (c vmConfig) disk(key string) (diskEntry, bool) {
	for _, d := range c.disks() {
		if d.key == key {
			return d, true
		}
	}
	return diskEntry{}, false
}

// parseSizeGB reads a Proxmox size ("32G", "512M", "1T"; a bare number is bytes) in
// whole GiB, rounding up: vmplane's "GB" are the GiB Proxmox's "G" means.
func parseSizeGB(s string) int {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	div := float64(1 << 30)
	switch s[len(s)-1] {
	case 'K', 'k':
		div, s = 1<<20, s[:len(s)-1]
	case 'M', 'm':
		div, s = 1<<10, s[:len(s)-1]
	case 'G', 'g':
		div, s = 1, s[:len(s)-1]
	case 'T', 't':
		div, s = 1.0/(1<<10), s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0
	}
	return int(math.Ceil(f/div - 1e-9))
}

// netKeyRE matches network interface keys.
var netKeyRE = regexp.MustCompile(`^net(\d+)$`)

// netOptionKeys are the options of a netN property string other than the model.
var netOptionKeys = map[string]bool{"bridge": true, "firewall": true, "link_down": true, "macaddr": true,
	"model": true, "mtu": true, "queues": true, "rate": true, "tag": true, "trunks": true}

// netConf is a parsed netN value, "virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=10,firewall=1,rate=12.5".
// It keeps unknown options in their order, so rewriting a NIC changes only what
// vmplane means to change (MAC, model, mtu, queues... stay).
type netConf struct {
	model string
	mac   string
	opts  []kv
}

type kv struct{ k, v string }

func parseNet(s string) netConf {
	var n netConf
	for i, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		switch {
		case k == "model":
			n.model = v
		case k == "macaddr":
			n.mac = v
		case i == 0 && !netOptionKeys[k]: // the "<model>=<mac>" shorthand
			n.model, n.mac = k, v
		default:
			n.opts = append(n.opts, kv{k, v})
		}
	}
	return n
}

func (n *netConf) get(k string) string {
	for _, o := range n.opts {
		if o.k == k {
			return o.v
		}
	}
	return ""
}

// set replaces an option, appends it, or with v == "" removes it.
func (n *netConf) set(k, v string) {
	for i, o := range n.opts {
		if o.k == k {
			if v == "" {
				n.opts = append(n.opts[:i], n.opts[i+1:]...)
			} else {
				n.opts[i].v = v
			}
			return
		}
	}
	if v != "" {
		n.opts = append(n.opts, kv{k, v})
	}
}

func (n netConf) String() string {
	parts := []string{n.model}
	if n.mac != "" {
		parts[0] += "=" + n.mac
	}
	for _, o := range n.opts {
		parts = append(parts, o.k+"="+o.v)
	}
	return strings.Join(parts, ",")
}

// rateMbps converts Proxmox's rate (MB/s, megabytes) to megabits per second.
func rateMbps(mbytes string) int {
	f, err := strconv.ParseFloat(mbytes, 64)
	if err != nil || f <= 0 {
		return 0
	}
	return int(math.Round(f * 8))
}

// rateMBps converts megabits per second to Proxmox's rate in MB/s ("" for unlimited).
func rateMBps(mbps int) string {
	if mbps <= 0 {
		return ""
	}
	return strconv.FormatFloat(float64(mbps)/8, 'f', -1, 64)
}

// nic is one interface with its index.
type nic struct {
	index int
	key   string
	conf  netConf
}

// nics lists the VM's interfaces by index.
func (c vmConfig) nics() []nic {
	var out []nic
	for k, v := range c {
		m := netKeyRE.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		idx, _ := strconv.Atoi(m[1])
		out = append(out, nic{index: idx, key: k, conf: parseNet(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].index < out[j].index })
	return out
}

// ips reads the static addresses of ipconfigN ("ip=10.0.0.5/24,gw=10.0.0.1,ip6=...")
// without their prefix length. DHCP and SLAAC addresses are not in the config.
func (c vmConfig) ips(index int) []string {
	var out []string
	for _, part := range strings.Split(c["ipconfig"+strconv.Itoa(index)], ",") {
		k, v, _ := strings.Cut(part, "=")
		if k != "ip" && k != "ip6" {
			continue
		}
		if p, err := netip.ParsePrefix(v); err == nil {
			out = append(out, p.Addr().String())
		} else if a, err := netip.ParseAddr(v); err == nil {
			out = append(out, a.String())
		}
	}
	return out
}

// tags splits Proxmox's tag list (';' separated; ',' and ' ' also accepted).
func splitTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == ' ' })
}

// templateTagPrefix marks which template a machine was cloned from. Proxmox keeps no
// such link, so the driver records it as a tag ("vmplane-tpl-9000"): tags survive
// migrations and backups and are visible, not hidden state.
const templateTagPrefix = "vmplane-tpl-"

// templateID reads the template a machine came from, from its tags.
func (c vmConfig) templateID() string {
	for _, t := range splitTags(c["tags"]) {
		if id, ok := strings.CutPrefix(t, templateTagPrefix); ok {
			return "tpl-" + id
		}
	}
	return ""
}

// withTemplateTag returns tags with the template marker replaced.
func withTemplateTag(tags string, templateVMID int) string {
	var out []string
	for _, t := range splitTags(tags) {
		if !strings.HasPrefix(t, templateTagPrefix) {
			out = append(out, t)
		}
	}
	out = append(out, templateTagPrefix+strconv.Itoa(templateVMID))
	return strings.Join(out, ";")
}

// buildMachine assembles a machine from its config.
func buildMachine(vmid int, node string, state hypervisor.State, cfg vmConfig) hypervisor.Machine {
	m := hypervisor.Machine{
		VMID:       vmid,
		Name:       cfg["name"],
		Node:       node,
		State:      state,
		CPUCores:   cfg.cpuCores(),
		MemoryMB:   cfg.memoryMB(),
		TemplateID: cfg.templateID(),
		Media:      cfg.media(),
		BootOrder:  cfg.bootOrder(),
		Disks:      []hypervisor.Disk{},
		Interfaces: []hypervisor.Interface{},
	}
	if m.Name == "" {
		m.Name = fmt.Sprintf("vm-%d", vmid) // the name Create gives an unnamed machine
	}
	for _, d := range cfg.disks() {
		m.Disks = append(m.Disks, hypervisor.Disk{ID: d.key, Storage: d.storage, SizeGB: d.sizeGB})
	}
	for _, n := range cfg.nics() {
		vlan, _ := strconv.Atoi(n.conf.get("tag"))
		ips := cfg.ips(n.index)
		if ips == nil {
			ips = []string{}
		}
		m.Interfaces = append(m.Interfaces, hypervisor.Interface{
			ID:          n.key,
			MAC:         strings.ToUpper(n.conf.mac),
			Bridge:      n.conf.get("bridge"),
			VLAN:        vlan,
			RateMbps:    rateMbps(n.conf.get("rate")),
			Firewall:    n.conf.get("firewall") == "1",
			IPAddresses: ips,
		})
	}
	return m
}

// machineFromResource is what is known of a machine whose node is down: its
// /cluster/resources summary (the config is only readable through its own node).
// The boot disk is reported as scsi0 with the summary's maxdisk.
func machineFromResource(r *pve.ClusterResource) hypervisor.Machine {
	m := hypervisor.Machine{
		VMID:       int(r.VMID),
		Name:       r.Name,
		Node:       r.Node,
		State:      stateOf(r.Status, "", ""),
		CPUCores:   int(r.MaxCPU),
		MemoryMB:   int(r.MaxMem >> 20),
		Disks:      []hypervisor.Disk{},
		Interfaces: []hypervisor.Interface{},
	}
	for _, t := range splitTags(r.Tags) {
		if id, ok := strings.CutPrefix(t, templateTagPrefix); ok {
			m.TemplateID = "tpl-" + id
		}
	}
	if r.MaxDisk > 0 {
		m.Disks = append(m.Disks, hypervisor.Disk{ID: "scsi0", SizeGB: int((r.MaxDisk + 1<<30 - 1) >> 30)})
	}
	return m
}

// templateOf describes a template VM: id "tpl-<vmid>" (stable across renames, unlike
// the name), its name, an OS guessed from the name (or ostype), and its system disk
// size, the minimum of machines created from it. A template whose disks are not all on
// shared storage (or whose config could not be read) names its node: Proxmox clones it
// there only.
func templateOf(view *clusterView, r *pve.ClusterResource, cfg vmConfig) hypervisor.Template {
	t := hypervisor.Template{ID: "tpl-" + strconv.FormatUint(r.VMID, 10), Name: r.Name, OS: guessOS(r.Name, cfg["ostype"])}
	if cfg == nil || !sharedDisks(view, cfg) {
		t.Node = r.Node
	}
	if d, ok := cfg.bootDisk(); ok {
		t.DiskGB = d.sizeGB
	} else {
		t.DiskGB = int((r.MaxDisk + 1<<30 - 1) >> 30)
	}
	return t
}

// guessOS names the OS family of a template from its name, falling back to ostype.
func guessOS(name, ostype string) string {
	n := strings.ToLower(name)
	for _, os := range []string{"debian", "ubuntu", "rocky", "alma", "centos", "fedora", "opensuse", "arch", "alpine", "freebsd", "windows"} {
		if strings.Contains(n, os) {
			return os
		}
	}
	switch {
	case strings.HasPrefix(ostype, "win"):
		return "windows"
	case ostype == "l26" || ostype == "l24":
		return "linux"
	case ostype == "solaris":
		return "solaris"
	}
	return "other"
}
