// Package sdnotify speaks systemd's service notification protocol (sd_notify(3)): a
// service of Type=notify tells systemd it is ready (READY=1), stopping (STOPPING=1),
// alive (WATCHDOG=1) and what it is doing (STATUS=...), each as one datagram to the
// unix socket named by $NOTIFY_SOCKET. Outside systemd there is no socket and every
// call is a no-op. It is the protocol in thirty lines, so no library is needed.
package sdnotify

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Notifier sends notifications to the socket systemd gave this process. The zero
// value, and a nil *Notifier, send nothing.
type Notifier struct {
	socket   string        // "" when not run by systemd (or not as Type=notify)
	watchdog time.Duration // WATCHDOG_USEC; 0 when no watchdog is asked of this process

	mu     sync.Mutex
	status string // the last STATUS= sent through Notify, restored after a failed watchdog check
}

// FromEnv reads $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID and then removes them
// from the environment, so that child processes (the hash workers) neither notify nor
// are taken for the service. The error says why a setting was ignored; the Notifier
// is usable either way.
func FromEnv() (*Notifier, error) {
	n := &Notifier{}
	socket, usec, pid := os.Getenv("NOTIFY_SOCKET"), os.Getenv("WATCHDOG_USEC"), os.Getenv("WATCHDOG_PID")
	for _, k := range []string{"NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"} {
		os.Unsetenv(k)
	}
	var errs []string
	switch {
	case socket == "":
	case strings.HasPrefix(socket, "/") || strings.HasPrefix(socket, "@"):
		// Go maps a leading @ to the abstract namespace (a leading NUL byte) itself.
		n.socket = socket
	default:
		errs = append(errs, fmt.Sprintf("NOTIFY_SOCKET %q is not a unix socket path (only /path and @abstract are supported)", socket))
	}
	if usec != "" {
		// WATCHDOG_PID, when set, says which process the watchdog is for: a child that
		// inherited the variables must not ping for its parent.
		if p, err := strconv.Atoi(pid); pid != "" && (err != nil || p != os.Getpid()) {
			usec = ""
		}
	}
	if usec != "" {
		if us, err := strconv.ParseUint(usec, 10, 63); err != nil || us == 0 {
			errs = append(errs, fmt.Sprintf("WATCHDOG_USEC %q is not a positive number of microseconds", usec))
		} else {
			n.watchdog = time.Duration(us) * time.Microsecond
		}
	}
	if len(errs) > 0 {
		return n, fmt.Errorf("sdnotify: %s", strings.Join(errs, "; "))
	}
	return n, nil
}

// Enabled reports whether notifications go anywhere.
func (n *Notifier) Enabled() bool { return n != nil && n.socket != "" }

// Notify sends the given assignments ("READY=1", "STATUS=...") as one datagram.
func (n *Notifier) Notify(state ...string) error {
	if !n.Enabled() {
		return nil
	}
	for _, s := range state {
		if strings.HasPrefix(s, "STATUS=") {
			n.mu.Lock()
			n.status = s
			n.mu.Unlock()
		}
	}
	return n.send(state...)
}

func (n *Notifier) send(state ...string) error {
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: n.socket, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sdnotify: %w", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(strings.Join(state, "\n") + "\n")); err != nil {
		return fmt.Errorf("sdnotify: %w", err)
	}
	return nil
}

// WatchdogInterval is how often to send WATCHDOG=1: half of WatchdogSec, as
// sd_watchdog_enabled(3) advises; 0 when systemd asks for no watchdog pings.
func (n *Notifier) WatchdogInterval() time.Duration {
	if !n.Enabled() {
		return 0
	}
	return n.watchdog / 2
}

// Watchdog sends WATCHDOG=1 every WatchdogInterval until ctx ends, each time only
// after alive (given at most one interval) says the process still does its work: a
// process that is hung but whose timer still ticks must not keep the watchdog fed.
// A failed check is passed to failed and sent as STATUS=, and no ping goes out, so
// that systemd restarts the service if the checks keep failing for WatchdogSec.
// It returns at once when there is no watchdog.
func (n *Notifier) Watchdog(ctx context.Context, alive func(context.Context) error, failed func(error)) {
	interval := n.WatchdogInterval()
	if interval <= 0 {
		return
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, interval)
		err := alive(cctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if failed != nil {
				failed(err)
			}
			failing = true
			_ = n.send("STATUS=watchdog check failed: " + oneLine(err.Error()))
			continue
		}
		ping := []string{"WATCHDOG=1"}
		if failing {
			failing = false
			n.mu.Lock()
			if n.status != "" {
				ping = append(ping, n.status)
			}
			n.mu.Unlock()
		}
		_ = n.send(ping...)
	}
}

// oneLine keeps a STATUS= value on its line: a newline would start another assignment.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// Status formats a STATUS= assignment from free text.
func Status(format string, args ...any) string {
	return "STATUS=" + oneLine(fmt.Sprintf(format, args...))
}
