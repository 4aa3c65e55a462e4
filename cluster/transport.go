package cluster

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
)

// Members talk over plain HTTP on the cluster address: one route, POST
// /cluster/v1/deliver, carrying a kit.Forwarded and answering its kit.Wired. It is our
// own rather than protoactor's remoting, whose calls were not bounded by their timeout,
// carried only protobuf (dropping plain structs silently) and left zombies behind; an
// HTTP request has the caller's deadline, a status that tells "not delivered" (409)
// from an unknown outcome, and nothing to keep alive. Requests carry the shared secret
// every member reads from etcd, so nobody else on the network can reach entities.

const (
	deliverPath = "/cluster/v1/deliver"
	// deadlineHeader carries the caller's remaining time in milliseconds.
	deadlineHeader = "X-Vmplane-Deadline-Ms"
)

// transport serves and sends forwarded requests.
type transport struct {
	c      *Cluster
	rt     *kit.Runtime
	server *fasthttp.Server
	ln     net.Listener
	client *peerClient
	served chan struct{}
	// mu guards what follows: the deliveries running, and whether new ones are
	// refused (the member departs).
	mu       sync.Mutex
	active   int
	refusing bool
	// drained, while refusing, is closed when the last running delivery ends.
	drained chan struct{}
}

// peerClient is a member's client to the other members' cluster addresses.
type peerClient struct {
	c *fasthttp.Client
	// sent is set once the client sent a request: fasthttp's CloseIdleConnections
	// reads the client's tables unguarded until its first request made them.
	sent atomic.Bool

	// conns are the client's open connections, so that those to a member that left
	// can be closed under the requests that wait on them (closeTo).
	mu    sync.Mutex
	conns map[*peerConn]struct{}
}

func newPeerClient(maxConnsPerHost int) *peerClient {
	p := &peerClient{conns: map[*peerConn]struct{}{}}
	p.c = &fasthttp.Client{
		Name:                "vmplane-member",
		MaxConnsPerHost:     maxConnsPerHost,
		MaxIdleConnDuration: 30 * time.Second,
		// A connection closed under fasthttp's pool (closeTo) fails the next request
		// before any of it is sent (errStaleConn): that one is sent again, on another
		// connection. Nothing else is: every request here is a POST whose outcome is
		// unknown once it went out.
		RetryIfErr: func(_ *fasthttp.Request, _ int, err error) (bool, bool) {
			return false, errors.Is(err, errStaleConn)
		},
		// A member that died refuses connections at once, or resets those it had;
		// one that hangs holds a request until the member is seen to leave (its
		// lease expires: closeTo) or the request's deadline.
		DialTimeout: func(addr string, timeout time.Duration) (net.Conn, error) {
			conn, err := fasthttp.DialTimeout(addr, min(timeout, time.Second))
			if err != nil {
				return nil, err
			}
			pc := &peerConn{Conn: conn, p: p, addr: addr}
			p.mu.Lock()
			p.conns[pc] = struct{}{}
			p.mu.Unlock()
			return pc, nil
		},
	}
	return p
}

// peerConn is one of a peerClient's connections.
type peerConn struct {
	net.Conn
	p      *peerClient
	addr   string
	once   sync.Once
	closed atomic.Bool
}

// errStaleConn is what a request meets on a connection that was closed before the
// request began: none of it was sent. closeTo closes the connections to a member that
// left, and one whose answer came in between closeIdle and closeTo went back to
// fasthttp's pool of idle connections first, which still lists it.
var errStaleConn = errors.New("connection closed before the request began")

// SetWriteDeadline is the first thing fasthttp does with a connection for a request:
// on one already closed it fails with errStaleConn, so that the request is known not
// to have been sent (a write fails alike on a connection closed under it, with the
// request perhaps half sent).
func (c *peerConn) SetWriteDeadline(t time.Time) error {
	if c.closed.Load() {
		return errStaleConn
	}
	return c.Conn.SetWriteDeadline(t)
}

