//go:build unix

package bench

import "syscall"

// writeThenRead writes out and reads the answer into p in one round of the poller:
// write, wait until the socket is readable, read. Go's own Read would first try a
// read that can only fail with EAGAIN this soon after the write, which costs a
// system call per request. Both happen inside one RawConn.Read so that readiness
// cannot be signalled between the write and the wait and then be lost. When the
// socket takes only part of out, n is 0 and rest is what remains to write.
func (s *rawStep) writeThenRead(raw syscall.RawConn, out, p []byte) (n int, rest []byte, err error) {
	*s = rawStep{out: out, p: p, fn: s.fn}
	if s.fn == nil {
		s.fn = s.step // bound once: a closure per request would be an allocation
	}
	if err := raw.Read(s.fn); err != nil {
		return 0, nil, err
	}
	switch {
	case s.err != nil:
		return 0, nil, s.err
	case s.fallback:
		return 0, s.out, nil
	case s.n == 0:
		return 0, nil, errEOF
	}
	return s.n, nil, nil
}

// rawStep is the state of one writeThenRead.
type rawStep struct {
	out, p   []byte
	written  bool
	fallback bool
	n        int
	err      error
	fn       func(fd uintptr) bool
}

func (s *rawStep) step(fd uintptr) bool {
	if !s.written {
		s.written = true
		for len(s.out) > 0 {
			w, err := syscall.Write(int(fd), s.out)
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				s.fallback = true
				return true
			case err != nil:
				s.err = err
				return true
			}
			s.out = s.out[w:]
		}
		return false // wait for the answer
	}
	for {
		r, err := syscall.Read(int(fd), s.p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return false
		case err != nil:
			s.err = err
			return true
		}
		s.n = r
		return true
	}
}
