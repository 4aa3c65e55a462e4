package pvefake

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vmplane/vmplane/hypervisor/rfb"
)

var serialKey = regexp.MustCompile(`^serial\d$`)

// termproxy opens a terminal proxy on a running VM with a serial port and answers the
// port and a vncticket bound to the calling user, VM and port.
func (c *call) termproxy() {
	s := c.s
	v := c.vmLocked()
	if v == nil {
		return
	}
	if v.status != "running" {
		c.fail(500, "VM %d not running", v.vmid)
		return
	}
	serial := false
	for k := range v.config {
		if serialKey.MatchString(k) {
			serial = true
		}
	}
	if !serial {
		c.fail(500, "unable to find a serial interface")
		return
	}
	s.portSeq++
	now := s.cfg.Now()
	tk := fmt.Sprintf("PVEVNC:%08X::%s", now.Unix(), randomHex(20))
	s.vnc[tk] = vncTicket{user: c.user, vmid: v.vmid, port: s.portSeq, expires: now.Add(time.Minute)}
	upid := s.newTaskLocked(v.node, "vncproxy", strconv.Itoa(v.vmid), c.user, nil, nil)
	c.ok(map[string]any{"port": s.portSeq, "ticket": tk, "upid": upid, "user": c.user})
}

// vncproxy opens a VNC proxy on a running VM that has a display and answers the port
// and a vncticket, as termproxy does. Behind the vncwebsocket it opens is an RFB server
// (QEMU's, in Proxmox) that asks for VNC authentication with the ticket as password.
// Only websocket=1 is served: the fake has no plain TCP proxy.
func (c *call) vncproxy() {
	s := c.s
	v := c.vmLocked()
	if v == nil {
		return
	}
	if c.form.Get("websocket") != "1" {
		c.fail(501, "the fake serves vncproxy with websocket=1 only")
		return
	}
	if v.status != "running" {
		c.fail(500, "VM %d not running", v.vmid)
		return
	}
	if typ, _, _ := strings.Cut(strings.TrimPrefix(v.config["vga"], "type="), ","); typ == "none" || strings.HasPrefix(typ, "serial") {
		c.fail(500, "VM %d has no display (vga: %s)", v.vmid, v.config["vga"])
		return
	}
	s.portSeq++
	now := s.cfg.Now()
	tk := fmt.Sprintf("PVEVNC:%08X::%s", now.Unix(), randomHex(20))
	s.vnc[tk] = vncTicket{display: true, user: c.user, vmid: v.vmid, port: s.portSeq, expires: now.Add(time.Minute)}
	upid := s.newTaskLocked(v.node, "vncproxy", strconv.Itoa(v.vmid), c.user, nil, nil)
	c.ok(map[string]any{"port": s.portSeq, "ticket": tk, "upid": upid, "user": c.user, "cert": "-----BEGIN CERTIFICATE-----\n(fake)\n-----END CERTIFICATE-----\n"})
}

// displayWidth and displayHeight are the size of a VM's framebuffer in the fake.
const (
	displayWidth  = 64
	displayHeight = 48
)

