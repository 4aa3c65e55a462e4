package proxmox

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/vmplane/vmplane/hypervisor"
)

// isoNodes lists the nodes whose ISOStorage an image goes to: one for a shared
// storage, every online node that has it otherwise (a machine mounts what its own
// node's storage holds).
func (d *Driver) isoNodes(ctx context.Context) ([]string, error) {
	view, err := d.resources(ctx)
	if err != nil {
		return nil, err
	}
	nodes := view.storageNodes(d.cfg.ISOStorage)
	if len(nodes) == 0 && len(view.storages) == 0 {
		for _, n := range view.sortedNodes() { // a token without Datastore.Audit sees no storages
			if view.online(n) {
				nodes = append(nodes, n)
			}
		}
	}
	if len(nodes) == 0 {
		return nil, hypervisor.NewError(hypervisor.ErrUnavailable, "ISOStorage %q is on no online node", d.cfg.ISOStorage)
	}
	if view.shared(d.cfg.ISOStorage) {
		nodes = nodes[:1]
	}
	return nodes, nil
}

func storagePath(node, storage string) string {
	return "/nodes/" + url.PathEscape(node) + "/storage/" + url.PathEscape(storage)
}

// ImportISO has Proxmox fetch the image (download-url, content iso) into ISOStorage
// on each node that needs it, and verify it against the checksum: a mismatch fails
// Proxmox's task, which removes what it fetched. Proxmox reports no size here: 0.
func (d *Driver) ImportISO(ctx context.Context, spec hypervisor.ISOSpec) (hypervisor.ISO, error) {
	if err := hypervisor.CheckISOName(spec.Name); err != nil {
		return hypervisor.ISO{}, err
	}
	algo, digest, err := hypervisor.ParseChecksum(spec.Checksum)
	if err != nil {
		return hypervisor.ISO{}, err
	}
	if u, err := url.Parse(spec.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return hypervisor.ISO{}, invalid("url", "must be an http or https URL")
	}
	nodes, err := d.isoNodes(ctx)
	if err != nil {
		return hypervisor.ISO{}, err
	}
	for _, n := range nodes {
		body := map[string]any{"url": spec.URL, "filename": spec.Name, "content": "iso", "checksum": digest, "checksum-algorithm": algo}
		err := d.startTask(ctx, http.MethodPost, n, storagePath(n, d.cfg.ISOStorage)+"/download-url", body, "fetch ISO "+spec.Name)
		if errors.Is(err, hypervisor.ErrTaskFailed) && checksumMessage.MatchString(err.Error()) {
			return hypervisor.ISO{}, hypervisor.NewError(hypervisor.ErrChecksumMismatch, "%s: %s", spec.Name, err.Error())
		}
		if err != nil {
			return hypervisor.ISO{}, err
		}
	}
	return hypervisor.ISO{Name: spec.Name, Checksum: algo + ":" + digest}, nil
}

// DeleteISO removes the image from ISOStorage on each node that has it.
func (d *Driver) DeleteISO(ctx context.Context, name string) error {
	nodes, err := d.isoNodes(ctx)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		vol := d.cfg.ISOStorage + ":iso/" + name
		err := d.startTask(ctx, http.MethodDelete, n, storagePath(n, d.cfg.ISOStorage)+"/content/"+url.PathEscape(vol), nil, "delete ISO "+name)
		if err != nil && !volumeMissingMessage.MatchString(err.Error()) {
			return err
		}
	}
	return nil
}

// cdromSlot is the drive an image goes into: the machine's CD-ROM drive (a cdrom
// that is not its cloud-init drive), else ide2 when free, else the first free IDE
// slot; "" when every one is taken.
func cdromSlot(cfg vmConfig) string {
	for _, e := range cfg.allDisks() {
		if e.cdrom && !strings.Contains(e.volume, "cloudinit") {
			return e.key
		}
	}
	for _, k := range []string{"ide2", "ide0", "ide1", "ide3"} {
		if _, taken := cfg[k]; !taken {
			return k
		}
	}
	return ""
}

