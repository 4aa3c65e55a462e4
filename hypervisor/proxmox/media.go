package proxmox

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
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

// MountISO puts ISOStorage's image into the machine's CD-ROM drive (pveconf.CDROMSlot).
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
	return d.setDrive(ctx, ref, "set boot order", "", func(cfg pveconf.VM, slot string, body map[string]any) error {
		var keys []string
		for _, dev := range order {
			switch dev {
			case hypervisor.BootCDROM:
				keys = append(keys, slot)
			case hypervisor.BootDisk:
				disk, ok := cfg.BootDisk()
				if !ok {
					return invalid("order", "machine %d has no disk", ref.VMID)
				}
				keys = append(keys, disk.Key)
			case hypervisor.BootNet:
				nics := cfg.NICs()
				if len(nics) == 0 {
					return invalid("order", "machine %d has no network interface", ref.VMID)
				}
				keys = append(keys, nics[0].Key)
			}
		}
		body["boot"] = "order=" + strings.Join(keys, ";")
		return nil
	})
}

// setDrive is a config change of the CD-ROM drive: drive, when set, is its new value;
// more adds to the body. A machine without a drive gets an empty one in pveconf.CDROMSlot.
func (d *Driver) setDrive(ctx context.Context, ref hypervisor.Ref, what, drive string, more func(pveconf.VM, string, map[string]any) error) (hypervisor.Machine, error) {
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	err = d.updateConfig(ctx, l, what, func(cfg pveconf.VM) (map[string]any, error) {
		slot := pveconf.CDROMSlot(cfg)
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
