package etcdtest

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy is a TCP proxy on loopback in front of a server's client port: a client that
// connects through it can be cut off from etcd while others are not (a member
// partitioned from etcd, or paused long enough to look so). Cut cuts it off as a
// stopped server would (connections closed); Hang as a server or network that takes
// connections and never answers would.
type Proxy struct {
	l      net.Listener
	target string
	wg     sync.WaitGroup

	hanging atomic.Bool  // read without mu: every read of every connection checks it
	dropped atomic.Int64 // bytes dropped while hanging
	delay   atomic.Int64 // Delay's, in nanoseconds

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
}

// NewProxy starts a proxy to s's client port and stops it when the test ends.
func NewProxy(t testing.TB, s *Server) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("etcdtest: proxy: %v", err)
	}
	p := &Proxy{l: l, target: s.client.Host, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Endpoints are the client URLs that go through the proxy.
func (p *Proxy) Endpoints() []string { return []string{"http://" + p.l.Addr().String()} }

// Cut closes every connection through the proxy and refuses new ones until Heal.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	p.closeAll()
}

// Hang blackholes the proxy until Heal: the connections open through it stay open and
// new ones are accepted, but every byte either way is dropped, so a client's requests
// wait for answers that never come (etcd hung, or a firewall that drops packets).
func (p *Proxy) Hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hanging.Store(true)
}

// Delay holds every byte etcd sends to the clients for d before passing it on (0:
// none), from the next byte read on: a member whose answers and watch events come late,
// as over a slow link. Bytes keep their order.
func (p *Proxy) Delay(d time.Duration) { p.delay.Store(int64(d)) }

// Dropped is the number of bytes the proxy has dropped while it hung, either way: a
// test sees by it that a request of its own went out and will not be answered.
func (p *Proxy) Dropped() int64 { return p.dropped.Load() }

// Heal lets connections through again. The connections that were open while the
// proxy hung are closed (bytes were dropped from their streams): clients reconnect.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hanging.Load() {
		p.closeAll()
	}
	p.cut = false
	p.hanging.Store(false)
}

// closeAll closes every connection through the proxy; p.mu is held.
func (p *Proxy) closeAll() {
	for c := range p.conns {
		_ = c.Close()
	}
}

func (p *Proxy) close() {
	_ = p.l.Close()
	p.Cut()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.l.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			_ = in.Close()
			continue
		}
		if p.hanging.Load() {
			// Accepted, never answered: read and drop until closed.
			p.conns[in] = struct{}{}
			p.mu.Unlock()
			p.wg.Add(1)
			go p.pipe(nil, in, false)
			continue
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			_ = in.Close()
			continue
		}
		p.conns[in], p.conns[out] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(in, out, true)
		go p.pipe(out, in, false)
	}
}

// chunk is bytes from etcd to be passed on at due (Delay).
type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies from src to dst (dropping what it reads while the proxy hangs, and
// always when dst is nil) until either side closes, then closes both. fromEtcd: src is
// etcd, and what it sends waits out Delay first.
func (p *Proxy) pipe(dst, src net.Conn, fromEtcd bool) {
	defer p.wg.Done()
	var late chan chunk
	if fromEtcd {
		late = make(chan chunk, 1024)
		passed := make(chan struct{})
		go func() {
			defer close(passed)
			for c := range late {
				time.Sleep(time.Until(c.due))
				if _, err := dst.Write(c.b); err != nil {
					_ = src.Close() // ends the reads below
					for range late {
					}
					return
				}
			}
		}()
		defer func() { close(late); <-passed }()
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && dst != nil && !p.hanging.Load() {
			if late != nil {
				late <- chunk{b: bytes.Clone(buf[:n]), due: time.Now().Add(time.Duration(p.delay.Load()))}
			} else if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		} else {
			p.dropped.Add(int64(n))
		}
		if err != nil {
			break
		}
	}
	_ = src.Close()
	p.mu.Lock()
	delete(p.conns, src)
	if dst != nil {
		_ = dst.Close()
		delete(p.conns, dst)
	}
	p.mu.Unlock()
}
