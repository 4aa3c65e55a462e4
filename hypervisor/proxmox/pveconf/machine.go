package pveconf

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vmplane/vmplane/hypervisor"
)

// SplitTags splits Proxmox's tag list (';' separated; ',' and ' ' also accepted).
func SplitTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == ' ' })
}

// TemplateTagPrefix marks which template a machine was cloned from. Proxmox keeps no
// such link, so the driver records it as a tag ("vmplane-tpl-9000"): tags survive
// migrations and backups and are visible, not hidden state.
const TemplateTagPrefix = "vmplane-tpl-"

// TemplateID reads the template a machine came from, from its tags.
func (c VM) TemplateID() string {
	for _, t := range SplitTags(c["tags"]) {
		if id, ok := strings.CutPrefix(t, TemplateTagPrefix); ok {
			return "tpl-" + id
		}
	}
	return ""
}

// WithTemplateTag returns tags with the template marker replaced.
func WithTemplateTag(tags string, templateVMID int) string {
	var out []string
	for _, t := range SplitTags(tags) {
		if !strings.HasPrefix(t, TemplateTagPrefix) {
			out = append(out, t)
		}
	}
	out = append(out, TemplateTagPrefix+strconv.Itoa(templateVMID))
	return strings.Join(out, ";")
}

// CDROMSlot is the drive an image goes into: the machine's CD-ROM drive (a cdrom
// that is not its cloud-init drive), else ide2 when free, else the first free IDE
// slot; "" when every one is taken.
func CDROMSlot(cfg VM) string {
	for _, e := range cfg.AllDisks() {
		if e.CDROM && !strings.Contains(e.Volume, "cloudinit") {
			return e.Key
		}
	}
	for _, k := range []string{"ide2", "ide0", "ide1", "ide3"} {
		if _, taken := cfg[k]; !taken {
			return k
		}
	}
	return ""
}

// Media is the image in the machine's CD-ROM drive ("" for none).
func (c VM) Media() string {
	for _, e := range c.AllDisks() {
		if _, file, ok := strings.Cut(e.Volume, "iso/"); ok && e.CDROM {
			return file
		}
	}
	return ""
}

// BootOrder reads "boot: order=ide2;scsi0;net0" (or the legacy "cdn") as devices.
func (c VM) BootOrder() []string {
	var out []string
	add := func(dev string) {
		if dev != "" && !slices.Contains(out, dev) {
			out = append(out, dev)
		}
	}
	order, ok := strings.CutPrefix(c["boot"], "order=")
	if !ok {
		for _, r := range c["boot"] {
			add(map[rune]string{'c': hypervisor.BootDisk, 'd': hypervisor.BootCDROM, 'n': hypervisor.BootNet}[r])
		}
		return out
	}
	disks := map[string]Disk{}
	for _, e := range c.AllDisks() {
		disks[e.Key] = e
	}
	for _, k := range strings.Split(strings.Split(order, ",")[0], ";") {
		e, isDisk := disks[k]
		switch {
		case NetKeyRE.MatchString(k):
			add(hypervisor.BootNet)
		case isDisk && e.CDROM && !strings.Contains(e.Volume, "cloudinit"):
			add(hypervisor.BootCDROM)
		case isDisk && !e.CDROM:
			add(hypervisor.BootDisk)
		}
	}
	return out
}

// Headless reads "vga": none, or a serial port as the display, leaves no graphical
// console (Proxmox's default, std, and every other adapter has one).
func (c VM) Headless() bool {
	typ, _, _ := strings.Cut(c["vga"], ",")
	typ = strings.TrimPrefix(typ, "type=")
	return typ == "none" || strings.HasPrefix(typ, "serial")
}

// Nameservers reads cloud-init's "nameserver", resolvers separated by spaces; nil for
// none.
func (c VM) Nameservers() []string {
	if f := strings.Fields(c["nameserver"]); len(f) > 0 {
		return f
	}
	return nil
}

// Machine assembles a machine from its config.
func Machine(vmid int, node string, state hypervisor.State, cfg VM) hypervisor.Machine {
	m := hypervisor.Machine{
		VMID:        vmid,
		Name:        cfg["name"],
		Node:        node,
		State:       state,
		CPUCores:    cfg.CPUCores(),
		MemoryMB:    cfg.MemoryMB(),
		TemplateID:  cfg.TemplateID(),
		Media:       cfg.Media(),
		BootOrder:   cfg.BootOrder(),
		Headless:    cfg.Headless(),
		Nameservers: cfg.Nameservers(),
		Disks:       []hypervisor.Disk{},
		Interfaces:  []hypervisor.Interface{},
	}
	if m.Name == "" {
		m.Name = fmt.Sprintf("vm-%d", vmid) // the name Create gives an unnamed machine
	}
	for _, d := range cfg.Disks() {
		m.Disks = append(m.Disks, hypervisor.Disk{ID: d.Key, Storage: d.Storage, SizeGB: d.SizeGB})
	}
	for _, n := range cfg.NICs() {
		vlan, _ := strconv.Atoi(n.Conf.Get("tag"))
		ips := cfg.IPs(n.Index)
		if ips == nil {
			ips = []string{}
		}
		m.Interfaces = append(m.Interfaces, hypervisor.Interface{
			ID:          n.Key,
			MAC:         strings.ToUpper(n.Conf.MAC),
			Bridge:      n.Conf.Get("bridge"),
			VLAN:        vlan,
			RateMbps:    RateMbps(n.Conf.Get("rate")),
			Firewall:    n.Conf.Get("firewall") == "1",
			IPAddresses: ips,
		})
	}
	return m
}

// GuessOS names the OS family of a template from its name, falling back to ostype.
func GuessOS(name, ostype string) string {
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
