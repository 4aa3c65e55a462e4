package proxmox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
	pve "github.com/luthermonson/go-proxmox"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
)

// consolePing is how often an open console sends termproxy's keep-alive frame "2"
// (xterm.js sends it every 30 s; termproxy drops silent sessions), or a display a
// websocket ping: Config.ConsolePing's default.
const consolePing = 30 * time.Second

var serialKeyRE = regexp.MustCompile(`^serial\d$`)

// Console opens the machine's serial console through Proxmox's termproxy.
//
// Proxmox refuses API tokens on vncwebsocket (luthermonson/go-proxmox#221; go-proxmox
// answers ErrAPITokenWebSocketUnsupported), and the vncticket termproxy hands out is
// bound to the user who asked for it. So the whole console runs as a separate,
// restricted user (Config.ConsoleUser/ConsolePassword): POST /access/ticket logs it in,
// POST .../termproxy (as that user) returns {port, ticket, user}, and the websocket
// wss://host:8006/api2/json/nodes/{n}/qemu/{vmid}/vncwebsocket?port=&vncticket= is
// dialled with subprotocol "binary" and that user's PVEAuthCookie. The API token is
// deliberately not sent there: pveproxy would authenticate the token instead of the
// cookie and refuse the socket. Then termproxy's protocol: first frame "user:ticket\n",
// the answer "OK", input frames "0:LEN:DATA", resize "1:COLS:ROWS:", ping "2"; output
// arrives as raw bytes.
//
// Operator setup, once per cluster (the machine also needs a serial port, e.g.
// "qm set <vmid> --serial0 socket", best set on the templates):
//
//	pveum role add VMConsoleOnly --privs VM.Console
//	pveum user add vmconsole@pve --password '<secret>' --comment 'vmplane console'
//	pveum acl modify /vms --users vmconsole@pve --roles VMConsoleOnly
//
// and VMPLANE_PROXMOX_CONSOLE_USER=vmconsole@pve, VMPLANE_PROXMOX_CONSOLE_PASSWORD=<secret>.
// The user can open consoles and nothing else; its ticket lives two hours and is
// fetched per console. vmplane proxies the websocket to the browser, which never sees
// a Proxmox credential.
//
// ctx bounds only the opening; the session lives until Close or until Proxmox hangs up.
func (d *Driver) Console(ctx context.Context, ref hypervisor.Ref) (hypervisor.Console, error) {
	l, cfg, err := d.consoleTarget(ctx, ref.VMID)
	if err != nil {
		return nil, err
	}
	serial := false
	for k := range cfg {
		serial = serial || serialKeyRE.MatchString(k)
	}
	if !serial {
		return nil, hypervisor.NewError(hypervisor.ErrWrongState,
			"machine %d has no serial port for a console: add one (qm set %d --serial0 socket) and restart it", ref.VMID, ref.VMID)
	}

	conn, term, ctx, err := d.proxySocket(ctx, ref.VMID, l, "termproxy", nil)
	if err != nil {
		return nil, err
	}

	// termproxy's handshake: "user:ticket\n", answered by "OK" (maybe with output).
	deadline := time.Now().Add(d.cfg.RequestTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetWriteDeadline(deadline)
	_ = conn.SetReadDeadline(deadline)
	var first []byte
	if err = conn.WriteMessage(websocket.BinaryMessage, []byte(term.User+":"+term.Ticket+"\n")); err == nil {
		_, first, err = conn.ReadMessage()
	}
	if err != nil || !bytes.HasPrefix(first, []byte("OK")) {
		conn.Close()
		if ctx.Err() != nil {
			return nil, hypervisor.ContextError(ctx.Err())
		}
		return nil, hypervisor.NewError(hypervisor.ErrUnavailable, "the console of machine %d did not accept its ticket", ref.VMID)
	}
	_ = conn.SetReadDeadline(time.Time{})
	_ = conn.SetWriteDeadline(time.Time{})
	c := &SerialConsole{conn: conn, pending: first[2:], done: make(chan struct{}), ping: d.cfg.ConsolePing}
	c.wg.Add(1)
	go c.keepalive()
	return c, nil
}

// consoleTarget checks what every console needs (a console user, a running machine)
// and answers where the machine is and its config.
func (d *Driver) consoleTarget(ctx context.Context, vmid int) (*located, pveconf.VM, error) {
	if d.cfg.ConsoleUser == "" {
		return nil, nil, hypervisor.NewError(hypervisor.ErrUnavailable,
			"the Proxmox console needs a console user: set ConsoleUser and ConsolePassword (VMPLANE_PROXMOX_CONSOLE_USER, VMPLANE_PROXMOX_CONSOLE_PASSWORD) "+
				"to a pve-realm user that holds only the VM.Console privilege on /vms; Proxmox refuses API tokens on the console websocket")
	}
	l, err := d.locateLive(ctx, vmid)
	if err != nil {
		return nil, nil, err
	}
	st, err := d.status(ctx, l)
	if err != nil {
		return nil, nil, err
	}
	if st.state != hypervisor.StateRunning {
		return nil, nil, hypervisor.NewError(hypervisor.ErrWrongState, "cannot open the console of machine %d: it is %s", vmid, st.state)
	}
	cfg, err := d.vmConfig(ctx, l.node, l.vmid)
	if err != nil {
		return nil, nil, err
	}
	return l, cfg, nil
}

// proxySocket opens the websocket of a console proxy (termproxy or vncproxy, endpoint)
// of machine vmid at l as the console user, and answers it with the proxy's answer and
// ctx carrying the secrets to scrub from errors. Everything runs as the console user,
// on a client of its own (go-proxmox keeps the session in the client, so sharing one
// would race).
func (d *Driver) proxySocket(ctx context.Context, vmid int, l *located, endpoint string, params any) (*websocket.Conn, pve.Term, context.Context, error) {
	cc := pve.NewClient(d.base.String(), pve.WithHTTPClient(d.hc), pve.WithUserAgent("vmplane-proxmox"), pve.WithLogger(quietLogger{}))
	if _, err := cc.Ticket(ctx, &pve.Credentials{Username: d.cfg.ConsoleUser, Password: d.cfg.ConsolePassword}); err != nil {
		if se, ok := statusOf(err); ok && (se.Code == 401 || se.Code == 403) {
			return nil, pve.Term{}, ctx, hypervisor.NewError(hypervisor.ErrUnavailable,
				"Proxmox refused the console user %s (%d %s): check ConsoleUser and ConsolePassword", d.cfg.ConsoleUser, se.Code, se.Message)
		}
		return nil, pve.Term{}, ctx, d.apiError(ctx, err)
	}
	sess := cc.Session()
	if sess == nil || sess.Ticket == "" {
		return nil, pve.Term{}, ctx, hypervisor.NewError(hypervisor.ErrUnavailable, "Proxmox answered the console login without a ticket")
	}
	ctx = withSecrets(ctx, sess.Ticket, sess.CSRFPreventionToken)
	var term pve.Term
	if err := cc.Post(ctx, l.path()+"/"+endpoint, params, &term); err != nil {
		if se, ok := statusOf(err); ok && se.Code == 403 {
			return nil, pve.Term{}, ctx, hypervisor.NewError(hypervisor.ErrUnavailable,
				"the Proxmox console user %s lacks VM.Console on /vms/%d: %s", d.cfg.ConsoleUser, vmid, se.Message)
		}
		return nil, pve.Term{}, ctx, d.apiError(ctx, err)
	}
	ctx = withSecrets(ctx, term.Ticket)

	ws := *d.base
	ws.Scheme = "wss"
	ws.Path = d.base.Path + l.path() + "/vncwebsocket"
	ws.RawQuery = url.Values{"port": {strconv.Itoa(int(term.Port))}, "vncticket": {term.Ticket}}.Encode()
	dialer := websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		TLSClientConfig:  d.tls.Clone(),
		HandshakeTimeout: d.cfg.RequestTimeout,
		Subprotocols:     []string{"binary"},
	}
	hdr := http.Header{"Cookie": {"PVEAuthCookie=" + sess.Ticket}, "User-Agent": {"vmplane-proxmox"}}
	conn, resp, err := dialer.DialContext(ctx, ws.String(), hdr)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, pve.Term{}, ctx, hypervisor.ContextError(ctx.Err())
		}
		if resp != nil {
			return nil, pve.Term{}, ctx, hypervisor.NewError(hypervisor.ErrUnavailable, "Proxmox refused the console websocket of machine %d: %s", vmid, resp.Status)
		}
		return nil, pve.Term{}, ctx, hypervisor.NewError(hypervisor.ErrUnavailable, "cannot reach the console websocket of machine %d: %s", vmid, d.scrub(ctx, err.Error()))
	}

	return conn, term, ctx, nil
}

