// Package serial is the simulated cluster's serial console: a tiny shell, logged in
// as root, that answers hostname, uname, uptime, echo, whoami, help and exit, as a
// machine's ttyS0 would. The sim (package sim) opens one per Console call and hangs it
// up when the machine stops, reboots, migrates or its node goes offline.
package serial

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
)

// Interface guard: a session is what Driver.Console returns.
var _ hypervisor.Console = (*Console)(nil)

// Console is one console session, a hypervisor.Console. Output accumulates in a
// buffer that Read drains; a condition variable wakes blocked readers on output,
// hangup and Close.
type Console struct {
	name   string
	tpl    hypervisor.Template
	booted time.Time
	now    func() time.Time

	mu     sync.Mutex
	cond   *sync.Cond
	out    []byte
	line   []byte
	lastCR bool // the previous input byte was \r, so a following \n is the same enter
	hungUp bool // the session ended: Read drains what is left, then io.EOF
	closed bool // Close was called: Read answers io.EOF at once
}

// New opens a session on the console of a machine named name, installed from tpl and
// running since booted: the boot banner and the root prompt are there to read.
func New(name string, tpl hypervisor.Template, booted time.Time, now func() time.Time) *Console {
	c := &Console{name: name, tpl: tpl, booted: booted, now: now}
	c.cond = sync.NewCond(&c.mu)
	os := tpl.Name
	if os == "" {
		os = "Linux"
	}
	c.emit("\r\n%s %s ttyS0\r\n\r\n%s login: root (automatic login)\r\n\r\n", os, name, name)
	c.prompt()
	return c
}

// Type is "serial": the sim has no framebuffer.
func (c *Console) Type() string { return "serial" }

// Read blocks until output is available, returning io.EOF once the session is over.
func (c *Console) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.out) == 0 && !c.hungUp && !c.closed {
		c.cond.Wait()
	}
	if c.closed || len(c.out) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}

// Write types bytes into the console as a serial terminal sends them: characters are
// echoed, \r or \n (or \r\n) runs the line, backspace edits it, ^C drops it and ^D on an
// empty line logs out.
func (c *Console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.hungUp {
		return 0, io.ErrClosedPipe
	}
	defer c.cond.Broadcast()
	for _, b := range p {
		if c.hungUp {
			break // exit ended the session; the rest of the input goes nowhere
		}
		if b == '\n' && c.lastCR {
			c.lastCR = false
			continue
		}
		c.lastCR = b == '\r'
		switch {
		case b == '\r' || b == '\n':
			c.emit("\r\n")
			c.exec(string(c.line))
			c.line = c.line[:0]
		case b == 0x7f || b == '\b':
			if len(c.line) > 0 {
				c.line = c.line[:len(c.line)-1]
				c.emit("\b \b")
			}
		case b == 0x03: // ^C
			c.emit("^C\r\n")
			c.line = c.line[:0]
			c.prompt()
		case b == 0x04: // ^D
			if len(c.line) == 0 {
				c.exec("exit")
			}
		case b < 0x20: // other control characters (escape sequences) are ignored
		default:
			c.line = append(c.line, b)
			c.out = append(c.out, b)
		}
	}
	return len(p), nil
}

// Close ends the session and wakes blocked readers. It is idempotent.
func (c *Console) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.out = nil
	c.cond.Broadcast()
	return nil
}

// Hangup ends the session from the machine's side, leaving a last message to read.
func (c *Console) Hangup(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.hungUp {
		return
	}
	c.emit("\r\n%s\r\n", msg)
	c.hungUp = true
	c.cond.Broadcast()
}

// Ended reports whether the session is over.
func (c *Console) Ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed || c.hungUp
}

func (c *Console) emit(format string, args ...any) {
	c.out = fmt.Appendf(c.out, format, args...)
}

func (c *Console) prompt() { c.emit("root@%s:~# ", c.name) }

// exec runs one command line of the tiny shell.
func (c *Console) exec(line string) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		c.prompt()
		return
	}
	switch cmd, args := fields[0], fields[1:]; cmd {
	case "hostname":
		c.emit("%s\r\n", c.name)
	case "whoami":
		c.emit("root\r\n")
	case "echo":
		for i, a := range args {
			args[i] = strings.Trim(a, `"'`)
		}
		c.emit("%s\r\n", strings.Join(args, " "))
	case "uname":
		c.emit("%s\r\n", c.uname(args))
	case "uptime":
		c.emit("%s\r\n", c.uptime())
	case "help":
		c.emit("commands: hostname, uname [-a|-r|-s], uptime, echo <text>, whoami, help, exit\r\n")
	case "exit", "logout":
		c.emit("logout\r\n")
		c.hungUp = true
		return
	default:
		c.emit("%s: command not found\r\n", cmd)
	}
	c.prompt()
}

// kernels are plausible uname -r/-v strings per template OS.
var kernels = map[string][2]string{
	"debian": {"6.1.0-28-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)"},
	"ubuntu": {"6.8.0-51-generic", "#52-Ubuntu SMP PREEMPT_DYNAMIC Thu Dec  5 13:09:44 UTC 2024"},
	"rocky":  {"5.14.0-503.14.1.el9_5.x86_64", "#1 SMP PREEMPT_DYNAMIC Fri Nov 15 12:04:32 UTC 2024"},
}

func (c *Console) uname(args []string) string {
	k, ok := kernels[c.tpl.OS]
	if !ok {
		k = kernels["debian"]
	}
	if len(args) == 0 {
		return "Linux"
	}
	switch args[0] {
	case "-a":
		return fmt.Sprintf("Linux %s %s %s x86_64 GNU/Linux", c.name, k[0], k[1])
	case "-r":
		return k[0]
	case "-s":
		return "Linux"
	}
	return fmt.Sprintf("uname: invalid option -- '%s'", strings.TrimLeft(args[0], "-"))
}

// uptime answers in procps' format, counting from the machine's last start.
func (c *Console) uptime() string {
	now := c.now().UTC()
	up := max(now.Sub(c.booted), 0)
	days := int(up / (24 * time.Hour))
	h, m := int(up/time.Hour)%24, int(up/time.Minute)%60
	var since string
	switch {
	case days > 0:
		unit := "days"
		if days == 1 {
			unit = "day"
		}
		since = fmt.Sprintf("%d %s, %2d:%02d", days, unit, h, m)
	case h > 0:
		since = fmt.Sprintf("%2d:%02d", h, m)
	default:
		since = fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf(" %s up %s,  1 user,  load average: 0.08, 0.03, 0.01", now.Format("15:04:05"), since)
}
