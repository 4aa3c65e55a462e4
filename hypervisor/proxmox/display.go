package proxmox

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/rfb"
)

// Display opens the machine's graphical console through Proxmox's vncproxy, as the
// console user (never a user made per session, and never the API token, which
// vncwebsocket refuses): POST .../vncproxy with websocket=1 answers {port, ticket},
// and .../vncwebsocket?port=&vncticket= is dialled with subprotocol "binary" and the
// user's PVEAuthCookie, as Console does. Behind it is QEMU's VNC server, which asks
// for VNC authentication with the vncticket as the password: the driver runs that
// handshake itself (rfb.ClientHandshake) and hands the caller rfb.NoneFront, an RFB
// stream that offers security None, so the ticket stays in vmplane.
//
// ctx bounds only the opening; the session lives until Close or until Proxmox hangs up.
func (d *Driver) Display(ctx context.Context, ref hypervisor.Ref) (hypervisor.Console, error) {
	l, cfg, err := d.consoleTarget(ctx, ref.VMID)
	if err != nil {
		return nil, err
	}
	if cfg.Headless() {
		return nil, hypervisor.NewError(hypervisor.ErrWrongState,
			"machine %d has no display (vga: %s): set another adapter (qm set %d --vga std) and restart it", ref.VMID, cfg["vga"], ref.VMID)
	}
	conn, term, ctx, err := d.proxySocket(ctx, ref.VMID, l, "vncproxy", map[string]any{"websocket": 1})
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(d.cfg.RequestTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetWriteDeadline(deadline)
	_ = conn.SetReadDeadline(deadline)
	s := rfb.NewStream(conn)
	if err := rfb.ClientHandshake(s, term.Ticket); err != nil {
		s.Close()
		if ctx.Err() != nil {
			return nil, hypervisor.ContextError(ctx.Err())
		}
		return nil, hypervisor.NewError(hypervisor.ErrUnavailable, "the display of machine %d did not accept its ticket: %s", ref.VMID, d.scrub(ctx, err.Error()))
	}
	_ = conn.SetReadDeadline(time.Time{})
	_ = conn.SetWriteDeadline(time.Time{})
	v := &vncConsole{ReadWriteCloser: rfb.NoneFront(s), conn: conn, done: make(chan struct{})}
	v.wg.Add(1)
	go v.keepalive(d.cfg.ConsolePing)
	return v, nil
}

// vncConsole is an open vncproxy session, authenticated, behind the None front. A
// viewer that only watches sends nothing for minutes, and pveproxy closes a websocket
// idle that long: keepalive sends websocket pings meanwhile.
type vncConsole struct {
	io.ReadWriteCloser
	conn *websocket.Conn
	done chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

// Type is "vnc".
func (*vncConsole) Type() string { return "vnc" }

// keepalive pings pveproxy every interval until Close (WriteControl may run beside
// the stream's writes).
func (v *vncConsole) keepalive(every time.Duration) {
	defer v.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-v.done:
			return
		case <-t.C:
			if v.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(10*time.Second)) != nil {
				return
			}
		}
	}
}

// Close ends the session and its pings; it is idempotent.
func (v *vncConsole) Close() error {
	var err error
	v.once.Do(func() {
		close(v.done)
		err = v.ReadWriteCloser.Close()
		v.wg.Wait()
	})
	return err
}