// SerialConsole is an open termproxy session. Write sends input frames, Read returns
// the terminal's output bytes; Resize tells the terminal its size.
type SerialConsole struct {
	conn    *websocket.Conn
	wmu     sync.Mutex // the websocket takes one writer at a time
	rmu     sync.Mutex
	pending []byte
	done    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
	// ping is Config.ConsolePing.
	ping time.Duration
}

// Type is "serial": termproxy is a text terminal.
func (c *SerialConsole) Type() string { return "serial" }

// Read blocks until output arrives and answers io.EOF once the session is over.
func (c *SerialConsole) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for len(c.pending) == 0 {
		_, msg, err := c.conn.ReadMessage()
		if err != nil {
			return 0, io.EOF
		}
		c.pending = msg
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// Write types p into the console as one input frame "0:LEN:DATA".
func (c *SerialConsole) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	frame := append(fmt.Appendf(nil, "0:%d:", len(p)), p...)
	if err := c.send(frame); err != nil {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

// Resize sends the terminal size, "1:COLS:ROWS:".
func (c *SerialConsole) Resize(cols, rows int) error {
	return c.send(fmt.Appendf(nil, "1:%d:%d:", cols, rows))
}

func (c *SerialConsole) send(b []byte) error {
	select {
	case <-c.done:
		return io.ErrClosedPipe
	default:
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return c.conn.WriteMessage(websocket.BinaryMessage, b)
}

// keepalive pings termproxy until Close.
func (c *SerialConsole) keepalive() {
	defer c.wg.Done()
	t := time.NewTicker(c.ping)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if c.send([]byte("2")) != nil {
				return
			}
		}
	}
}

// Close ends the session; blocked reads return io.EOF. It is idempotent.
func (c *SerialConsole) Close() error {
	c.once.Do(func() {
		close(c.done)
		_ = c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		c.conn.Close()
		c.wg.Wait()
	})
	return nil
}
