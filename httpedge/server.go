package httpedge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/token"
)

// MaxBodyBytes is the largest request body accepted (413 beyond).
const MaxBodyBytes = 1 << 20

// Options configure the edge.
type Options struct {
	System *actors.System
	Tokens *token.Keeper
	Logger *zap.Logger
	// Version is reported by /api/health.
	Version string
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []*net.IPNet
	// PublicURL is the server's external base URL (https://panel.example.com), used
	// for the URLs it hands out; empty: taken from each request's Host.
	PublicURL string
}

// Server is the HTTP edge.
type Server struct {
	opts    Options
	sys     *actors.System
	tokens  *token.Keeper
	log     *zap.Logger
	routes  []Route
	router  *router.Router
	srv     *fasthttp.Server
	metrics *metrics
	started time.Time
	closing atomic.Bool
	reqSeq  atomic.Uint64
	idBase  string

	// conns maps each open connection to whether a handler has started on it since it
	// was last idle (*atomic.Bool); a graceful shutdown closes the others (see Shutdown).
	conns sync.Map

	// The OpenAPI document, built once from the route table, which is fixed after New.
	openapiDoc []byte
	openapiErr error
}

// New builds the edge and its route table.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	s := &Server{opts: opts, sys: opts.System, tokens: opts.Tokens, log: opts.Logger.Named("http"), started: time.Now()}
	var b [6]byte
	_, _ = rand.Read(b[:])
	s.idBase = hex.EncodeToString(b[:])
	s.metrics = newMetrics(s)
	s.routes = s.routeTable()
	s.openapiDoc, s.openapiErr = buildOpenAPI(opts.Version, s.routes)
	s.router = router.New()
	s.router.HandleMethodNotAllowed = true
	s.router.HandleOPTIONS = true
	s.router.SaveMatchedRoutePath = true
	for i := range s.routes {
		rt := &s.routes[i]
		s.router.Handle(rt.Method, rt.Path, s.serveRoute(rt))
	}
	s.router.NotFound = func(rc *fasthttp.RequestCtx) {
		s.writeError(rc, requestID(rc), apierr.New(apierr.ErrNotFound, "no route for %s", rc.Path()))
	}
	s.router.MethodNotAllowed = func(rc *fasthttp.RequestCtx) {
		allow := strings.Split(string(rc.Response.Header.Peek("Allow")), ", ")
		e := apierr.New(apierr.ErrMethodNotAllowed, "%s is not allowed on %s", rc.Method(), rc.Path())
		e.Allowed = allow
		s.writeError(rc, requestID(rc), e)
	}
	s.srv = &fasthttp.Server{
		Handler:            s.handle,
		Name:               "vmplane",
		MaxRequestBodySize: MaxBodyBytes,
		// With fasthttp's default 4 KB, an answer bigger than that (a list page of ten
		// machines is 5.3 KB) takes two write syscalls; they were a fifth of the
		// server's CPU on the tenant list. Buffers are pooled, held only while writing.
		WriteBufferSize:       16 << 10,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           2 * time.Minute,
		NoDefaultServerHeader: false,
		NoDefaultContentType:  true,
		ErrorHandler:          s.handleParseError,
		Logger:                zap.NewStdLog(s.log.Named("fasthttp")),
		CloseOnShutdown:       true,
		ConnState:             s.trackConn,
	}
	return s
}

// trackConn follows connections: a new or idle one has no request being handled.
// (fasthttp reports a connection active before its first byte arrives, so "active"
// does not tell an unused spare connection from a busy one; markBusy does.)
func (s *Server) trackConn(c net.Conn, st fasthttp.ConnState) {
	switch st {
	case fasthttp.StateNew:
		s.conns.Store(c, new(atomic.Bool))
	case fasthttp.StateIdle:
		if b, ok := s.conns.Load(c); ok {
			b.(*atomic.Bool).Store(false)
		}
	case fasthttp.StateClosed, fasthttp.StateHijacked:
		s.conns.Delete(c)
	}
}

// markBusy notes that a request is being handled on the connection.
func (s *Server) markBusy(rc *fasthttp.RequestCtx) {
	if b, ok := s.conns.Load(rc.Conn()); ok {
		b.(*atomic.Bool).Store(true)
	}
}

