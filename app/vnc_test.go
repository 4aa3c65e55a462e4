package app

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/rfb"
)

// vncTicket asks for the vnc console of machine id on path's route and answers the
// websocket URL; want is the status expected.
func (s *testServer) vncTicket(tok, path string, want int, code string) string {
	s.t.Helper()
	r := s.do(req{method: "GET", path: path + "?type=vnc", token: tok})
	expect(s.t, r, want, code)
	if want != 200 {
		return ""
	}
	var c struct{ Type, Path string }
	r.decode(s.t, &c)
	if c.Type != "vnc" || !strings.Contains(c.Path, "/console/ws?ticket=") {
		s.t.Fatalf("got %+v; want a vnc ticket", c)
	}
	return "ws://" + s.app.Addr() + c.Path
}

// vncSession dials a vnc console URL as noVNC does (subprotocol binary) and runs an
// RFB session through it: security None, ClientInit, one update.
func vncSession(t *testing.T, url string) hypervisortest.ServerInit {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"binary"}, HandshakeTimeout: 10 * time.Second}
	ws, res, err := d.Dial(url, nil)
	if err != nil {
		t.Fatalf("dialling the vnc console: %v", err)
	}
	defer ws.Close()
	if res.Header.Get("Sec-WebSocket-Protocol") != "binary" {
		t.Fatalf("subprotocol %q; want binary", res.Header.Get("Sec-WebSocket-Protocol"))
	}
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	si, rects, err := hypervisortest.VNCSession(rfb.NewStream(ws), "")
	if err != nil {
		t.Fatalf("RFB session: %v", err)
	}
	if len(rects) != 1 || rects[0].Width != si.Width || rects[0].Height != si.Height {
		t.Fatalf("update %d rectangles; want the whole framebuffer", len(rects))
	}
	return si
}

func TestVNCConsole(t *testing.T) {
	t.Parallel()
	s, tok := synced(t)
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	if !m.Display {
		t.Fatalf("machine %s: display false; a sim machine has one", m.ID)
	}
	path := "/api/virt/vms/" + m.ID + "/console"
	url := s.vncTicket(tok, path, 200, "")
	if si := vncSession(t, url); si.Name != m.Name {
		t.Fatalf("desktop name %q; want %q", si.Name, m.Name)
	}
	// The ticket worked once.
	if _, res, err := websocket.DefaultDialer.Dial(url, nil); err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("got %v, %v; want the used ticket refused with 401", err, res)
	}
	expect(t, s.do(req{method: "GET", path: path + "?type=spice", token: tok}), 400, "invalid_request")
	// The serial console is still the default.
	var c struct{ Type string }
	r := s.do(req{method: "GET", path: path, token: tok})
	expect(t, r, 200, "")
	r.decode(t, &c)
	if c.Type != "serial" {
		t.Fatalf("type %q without ?type; want serial", c.Type)
	}

	// A machine without a display: 409 with the reason.
	hm, err := s.sim.AddMachine(hypervisor.Machine{Name: "headless", State: hypervisor.StateRunning, Headless: true}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s.sync(tok)
	h := s.machine(tok, strconv.Itoa(hm.VMID))
	if h.Display {
		t.Fatal("a headless machine: display true")
	}
	r = s.do(req{method: "GET", path: "/api/virt/vms/" + h.ID + "/console?type=vnc", token: tok})
	expect(t, r, 409, "invalid_state")
	if !strings.Contains(string(r.Body), "no display") {
		t.Fatalf("409 body %s; want the reason", r.Body)
	}

	// The client area: the tenant's own machine, and another tenant's is 404.
	a := s.tenant(tok, "Vnc", nil)
	b := s.tenant(tok, "Other", nil)
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/machines/" + m.ID, token: tok, body: map[string]any{"tenant_id": a.ID}}), 200, "")
	vncSession(t, s.vncTicket(a.Token, "/api/client/machines/"+m.ID+"/console", 200, ""))
	s.vncTicket(b.Token, "/api/client/machines/"+m.ID+"/console", 404, "not_found")
}

func TestProxmoxVNCConsole(t *testing.T) {
	t.Parallel()
	s, f, tok := proxmoxServer(t)
	s.sync(tok)
	web := s.machine(tok, "100")
	// Through vmplane's websocket to Proxmox's vncwebsocket: the fake asks for VNC
	// authentication with its vncticket, which the driver answers; the client is
	// offered None and never sees the ticket.
	url := s.vncTicket(tok, "/api/virt/vms/"+web.ID+"/console", 200, "")
	if si := vncSession(t, url); !strings.Contains(si.Name, "web-1") {
		t.Fatalf("desktop name %q; want the VM's", si.Name)
	}
	if f.Count("POST", "/nodes/{node}/qemu/{vmid}/vncproxy") == 0 {
		t.Fatal("the console did not go through vncproxy")
	}
}
