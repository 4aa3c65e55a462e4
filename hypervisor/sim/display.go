package sim

import (
	"context"
	"hash/fnv"
	"net"
	"sync/atomic"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/rfb"
)

// The sim's display: a framebuffer of this size showing a pattern in the machine's own
// colours.
const (
	displayWidth  = 640
	displayHeight = 400
)

// Display opens the graphical console of a running machine that has a display: a tiny
// RFB server (security None) whose framebuffer shows bands in colours drawn from the
// machine's name, so two machines look different. ctx bounds only the opening; the
// session lives until Close, or the machine stopping, rebooting, migrating or its node
// going offline, as a serial console's.
func (d *Driver) Display(ctx context.Context, ref hypervisor.Ref) (hypervisor.Console, error) {
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
	if m.Headless {
		return nil, hypervisor.NewError(hypervisor.ErrWrongState, "machine %d has no display", ref.VMID)
	}
	if m.State != hypervisor.StateRunning {
		return nil, hypervisor.NewError(hypervisor.ErrWrongState, "cannot open the display of machine %d: it is %s", ref.VMID, m.State)
	}
	if err := d.injectedLocked(ref.VMID, OpConsole); err != nil {
		return nil, err
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(m.Name))
	sum := h.Sum32()
	srv := rfb.Server{Width: displayWidth, Height: displayHeight, Name: m.Name,
		Pixel: func(x, y int) (uint8, uint8, uint8) {
			band := uint32(y/40+x/80) & 3
			c := sum >> (band * 6)
			return uint8(c), uint8(c >> 8), uint8(c>>16) | 0x40
		}}
	ours, theirs := net.Pipe()
	end := &displayEnd{Conn: theirs}
	go func() {
		_ = srv.Serve(theirs) // ends when the console is closed, or hung up
		theirs.Close()
		end.done.Store(true)
	}()
	// Forget displays that ended, so a machine's list stays as long as its open ones.
	live := d.displays[ref.VMID][:0]
	for _, e := range d.displays[ref.VMID] {
		if !e.done.Load() {
			live = append(live, e)
		}
	}
	d.displays[ref.VMID] = append(live, end)
	return display{ours}, nil
}

// displayEnd is the serving end of a display, which a hang-up closes; done once its
// server has returned.
type displayEnd struct {
	net.Conn
	done atomic.Bool
}

// display is a graphical console: one end of a pipe whose other end serves RFB.
type display struct{ net.Conn }

// Type is "vnc".
func (display) Type() string { return "vnc" }