// Routes returns the route table.
func (s *Server) Routes() []Route { return s.routes }

// Serve serves on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error { return s.srv.Serve(ln) }

// Shutdown stops accepting connections and waits for requests in flight to finish.
//
// fasthttp's own drain closes keep-alive connections only once its idle clock says so,
// and not connections opened but never used (clients open spares under load), which
// would hold the drain until their read timeout. Connections with no request in flight
// carry nothing to lose, so they are closed at once; those whose request a handler has
// taken are waited for, so every acknowledged write gets its answer.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	done := make(chan error, 1)
	go func() { done <- s.srv.ShutdownWithContext(ctx) }()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		s.conns.Range(func(k, v any) bool {
			if !v.(*atomic.Bool).Load() {
				_ = k.(net.Conn).Close()
				s.conns.Delete(k)
			}
			return true
		})
		select {
		case err := <-done:
			return err
		case <-t.C:
		}
	}
}

// Handler returns the request handler, for in-memory servers in tests and benchmarks.
func (s *Server) Handler() fasthttp.RequestHandler { return s.handle }

const (
	uvRequestID = "vmplane.request_id"
	uvRoute     = "vmplane.route"
)

func requestID(rc *fasthttp.RequestCtx) string {
	id, _ := rc.UserValue(uvRequestID).(string)
	return id
}

// handle is the outermost middleware: request id, panic recovery, metrics, rate limits,
// then the router.
func (s *Server) handle(rc *fasthttp.RequestCtx) {
	start := time.Now()
	s.markBusy(rc)
	id := s.assignRequestID(rc)
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in request", zap.String("request_id", id), zap.Any("panic", r), zap.Stack("stack"))
			rc.Response.Reset()
			rc.Response.Header.Set("X-Request-Id", id)
			s.writeError(rc, id, apierr.New(apierr.ErrInternal, "internal error"))
		}
		route, _ := rc.UserValue(uvRoute).(string)
		if route == "" {
			route = "unmatched"
		}
		s.metrics.observe(route, rc.Method(), rc.Response.StatusCode(), time.Since(start))
	}()
	if s.closing.Load() {
		rc.SetConnectionClose()
	}
	if !s.allow(rc, id) {
		return
	}
	s.router.Handler(rc)
}

// assignRequestID echoes a sane client-sent X-Request-Id or makes one.
func (s *Server) assignRequestID(rc *fasthttp.RequestCtx) string {
	var id string
	if h := rc.Request.Header.Peek("X-Request-Id"); len(h) > 0 && len(h) <= 128 && printable(h) {
		id = string(h)
	} else {
		id = s.idBase + "-" + strconv.FormatUint(s.reqSeq.Add(1), 36)
	}
	rc.SetUserValue(uvRequestID, id)
	rc.Response.Header.Set("X-Request-Id", id)
	return id
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// allow applies the per-address limits and sets the RateLimit headers.
func (s *Server) allow(rc *fasthttp.RequestCtx, id string) bool {
	buckets := []string{actors.BucketGlobal}
	if bytes.HasPrefix(rc.Path(), []byte("/api/auth/")) {
		buckets = append(buckets, actors.BucketAuth)
	}
	d, err := s.sys.Limiter.Take(context.Background(), s.clientAddr(rc), buckets...)
	if err != nil {
		// The limiter is down: failing open keeps the API usable; the error is logged.
		s.log.Error("limiter unavailable", zap.String("request_id", id), zap.Error(err))
		return true
	}
	return s.applyDecision(rc, id, d)
}

// applyDecision writes the RateLimit headers and, when refused, the 429.
func (s *Server) applyDecision(rc *fasthttp.RequestCtx, id string, d actors.Decision) bool {
	if d.Limit == 0 {
		return true
	}
	h := &rc.Response.Header
	h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(d.Remaining, 0)))
	h.Set("RateLimit-Reset", strconv.Itoa(d.ResetS))
	if d.Allowed {
		return true
	}
	s.metrics.limited(d.Bucket)
	e := apierr.New(apierr.ErrRateLimited, "the %s rate limit is exceeded; retry in %d s", d.Bucket, d.RetryAfterS)
	e.RetryAfterS = d.RetryAfterS
	s.writeError(rc, id, e)
	return false
}

