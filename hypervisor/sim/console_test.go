package sim

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
)

func openTerm(t *testing.T, d *Driver, vmid int) *hypervisortest.Term {
	t.Helper()
	c, err := d.Console(bg, hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatalf("Console(%d): %v", vmid, err)
	}
	return hypervisortest.NewTerm(t, c)
}

func TestConsoleSession(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "web-1", Start: true})
	tm := openTerm(t, d, m.VMID)
	if tm.C.Type() != "serial" {
		t.Errorf("Type: got %q; want serial", tm.C.Type())
	}
	const prompt = "root@web-1:~# "
	if banner := tm.Until(prompt); !strings.Contains(banner, "Debian GNU/Linux") && !strings.Contains(banner, "Debian 12") {
		t.Errorf("banner: got %q; want the template's OS name", banner)
	}

	f := func(input, want string) {
		t.Helper()
		tm.Send(input)
		got := tm.Until(prompt)
		if !strings.Contains(got, want) {
			t.Errorf("%q: got %q; want it to contain %q", input, got, want)
		}
	}
	f("hostname\n", "hostname\r\nweb-1\r\n")       // echo, then the answer
	f("whoami\r", "root\r\n")                      // \r is enter too
	f("echo hello   world\r\n", "hello world\r\n") // \r\n is one enter
	f("uname -a\n", "Linux web-1 6.1.0")
	f("uptime\n", "up 0 min,  1 user")
	f("frobnicate --now\n", "frobnicate: command not found\r\n")
	f("help\n", "hostname")
	f("hostnamX\x7fe\n", "web-1\r\n") // backspace edits the line
	f("\n", "\r\n")
	tm.Send("hostn") // a partial line is echoed, not run
	tm.Until("hostn")
	tm.Send("\x03") // ^C drops it
	if got := tm.Until(prompt); !strings.Contains(got, "^C") {
		t.Errorf("^C: got %q; want ^C and a fresh prompt", got)
	}

	tm.Send("exit\n")
	rest, err := tm.EOF()
	if !errors.Is(err, io.EOF) || !strings.Contains(rest, "logout") {
		t.Errorf("exit: got %q, %v; want logout then io.EOF", rest, err)
	}
	if _, err := tm.C.Write([]byte("hostname\n")); err == nil {
		t.Errorf("write after exit: got nil; want an error")
	}
	if err := tm.C.Close(); err != nil {
		t.Errorf("Close after exit: got %v; want nil", err)
	}
}

func TestConsoleEndsWhenMachineStops(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	tm := openTerm(t, d, m.VMID)
	tm.Until("# ")
	if err := d.Power(bg, hypervisor.Ref{VMID: m.VMID}, hypervisor.ActionStop); err != nil {
		t.Fatal(err)
	}
	rest, err := tm.EOF()
	if !errors.Is(err, io.EOF) || !strings.Contains(rest, "stopped") {
		t.Errorf("after stop: got %q, %v; want a last message and io.EOF", rest, err)
	}
}

func TestConsoleFailureInjected(t *testing.T) {
	d, _ := newTest(t, Config{})
	running := create(t, d, hypervisor.CreateSpec{Start: true})
	d.FailNext(running.VMID, OpConsole, nil)
	_, err := d.Console(bg, hypervisor.Ref{VMID: running.VMID})
	wantErr(t, "injected console failure", err, hypervisor.ErrTaskFailed)
}

// A display ends as a serial console does when its machine stops: its reader gets
// io.EOF rather than a stream that never moves again.
func TestDisplayEndsWhenMachineStops(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	c, err := d.Display(bg, hypervisor.Ref{VMID: m.VMID})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := hypervisortest.VNCSession(c, ""); err != nil {
		t.Fatalf("the display's RFB session: %v", err)
	}
	if err := d.Power(bg, hypervisor.Ref{VMID: m.VMID}, hypervisor.ActionStop); err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, c); err != nil || n != 0 {
		t.Errorf("after stop: read %d bytes, %v; want the stream ended (io.EOF)", n, err)
	}
}