// serveDisplay runs the RFB server of a vncproxy session over the websocket: VNC
// authentication with the vncticket as the password (QEMU compares its first 8 bytes),
// then a framebuffer of a fixed pattern. Pings are answered and counted; with
// WebsocketIdle, a client silent that long (no message, no ping) is hung up on.
func (s *Server) serveDisplay(conn *websocket.Conn, name, ticket string) {
	idle := s.cfg.WebsocketIdle
	alive := func() {
		if idle > 0 {
			_ = conn.SetReadDeadline(time.Now().Add(idle))
		}
	}
	alive()
	conn.SetPingHandler(func(data string) error {
		s.mu.Lock()
		s.pings++
		s.mu.Unlock()
		alive()
		return conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	srv := rfb.Server{Width: displayWidth, Height: displayHeight, Name: "VM " + name, Password: ticket,
		Pixel: func(x, y int) (uint8, uint8, uint8) { return uint8(x * 4), uint8(y * 5), 0x80 }}
	_ = srv.Serve(idleStream{Stream: rfb.NewStream(conn), alive: alive})
}

// idleStream is a display's stream whose every message from the client counts as a
// sign of life.
type idleStream struct {
	*rfb.Stream
	alive func()
}

func (s idleStream) Read(p []byte) (int, error) {
	n, err := s.Stream.Read(p)
	if err == nil {
		s.alive()
	}
	return n, err
}

// WebsocketPings is how many websocket pings the displays' sockets received.
func (s *Server) WebsocketPings() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pings
}

// vncWebsocket serves a termproxy or vncproxy session: it needs a PVEAuthCookie of the ticket's
// user (API tokens are refused, as Proxmox refuses them), a valid vncticket for this VM
// and port, and the "binary" subprotocol. A vncproxy's ticket gets an RFB server
// (serveDisplay). For a termproxy's, the first frame must be "user:ticket\n"; the
// fake answers "OK", then runs a tiny shell over the framing: "0:LEN:DATA" input,
// "1:COLS:ROWS:" resize, "2" ping.
func (c *call) vncWebsocket() {
	s := c.s
	if c.token {
		c.fail(401, "API tokens are not allowed to open a vncwebsocket (use a ticket)")
		return
	}
	vmid, _ := strconv.Atoi(c.p["vmid"])
	port, _ := strconv.Atoi(c.form.Get("port"))
	tk := c.form.Get("vncticket")
	s.mu.Lock()
	t, ok := s.vnc[tk]
	v := s.vms[vmid]
	var name string
	if v != nil && v.node == c.p["node"] {
		name = v.config["name"]
	}
	s.mu.Unlock()
	if !ok || t.user != c.user || t.vmid != vmid || t.port != port || s.cfg.Now().After(t.expires) {
		c.fail(401, "permission denied - invalid vncticket")
		return
	}
	if name == "" {
		c.fail(500, "Configuration file 'nodes/%s/qemu-server/%d.conf' does not exist", c.p["node"], vmid)
		return
	}
	if !slices.Contains(websocket.Subprotocols(c.r), "binary") {
		c.fail(400, "websocket subprotocol 'binary' required")
		return
	}
	up := websocket.Upgrader{Subprotocols: []string{"binary"}, CheckOrigin: func(*http.Request) bool { return true }}
	conn, err := up.Upgrade(c.w, c.r, nil)
	if err != nil {
		c.status = 400
		return
	}
	c.status = 101
	s.mu.Lock()
	s.wsConns[conn] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.wsConns, conn)
		s.mu.Unlock()
		conn.Close()
	}()

	if t.display {
		s.mu.Lock()
		delete(s.vnc, tk) // a vncticket opens one session
		s.mu.Unlock()
		s.serveDisplay(conn, name, tk)
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, first, err := conn.ReadMessage()
	if err != nil || string(first) != t.user+":"+tk+"\n" {
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "authentication failed"), time.Now().Add(time.Second))
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	s.mu.Lock()
	delete(s.vnc, tk) // a vncticket opens one session
	s.mu.Unlock()
	if conn.WriteMessage(websocket.BinaryMessage, []byte("OK")) != nil {
		return
	}
	sh := &shell{name: name, out: func(b []byte) error { return conn.WriteMessage(websocket.BinaryMessage, b) }}
	if sh.emit("\r\nDebian GNU/Linux 12 %s ttyS0\r\n\r\n%s login: root (automatic login)\r\n\r\n", name, name) != nil || sh.prompt() != nil {
		return
	}
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			return
		}
		data, ok := parseFrame(msg)
		if !ok {
			continue // resize, ping, or garbage: nothing to do
		}
		if done, err := sh.input(data); done || err != nil {
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "logout"), time.Now().Add(time.Second))
			return
		}
	}
}

// parseFrame extracts the data of an input frame "0:LEN:DATA".
func parseFrame(msg []byte) ([]byte, bool) {
	rest, ok := strings.CutPrefix(string(msg), "0:")
	if !ok {
		return nil, false
	}
	lenStr, data, ok := strings.Cut(rest, ":")
	n, err := strconv.Atoi(lenStr)
	if !ok || err != nil || n < 0 || n > len(data) {
		return nil, false
	}
	return []byte(data[:n]), true
}

// shell is a tiny serial-console shell: it echoes input and runs hostname, whoami,
// echo, uname and exit.
type shell struct {
	name string
	line []byte
	out  func([]byte) error
}

func (sh *shell) emit(format string, args ...any) error {
	return sh.out(fmt.Appendf(nil, format, args...))
}

func (sh *shell) prompt() error { return sh.emit("root@%s:~# ", sh.name) }

// input handles typed bytes and reports whether the session ended.
func (sh *shell) input(p []byte) (bool, error) {
	var echo []byte
	for _, b := range p {
		switch {
		case b == '\r' || b == '\n':
			if len(echo) > 0 {
				if err := sh.out(echo); err != nil {
					return false, err
				}
				echo = nil
			}
			line := string(sh.line)
			sh.line = sh.line[:0]
			if done, err := sh.exec(line); done || err != nil {
				return done, err
			}
		case b == 0x7f || b == '\b':
			if len(sh.line) > 0 {
				sh.line = sh.line[:len(sh.line)-1]
				echo = append(echo, "\b \b"...)
			}
		case b < 0x20:
		default:
			sh.line = append(sh.line, b)
			echo = append(echo, b)
		}
	}
	if len(echo) > 0 {
		return false, sh.out(echo)
	}
	return false, nil
}

func (sh *shell) exec(line string) (bool, error) {
	f := strings.Fields(line)
	var out string
	switch {
	case len(f) == 0:
		out = "\r\n"
	case f[0] == "hostname":
		out = "\r\n" + sh.name + "\r\n"
	case f[0] == "whoami":
		out = "\r\nroot\r\n"
	case f[0] == "echo":
		out = "\r\n" + strings.Join(f[1:], " ") + "\r\n"
	case f[0] == "uname":
		out = "\r\nLinux\r\n"
	case f[0] == "exit" || f[0] == "logout":
		return true, sh.emit("\r\nlogout\r\n")
	default:
		out = "\r\n" + f[0] + ": command not found\r\n"
	}
	if err := sh.emit("%s", out); err != nil {
		return false, err
	}
	return false, sh.prompt()
}
