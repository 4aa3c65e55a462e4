package sim

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// term reads a console in the background so tests can wait for text with a timeout
// instead of hanging on a blocked Read.
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

// until reads until the accumulated output contains s and returns everything up to and
// including it.
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

// eof waits for the reader to end and returns the rest of the output.
func (tm *term) eof() (string, error) {
	tm.t.Helper()
	select {
	case err := <-tm.done:
		for {
			select {
			case c := <-tm.chunks:
				tm.buf += c
			default:
				return tm.buf, err
			}
		}
	case <-time.After(5 * time.Second):
		tm.t.Fatalf("console: reader never ended; got %q", tm.buf)
		return "", nil
	}
}

func (tm *term) send(s string) {
	tm.t.Helper()
	if _, err := io.WriteString(tm.c, s); err != nil {
		tm.t.Fatalf("console write %q: %v", s, err)
	}
}

func TestConsoleSession(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "web-1", Start: true})
	tm := openTerm(t, d, m.VMID)
	if tm.c.Type() != "serial" {
		t.Errorf("Type: got %q; want serial", tm.c.Type())
	}
	const prompt = "root@web-1:~# "
	if banner := tm.until(prompt); !strings.Contains(banner, "Debian GNU/Linux") && !strings.Contains(banner, "Debian 12") {
		t.Errorf("banner: got %q; want the template's OS name", banner)
	}

	f := func(input, want string) {
		t.Helper()
		tm.send(input)
		got := tm.until(prompt)
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
	tm.send("hostn") // a partial line is echoed, not run
	tm.until("hostn")
	tm.send("\x03") // ^C drops it
	if got := tm.until(prompt); !strings.Contains(got, "^C") {
		t.Errorf("^C: got %q; want ^C and a fresh prompt", got)
	}

	tm.send("exit\n")
	rest, err := tm.eof()
	if !errors.Is(err, io.EOF) || !strings.Contains(rest, "logout") {
		t.Errorf("exit: got %q, %v; want logout then io.EOF", rest, err)
	}
	if _, err := tm.c.Write([]byte("hostname\n")); err == nil {
		t.Errorf("write after exit: got nil; want an error")
	}
	if err := tm.c.Close(); err != nil {
		t.Errorf("Close after exit: got %v; want nil", err)
	}
}

func TestConsoleCloseUnblocksReader(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	tm := openTerm(t, d, m.VMID)
	tm.until("# ") // now the reader is blocked waiting for more
	for range 2 {  // idempotent
		if err := tm.c.Close(); err != nil {
			t.Errorf("Close: got %v; want nil", err)
		}
	}
	if _, err := tm.eof(); !errors.Is(err, io.EOF) {
		t.Errorf("read after Close: got %v; want io.EOF", err)
	}
}

func TestConsoleEndsWhenMachineStops(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	tm := openTerm(t, d, m.VMID)
	tm.until("# ")
	if err := d.Power(bg, hypervisor.Ref{VMID: m.VMID}, hypervisor.ActionStop); err != nil {
		t.Fatal(err)
	}
	rest, err := tm.eof()
	if !errors.Is(err, io.EOF) || !strings.Contains(rest, "stopped") {
		t.Errorf("after stop: got %q, %v; want a last message and io.EOF", rest, err)
	}
}

func TestConsoleRefused(t *testing.T) {
	d, _ := newTest(t, Config{})
	stopped := create(t, d, hypervisor.CreateSpec{})
	_, err := d.Console(bg, hypervisor.Ref{VMID: stopped.VMID})
	wantErr(t, "console of a stopped machine", err, hypervisor.ErrWrongState, apierr.ErrInvalidState)
	_, err = d.Console(bg, hypervisor.Ref{VMID: 4040})
	wantErr(t, "console of an unknown machine", err, hypervisor.ErrMachineNotFound)

	running := create(t, d, hypervisor.CreateSpec{Start: true})
	d.FailNext(running.VMID, OpConsole, nil)
	_, err = d.Console(bg, hypervisor.Ref{VMID: running.VMID})
	wantErr(t, "injected console failure", err, hypervisor.ErrTaskFailed)
}
