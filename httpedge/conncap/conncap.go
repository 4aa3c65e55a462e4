// Package conncap knows who a client of the edge is and how many connections it holds:
// the client an address belongs to (ClientKey, ClientIP behind trusted proxies), and the
// edge's listener, which caps the open connections of each client, answers a connection
// over the cap without holding up the accept loop, and closes a connection whose request
// was not read to its end without resetting it under the answer. It knows nothing of
// HTTP: the edge tells it how to refuse.
package conncap

import (
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// After an error answer on a connection whose request was not read to its end (a body
// over the limit, a malformed request), the connection is half-closed and what the
// client still sends is read and dropped, up to these bounds, before it is closed.
// Closing a socket with unread data makes the kernel answer with a reset, which can
// destroy the error answer before the client has read it.
const (
	lingerBytes = 16 << 20
	lingerTime  = 5 * time.Second
)

// maxRefusing bounds the refused connections answered at once: answering takes up to a
// second, and past this bound a flood of connections is closed without an answer.
const maxRefusing = 128

// ClientKey is the client an address belongs to, for the rate limits and the connection
// cap: an IPv4 address (also when written as IPv4-mapped IPv6) is one client; an IPv6
// address belongs to the client of its prefix of v6prefix bits, since one host usually
// holds a whole /64 and could otherwise pick a fresh address for every request.
func ClientKey(ip net.IP, v6prefix int) string {
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

// ClientIP is the client behind a trusted proxy: the first address of xff (the
// X-Forwarded-For header), read from the right, that is not one of the proxies; the
// peer itself when there is none.
func ClientIP(peer net.IP, xff string, proxies []*net.IPNet) net.IP {
	parts := strings.Split(xff, ",")
	for i := len(parts) - 1; i >= 0; i-- {
		ip := net.ParseIP(strings.TrimSpace(parts[i]))
		if ip == nil {
			break
		}
		if !Trusted(proxies, ip) {
			return ip
		}
	}
	return peer
}

// Trusted reports whether ip is in one of nets.
func Trusted(nets []*net.IPNet, ip net.IP) bool {
	for _, n := range nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// Options say whom the cap counts and how a connection over it is refused.
type Options struct {
	// Max is the most connections one client may hold open; 0 caps nobody.
	Max int
	// Key names the client of a TCP peer, or says it is not capped (a trusted proxy
	// carries many clients on its connections).
	Key func(ip net.IP) (key string, capped bool)
	// Refuse writes the answer to a connection over the cap (the edge's 429), with
	// the connection's deadline set; the listener then closes it as Conn.Linger does.
	Refuse func(c net.Conn)
}

// Listener caps the open connections of each client and wraps each accepted
// connection in a *Conn.
type Listener struct {
	net.Listener
	opts Options
	mu   sync.Mutex
	open map[string]int
	// refusing counts the refusals being answered.
	refusing atomic.Int32
}

// New wraps ln.
func New(ln net.Listener, opts Options) *Listener {
	return &Listener{Listener: ln, opts: opts, open: map[string]int{}}
}

// Accept returns the next connection within its client's cap. A connection over the cap
// is refused (Options.Refuse) and closed, without holding up the accept loop.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := ""
		if tcp, ok := c.RemoteAddr().(*net.TCPAddr); ok && l.opts.Max > 0 {
			k, capped := l.opts.Key(tcp.IP)
			if capped {
				l.mu.Lock()
				if l.open[k] >= l.opts.Max {
					l.mu.Unlock()
					if l.refusing.Add(1) <= maxRefusing {
						go l.refuse(c)
					} else {
						l.refusing.Add(-1)
						_ = c.Close()
					}
					continue
				}
				l.open[k]++
				l.mu.Unlock()
				key = k
			}
		}
		return &Conn{Conn: c, l: l, key: key}, nil
	}
}

func (l *Listener) release(key string) {
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

// refuse answers a connection over the cap and closes it.
func (l *Listener) refuse(c net.Conn) {
	defer l.refusing.Add(-1)
	_ = c.SetDeadline(time.Now().Add(time.Second))
	l.opts.Refuse(c)
	_ = lingerClose(c, 64<<10, time.Second)
}

// Conn is one accepted connection: it gives its place under the cap back when it
// closes, and when told to linger it closes the way lingerClose does.
type Conn struct {
	net.Conn
	l      *Listener
	key    string
	linger atomic.Bool
	once   sync.Once
	err    error
}

// Linger says whether Close first takes in what the client still sends (an answer
// went out before its request was read to its end) or closes at once (a shutdown
// does not wait for a client's leftovers).
func (c *Conn) Linger(on bool) { c.linger.Store(on) }

// Close closes the connection, once, and gives its place under the cap back.
func (c *Conn) Close() error {
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
