package sim

import (
	"context"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/serial"
)

// Console opens a serial console on a running machine: a tiny shell, logged in as root,
// that answers hostname, uname, uptime, echo, whoami, help and exit. ctx bounds only the
// opening; the session lives until Close, exit, or the machine stopping, rebooting,
// migrating or its node going offline (readers then drain the output and get io.EOF).
func (d *Driver) Console(ctx context.Context, ref hypervisor.Ref) (hypervisor.Console, error) {
	if err := ctx.Err(); err != nil {
		return nil, hypervisor.ContextError(err)
	}
	d.catchUp()
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.availableLocked(); err != nil {
		return nil, err
	}
	m, err := d.liveMachineLocked(ref.VMID)
	if err != nil {
		return nil, err
	}
	if m.State != hypervisor.StateRunning {
		return nil, hypervisor.NewError(hypervisor.ErrWrongState, "cannot open the console of machine %d: it is %s", ref.VMID, m.State)
	}
	if err := d.injectedLocked(ref.VMID, OpConsole); err != nil {
		return nil, err
	}
	tpl, _ := d.templateLocked(m.TemplateID)
	booted := m.CreatedAt
	for _, c := range m.History {
		if c.State == hypervisor.StateRunning {
			booted = time.Unix(0, c.At)
		}
	}
	c := serial.New(m.Name, tpl, booted, d.now)
	// Forget sessions that ended, so a machine's list stays as long as its open consoles.
	live := d.consoles[ref.VMID][:0]
	for _, s := range d.consoles[ref.VMID] {
		if !s.Ended() {
			live = append(live, s)
		}
	}
	d.consoles[ref.VMID] = append(live, c)
	return c, nil
}

// closeConsolesLocked hangs up every console of a machine, telling the reader why, and
// ends its displays (an RFB stream has nowhere to say why: its reader gets io.EOF).
func (d *Driver) closeConsolesLocked(vmid int, why string) {
	for _, c := range d.consoles[vmid] {
		c.Hangup("[" + why + "]")
	}
	delete(d.consoles, vmid)
	for _, c := range d.displays[vmid] {
		c.Close()
	}
	delete(d.displays, vmid)
}

// closeNodeConsolesLocked hangs up the consoles of the machines on node, which went
// offline. Only machines with a console open are looked at, not the whole fleet.
func (d *Driver) closeNodeConsolesLocked(node, why string) {
	for vmid := range d.consoles {
		if m, ok := d.machines.Peek(vmid); ok && m.Node == node {
			d.closeConsolesLocked(vmid, why)
		}
	}
	for vmid := range d.displays {
		if m, ok := d.machines.Peek(vmid); ok && m.Node == node {
			d.closeConsolesLocked(vmid, why)
		}
	}
}
