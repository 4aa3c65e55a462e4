// Package media holds what a tenant does with its machine's CD-ROM drive and boot
// order, and the rescue system: the operations' parameters (Change, which a machine
// operation embeds), their checks, their calls to the driver, and how a record reads
// the hypervisor's drive. Each is a machine operation like any other in
// actors/machines (one task at a time, its state table); the ISO images themselves are
// actors/isos' records: the edge resolves the one asked for (visible to the tenant,
// ready) and hands its id, name and file name here. The package keeps no state and
// writes nothing: actors/machines records what it decides.
package media

import (
	"context"
	"slices"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

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

// Operation types of this package.
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

// Change is the parameters of a media operation, embedded in a machine's operation:
// ISO is the image a mount or a rescue puts into the drive, BootOrder the order a
// boot order change (or the end of rescue) sets, Rescue whether a rescue turns it on
// and PrevBoot the boot order from before it.
type Change struct {
	ISO       *MountedISO `json:"iso,omitempty"`
	BootOrder []string    `json:"boot_order,omitempty"`
	Rescue    *bool       `json:"rescue,omitempty"`
	PrevBoot  []string    `json:"prev_boot,omitempty"`
}

// Validate checks the parameters of an operation op of this package.
func Validate(op string, c Change) error {
	switch op {
	case OpMountISO:
		if c.ISO == nil || c.ISO.File == "" {
			return apierr.Invalid(apierr.Field("iso_id", "is required"))
		}
	case OpBootOrder:
		return hypervisor.CheckBootOrder(c.BootOrder)
	case OpRescue:
		if c.Rescue == nil {
			return apierr.Invalid(apierr.Field("enabled", "is required"))
		}
		if *c.Rescue && (c.ISO == nil || c.ISO.File == "") {
			return apierr.New(apierr.ErrInvalidState, "no rescue ISO is set up (VMPLANE_RESCUE_ISO)")
		}
	}
	return nil
}

// Check checks an operation of this package against the machine's rescue state: while
// the rescue system runs, its drive and boot order are rescue's, and only turning it
// off changes them; rescue is turned on once and off once.
func Check(op string, c Change, rescue bool) error {
	switch {
	case op == OpRescue && *c.Rescue == rescue:
		state := map[bool]string{true: "on", false: "off"}[rescue]
		return apierr.New(apierr.ErrInvalidState, "rescue is %s already", state)
	case rescue && (op == OpMountISO || op == OpEjectISO || op == OpBootOrder):
		return apierr.New(apierr.ErrInvalidState, "the machine runs its rescue system: turn rescue off first")
	}
	return nil
}

// Prepare completes a rescue operation from the record when it starts: turning
// rescue on keeps the boot order to come back to (PrevBoot, from boot); turning it
// off restores the one kept (rescueBoot).
func Prepare(op string, c *Change, boot, rescueBoot []string) {
	if op != OpRescue || c.Rescue == nil {
		return
	}
	if *c.Rescue {
		c.PrevBoot = slices.Clone(boot)
	} else {
		c.BootOrder = rescueBoot
		if len(c.BootOrder) == 0 {
			c.BootOrder = hypervisor.DefaultBootOrder
		}
	}
}

// Execute performs an operation of this package on the driver.
func Execute(ctx context.Context, d hypervisor.Driver, ref hypervisor.Ref, op string, c Change) (hm hypervisor.Machine, result any, err error) {
	switch op {
	case OpMountISO:
		hm, err = d.MountISO(ctx, ref, c.ISO.File)
		result = map[string]string{"iso_id": c.ISO.ISOID, "name": c.ISO.Name}
	case OpEjectISO:
		hm, err = d.EjectISO(ctx, ref)
	case OpBootOrder:
		hm, err = d.SetBootOrder(ctx, ref, c.BootOrder)
	case OpRescue:
		hm, err = rescue(ctx, d, ref, c)
		result = map[string]bool{"rescue": *c.Rescue}
	}
	return hm, result, err
}

// rescue turns the rescue system on (mount, CD-ROM first, restart: a stopped machine
// is started) or off (eject, the boot order from before, restart when it runs).
func rescue(ctx context.Context, d hypervisor.Driver, ref hypervisor.Ref, c Change) (hypervisor.Machine, error) {
	hm, err := d.Machine(ctx, ref)
	if err != nil {
		return hm, err
	}
	running := hm.State == hypervisor.StateRunning
	order := c.BootOrder
	if *c.Rescue {
		order = []string{hypervisor.BootCDROM}
		for _, dev := range append(slices.Clone(hm.BootOrder), hypervisor.BootDisk) {
			if !slices.Contains(order, dev) {
				order = append(order, dev)
			}
		}
		_, err = d.MountISO(ctx, ref, c.ISO.File)
	} else {
		_, err = d.EjectISO(ctx, ref)
	}
	if err == nil {
		_, err = d.SetBootOrder(ctx, ref, order)
	}
	if err == nil && running {
		err = d.Power(ctx, ref, hypervisor.ActionStop)
	}
	if err == nil && (running || *c.Rescue) {
		err = d.Power(ctx, ref, hypervisor.ActionStart)
	}
	if err != nil {
		return hm, err
	}
	return d.Machine(ctx, ref)
}

// Observe answers the drive and boot order a record takes from the hypervisor's view:
// an image that is the one recorded (cur) keeps its id and name, another one is named
// by its file.
func Observe(cur *MountedISO, hm hypervisor.Machine) (*MountedISO, []string) {
	boot := slices.Clone(hm.BootOrder)
	if len(boot) == 0 {
		boot = slices.Clone(hypervisor.DefaultBootOrder)
	}
	switch {
	case hm.Media == "":
		return nil, boot
	case cur == nil || cur.File != hm.Media:
		return &MountedISO{Name: hm.Media, File: hm.Media}, boot
	}
	return cur, boot
}

// Finished is what a media task that succeeded changed beyond the hypervisor's view.
type Finished struct {
	// Media is the drive's image with its id and name.
	Media *MountedISO
	// Rescue and RescueBoot are the rescue state and the boot order it restores.
	Rescue     bool
	RescueBoot []string
}

// Finish answers what a media task that succeeded records beyond the hypervisor's
// view, given the drive the record observed and its rescue state before: the
// image's id and name, and the rescue state.
func Finish(op string, c Change, media *MountedISO, rescue bool, rescueBoot []string) Finished {
	f := Finished{Media: media, Rescue: rescue, RescueBoot: rescueBoot}
	if (op == OpMountISO || op == OpRescue && *c.Rescue) && media != nil && media.File == c.ISO.File {
		iso := *c.ISO
		f.Media = &iso
	}
	if op == OpRescue {
		f.Rescue, f.RescueBoot = *c.Rescue, nil
		if *c.Rescue {
			f.RescueBoot = c.PrevBoot
		}
	}
	return f
}

// Reached reports whether the machine shows a media operation (mount, eject, boot
// order, rescue) as done: its drive and boot order are what the operation set.
func Reached(hm hypervisor.Machine, op string, c Change) bool {
	boot := hm.BootOrder
	if len(boot) == 0 {
		boot = hypervisor.DefaultBootOrder
	}
	switch op {
	case OpMountISO:
		return c.ISO != nil && hm.Media == c.ISO.File
	case OpEjectISO:
		return hm.Media == ""
	case OpBootOrder:
		return slices.Equal(boot, c.BootOrder)
	case OpRescue:
		if c.Rescue == nil {
			return false
		}
		if *c.Rescue {
			// Rescue on ends with the image in the drive, the CD-ROM first and the
			// machine started.
			return c.ISO != nil && hm.Media == c.ISO.File && len(boot) > 0 && boot[0] == hypervisor.BootCDROM &&
				hm.State == hypervisor.StateRunning
		}
		want := c.BootOrder
		if len(want) == 0 {
			want = hypervisor.DefaultBootOrder
		}
		return hm.Media == "" && slices.Equal(boot, want)
	}
	return false
}
