package proxmox

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// term reads a console in the background so tests can wait for text with a timeout.
type term struct {
	t      *testing.T
	c      hypervisor.Console
	chunks chan string
	done   chan error
	buf    string
}

func openTerm(t *testing.T, d *Driver, vmid int) *term {
	t.Helper()
	c, err := d.Console(bg, hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatalf("Console(%d): %v", vmid, err)
	}
	tm := &term{t: t, c: c, chunks: make(chan string, 64), done: make(chan error, 1)}
	go func() {
		p := make([]byte, 16) // small reads exercise partial draining
		for {
			n, err := c.Read(p)
			if n > 0 {
				tm.chunks <- string(p[:n])
			}
			if err != nil {
				tm.done <- err
				return
			}
		}
	}()
	t.Cleanup(func() { c.Close() })
	return tm
}

// until reads until the output contains s and returns everything up to it.
func (tm *term) until(s string) string {
	tm.t.Helper()
	timeout := time.After(5 * time.Second)
	for !strings.Contains(tm.buf, s) {
		select {
		case c := <-tm.chunks:
			tm.buf += c
		case <-timeout:
			tm.t.Fatalf("console: waited for %q; got %q", s, tm.buf)
		}
	}
	i := strings.Index(tm.buf, s) + len(s)
	out := tm.buf[:i]
	tm.buf = tm.buf[i:]
	return out
}

func TestConsole(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{Name: "web-1", Status: "running"})
	tm := openTerm(t, d, id)
	if tm.c.Type() != "serial" {
		t.Errorf("Type: got %q; want serial", tm.c.Type())
	}
	tm.until("root@web-1:~# ")
	if _, err := tm.c.Write([]byte("hostname\r")); err != nil {
		t.Fatal(err)
	}
	if out := tm.until("root@web-1:~# "); !strings.Contains(out, "hostname\r\nweb-1\r\n") {
		t.Errorf("hostname: got %q; want the echo and web-1", out)
	}
	if err := tm.c.(*SerialConsole).Resize(120, 40); err != nil {
		t.Errorf("Resize: %v", err)
	}
	if _, err := tm.c.Write([]byte("exit\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-tm.done:
		if err != io.EOF {
			t.Errorf("after exit: got %v; want io.EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("console did not end after exit")
	}
	if err := tm.c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := tm.c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := tm.c.Write([]byte("x")); err == nil {
		t.Errorf("Write after Close: got no error; want one")
	}
	// The websocket went to Proxmox with the console user's cookie, never the token:
	// the fake refuses tokens there.
	if n := f.Count("GET", "/nodes/{node}/qemu/{vmid}/vncwebsocket"); n != 1 {
		t.Errorf("websocket upgrades: got %d; want 1", n)
	}
}

func TestConsoleClose(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{Status: "running"})
	tm := openTerm(t, d, id)
	tm.until(":~# ")
	tm.c.Close()
	select {
	case err := <-tm.done:
		if err != io.EOF {
			t.Errorf("blocked Read after Close: got %v; want io.EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a blocked Read did not return after Close")
	}
}

func TestConsoleRefusals(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	stopped := addVM(t, f, pvefake.VMSpec{})
	noSerial := addVM(t, f, pvefake.VMSpec{Status: "running", Config: map[string]string{"serial0": ""}})
	_, err := d.Console(bg, hypervisor.Ref{VMID: stopped})
	wantErr(t, "stopped machine", err, hypervisor.ErrWrongState, apierr.ErrInvalidState)
	_, err = d.Console(bg, hypervisor.Ref{VMID: noSerial})
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
