package virt

import (
	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
)

// Media serves a machine's CD-ROM drive, boot order and rescue system, for the
// operator's routes (/api/virt/vms/{id}/...) and the tenant's (/api/client/machines/
// {vmId}/...) alike: Param names the machine's path parameter and Scope the caller's
// tenant scope. Each change runs as a task of the machine (202): on Proxmox it is a
// config change (and for rescue a restart) that takes the machine's lock, so it is
// serialised with the machine's other tasks like any of them. An image is looked up
// as the machine's tenant sees it: another tenant's is 404 (an operator's machine,
// of no tenant, takes any).
type Media struct {
	Services api.Services
	Param    string
	Scope    func(c *api.Call) (*string, error)
	// RescueISO names the image (id or name) rescue boots; "" refuses rescue (409).
	RescueISO string
}

// Routes are the media routes of the machine path vm ("/api/virt/vms/{id}").
func (k Media) Routes(vm, tag string, access api.Access, query map[string]string) []api.Route {
	task := func(rt api.Route) api.Route {
		rt.Tag, rt.Access, rt.Query, rt.Reply, rt.Status = tag, access, query, api.TaskReply{}, fasthttp.StatusAccepted
		return rt
	}
	return []api.Route{
		task(api.Route{Method: "POST", Path: vm + "/media", Handler: k.Mount, Body: machines.MediaRequest{}, Stamped: true,
			Summary: "Mount an ISO image of the library in the machine's CD-ROM drive",
			Description: "Puts the image into the machine's CD-ROM drive (replacing what it held), as a task. The image must be ready and one the machine's tenant sees " +
				"(public, or the tenant's own): another tenant's is 404, a pending or failed one 409. Boot from it by putting cdrom first in the boot order."}),
		task(api.Route{Method: "DELETE", Path: vm + "/media", Handler: k.Eject,
			Summary:     "Eject the machine's CD-ROM drive",
			Description: "Empties the machine's CD-ROM drive, as a task; the boot order stays."}),
		task(api.Route{Method: "PUT", Path: vm + "/boot-order", Handler: k.BootOrder, Body: machines.BootOrderRequest{},
			Summary: "Set the devices the machine boots from, in order",
			Description: "Sets the boot order (cdrom, disk, net; each at most once; 400 otherwise) as a task, 202: the change is written to the hypervisor's " +
				"configuration under the machine's lock, as every change of the machine is. It applies at the machine's next start."}),
		task(api.Route{Method: "POST", Path: vm + "/rescue", Handler: k.Rescue, Body: machines.RescueRequest{}, Stamped: true,
			Summary: "Boot the rescue system, or back from the machine's disks",
			Description: "enabled true mounts the operator's rescue image (VMPLANE_RESCUE_ISO; unset: 409), puts the CD-ROM first and restarts the machine " +
				"(a stopped one is started); the disks stay attached, and the machine shows rescue: true. enabled false ejects it, restores the boot order from before " +
				"and restarts a running machine. Turning rescue on twice, or off when it is off, is 409; while rescue is on, media and boot order changes are 409."}),
	}
}

// machine is the machine of the path as the caller sees it (existence and scope
// first: an unknown machine is 404 whatever the body), and the caller's scope.
func (k Media) machine(c *api.Call) (machines.Machine, *string, error) {
	scope, err := k.Scope(c)
	if err != nil {
		return machines.Machine{}, nil, err
	}
	m, err := k.Services.Machines.Get(c.Context(), c.Param(k.Param), scope)
	return m, scope, err
}

// Mount serves POST .../media.
func (k Media) Mount(c *api.Call) (any, error) {
	m, scope, err := k.machine(c)
	if err != nil {
		return nil, err
	}
	var b machines.MediaRequest
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	iso, err := k.Services.ISOs.Mountable(c.Context(), b.ISOID, m.TenantID, false)
	if err != nil {
		return nil, err
	}
	return accepted(k.Services.Machines.MountISO(c.Context(), m.ID, scope, iso))
}

// Eject serves DELETE .../media.
func (k Media) Eject(c *api.Call) (any, error) {
	scope, err := k.Scope(c)
	if err != nil {
		return nil, err
	}
	return accepted(k.Services.Machines.EjectISO(c.Context(), c.Param(k.Param), scope))
}

// BootOrder serves PUT .../boot-order.
func (k Media) BootOrder(c *api.Call) (any, error) {
	m, scope, err := k.machine(c)
	if err != nil {
		return nil, err
	}
	var b machines.BootOrderRequest
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	return accepted(k.Services.Machines.SetBootOrder(c.Context(), m.ID, scope, b))
}

// Rescue serves POST .../rescue.
func (k Media) Rescue(c *api.Call) (any, error) {
	m, scope, err := k.machine(c)
	if err != nil {
		return nil, err
	}
	var b machines.RescueRequest
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	var iso *machines.MountedISO
	if b.Enabled {
		if k.RescueISO == "" {
			return nil, apierr.New(apierr.ErrInvalidState, "no rescue system is set up: the operator names one with VMPLANE_RESCUE_ISO")
		}
		// The operator's choice, whoever's machine it is.
		found, err := k.Services.ISOs.Mountable(c.Context(), k.RescueISO, nil, true)
		if err != nil {
			return nil, apierr.New(apierr.ErrInvalidState, "the rescue image %q (VMPLANE_RESCUE_ISO) cannot be mounted: %v", k.RescueISO, err)
		}
		iso = &found
	}
	return accepted(k.Services.Machines.Rescue(c.Context(), m.ID, scope, b.Enabled, iso))
}

// accepted answers the task a machine call started.
func accepted(t tasks.Task, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return api.TaskAccepted(t), nil
}