// clientAddr is the TCP peer, or the first untrusted address of X-Forwarded-For when
// the peer is a trusted proxy.
func (s *Server) clientAddr(rc *fasthttp.RequestCtx) string {
	peer := rc.RemoteIP()
	if len(s.opts.TrustedProxies) == 0 || !trusted(s.opts.TrustedProxies, peer) {
		return peer.String()
	}
	xff := string(rc.Request.Header.Peek("X-Forwarded-For"))
	parts := strings.Split(xff, ",")
	for i := len(parts) - 1; i >= 0; i-- {
		ip := net.ParseIP(strings.TrimSpace(parts[i]))
		if ip == nil {
			break
		}
		if !trusted(s.opts.TrustedProxies, ip) {
			return ip.String()
		}
	}
	return peer.String()
}

func trusted(nets []*net.IPNet, ip net.IP) bool {
	for _, n := range nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// handleParseError answers requests fasthttp could not parse, such as oversized bodies.
func (s *Server) handleParseError(rc *fasthttp.RequestCtx, err error) {
	id := s.assignRequestID(rc)
	if errors.Is(err, fasthttp.ErrBodyTooLarge) {
		s.writeError(rc, id, apierr.New(apierr.ErrPayloadTooLarge, "the body exceeds %d bytes", MaxBodyBytes))
		return
	}
	s.writeError(rc, id, apierr.New(apierr.ErrInvalidRequest, "the request could not be parsed"))
}

// serveRoute wraps a route's handler: access check, the call, the answer.
func (s *Server) serveRoute(rt *Route) fasthttp.RequestHandler {
	return func(rc *fasthttp.RequestCtx) {
		rc.SetUserValue(uvRoute, rt.Path)
		id := requestID(rc)
		c := &Call{rc: rc, log: s.log, RequestID: id, srv: s}
		if rt.Access != Public {
			claims, err := s.authenticate(rc)
			if err != nil {
				s.writeError(rc, id, err)
				return
			}
			if rt.Access == AdminOnly && claims.Role != actors.RoleAdmin {
				s.writeError(rc, id, apierr.New(apierr.ErrForbidden, "this route is for operators"))
				return
			}
			c.Principal = claims
		}
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		c.ctx = ctx
		answered, store := s.idempotent(c)
		if answered {
			return
		}
		res, err := rt.Handler(c)
		if err != nil {
			s.writeError(rc, id, err)
		} else {
			s.writeResult(rc, id, rt, res)
		}
		s.audit(c, rt, rc.Response.StatusCode(), err)
		if store != nil {
			store()
		}
	}
}

// authenticate verifies the bearer token.
func (s *Server) authenticate(rc *fasthttp.RequestCtx) (*token.Claims, error) {
	h := rc.Request.Header.Peek("Authorization")
	const prefix = "Bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(string(h[:len(prefix)]), prefix) {
		return nil, apierr.New(apierr.ErrUnauthorized, "a bearer token is required")
	}
	return s.tokens.Verify(bytes.TrimSpace(h[len(prefix):]))
}

func (s *Server) writeResult(rc *fasthttp.RequestCtx, id string, rt *Route, res any) {
	status := rt.Status
	if status == 0 {
		status = fasthttp.StatusOK
	}
	if _, ok := res.(upgraded); ok {
		return // the websocket owns the connection now
	}
	body := res
	if r, ok := res.(Reply); ok {
		status, body = r.Status, r.Body
		for k, v := range r.Headers {
			rc.Response.Header.Set(k, v)
		}
	}
	rc.SetStatusCode(status)
	if body == nil || status == fasthttp.StatusNoContent {
		return
	}
	if raw, ok := body.(rawJSON); ok {
		rc.SetContentType("application/json")
		rc.SetBody(raw)
		return
	}
	if err := writeJSON(rc, body); err != nil {
		rc.Response.Reset()
		rc.Response.Header.Set("X-Request-Id", id)
		s.writeError(rc, id, err)
	}
}
