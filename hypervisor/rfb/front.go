package rfb

import (
	"errors"
	"io"
	"sync"
)

// NoneFront presents up, an RFB connection already authenticated (past its
// SecurityResult, see ClientHandshake), as the start of a new one that offers security
// None: Read first answers the version, the one security type None and, once the
// client chose it, a SecurityResult of success; Write takes the client's version and
// choice, and everything after them (ClientInit first) goes to up unchanged, as
// everything up sends then comes back from Read. So a browser reaches the hypervisor's
// VNC server without ever seeing the password the driver authenticated with.
func NoneFront(up io.ReadWriteCloser) io.ReadWriteCloser {
	f := &noneFront{up: up, out: []byte(Version)}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// The stages of the client's side of the handshake NoneFront plays.
const (
	frontVersion = iota // waiting for the client's version
	frontChoice         // waiting for its choice of security type
	frontSpliced        // done: bytes flow through
)

type noneFront struct {
	up     io.ReadWriteCloser
	mu     sync.Mutex
	cond   *sync.Cond
	out    []byte // handshake bytes the reader has yet to get
	in     []byte // the client's handshake bytes not yet understood
	stage  int
	closed bool
}

var errFrontHandshake = errors.New("rfb: the client broke the handshake (it must speak 3.8 and choose None)")

func (f *noneFront) Read(p []byte) (int, error) {
	f.mu.Lock()
	for len(f.out) == 0 && f.stage != frontSpliced && !f.closed {
		f.cond.Wait()
	}
	if len(f.out) > 0 {
		n := copy(p, f.out)
		f.out = f.out[n:]
		f.mu.Unlock()
		return n, nil
	}
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return 0, io.EOF
	}
	return f.up.Read(p)
}

func (f *noneFront) Write(p []byte) (int, error) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return 0, io.ErrClosedPipe
	}
	if f.stage == frontSpliced {
		f.mu.Unlock()
		return f.up.Write(p)
	}
	f.in = append(f.in, p...)
	if f.stage == frontVersion && len(f.in) >= len(Version) {
		if string(f.in[:len(Version)]) != Version {
			f.mu.Unlock()
			_ = f.Close()
			return 0, errFrontHandshake
		}
		f.in = f.in[len(Version):]
		f.out = append(f.out, 1, SecNone)
		f.stage = frontChoice
	}
	var rest []byte
	if f.stage == frontChoice && len(f.in) >= 1 {
		if f.in[0] != SecNone {
			f.mu.Unlock()
			_ = f.Close()
			return 0, errFrontHandshake
		}
		f.out = append(f.out, 0, 0, 0, 0)
		rest, f.in = f.in[1:], nil
		f.stage = frontSpliced
	}
	f.cond.Broadcast()
	f.mu.Unlock()
	if len(rest) > 0 {
		if _, err := f.up.Write(rest); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Close closes up and wakes a blocked Read; it may be called more than once.
func (f *noneFront) Close() error {
	f.mu.Lock()
	f.closed = true
	f.cond.Broadcast()
	f.mu.Unlock()
	return f.up.Close()
}