// Close closes the connection and forgets it.
func (c *peerConn) Close() error {
	c.closed.Store(true)
	c.once.Do(func() {
		c.p.mu.Lock()
		delete(c.p.conns, c)
		c.p.mu.Unlock()
	})
	return c.Conn.Close()
}

// closeTo closes every connection to addr, those a request waits on included, which
// then fails at once; it returns how many it closed.
func (p *peerClient) closeTo(addr string) int {
	p.mu.Lock()
	var to []*peerConn
	for c := range p.conns {
		if c.addr == addr {
			to = append(to, c)
		}
	}
	p.mu.Unlock()
	for _, c := range to {
		_ = c.Close()
	}
	return len(to)
}

// do sends req and waits for its answer until deadline.
func (p *peerClient) do(req *fasthttp.Request, resp *fasthttp.Response, deadline time.Time) error {
	err := p.c.DoDeadline(req, resp, deadline)
	p.sent.Store(true)
	return err
}

// closeIdle closes the connections that no request uses now.
func (p *peerClient) closeIdle() {
	if p.sent.Load() {
		p.c.CloseIdleConnections()
	}
}

// Serve starts answering other members' requests for the entities of rt on ln (the
// listener on the member's cluster address).
func (c *Cluster) Serve(rt *kit.Runtime, ln net.Listener) {
	t := &transport{c: c, rt: rt, ln: ln, served: make(chan struct{}), client: newPeerClient(256)}
	t.server = &fasthttp.Server{Handler: t.handle, Name: "vmplane-member", ReadTimeout: time.Minute,
		IdleTimeout: time.Minute, NoDefaultDate: true, Logger: zapLogger{c.log}}
	c.mu.Lock()
	c.transport = t
	l := c.readLease
	c.mu.Unlock()
	go func() {
		defer close(t.served)
		if err := t.server.Serve(ln); err != nil {
			c.log.Error("member listener stopped", zap.Error(err))
		}
	}()
	if l != nil {
		go l.offer() // the member answers acks from now on
	}
}

// closeWait bounds how long a departing member waits for the others to close their
// kept-alive connections to it (they do when they see it leave) before it closes them.
const closeWait = 2 * time.Second

// close stops serving; requests in flight finish first. The connections the others
// keep alive are left for them to close: a connection closed here while a request is
// on its way in would end that request with no answer, an outcome the sender cannot
// tell from a member that died while serving it.
func (t *transport) close() {
	// This member's own connections to the others, which wait on it likewise.
	t.c.closeIdle()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(closeWait)
	for t.server.GetOpenConnectionsCount() > 0 {
		select {
		case <-tick.C:
			continue
		case <-limit:
			// A member that saw this one leave closed its connections: these are of
			// members that did not (yet), and a request they send now fails.
			t.c.log.Warn("departing member closes the connections other members still keep to it",
				zap.Int32("connections", t.server.GetOpenConnectionsCount()), zap.Duration("waited", closeWait))
		}
		break
	}
	_ = t.server.Shutdown()
	<-t.served
	t.c.closeIdle()
}

// closeIdle closes this member's connections to the other members that no request
// uses now: those of forwarded requests and those of the read lease's acks. A member
// that leaves waits (closeWait) for the others to close theirs to it.
func (c *Cluster) closeIdle() {
	c.mu.RLock()
	t, l := c.transport, c.readLease
	c.mu.RUnlock()
	if t != nil {
		t.client.closeIdle()
	}
	if l != nil {
		l.client.closeIdle()
	}
}

// closeTo closes every connection of this member's to the member m that left, those a
// forwarded request or an ack waits on included: they would wait on a member that
// hangs (paused, or cut off from etcd) until their deadline, though its entities have
// moved. A
// successor at the same address (the member restarted) keeps its connections: the
// process m was is gone, and so are its own.
func (c *Cluster) closeTo(m memberRecord) {
	c.mu.RLock()
	t, l := c.transport, c.readLease
	for _, o := range c.members {
		if o.Addr == m.Addr {
			c.mu.RUnlock()
			return
		}
	}
	c.mu.RUnlock()
	n := 0
	if t != nil {
		n += t.client.closeTo(m.Addr)
	}
	if l != nil {
		n += l.client.closeTo(m.Addr)
	}
	// A connection whose answer came after closeIdle went back to the pool: closed
	// now, it is dropped from there too.
	c.closeIdle()
	if n > 0 {
		c.log.Info("closed the connections to the member that left", zap.String("member", m.Name),
			zap.String("addr", m.Addr), zap.Int("connections", n))
	}
}

