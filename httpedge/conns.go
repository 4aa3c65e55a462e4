package httpedge

import (
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// Defaults of the connection settings (Options).
const (
	DefaultIPv6Prefix    = 64
	DefaultHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout   = 60 * time.Second
)

// bucketConnections is the refusal metric's label for connections over the cap.
const bucketConnections = "connections"

// bodyTimeout bounds reading a request's body once its headers are in.
const bodyTimeout = 30 * time.Second

// After an error answer on a connection whose request was not read to its end (a body
// over the limit, a malformed request), the connection is half-closed and what the
// client still sends is read and dropped, up to these bounds, before it is closed.
// Closing a socket with unread data makes the kernel answer with a reset, which can
// destroy the error answer before the client has read it.
const (
	lingerBytes = 16 << 20
	lingerTime  = 5 * time.Second
)

// clientKey is the client an address belongs to, for the rate limits and the connection
// cap: an IPv4 address (also when written as IPv4-mapped IPv6) is one client; an IPv6
// address belongs to the client of its prefix of v6prefix bits, since one host usually
// holds a whole /64 and could otherwise pick a fresh address for every request.
func clientKey(ip net.IP, v6prefix int) string {
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return "invalid"
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(v6prefix)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// connLimiter is the listener of the edge: it caps the open connections of each client
// (clientKey of the TCP peer) and wraps each connection in an edgeConn.
type connLimiter struct {
	net.Listener
	s    *Server
	max  int
	mu   sync.Mutex
	open map[string]int
	// refusing counts the refusals being answered.
	refusing atomic.Int32
}

// maxRefusing bounds the refused connections answered at once.
const maxRefusing = 128

func (s *Server) limitConns(ln net.Listener) net.Listener {
	return &connLimiter{Listener: ln, s: s, max: s.opts.MaxConnsPerAddr, open: map[string]int{}}
}

// Accept returns the next connection within its client's cap. A connection over the cap
// gets a 429 problem answer and is closed, without holding up the accept loop.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := ""
		// A trusted proxy carries many clients on its connections: it is not capped.
		if tcp, ok := c.RemoteAddr().(*net.TCPAddr); ok && l.max > 0 && !trusted(l.s.opts.TrustedProxies, tcp.IP) {
			key = clientKey(tcp.IP, l.s.opts.IPv6Prefix)
			l.mu.Lock()
			if l.open[key] >= l.max {
				l.mu.Unlock()
				l.s.metrics.limited(bucketConnections)
				// Answering takes up to a second; past a bound of answers in flight a
				// flood of connections is closed without one.
				if l.refusing.Add(1) <= maxRefusing {
					go l.refuse(c)
				} else {
					l.refusing.Add(-1)
					_ = c.Close()
				}
				continue
			}
			l.open[key]++
			l.mu.Unlock()
		}
		return &edgeConn{Conn: c, l: l, key: key}, nil
	}
}

func (l *connLimiter) release(key string) {
	if key == "" {
		return
	}
	l.mu.Lock()
	if n := l.open[key] - 1; n > 0 {
		l.open[key] = n
	} else {
		delete(l.open, key)
	}
	l.mu.Unlock()
}

// refuse answers a connection over the cap with a 429 problem and closes it.
func (l *connLimiter) refuse(c net.Conn) {
	defer l.refusing.Add(-1)
	id := l.s.newRequestID()
	e := apierr.New(apierr.ErrTooManyConnections, "this address has %d connections open, the most allowed; close one or retry later", l.max)
	e.RetryAfterS = 1
	body := problemBody(e, id)
	_ = c.SetDeadline(time.Now().Add(time.Second))
	_, _ = io.WriteString(c, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/problem+json\r\n"+
		"Content-Length: "+strconv.Itoa(len(body))+"\r\nRetry-After: 1\r\nX-Request-Id: "+id+"\r\nConnection: close\r\n\r\n")
	_, _ = c.Write(body)
	_ = lingerClose(c, 64<<10, time.Second)
}

// edgeConn is one accepted connection: it gives its place under the cap back when it
// closes, and when told to linger it closes the way lingerClose does.
type edgeConn struct {
	net.Conn
	l      *connLimiter
	key    string
	linger atomic.Bool
	once   sync.Once
	err    error
}

func (c *edgeConn) Close() error {
	c.once.Do(func() {
		if c.linger.Load() {
			c.err = lingerClose(c.Conn, lingerBytes, lingerTime)
		} else {
			c.err = c.Conn.Close()
		}
		c.l.release(c.key)
	})
	return c.err
}

// lingerClose half-closes c, so that the client sees the answer and its end, reads and
// drops what the client still sends (up to max bytes, for at most d), then closes.
func lingerClose(c net.Conn, max int64, d time.Duration) error {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		if tc.CloseWrite() == nil {
			_ = c.SetReadDeadline(time.Now().Add(d))
			_, _ = io.CopyN(io.Discard, c, max)
		}
	}
	return c.Close()
}
