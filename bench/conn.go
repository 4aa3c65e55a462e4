package bench

import (
	"bufio"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// roundTripper sends one request on a worker's connection.
type roundTripper interface {
	// do sends req and reads the answer into resp. same says req is unchanged since
	// the previous call, so its serialised form may be reused.
	do(req *fasthttp.Request, resp *fasthttp.Response, sent time.Time, same bool) error
	close()
}

// hostClientTripper is fasthttp's HostClient with one connection: the general path
// (TLS targets), with fasthttp's per-request deadlines.
type hostClientTripper struct {
	hc      *fasthttp.HostClient
	timeout time.Duration
}

func (h *hostClientTripper) do(req *fasthttp.Request, resp *fasthttp.Response, _ time.Time, _ bool) error {
	return h.hc.DoTimeout(req, resp, h.timeout)
}

func (h *hostClientTripper) close() { h.hc.CloseIdleConnections() }

// errKilled is the error of a request the watchdog ended: it outlasted the timeout.
var errKilled = fasthttp.ErrTimeout

// fastConn is one plain-HTTP keep-alive connection driven directly, which costs the
// load generator about as much CPU per request as wrk: the request is written and the
// answer awaited in one poller round (no read attempt that can only fail with EAGAIN
// right after the write), and no per-request deadline timers; a watchdog enforces the
// timeout instead. Requests are serialised and answers parsed by fasthttp.
type fastConn struct {
	addr    string
	timeout time.Duration

	conn atomic.Pointer[net.TCPConn] // nil until dialled, and after an error
	raw  syscall.RawConn
	br   *bufio.Reader
	bw   *bufio.Writer
	wb   sliceWriter
	out  []byte // the serialised request, written by the next Read
	step rawStep

	inflight atomic.Int64 // UnixNano of the request in flight's send; 0 when idle
	killed   atomic.Bool  // the watchdog closed the connection
}

func newFastConn(addr string, timeout time.Duration) *fastConn {
	f := &fastConn{addr: addr, timeout: timeout}
	f.br = bufio.NewReaderSize(readerFunc(f.read), 16<<10)
	f.bw = bufio.NewWriterSize(&f.wb, 16<<10)
	return f
}

type readerFunc func([]byte) (int, error)

func (r readerFunc) Read(p []byte) (int, error) { return r(p) }

// sliceWriter appends to a reused slice.
type sliceWriter struct{ b []byte }

func (s *sliceWriter) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

func (f *fastConn) dial() error {
	c, err := net.DialTimeout("tcp", f.addr, f.timeout)
	if err != nil {
		return err
	}
	tc := c.(*net.TCPConn)
	raw, err := tc.SyscallConn()
	if err != nil {
		tc.Close()
		return err
	}
	f.raw = raw
	f.br.Reset(readerFunc(f.read))
	f.conn.Store(tc)
	return nil
}

func (f *fastConn) do(req *fasthttp.Request, resp *fasthttp.Response, sent time.Time, same bool) error {
	if f.conn.Load() == nil {
		if err := f.dial(); err != nil {
			return err
		}
	}
	if !same || len(f.wb.b) == 0 {
		if len(req.Header.UserAgent()) == 0 {
			req.Header.SetUserAgent("vmplane-bench")
		}
		f.wb.b = f.wb.b[:0]
		f.bw.Reset(&f.wb)
		if err := req.Write(f.bw); err != nil {
			f.wb.b = f.wb.b[:0]
			return err
		}
		if err := f.bw.Flush(); err != nil {
			f.wb.b = f.wb.b[:0]
			return err
		}
	}
	f.out = f.wb.b
	f.inflight.Store(sent.UnixNano())
	resp.Reset()
	resp.Header.DisableNormalizing() // header names are matched case-insensitively anyway
	err := resp.Read(f.br)
	f.inflight.Store(0)
	if f.killed.Swap(false) {
		err = errKilled
	}
	if err != nil || resp.ConnectionClose() || f.br.Buffered() > 0 {
		f.close()
	}
	return err
}

// read is the connection's reader: the first read after a request writes it, then
// waits for the answer; later reads (a long answer) read normally.
func (f *fastConn) read(p []byte) (int, error) {
	c := f.conn.Load()
	if c == nil {
		return 0, net.ErrClosed
	}
	if f.out == nil {
		return c.Read(p)
	}
	out := f.out
	f.out = nil
	n, rest, err := f.step.writeThenRead(f.raw, out, p)
	if err != nil || n > 0 {
		return n, err
	}
	if len(rest) > 0 { // the socket took part of the request: the plain way
		if _, err := c.Write(rest); err != nil {
			return 0, err
		}
	}
	return c.Read(p)
}

func (f *fastConn) close() {
	if c := f.conn.Swap(nil); c != nil {
		c.Close()
	}
	f.out = nil
}

// kill closes the connection under a request that outlasted the timeout.
func (f *fastConn) kill() {
	if c := f.conn.Load(); c != nil {
		f.killed.Store(true)
		c.Close()
	}
}

// watchdog ends requests that outlast timeout, checking a few times per timeout.
func watchdog(stop <-chan struct{}, conns []*fastConn, timeout time.Duration) {
	t := time.NewTicker(min(max(timeout/10, 10*time.Millisecond), 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			limit := now.Add(-timeout).UnixNano()
			for _, f := range conns {
				if s := f.inflight.Load(); s != 0 && s < limit {
					f.kill()
				}
			}
		}
	}
}

// errEOF is a connection the server closed before answering.
var errEOF = io.EOF
