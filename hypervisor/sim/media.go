package sim

import (
	"context"
	"encoding/hex"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
)

// Operation names of the media calls, as FailNext and FailAlways take them.
const (
	OpImportISO    = "import_iso"
	OpMountISO     = "mount_iso"
	OpDeleteISO    = "delete_iso"
	OpEjectISO     = "eject_iso"
	OpSetBootOrder = "set_boot_order"
)

// ISOFromFile marks the sim as a driver that takes the file vmplane fetched (ImportISO).
func (d *Driver) ISOFromFile() {}

// ImportISO records an image in the simulated ISO storage (sim/world) once its file,
// spec.File, matches the checksum. The sim keeps what it knows of the image (name,
// size, checksum), not the bytes: they stay in vmplane's own file.
func (d *Driver) ImportISO(ctx context.Context, spec hypervisor.ISOSpec) (hypervisor.ISO, error) {
	if err := hypervisor.CheckISOName(spec.Name); err != nil {
		return hypervisor.ISO{}, err
	}
	algo, want, err := hypervisor.ParseChecksum(spec.Checksum)
	if err != nil {
		return hypervisor.ISO{}, err
	}
	if spec.File == "" {
		return hypervisor.ISO{}, invalid("file", "the simulated cluster fetches no URL: it takes the file vmplane fetched")
	}
	f, err := os.Open(spec.File)
	if err != nil {
		return hypervisor.ISO{}, invalid("file", "cannot open: %v", err)
	}
	defer f.Close()
	h := hypervisor.NewChecksumHash(algo)
	n, err := io.Copy(h, f)
	if err != nil {
		return hypervisor.ISO{}, invalid("file", "cannot read: %v", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return hypervisor.ISO{}, hypervisor.NewError(hypervisor.ErrChecksumMismatch, "%s of %s is %s, not %s", algo, spec.Name, got, want)
	}
	iso := hypervisor.ISO{Name: spec.Name, SizeBytes: n, Checksum: algo + ":" + want}
	err = d.run(ctx, op{name: OpImportISO, world: true, apply: func() error {
		d.isos = cloneISOs(d.isos)
		d.isos[iso.Name] = iso
		d.touchWorldLocked()
		return nil
	}})
	return iso, err
}

// cloneISOs copies the ISO map, so that a world record being written keeps what it held.
func cloneISOs(m map[string]hypervisor.ISO) map[string]hypervisor.ISO {
	c := make(map[string]hypervisor.ISO, len(m)+1)
	maps.Copy(c, m)
	return c
}

// DeleteISO forgets an image. Machines that hold it keep it in their drive, as a
// Proxmox VM's config keeps naming a volume deleted under it.
func (d *Driver) DeleteISO(ctx context.Context, name string) error {
	return d.run(ctx, op{name: OpDeleteISO, world: true, apply: func() error {
		if _, ok := d.isos[name]; ok {
			d.isos = cloneISOs(d.isos)
			delete(d.isos, name)
			d.touchWorldLocked()
		}
		return nil
	}})
}

// MountISO puts an imported image into the machine's drive.
func (d *Driver) MountISO(ctx context.Context, ref hypervisor.Ref, name string) (hypervisor.Machine, error) {
	return d.changeMedia(ctx, ref, OpMountISO, func(m *fleet.Machine) error {
		if _, ok := d.isos[name]; !ok {
			return hypervisor.NewError(hypervisor.ErrISONotFound, "no ISO %q in the ISO storage", name)
		}
		m.Media = name
		return nil
	})
}

// EjectISO empties the machine's drive.
func (d *Driver) EjectISO(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	return d.changeMedia(ctx, ref, OpEjectISO, func(m *fleet.Machine) error { m.Media = ""; return nil })
}

// SetBootOrder sets the devices the machine boots from.
func (d *Driver) SetBootOrder(ctx context.Context, ref hypervisor.Ref, order []string) (hypervisor.Machine, error) {
	if err := hypervisor.CheckBootOrder(order); err != nil {
		return hypervisor.Machine{}, err
	}
	return d.changeMedia(ctx, ref, OpSetBootOrder, func(m *fleet.Machine) error { m.BootOrder = slices.Clone(order); return nil })
}

// changeMedia runs a change of a machine's drive or boot order under its lock. The
// change is checked first (against the machine as it is) and made on a copy that
// replaces the machine, so that a failed check changes nothing.
func (d *Driver) changeMedia(ctx context.Context, ref hypervisor.Ref, name string, change func(*fleet.Machine) error) (hypervisor.Machine, error) {
	var out hypervisor.Machine
	err := d.run(ctx, op{
		name: name,
		vmid: ref.VMID,
		check: func() error {
			m, err := d.liveMachineLocked(ref.VMID)
			if err != nil {
				return err
			}
			c := *m
			return change(&c)
		},
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			if err := change(m); err != nil {
				return err
			}
			d.touchMachineLocked(m.VMID)
			out = cloneMachine(m.Machine)
			return nil
		},
	})
	return out, err
}
