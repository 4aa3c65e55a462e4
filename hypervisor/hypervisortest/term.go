// Package hypervisortest holds test helpers shared by the hypervisor drivers' tests.
package hypervisortest

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
)

// Term reads a console in the background, so a test can wait for text with a timeout
// instead of hanging on a blocked Read.
type Term struct {
	// C is the console; tests may use it directly.
	C      hypervisor.Console
	t      testing.TB
	chunks chan string
	done   chan error
	buf    string
}

// NewTerm starts reading c; c is closed when the test ends.
func NewTerm(t testing.TB, c hypervisor.Console) *Term {
	tm := &Term{C: c, t: t, chunks: make(chan string, 64), done: make(chan error, 1)}
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

// Until reads until the accumulated output contains s and returns everything up to
// and including it.
func (tm *Term) Until(s string) string {
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

// EOF waits for the reader to end and returns the rest of the output and the error
// that ended it.
func (tm *Term) EOF() (string, error) {
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

// Send writes s to the console.
func (tm *Term) Send(s string) {
	tm.t.Helper()
	if _, err := io.WriteString(tm.C, s); err != nil {
		tm.t.Fatalf("console write %q: %v", s, err)
	}
}