// refuse makes the member answer every forwarded request from now on as not
// delivered, and waits until ctx ends for those being delivered; false if some still
// run. New requests are refused at once rather than queued, so that a delivery that
// waits on another member, which forwards back here, does not wait on this one.
func (t *transport) refuse(ctx context.Context) bool {
	t.mu.Lock()
	t.refusing = true
	if t.active == 0 {
		t.mu.Unlock()
		return true
	}
	if t.drained == nil {
		t.drained = make(chan struct{})
	}
	drained := t.drained
	t.mu.Unlock()
	select {
	case <-drained:
		return true
	case <-ctx.Done():
		return false
	}
}

// enter counts a delivery in, unless the member is refusing them.
func (t *transport) enter() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.refusing {
		return false
	}
	t.active++
	return true
}

// exit counts a delivery out.
func (t *transport) exit() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.active--
	if t.active == 0 && t.drained != nil {
		close(t.drained)
		t.drained = nil
	}
}

// handle answers one forwarded request.
func (t *transport) handle(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	if path != deliverPath && path != seenPath || !ctx.IsPost() {
		ctx.SetStatusCode(fasthttp.StatusNotFound)
		return
	}
	got := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)
	if subtle.ConstantTimeCompare(got, []byte("Bearer "+t.c.secret)) != 1 {
		ctx.SetStatusCode(fasthttp.StatusUnauthorized)
		return
	}
	if path == seenPath {
		// Answered while the member departs too: writers wait for it until its
		// record is gone.
		t.handleSeen(ctx)
		return
	}
	var req kit.Forwarded
	if err := json.Unmarshal(ctx.PostBody(), &req); err != nil {
		ctx.SetStatusCode(fasthttp.StatusBadRequest)
		return
	}
	timeout := kit.DefaultTimeout
	if ms, err := strconv.Atoi(string(ctx.Request.Header.Peek(deadlineHeader))); err == nil && ms > 0 {
		timeout = time.Duration(ms) * time.Millisecond
	}
	if !t.enter() {
		// The member is departing: the sender looks the owner up again, and finds
		// the entity's next one once the lease is revoked. The connection closes with
		// the answer, so that the sender does not reuse it as the listener closes.
		ctx.SetConnectionClose()
		ctx.SetStatusCode(fasthttp.StatusConflict)
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.SetBodyString(kit.ErrNotDelivered.Error() + ": member " + t.c.opts.Name + " is leaving the cluster")
		return
	}
	defer t.exit()
	rctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ans, err := t.rt.Deliver(rctx, req)
	if errors.Is(err, kit.ErrNotDelivered) {
		// Why, for the sender's log: the entity is not here, or this member runs
		// another version of vmplane and cannot read the message.
		ctx.SetStatusCode(fasthttp.StatusConflict)
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.SetBodyString(err.Error())
		return
	}
	if err != nil {
		// The member could not tell whether it owns the entity (etcd unreachable): the
		// sender gets the error as the answer.
		ans, _ = kit.Encode(apierr.From(err))
	}
	body, _ := json.Marshal(ans)
	ctx.SetContentType("application/json")
	ctx.SetBody(body)
}

