package machines

import (
	"context"
	"slices"

	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// What a tenant does with its machine's CD-ROM drive and boot order, and the rescue
// system: each a machine operation like any other (one task at a time, the state
// table of allowed). The ISO images themselves are actors/isos' records: the edge
// resolves the one asked for (visible to the tenant, ready) and hands its id, name and
// file name here.

// MountedISO is the ISO image in a machine's CD-ROM drive.
type MountedISO struct {
	// ISOID is the image's record id; "" for an image vmplane did not mount (the
	// sync found it in the drive).
	ISOID string `json:"iso_id"`
	Name  string `json:"name"`
	// File is the image's file name on the hypervisor.
	File string `json:"file"`
}

// MediaRequest asks for an ISO image to be mounted.
type MediaRequest struct {
	ISOID string `json:"iso_id" openapi:"required,minLength=1,limit=id"`
}

// BootOrderRequest sets the devices a machine boots from, in order.
type BootOrderRequest struct {
	Order []string `json:"order" openapi:"required,limit=boot.order,items.enum=cdrom|disk|net" doc:"devices in boot order, each at most once"`
}

// RescueRequest turns the rescue system on or off.
type RescueRequest struct {
	Enabled bool `json:"enabled" openapi:"required" doc:"true boots the operator's rescue ISO; false ejects it and restores the boot order"`
}

// Operation types of this file.
const (
	// OpMountISO puts the image ISO into the machine's drive.
	OpMountISO = "media_mount"
	// OpEjectISO empties the machine's drive.
	OpEjectISO = "media_eject"
	// OpBootOrder sets BootOrder.
	OpBootOrder = "boot_order"
	// OpRescue with Rescue true mounts ISO, puts the CD-ROM first and restarts the
	// machine (PrevBoot is the boot order it had); with Rescue false it ejects,
	// restores BootOrder (the one before rescue) and restarts a running machine.
	OpRescue = "rescue"
)

// mediaKey indexes the machines that hold an image: vm-iso/<iso id>/<machine>.
func mediaKey(iso, machine string) []byte { return persistence.Key("vm-iso", iso, machine) }

// putMediaIndex keeps the media index in step with a record's drive.
func putMediaIndex(b *persistence.Batch, prev, next *record) {
	was, is := mountedID(prev), mountedID(next)
	if was != "" && was != is {
		b.Del(mediaKey(was, prev.ID))
	}
	if is != "" && is != was {
		b.Put(mediaKey(is, next.ID), nil)
	}
}

func mountedID(r *record) string {
	if r == nil || r.Media == nil {
		return ""
	}
	return r.Media.ISOID
}

// MountedISO reports whether any machine holds the image iso in its drive (as its
// record last saw it), so that the image is not deleted under it.
func (m *Machines) MountedISO(ctx context.Context, iso string) (bool, error) {
	found := false
	err := m.sys.store.Scan(ctx, persistence.Prefix("vm-iso", iso), nil, 1, func(_, _ []byte) error {
		found = true
		return nil
	})
	return found, err
}

// MountISO starts a task (vm.media_mount) that puts the image into the machine's drive.
func (m *Machines) MountISO(ctx context.Context, id string, tenant *string, iso MountedISO) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpMountISO, ISO: &iso}, tenant)
}

// EjectISO starts a task (vm.media_eject) that empties the machine's drive.
func (m *Machines) EjectISO(ctx context.Context, id string, tenant *string) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpEjectISO}, tenant)
}

// SetBootOrder starts a task (vm.boot_order) that sets the machine's boot order.
func (m *Machines) SetBootOrder(ctx context.Context, id string, tenant *string, in BootOrderRequest) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpBootOrder, BootOrder: in.Order}, tenant)
}

// Rescue starts a task (vm.rescue) that boots the machine from the rescue image iso
// (enabled) or back from its own disks (iso unused).
func (m *Machines) Rescue(ctx context.Context, id string, tenant *string, enabled bool, iso *MountedISO) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpRescue, Rescue: &enabled, ISO: iso}, tenant)
}

// validateMediaOp checks the parameters of the operations of this file.
func validateMediaOp(op Operation) error {
	switch op.Type {
	case OpMountISO:
		if op.ISO == nil || op.ISO.File == "" {
			return apierr.Invalid(apierr.Field("iso_id", "is required"))
		}
	case OpBootOrder:
		return hypervisor.CheckBootOrder(op.BootOrder)
	case OpRescue:
		if op.Rescue == nil {
			return apierr.Invalid(apierr.Field("enabled", "is required"))
		}
		if *op.Rescue && (op.ISO == nil || op.ISO.File == "") {
			return apierr.New(apierr.ErrInvalidState, "no rescue ISO is set up (VMPLANE_RESCUE_ISO)")
		}
	}
	return nil
}

