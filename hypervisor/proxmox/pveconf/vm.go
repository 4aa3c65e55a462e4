package pveconf

import (
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// VM is a VM's config as flat strings. Proxmox answers some keys as JSON
// numbers and others as strings (memory became a property string in PVE 8), so
// everything is normalised to the text the config file holds.
type VM map[string]string

// FromJSON normalises a config as GET .../config answers it.
func FromJSON(raw map[string]any) VM {
	c := make(VM, len(raw))
	for k, v := range raw {
		switch x := v.(type) {
		case nil:
		case string:
			c[k] = x
		case float64:
			c[k] = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			c[k] = strconv.Itoa(BoolInt(x))
		case json.Number:
			c[k] = x.String()
		default:
			b, _ := json.Marshal(x)
			c[k] = string(b)
		}
	}
	return c
}

// BoolInt is a boolean as Proxmox writes it, 1 or 0.
func BoolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Int reads a numeric key, or a property string whose default key is numeric
// ("memory: current=4096"), falling back to def.
func (c VM) Int(key string, def int) int {
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

// CPUCores is cores × sockets, the vCPUs the guest sees (Proxmox defaults: 1 and 1).
func (c VM) CPUCores() int { return c.Int("cores", 1) * c.Int("sockets", 1) }

// MemoryMB is the configured memory (Proxmox's default is 512 MiB).
func (c VM) MemoryMB() int { return c.Int("memory", 512) }

// diskKeyRE matches the config keys of disk buses vmplane reports.
var diskKeyRE = regexp.MustCompile(`^(scsi|virtio|sata|ide)(\d+)$`)

// busOrder sorts disks the way Proxmox's GUI lists them.
var busOrder = map[string]int{"scsi": 0, "virtio": 1, "sata": 2, "ide": 3}

// Disk is one parsed disk line, "local-lvm:vm-100-disk-0,size=32G".
type Disk struct {
	Key     string // the config key, "scsi0"
	Bus     string // scsi, virtio, sata or ide
	Index   int    // the number after the bus
	Storage string // the storage before the colon, "local-lvm" ("" for none)
	Volume  string // the volume after it, "vm-100-disk-0"
	SizeGB  int    // size=, in whole GiB
	CDROM   bool   // ISO images and cloud-init drives: not disks to vmplane
}

// AllDisks lists every drive, cdroms included, in bus order.
func (c VM) AllDisks() []Disk {
	var out []Disk
	for k, v := range c {
		m := diskKeyRE.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		idx, _ := strconv.Atoi(m[2])
		e := Disk{Key: k, Bus: m[1], Index: idx}
		parts := strings.Split(v, ",")
		if st, vol, ok := strings.Cut(parts[0], ":"); ok {
			e.Storage, e.Volume = st, vol
		}
		if parts[0] == "none" || strings.Contains(e.Volume, "cloudinit") {
			e.CDROM = true
		}
		for _, p := range parts[1:] {
			switch {
			case p == "media=cdrom":
				e.CDROM = true
			case strings.HasPrefix(p, "size="):
				e.SizeGB = ParseSizeGB(strings.TrimPrefix(p, "size="))
			}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Bus != out[j].Bus {
			return busOrder[out[i].Bus] < busOrder[out[j].Bus]
		}
		return out[i].Index < out[j].Index
	})
	return out
}

// Disks lists the VM's disks (no cdroms, no cloud-init drive).
func (c VM) Disks() []Disk {
	var out []Disk
	for _, d := range c.AllDisks() {
		if !d.CDROM {
			out = append(out, d)
		}
	}
	return out
}

// BootDisk is the system disk: scsi0 when there is one, else the first disk.
func (c VM) BootDisk() (Disk, bool) {
	ds := c.Disks()
	for _, d := range ds {
		if d.Key == "scsi0" {
			return d, true
		}
	}
	if len(ds) > 0 {
		return ds[0], true
	}
	return Disk{}, false
}

// Disk finds a disk by key.
func (c VM) Disk(key string) (Disk, bool) {
	for _, d := range c.Disks() {
		if d.Key == key {
			return d, true
		}
	}
	return Disk{}, false
}

// ParseSizeGB reads a Proxmox size ("32G", "512M", "1T"; a bare number is bytes) in
// whole GiB, rounding up: vmplane's "GB" are the GiB Proxmox's "G" means.
func ParseSizeGB(s string) int {
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