// media is the image in the machine's CD-ROM drive ("" for none).
func (c vmConfig) media() string {
	for _, e := range c.allDisks() {
		if _, file, ok := strings.Cut(e.volume, "iso/"); ok && e.cdrom {
			return file
		}
	}
	return ""
}

// bootOrder reads "boot: order=ide2;scsi0;net0" (or the legacy "cdn") as devices.
func (c vmConfig) bootOrder() []string {
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
	disks := map[string]diskEntry{}
	for _, e := range c.allDisks() {
		disks[e.key] = e
	}
	for _, k := range strings.Split(strings.Split(order, ",")[0], ";") {
		e, isDisk := disks[k]
		switch {
		case netKeyRE.MatchString(k):
			add(hypervisor.BootNet)
		case isDisk && e.cdrom && !strings.Contains(e.volume, "cloudinit"):
			add(hypervisor.BootCDROM)
		case isDisk && !e.cdrom:
			add(hypervisor.BootDisk)
		}
	}
	return out
}

// MountISO puts ISOStorage's image into the machine's CD-ROM drive (cdromSlot).
func (d *Driver) MountISO(ctx context.Context, ref hypervisor.Ref, name string) (hypervisor.Machine, error) {
	if err := hypervisor.CheckISOName(name); err != nil {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrISONotFound, "no ISO %q", name)
	}
	hm, err := d.setDrive(ctx, ref, "mount ISO "+name, d.cfg.ISOStorage+":iso/"+name+",media=cdrom", nil)
	if err != nil && volumeMissingMessage.MatchString(err.Error()) {
		return hm, hypervisor.NewError(hypervisor.ErrISONotFound, "no ISO %q on storage %s of node %s", name, d.cfg.ISOStorage, ref.Node)
	}
	return hm, err
}

// EjectISO empties the machine's CD-ROM drive ("none,media=cdrom").
func (d *Driver) EjectISO(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	return d.setDrive(ctx, ref, "eject ISO", "none,media=cdrom", nil)
}

// SetBootOrder writes "boot: order=" with the machine's own devices: cdrom its CD-ROM
// drive (an empty one is added when it has none), disk its system disk, net its
// first interface.
func (d *Driver) SetBootOrder(ctx context.Context, ref hypervisor.Ref, order []string) (hypervisor.Machine, error) {
	if err := hypervisor.CheckBootOrder(order); err != nil {
		return hypervisor.Machine{}, err
	}
	return d.setDrive(ctx, ref, "set boot order", "", func(cfg vmConfig, slot string, body map[string]any) error {
		var keys []string
		for _, dev := range order {
			switch dev {
			case hypervisor.BootCDROM:
				keys = append(keys, slot)
			case hypervisor.BootDisk:
				disk, ok := cfg.bootDisk()
				if !ok {
					return invalid("order", "machine %d has no disk", ref.VMID)
				}
				keys = append(keys, disk.key)
			case hypervisor.BootNet:
				nics := cfg.nics()
				if len(nics) == 0 {
					return invalid("order", "machine %d has no network interface", ref.VMID)
				}
				keys = append(keys, nics[0].key)
			}
		}
		body["boot"] = "order=" + strings.Join(keys, ";")
		return nil
	})
}

// setDrive is a config change of the CD-ROM drive: drive, when set, is its new value;
// more adds to the body. A machine without a drive gets an empty one in cdromSlot.
func (d *Driver) setDrive(ctx context.Context, ref hypervisor.Ref, what, drive string, more func(vmConfig, string, map[string]any) error) (hypervisor.Machine, error) {
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	err = d.updateConfig(ctx, l, what, func(cfg vmConfig) (map[string]any, error) {
		slot := cdromSlot(cfg)
		if slot == "" {
			return nil, invalid("media", "machine %d has no free IDE slot for a CD-ROM drive", ref.VMID)
		}
		body := map[string]any{}
		if drive != "" {
			body[slot] = drive
		} else if _, ok := cfg[slot]; !ok {
			body[slot] = "none,media=cdrom"
		}
		if more != nil {
			if err := more(cfg, slot, body); err != nil {
				return nil, err
			}
		}
		return body, nil
	})
	if err != nil {
		return hypervisor.Machine{}, err
	}
	return d.readMachine(ctx, l)
}
