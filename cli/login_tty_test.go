//go:build linux

package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/cli"
	"github.com/vmplane/vmplane/client"
	"github.com/vmplane/vmplane/internal/testwait"
)

// openPTY opens a pseudo-terminal: the master end (the user's keyboard and screen)
// and the terminal end the command reads as its standard input.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close(); master.Close() })
	return master, tty
}

// TestInteractiveLogin: on a terminal, login asks for the e-mail and then the
// password, which the terminal does not echo.
func TestInteractiveLogin(t *testing.T) {
	w := newWorld(t)
	w.ok("remote", "add", "test", w.base)
	master, tty := openPTY(t)

	// What the terminal shows: the echo of what is typed (the e-mail, not the password).
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 1024)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	var errOut syncBuffer
	var out bytes.Buffer
	env := cli.Env{Stdin: tty, Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return w.vars[k] }}
	done := make(chan int, 1)
	go func() { done <- cli.Execute(cli.New(env), []string{"login"}, env) }()

	// Type each answer once its prompt is there: the password only after echo is off.
	waitFor := func(s string) {
		t.Helper()
		testwait.Until(t, func() error {
			if out := errOut.String(); !strings.Contains(out, s) {
				return fmt.Errorf("no %q prompt; stderr %q", s, out)
			}
			return nil
		})
	}
	waitFor("E-mail: ")
	io.WriteString(master, apptest.AdminEmail+"\n")
	waitFor("Password: ")
	io.WriteString(master, apptest.AdminPassword+"\n")
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("login: exit %d, stderr %q", code, errOut.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("login did not end")
	}
	if !strings.Contains(out.String(), "logged in to test as "+apptest.AdminEmail) {
		t.Fatalf("login: stdout %q", out.String())
	}
	// A last line typed now (echo is on again) is echoed after everything before it:
	// once it is on the screen, so is whatever the password's typing echoed.
	io.WriteString(master, "sentinel\n")
	testwait.Until(t, func() error {
		mu.Lock()
		defer mu.Unlock()
		if !strings.Contains(screen.String(), "sentinel") {
			return errors.New("the terminal echoes nothing after the login: was its mode restored?")
		}
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(screen.String(), apptest.AdminEmail) {
		t.Fatalf("the terminal did not echo the e-mail: %q", screen.String())
	}
	if strings.Contains(screen.String(), apptest.AdminPassword) {
		t.Fatalf("the terminal echoed the password: %q", screen.String())
	}
	if _, ok := w.credentials()["test"]; !ok {
		t.Fatal("no login stored")
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMachineDeleteAsksOnATerminal: on a terminal, machine delete asks first, naming
// the machine and its state; anything but y keeps the machine.
func TestMachineDeleteAsksOnATerminal(t *testing.T) {
	w := newWorld(t)
	w.login()
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Acme")
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "web-1", "--template", "tpl-ubuntu-24.04", "--wait")
	for _, answer := range []string{"n", "y"} {
		master, tty := openPTY(t)
		go func() { _, _ = io.Copy(io.Discard, master) }() // the echo
		var errOut syncBuffer
		var out bytes.Buffer
		env := cli.Env{Stdin: tty, Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return w.vars[k] }}
		done := make(chan int, 1)
		go func() { done <- cli.Execute(cli.New(env), []string{"machine", "delete", m.ID, "--wait"}, env) }()
		prompt := "delete machine web-1 (" + m.ID + ", state running) and its disks? [y/N] "
		testwait.Eventually(t, "the question", func() bool { return strings.Contains(errOut.String(), prompt) })
		io.WriteString(master, answer+"\n")
		var code int
		select {
		case code = <-done:
		case <-time.After(time.Minute):
			t.Fatal("machine delete did not end")
		}
		if answer == "n" {
			if code != 1 || !strings.Contains(errOut.String(), "machine "+m.ID+" not deleted") {
				t.Fatalf("answered n: exit %d, stderr %q; want 1 and not deleted", code, errOut.String())
			}
			w.okJSON(&m, "machine", "show", m.ID)
			continue
		}
		if code != 0 {
			t.Fatalf("answered y: exit %d, stderr %q", code, errOut.String())
		}
		w.fails(1, "not_found", "machine", "show", m.ID)
	}
}