// Forward carries req to m and returns its answer.
func (c *Cluster) Forward(ctx context.Context, m kit.Member, req kit.Forwarded) (kit.Wired, error) {
	c.mu.RLock()
	t := c.transport
	c.mu.RUnlock()
	if t == nil {
		return kit.Wired{}, apierr.New(apierr.ErrUnavailable, "this member is not serving the cluster yet")
	}
	// The caller's whole deadline, as on the owner itself: an owner that is busy
	// (a tenant's creates queued on its entity) answers as late as it would answer
	// its own clients. One that hangs (paused, or cut off from etcd) does not hold
	// the request past its lease: closeGrace after the others see it leave they
	// close their connections to it (closeTo), and the request fails then, its
	// outcome unknown; the caller's retry (same Idempotency-Key) reaches the entity's
	// next owner.
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(kit.DefaultTimeout)
	}
	remaining := time.Until(deadline)
	if remaining <= 0 {
		return kit.Wired{}, apierr.New(apierr.ErrTimeout, "the request did not finish in time")
	}
	body, err := json.Marshal(req)
	if err != nil {
		return kit.Wired{}, err
	}
	hreq := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(hreq)
	defer fasthttp.ReleaseResponse(resp)
	c.peerRequest(hreq, m.Addr, deliverPath)
	hreq.Header.Set(deadlineHeader, strconv.FormatInt(remaining.Milliseconds(), 10))
	hreq.Header.SetContentType("application/json")
	hreq.SetBody(body)
	err = t.client.do(hreq, resp, deadline)
	switch {
	case err == nil:
	case errors.Is(err, fasthttp.ErrDialTimeout) || errors.Is(err, fasthttp.ErrNoFreeConns) || isRefused(err) ||
		errors.Is(err, errStaleConn):
		return kit.Wired{}, fmt.Errorf("%w: %s unreachable: %v", kit.ErrNotDelivered, m.Name, err)
	case errors.Is(err, fasthttp.ErrTimeout):
		return kit.Wired{}, apierr.New(apierr.ErrTimeout, "member %s did not answer in time; the request may have taken effect", m.Name)
	case c.departed(m):
		// Its connection closed when it was seen to leave (closeTo): the outcome is
		// unknown, a 504.
		return kit.Wired{}, apierr.New(apierr.ErrTimeout, "member %s left the cluster while handling the request; the request may have taken effect", m.Name)
	default:
		// The connection broke after the request went out (the member died while
		// handling it): the outcome is unknown, a 504 as for a timeout, never a 503,
		// which tells an idempotent request's client that nothing changed.
		return kit.Wired{}, apierr.New(apierr.ErrTimeout, "member %s: %v; the request may have taken effect", m.Name, err)
	}
	switch resp.StatusCode() {
	case fasthttp.StatusOK:
	case fasthttp.StatusConflict:
		why := strings.TrimPrefix(strings.TrimPrefix(string(resp.Body()), kit.ErrNotDelivered.Error()), ": ")
		if why == "" {
			why = fmt.Sprintf("does not hold %s/%s", req.Kind, req.ID)
		}
		return kit.Wired{}, fmt.Errorf("%w: %s: %s", kit.ErrNotDelivered, m.Name, why)
	default:
		return kit.Wired{}, apierr.New(apierr.ErrUnavailable, "member %s answered %d", m.Name, resp.StatusCode())
	}
	if req.Tell {
		return kit.Wired{}, nil
	}
	var ans kit.Wired
	if err := json.Unmarshal(resp.Body(), &ans); err != nil {
		return kit.Wired{}, apierr.New(apierr.ErrUnavailable, "member %s sent an unreadable answer", m.Name)
	}
	return ans, nil
}

// departed reports whether m is no longer in the member list at its address.
func (c *Cluster) departed(m kit.Member) bool {
	cur, ok := c.memberNamed(m.Name)
	return !ok || cur.Addr != m.Addr
}

// isRefused reports a connection the other member refused or reset before taking the
// request: it was certainly not delivered.
func isRefused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// zapLogger routes fasthttp's own log lines to zap.
type zapLogger struct{ log *zap.Logger }

func (l zapLogger) Printf(format string, args ...any) { l.log.Sugar().Debugf(format, args...) }

// peerRequest makes req a POST of path to the member at addr, signed with the
// cluster's secret as every member-to-member request is (checked by the receiver).
func (c *Cluster) peerRequest(req *fasthttp.Request, addr, path string) {
	req.SetRequestURI("http://" + addr + path)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.Set(fasthttp.HeaderAuthorization, "Bearer "+c.secret)
}