// checkMediaOp checks an operation of this file against the machine's record: while
// the rescue system runs, its drive and boot order are rescue's, and only turning it
// off changes them; rescue is turned on once and off once.
func checkMediaOp(op Operation, m *Machine) error {
	switch {
	case op.Type == OpRescue && *op.Rescue == m.Rescue:
		state := map[bool]string{true: "on", false: "off"}[m.Rescue]
		return apierr.New(apierr.ErrInvalidState, "rescue is %s already", state)
	case m.Rescue && (op.Type == OpMountISO || op.Type == OpEjectISO || op.Type == OpBootOrder):
		return apierr.New(apierr.ErrInvalidState, "the machine runs its rescue system: turn rescue off first")
	}
	return nil
}

// prepareMediaOp completes a rescue operation from the record when it starts: turning
// rescue on keeps the boot order to come back to (PrevBoot); turning it off restores it.
func prepareMediaOp(op *Operation, r *record) {
	if op.Type != OpRescue || op.Rescue == nil {
		return
	}
	if *op.Rescue {
		op.PrevBoot = slices.Clone(r.BootOrder)
	} else {
		op.BootOrder = r.RescueBoot
		if len(op.BootOrder) == 0 {
			op.BootOrder = hypervisor.DefaultBootOrder
		}
	}
}

// executeMediaOp performs the operations of this file on the driver.
func executeMediaOp(ctx context.Context, d hypervisor.Driver, ref hypervisor.Ref, op Operation) (hm hypervisor.Machine, result any, err error) {
	switch op.Type {
	case OpMountISO:
		hm, err = d.MountISO(ctx, ref, op.ISO.File)
		result = map[string]string{"iso_id": op.ISO.ISOID, "name": op.ISO.Name}
	case OpEjectISO:
		hm, err = d.EjectISO(ctx, ref)
	case OpBootOrder:
		hm, err = d.SetBootOrder(ctx, ref, op.BootOrder)
	case OpRescue:
		hm, err = rescue(ctx, d, ref, op)
		result = map[string]bool{"rescue": *op.Rescue}
	}
	return hm, result, err
}

// rescue turns the rescue system on (mount, CD-ROM first, restart: a stopped machine
// is started) or off (eject, the boot order from before, restart when it runs).
func rescue(ctx context.Context, d hypervisor.Driver, ref hypervisor.Ref, op Operation) (hypervisor.Machine, error) {
	hm, err := d.Machine(ctx, ref)
	if err != nil {
		return hm, err
	}
	running := hm.State == hypervisor.StateRunning
	order := op.BootOrder
	if *op.Rescue {
		order = []string{hypervisor.BootCDROM}
		for _, dev := range append(slices.Clone(hm.BootOrder), hypervisor.BootDisk) {
			if !slices.Contains(order, dev) {
				order = append(order, dev)
			}
		}
		_, err = d.MountISO(ctx, ref, op.ISO.File)
	} else {
		_, err = d.EjectISO(ctx, ref)
	}
	if err == nil {
		_, err = d.SetBootOrder(ctx, ref, order)
	}
	if err == nil && running {
		err = d.Power(ctx, ref, hypervisor.ActionStop)
	}
	if err == nil && (running || *op.Rescue) {
		err = d.Power(ctx, ref, hypervisor.ActionStart)
	}
	if err != nil {
		return hm, err
	}
	return d.Machine(ctx, ref)
}

// observeMedia copies the hypervisor's drive and boot order into the record: an image
// that is the one recorded keeps its id and name, another one is named by its file.
func observeMedia(m *Machine, hm hypervisor.Machine) {
	m.BootOrder = slices.Clone(hm.BootOrder)
	if len(m.BootOrder) == 0 {
		m.BootOrder = slices.Clone(hypervisor.DefaultBootOrder)
	}
	switch {
	case hm.Media == "":
		m.Media = nil
	case m.Media == nil || m.Media.File != hm.Media:
		m.Media = &MountedISO{Name: hm.Media, File: hm.Media}
	}
}

// finishMediaOp records what a media task that succeeded changed beyond the
// hypervisor's view: the image's id and name, and the rescue state.
func finishMediaOp(next *record, op *Operation) {
	if op == nil {
		return
	}
	if (op.Type == OpMountISO || op.Type == OpRescue && *op.Rescue) && next.Media != nil && next.Media.File == op.ISO.File {
		iso := *op.ISO
		next.Media = &iso
	}
	if op.Type == OpRescue {
		next.Rescue, next.RescueBoot = *op.Rescue, nil
		if *op.Rescue {
			next.RescueBoot = op.PrevBoot
		}
	}
}
