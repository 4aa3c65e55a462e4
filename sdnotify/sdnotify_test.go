package sdnotify

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listen is a unixgram socket standing for systemd's notification socket.
func listen(t *testing.T, name string) *net.UnixConn {
	t.Helper()
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// next reads one datagram; the deadline only catches a message that never comes.
func next(t *testing.T, c *net.UnixConn) string {
	t.Helper()
	buf := make([]byte, 4096)
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}

func TestNotifyPathAndAbstractSockets(t *testing.T) {
	dir, err := os.MkdirTemp("", "sd") // t.TempDir() can exceed a socket path's 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	abstract := "@vmplane-sdnotify-test-" + strconv.Itoa(os.Getpid())
	for _, name := range []string{filepath.Join(dir, "notify"), abstract} {
		c := listen(t, name)
		t.Setenv("NOTIFY_SOCKET", name)
		n, err := FromEnv()
		if err != nil || !n.Enabled() {
			t.Fatalf("FromEnv with %s: %v, enabled %v", name, err, n.Enabled())
		}
		if v, ok := os.LookupEnv("NOTIFY_SOCKET"); ok {
			t.Fatalf("NOTIFY_SOCKET still set (%q): children would inherit it", v)
		}
		if err := n.Notify("READY=1", Status("serving on\n%s", "x")); err != nil {
			t.Fatal(err)
		}
		if got := next(t, c); got != "READY=1\nSTATUS=serving on x\n" {
			t.Fatalf("%s: got %q", name, got)
		}
	}
}

func TestNoSocketIsANoOp(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	n, err := FromEnv()
	if err != nil || n.Enabled() || n.WatchdogInterval() != 0 {
		t.Fatalf("got %v, enabled %v", err, n.Enabled())
	}
	if err := n.Notify("READY=1"); err != nil {
		t.Fatal(err)
	}
	var nilN *Notifier
	if err := nilN.Notify("READY=1"); err != nil || nilN.Enabled() {
		t.Fatal("a nil Notifier must send nothing")
	}
	t.Setenv("NOTIFY_SOCKET", "vsock:2:1234")
	if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), "vsock:2:1234") {
		t.Fatalf("an unsupported socket: got %v; want an error naming it", err)
	}
}

func TestWatchdogSettings(t *testing.T) {
	cases := []struct {
		usec, pid string
		want      time.Duration
		bad       bool
	}{
		{"", "", 0, false},
		{"30000000", "", 15 * time.Second, false},
		{"30000000", strconv.Itoa(os.Getpid()), 15 * time.Second, false},
		{"30000000", strconv.Itoa(os.Getpid() + 1), 0, false}, // another process's watchdog
		{"30000000", "garbage", 0, false},
		{"soon", "", 0, true},
		{"0", "", 0, true},
	}
	for _, tc := range cases {
		t.Setenv("NOTIFY_SOCKET", "@x")
		t.Setenv("WATCHDOG_USEC", tc.usec)
		t.Setenv("WATCHDOG_PID", tc.pid)
		n, err := FromEnv()
		if got := n.WatchdogInterval(); got != tc.want || (err != nil) != tc.bad {
			t.Errorf("WATCHDOG_USEC=%q WATCHDOG_PID=%q: interval %v, err %v; want %v, error %v", tc.usec, tc.pid, got, err, tc.want, tc.bad)
		}
		for _, k := range []string{"WATCHDOG_USEC", "WATCHDOG_PID"} {
			if _, ok := os.LookupEnv(k); ok {
				t.Errorf("%s still set", k)
			}
		}
	}
}

// TestWatchdogPingsOnlyWhenAlive: a failed check sends no WATCHDOG=1 but a STATUS=
// saying why; the next good check pings again and restores the last status.
func TestWatchdogPingsOnlyWhenAlive(t *testing.T) {
	name := "@vmplane-sdnotify-wd-" + strconv.Itoa(os.Getpid())
	c := listen(t, name)
	t.Setenv("NOTIFY_SOCKET", name)
	t.Setenv("WATCHDOG_USEC", "20000")
	t.Setenv("WATCHDOG_PID", "")
	n, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Notify("READY=1", "STATUS=serving"); err != nil {
		t.Fatal(err)
	}
	next(t, c)
	checks := make(chan error)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.Watchdog(ctx, func(context.Context) error { return <-checks }, nil)
	}()
	checks <- nil
	if got := next(t, c); got != "WATCHDOG=1\n" {
		t.Fatalf("got %q; want a ping", got)
	}
	checks <- errors.New("health does not answer")
	if got := next(t, c); got != "STATUS=watchdog check failed: health does not answer\n" {
		t.Fatalf("got %q; want the failure as status and no ping", got)
	}
	checks <- nil
	if got := next(t, c); got != "WATCHDOG=1\nSTATUS=serving\n" {
		t.Fatalf("got %q; want a ping restoring the status", got)
	}
	cancel()
	<-done
}
