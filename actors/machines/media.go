package machines

import (
	"context"

	"github.com/vmplane/vmplane/actors/machines/media"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/persistence"
)

// What a tenant does with its machine's CD-ROM drive and boot order, and the rescue
// system: the operations are actors/machines/media's (their parameters, checks and
// driver calls); this file keeps their names here, the index of the machines holding
// an image, and the calls that start them.

// Aliases of the media package's types and operation names, which records, requests
// and the edge use under this package's name.
type (
	MountedISO       = media.MountedISO
	MediaRequest     = media.MediaRequest
	BootOrderRequest = media.BootOrderRequest
	RescueRequest    = media.RescueRequest
)

// Operation types of the media package.
const (
	OpMountISO  = media.OpMountISO
	OpEjectISO  = media.OpEjectISO
	OpBootOrder = media.OpBootOrder
	OpRescue    = media.OpRescue
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
	return m.Start(ctx, id, Operation{Type: OpMountISO, Change: media.Change{ISO: &iso}}, tenant)
}

// EjectISO starts a task (vm.media_eject) that empties the machine's drive.
func (m *Machines) EjectISO(ctx context.Context, id string, tenant *string) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpEjectISO}, tenant)
}

// SetBootOrder starts a task (vm.boot_order) that sets the machine's boot order.
func (m *Machines) SetBootOrder(ctx context.Context, id string, tenant *string, in BootOrderRequest) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpBootOrder, Change: media.Change{BootOrder: in.Order}}, tenant)
}

// Rescue starts a task (vm.rescue) that boots the machine from the rescue image iso
// (enabled) or back from its own disks (iso unused).
func (m *Machines) Rescue(ctx context.Context, id string, tenant *string, enabled bool, iso *MountedISO) (tasks.Task, error) {
	return m.Start(ctx, id, Operation{Type: OpRescue, Change: media.Change{Rescue: &enabled, ISO: iso}}, tenant)
}
