package proxmox

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
	"github.com/vmplane/vmplane/internal/testwait"
)

func openTerm(t *testing.T, d *Driver, vmid int) *hypervisortest.Term {
	t.Helper()
	c, err := d.Console(bg, hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatalf("Console(%d): %v", vmid, err)
	}
	return hypervisortest.NewTerm(t, c)
}

// TestConsole: the serial console goes over Proxmox's vncwebsocket with the console
// user's ticket and takes a resize; the conformance suite checks the session.
func TestConsole(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{Name: "web-1", Status: "running"})
	tm := openTerm(t, d, id)
	if tm.C.Type() != "serial" {
		t.Errorf("Type: got %q; want serial", tm.C.Type())
	}
	tm.Until("root@web-1:~# ")
	if _, err := tm.C.Write([]byte("hostname\r")); err != nil {
		t.Fatal(err)
	}
	if out := tm.Until("root@web-1:~# "); !strings.Contains(out, "hostname\r\nweb-1\r\n") {
		t.Errorf("hostname: got %q; want the echo and web-1", out)
	}
	if err := tm.C.(*SerialConsole).Resize(120, 40); err != nil {
		t.Errorf("Resize: %v", err)
	}
	if _, err := tm.C.Write([]byte("exit\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.EOF(); err != io.EOF {
		t.Errorf("after exit: got %v; want io.EOF", err)
	}
	if err := tm.C.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := tm.C.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := tm.C.Write([]byte("x")); err == nil {
		t.Errorf("Write after Close: got no error; want one")
	}
	// The websocket went to Proxmox with the console user's cookie, never the token:
	// the fake refuses tokens there.
	if n := f.Count("GET", "/nodes/{node}/qemu/{vmid}/vncwebsocket"); n != 1 {
		t.Errorf("websocket upgrades: got %d; want 1", n)
	}
}

func TestConsoleRefusals(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	noSerial := addVM(t, f, pvefake.VMSpec{Status: "running", Config: map[string]string{"serial0": ""}})
	_, err := d.Console(bg, hypervisor.Ref{VMID: noSerial})
	wantErr(t, "no serial port", err, hypervisor.ErrWrongState)
	wantContains(t, "no serial port", err, "serial0")

	running := addVM(t, f, pvefake.VMSpec{Status: "running"})
	noUser, _ := newTest(t, pvefake.Config{}, func(c *Config) { c.ConsoleUser, c.ConsolePassword = "", "" })
	_, err = noUser.Console(bg, hypervisor.Ref{VMID: running})
	wantErr(t, "no console user", err, hypervisor.ErrUnavailable, apierr.ErrUnavailable)
	wantContains(t, "no console user", err, "ConsoleUser", "VM.Console")

	badPass, f2 := newTest(t, pvefake.Config{}, func(c *Config) { c.ConsolePassword = "wrong-console-pass" })
	id2 := addVM(t, f2, pvefake.VMSpec{Status: "running"})
	_, err = badPass.Console(bg, hypervisor.Ref{VMID: id2})
	wantErr(t, "wrong console password", err, hypervisor.ErrUnavailable)
	if err != nil && strings.Contains(err.Error(), "wrong-console-pass") {
		t.Errorf("wrong console password: the error %q shows the password", err)
	}
}

// A display whose viewer only watches stays open past pveproxy's idle timeout: the
// driver pings the websocket meanwhile, and the session answers afterwards. The idle
// timeout is thirty pings long: with 300 ms (fifteen pings) the fake once hung up in a
// CI run, the machine saturated by the other packages' tests and the race detector,
// when a ping came late (and then no more pings came).
func TestDisplayKeptAliveWhileIdle(t *testing.T) {
	t.Parallel()
	d, f := newTest(t, pvefake.Config{WebsocketIdle: 1500 * time.Millisecond}, func(c *Config) { c.ConsolePing = 50 * time.Millisecond })
	vmid, err := f.AddVM(pvefake.VMSpec{Node: "pve1", Name: "watched", Status: "running"})
	if err != nil {
		t.Fatal(err)
	}
	con, err := d.Display(bg, hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatal(err)
	}
	defer con.Close()
	si, _, err := hypervisortest.VNCSession(con, "")
	if err != nil {
		t.Fatal(err)
	}
	// Sixty pings of 50 ms span twice the idle timeout.
	testwait.Eventually(t, "the driver pings the idle display", func() bool { return f.WebsocketPings() >= 60 })
	if err := hypervisortest.RequestUpdate(con, false, si.Width, si.Height); err != nil {
		t.Fatalf("a request after the idle time: %v", err)
	}
	if rects, err := hypervisortest.ReadUpdate(con, si.Format); err != nil || len(rects) != 1 {
		t.Fatalf("an update after the idle time: %d rectangles, %v; want the framebuffer", len(rects), err)
	}
}
