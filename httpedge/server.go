package httpedge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/limiter"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/cluster"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/conncap"
	"github.com/vmplane/vmplane/httpedge/token"
	"github.com/vmplane/vmplane/httpedge/webui"
	"github.com/vmplane/vmplane/persistence"
	"github.com/vmplane/vmplane/sso"
)

// requestTimeout bounds each request's actor work.
const requestTimeout = 15 * time.Second

// MaxBodyBytes is the largest request body accepted (413 beyond).
const MaxBodyBytes = 1 << 20

// maxHeaderBytes bounds a request's line and headers together (431 beyond): they must
// fit the connection's read buffer.
const maxHeaderBytes = 4 << 10

// Options configure the edge.
type Options struct {
	// Services are the actors' services the handlers call (app fills them from the
	// running actors.System).
	Services api.Services
	// Store is the store the services run on, for GET /api/admin/backup (nil: the
	// route answers that this store takes no backups).
	Store  persistence.Store
	Tokens *token.Keeper
	Logger *zap.Logger
	// Version is reported by /api/health.
	Version string
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []*net.IPNet
	// PublicURL is the server's external base URL (https://panel.example.com), used
	// for the absolute URLs it hands out; empty: it hands out paths, never a URL made
	// from the request's Host.
	PublicURL string
	// TOTPIssuer names the server in users' authenticator apps ("vmplane" when empty).
	TOTPIssuer string
	// OIDC are the OpenID Connect providers users may sign in with (nil: none).
	OIDC *sso.Providers
	// TenantDelete lets tenant users delete their own machines (operators always may).
	TenantDelete bool
	// RequirePlans has tenant users create machines from plans only (operators may
	// always give explicit sizes).
	RequirePlans bool
	// RescueISO names the image (an id or a name of the ISO library) a machine's
	// rescue boots; empty: rescue is refused.
	RescueISO string
	// CORSOrigins are the origins (https://panel.example.com) whose pages may call the
	// API from a browser; none by default.
	CORSOrigins []string
	// AccessLog, when set, gets one line per request (combined log format).
	AccessLog io.Writer

	// IPv6Prefix is the prefix length by which IPv6 clients are told apart for the
	// rate limits and the connection cap (DefaultIPv6Prefix when 0).
	IPv6Prefix int
	// HeaderTimeout bounds the time to receive a request's line and headers, from the
	// connection's opening or the request's first byte (DefaultHeaderTimeout when 0).
	HeaderTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that sends no request for this long
	// (DefaultIdleTimeout when 0). Hijacked connections (event streams, consoles) are
	// not subject to it.
	IdleTimeout time.Duration
	// MaxConnsPerAddr caps the open connections of one client (clientKey of the TCP
	// peer; trusted proxies are not capped); 0: no cap.
	MaxConnsPerAddr int
	// Cluster, on a cluster member, is the membership /api/health and /metrics report
	// (nil on a single node).
	Cluster Membership
	// Console, when set, is the web console, answered at every GET outside /api and
	// the edge's own paths (nil: the console is off, and those paths are 404).
	Console *webui.Console
	// SeparateMetrics leaves GET /metrics out of the API (its routes and its OpenAPI
	// document): the caller serves it on a listener of its own (MetricsServer).
	SeparateMetrics bool
}

// Membership is what the edge shows of a cluster member.
type Membership interface {
	// Name is this member's node name.
	Name() string
	// Members lists the live members.
	Members() []cluster.MemberStatus
	// Stats are the member's figures for /metrics.
	Stats() cluster.Stats
	// LeaseStatus is the member's lease, from what it knows (never asking etcd):
	// cluster.LeaseHeld, or it is degraded (LeaseUnconfirmed until etcd renews it,
	// LeaseLost until it restarts).
	LeaseStatus() string
}

// Server is the HTTP edge.
type Server struct {
	opts    Options
	svc     api.Services
	tokens  *token.Keeper
	log     *zap.Logger
	routes  []api.Route
	router  *router.Router
	srv     *fasthttp.Server
	metrics *metrics
	// unmatched and console are the metrics of requests no route took and of the
	// console's files (the routes' own are made with their handlers).
	unmatched, console *routeMetrics
	// cors and access are the optional CORS answers and access log (nil: off).
	cors    *cors
	access  *accessLog
	started time.Time
	closing atomic.Bool
	reqSeq  atomic.Uint64
	idBase  string

	// timeout bounds each request (requestTimeout; tests shorten it), and deadlines
	// time the requests' contexts that something waits on (reqctx.go).
	timeout   time.Duration
	deadlines deadlines

	// conns maps each open connection to whether a handler has started on it since it
	// was last idle (*atomic.Bool); a graceful shutdown closes the others (see Shutdown).
	conns sync.Map

	// ownPaths are the routes' paths outside /api (/metrics, the account pages),
	// which the console leaves to the router.
	ownPaths map[string]bool
	// streams are the Stream routes, whose bodies their handlers read (bodyWithin).
	streams []streamRoute

	// The OpenAPI document, built once from the route table (fixed after New), on its
	// first use.
	openapiOnce sync.Once
	openapiDoc  []byte
	openapiErr  error
}

// New builds the edge and its route table.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.IPv6Prefix <= 0 || opts.IPv6Prefix > 128 {
		opts.IPv6Prefix = DefaultIPv6Prefix
	}
	if opts.HeaderTimeout <= 0 {
		opts.HeaderTimeout = DefaultHeaderTimeout
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	s := &Server{opts: opts, svc: opts.Services, tokens: opts.Tokens, log: opts.Logger.Named("http"), started: time.Now(), timeout: requestTimeout}
	var b [6]byte
	_, _ = rand.Read(b[:])
	s.idBase = hex.EncodeToString(b[:])
	s.metrics = newMetrics(s)
	s.unmatched, s.console = s.metrics.forRoute("unmatched"), s.metrics.forRoute("console")
	s.cors = newCORS(opts.CORSOrigins)
	if opts.AccessLog != nil {
		s.access = &accessLog{w: opts.AccessLog}
	}
	s.routes = s.routeTable()
	s.ownPaths = map[string]bool{}
	for _, rt := range s.routes {
		if !strings.HasPrefix(rt.Path, "/api/") {
			s.ownPaths[rt.Path] = true
		}
		if rt.Stream {
			s.streams = append(s.streams, streamRoute{method: rt.Method, segs: strings.Split(rt.Path, "/")})
		}
	}
	s.router = router.New()
	s.router.HandleMethodNotAllowed = true
	s.router.HandleOPTIONS = true
	// The router's redirects (trailing slash, other case, dot segments) put the
	// request's Host into Location, with the query (which may hold a console ticket);
	// the API has one spelling of each path, and others are 404.
	s.router.RedirectTrailingSlash = false
	s.router.RedirectFixedPath = false
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
		// Bodies are streamed so that an upload (a Stream route) is never held whole;
		// bodyWithin reads every other body whole, within MaxBodyBytes, as fasthttp
		// would without streaming.
		StreamRequestBody: true,
		// No route takes a multipart form; fasthttp would spool one of any size to
		// temporary files before the handler ran.
		DisablePreParseMultipartForm: true,
		// With fasthttp's default 4 KB, an answer bigger than that (a list page of ten
		// machines is 5.3 KB) takes two write syscalls; they were a fifth of the
		// server's CPU on the tenant list.
		WriteBufferSize: 16 << 10,
		ReadBufferSize:  maxHeaderBytes,
		// Without it, fasthttp keeps a keep-alive connection's write buffer between
		// requests: 16 KB of each idle connection's 21 KB. With it, the buffer goes
		// back to the pool after each answer.
		ReduceMemoryUsage: true,
		// ReadTimeout runs from a connection's opening, or a request's first byte, to
		// the end of its headers, so a client that dribbles its headers (slowloris) is
		// cut off; HeaderReceived (bodyLimit) then gives the body its own time.
		ReadTimeout:           opts.HeaderTimeout,
		HeaderReceived:        s.bodyLimit,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           opts.IdleTimeout,
		NoDefaultServerHeader: false,
		NoDefaultContentType:  true,
		ErrorHandler:          s.handleParseError,
		ExpectHandler:         s.expectContinue,
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
		s.conns.Store(c, new(connState))
	case fasthttp.StateIdle:
		if cs, ok := s.conns.Load(c); ok {
			cs.(*connState).busy.Store(false)
		}
	case fasthttp.StateClosed, fasthttp.StateHijacked:
		s.conns.Delete(c)
	}
}

// connState is what the edge keeps of an open connection.
type connState struct {
	// busy: a request is being handled on it (markBusy), until it goes idle.
	busy atomic.Bool
	// key is the peer's client key (clientAddr), made by the first request that asks
	// and kept for the others: without trusted proxies it is the connection's. Only
	// the goroutine serving the connection's requests reads or writes it.
	key string
}

// markBusy notes that a request is being handled on the connection, and returns the
// connection's state (nil for a connection the server did not accept).
func (s *Server) markBusy(rc *fasthttp.RequestCtx) *connState {
	v, ok := s.conns.Load(rc.Conn())
	if !ok {
		return nil
	}
	cs := v.(*connState)
	cs.busy.Store(true)
	return cs
}

// Routes returns the route table.
func (s *Server) Routes() []api.Route { return s.routes }

// Serve serves on ln until Shutdown, within the per-client connection cap.
func (s *Server) Serve(ln net.Listener) error { return s.srv.Serve(s.limitConns(ln)) }

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
			if !v.(*connState).busy.Load() {
				if ec, ok := k.(*conncap.Conn); ok {
					ec.Linger(false) // a shutdown does not wait for a client's leftovers
				}
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

// uvRequest is the user value of the request being handled (*request).
const uvRequest = "vmplane.request"

// request is what the edge keeps of a request while handle serves it, in one user
// value (fasthttp finds a user value by comparing keys, and stores a string as an
// allocated interface): its context, its id and the metrics of the route that took it.
//
// It holds what the request's route needs of it too, so that one allocation serves
// the whole request: the bytes of its id (id is a string over them, never changed
// once made, and kept alive by whoever holds the string) and the handler's Call.
type request struct {
	ctx   reqCtx
	id    string
	route *routeMetrics
	conn  *connState // nil: a connection the server did not accept (tests)
	idBuf [maxRequestIDLen]byte
	call  api.Call
}

// current is the request handle is serving on rc (nil outside handle: a parse error's
// or a 100-continue's answer).
func current(rc *fasthttp.RequestCtx) *request {
	r, _ := rc.UserValue(uvRequest).(*request)
	return r
}

func requestID(rc *fasthttp.RequestCtx) string {
	if r := current(rc); r != nil {
		return r.id
	}
	return ""
}

// requestContext is the request's context, which handle made: bounded by
// requestTimeout, it goes with every read and ask the request makes, from the rate
// limits and the token's check on.
func requestContext(rc *fasthttp.RequestCtx) context.Context {
	if r := current(rc); r != nil {
		return &r.ctx
	}
	return context.Background() // not reached: handle sets it before any route runs
}

// handle is the outermost middleware: request id, panic recovery, metrics, rate limits,
// then the router.
func (s *Server) handle(rc *fasthttp.RequestCtx) {
	start := time.Now()
	conn := s.markBusy(rc)
	streamed := s.streamed(rc)
	if streamed {
		// A refusal (a rate limit, the token, the handler's checks; a panic, which
		// the next deferred call answers) leaves the body unread.
		defer func() {
			if rc.Response.StatusCode() >= 300 {
				s.closeUnread(rc)
			}
		}()
	}
	// Not context.WithTimeout: its timer per request was a fifth of handle's time.
	req := &request{ctx: reqCtx{deadline: start.Add(s.timeout), dl: &s.deadlines}, route: s.unmatched, conn: conn}
	req.id = s.assignRequestIDIn(rc, &req.idBuf)
	id := req.id
	rc.SetUserValue(uvRequest, req)
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in request", zap.String("request_id", id), zap.Any("panic", r), zap.Stack("stack"))
			rc.Response.Reset()
			rc.Response.Header.SetCanonical(headerRequestID, []byte(id))
			s.writeError(rc, id, apierr.New(apierr.ErrInternal, "internal error"))
		}
		req.ctx.cancel()
		took := time.Since(start)
		req.route.observe(rc.Method(), rc.Response.StatusCode(), took)
		if s.access != nil {
			s.access.write(rc, s.clientIP(rc).String(), id, took)
		}
	}()
	if s.closing.Load() {
		rc.SetConnectionClose()
	}
	if !streamed && !s.bodyWithin(rc, id) {
		return
	}
	if s.cors != nil && s.cors.apply(rc) {
		return // a preflight, answered
	}
	if s.serveConsole(rc) {
		return
	}
	if !s.allow(rc, id) {
		return
	}
	s.router.Handler(rc)
	s.ensureProblem(rc, id)
}

// serveConsole answers a GET or HEAD of a path outside /api and the edge's own routes
// with the web console, when it is on. The console's files are not rate limited: they
// are bytes in memory, cheaper to send than a 429; counting them would spend an
// address's API budget on every page load (index.html and its chunks), and a client
// behind a shared address would find the console refused while the API still answers.
func (s *Server) serveConsole(rc *fasthttp.RequestCtx) bool {
	if s.opts.Console == nil || !(rc.IsGet() || rc.IsHead()) {
		return false
	}
	p := string(rc.Path())
	// The API's paths in any case (/API/HEALTH is a wrong API path, not a page), and
	// the operator's paths that exist only when turned on (/metrics on its own
	// address, /debug/pprof without --pprof), stay 404 problems when no route has them.
	if lp := strings.ToLower(p); lp == "/api" || strings.HasPrefix(lp, "/api/") || s.ownPaths[p] ||
		lp == "/metrics" || lp == "/debug" || strings.HasPrefix(lp, "/debug/") {
		return false
	}
	if r := current(rc); r != nil {
		r.route = s.console
	}
	s.opts.Console.Serve(rc)
	return true
}

// ensureProblem turns an error answer that is not JSON (one written by a library below
// the handlers, in text) into problem JSON, so that every error carries a code. JSON
// answers are left alone: they are problems, or a route's documented body (the health
// report's 503).
func (s *Server) ensureProblem(rc *fasthttp.RequestCtx, id string) {
	status := rc.Response.StatusCode()
	if status < 400 || rc.Hijacked() || bytes.Contains(rc.Response.Header.ContentType(), []byte("json")) {
		return
	}
	e := &apierr.Error{Status: status, Code: codeOfStatus(status), Detail: fasthttp.StatusMessage(status)}
	rc.Response.ResetBody()
	s.writeError(rc, id, e)
}

// The headers every answer carries, as fasthttp spells headers: set with SetCanonical,
// they are not normalised again on every answer.
var (
	headerRequestID          = []byte("X-Request-Id")
	headerRateLimitLimit     = []byte("Ratelimit-Limit")
	headerRateLimitRemaining = []byte("Ratelimit-Remaining")
	headerRateLimitReset     = []byte("Ratelimit-Reset")
)

// assignRequestID echoes a sane client-sent X-Request-Id or makes one, and sets it on
// the answer.
func (s *Server) assignRequestID(rc *fasthttp.RequestCtx) string {
	if h := rc.Request.Header.PeekBytes(headerRequestID); len(h) > 0 && len(h) <= maxRequestIDLen && printable(h) {
		rc.Response.Header.SetCanonical(headerRequestID, h)
		return string(h)
	}
	// The id is made in place, then copied once into the answer and once into the
	// string the request's logs and problems carry.
	var buf [64]byte
	id := s.appendRequestID(buf[:0])
	rc.Response.Header.SetCanonical(headerRequestID, id)
	return string(id)
}

// maxRequestIDLen is the longest X-Request-Id a client may choose.
const maxRequestIDLen = 128

// assignRequestIDIn is assignRequestID with the id's bytes in buf, which its string
// shares: buf must not change afterwards (request.idBuf, written once).
func (s *Server) assignRequestIDIn(rc *fasthttp.RequestCtx, buf *[maxRequestIDLen]byte) string {
	id := buf[:0]
	if h := rc.Request.Header.PeekBytes(headerRequestID); len(h) > 0 && len(h) <= maxRequestIDLen && printable(h) {
		id = append(id, h...)
	} else {
		id = s.appendRequestID(id)
	}
	rc.Response.Header.SetCanonical(headerRequestID, id)
	if len(id) > len(buf) || len(id) == 0 || &id[0] != &buf[0] {
		return string(id) // grew past buf (not with the server's own ids): its own copy
	}
	return unsafe.String(&buf[0], len(id))
}

// newRequestID makes a request id.
func (s *Server) newRequestID() string {
	var buf [64]byte
	return string(s.appendRequestID(buf[:0]))
}

// appendRequestID appends a new request id to b: the server's random base and a
// sequence number.
func (s *Server) appendRequestID(b []byte) []byte {
	b = append(b, s.idBase...)
	b = append(b, '-')
	return strconv.AppendUint(b, s.reqSeq.Add(1), 36)
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// The buckets a request draws from, made once: the limiter only reads them.
var (
	globalBucket         = []string{limiter.BucketGlobal}
	globalAndAuthBuckets = []string{limiter.BucketGlobal, limiter.BucketAuth}
)

// allow applies the per-address limits and sets the RateLimit headers.
func (s *Server) allow(rc *fasthttp.RequestCtx, id string) bool {
	buckets := globalBucket
	if bytes.HasPrefix(rc.Path(), []byte("/api/auth/")) {
		buckets = globalAndAuthBuckets
	}
	d, err := s.svc.Limiter.Take(requestContext(rc), s.clientAddr(rc), buckets...)
	if err != nil {
		// The limiter is down: failing open keeps the API usable; the error is logged.
		s.log.Error("limiter unavailable", zap.String("request_id", id), zap.Error(err))
		return true
	}
	return s.applyDecision(rc, id, d)
}

// applyDecision writes the RateLimit headers and, when refused, the 429.
func (s *Server) applyDecision(rc *fasthttp.RequestCtx, id string, d limiter.Decision) bool {
	if err := s.decided(rc, d); err != nil {
		s.writeError(rc, id, err)
		return false
	}
	return true
}

// decided writes the RateLimit headers of d and answers the 429's error when d refuses.
func (s *Server) decided(rc *fasthttp.RequestCtx, d limiter.Decision) error {
	if d.Limit == 0 {
		return nil
	}
	h := &rc.Response.Header
	var buf [20]byte
	h.SetCanonical(headerRateLimitLimit, strconv.AppendInt(buf[:0], int64(d.Limit), 10))
	h.SetCanonical(headerRateLimitRemaining, strconv.AppendInt(buf[:0], int64(max(d.Remaining, 0)), 10))
	h.SetCanonical(headerRateLimitReset, strconv.AppendInt(buf[:0], int64(d.ResetS), 10))
	if d.Allowed {
		return nil
	}
	s.metrics.limited(d.Bucket)
	// Say which: a request rate, not failed logins (those are the login handler's).
	what := "requests from this address"
	switch d.Bucket {
	case limiter.BucketAuth:
		what = "requests to /api/auth/ from this address"
	case limiter.BucketKeyOwner:
		what = "requests with the API keys of this user"
	}
	e := apierr.New(apierr.ErrRateLimited, "too many %s (the %s rate limit); retry in %d s", what, d.Bucket, d.RetryAfterS)
	e.RetryAfterS = d.RetryAfterS
	return e
}

// clientAddr is the client as the rate limits see it: the clientKey of the TCP peer,
// or of the first untrusted address of X-Forwarded-For when the peer is a trusted proxy.
func (s *Server) clientAddr(rc *fasthttp.RequestCtx) string {
	if len(s.opts.TrustedProxies) == 0 {
		// The peer's key, made once per connection: a string per request was as
		// much as the limiter's own decision on a cached read.
		if r := current(rc); r != nil && r.conn != nil {
			if r.conn.key == "" {
				r.conn.key = conncap.ClientKey(rc.RemoteIP(), s.opts.IPv6Prefix)
			}
			return r.conn.key
		}
	}
	return conncap.ClientKey(s.clientIP(rc), s.opts.IPv6Prefix)
}

// clientIP is the TCP peer, or the address a trusted proxy names for it
// (conncap.ClientIP).
func (s *Server) clientIP(rc *fasthttp.RequestCtx) net.IP {
	peer := rc.RemoteIP()
	if len(s.opts.TrustedProxies) == 0 || !conncap.Trusted(s.opts.TrustedProxies, peer) {
		return peer
	}
	return conncap.ClientIP(peer, string(rc.Request.Header.Peek("X-Forwarded-For")), s.opts.TrustedProxies)
}

// peer is the server as a Call asks it who sent a request (api.Peer).
type peer struct{ s *Server }

// ClientAddr is the request's clientAddr.
func (p peer) ClientAddr(rc *fasthttp.RequestCtx) string { return p.s.clientAddr(rc) }

// ClientIP is the request's clientIP.
func (p peer) ClientIP(rc *fasthttp.RequestCtx) net.IP { return p.s.clientIP(rc) }

// authenticate verifies the bearer token, then checks it against its user's current
// standing (Users.Authorize): a deleted, disabled or changed user, or an ended login,
// ends the token at once, however long it has to live. The check runs on every
// request, also when the token's verification was remembered.
func (s *Server) authenticate(ctx context.Context, rc *fasthttp.RequestCtx) (*token.Claims, error) {
	h := rc.Request.Header.Peek("Authorization")
	const prefix = "Bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(string(h[:len(prefix)]), prefix) {
		return nil, apierr.New(apierr.ErrUnauthorized, "a bearer token is required")
	}
	raw := bytes.TrimSpace(h[len(prefix):])
	if bytes.HasPrefix(raw, []byte(auth.APIKeyPrefix)) {
		return s.authenticateKey(ctx, rc, string(raw))
	}
	claims, err := s.tokens.Verify(raw)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Users.Authorize(ctx, claims.Subject, claims.SessionID, claims.Gen); err != nil {
		if errors.Is(err, apierr.ErrTOTPEnrolmentRequired) {
			// The caller decides: the account's own routes are open to such a login.
			return claims, err
		}
		return nil, err
	}
	return claims, nil
}

// enrolling are the routes open to a login that must enrol a second factor first:
// those of its own account that get it there, or out.
var enrolling = map[string]bool{
	"GET /api/auth/me": true, "POST /api/auth/totp": true, "POST /api/auth/totp/confirm": true,
	"POST /api/auth/logout": true, "GET /api/auth/sessions": true, "DELETE /api/auth/sessions/{id}": true,
	"POST /api/auth/password": true, "POST /api/auth/browser/logout": true,
}

// handleParseError answers requests fasthttp could not read or parse: oversized bodies
// and headers, timeouts, malformed request lines, URLs and headers. fasthttp closes the
// connection after the answer; unless the client stopped sending (a timeout), the
// connection lingers to take in the rest of the request, so that the close does not
// reset the connection under the answer (see conncap).
func (s *Server) handleParseError(rc *fasthttp.RequestCtx, err error) {
	id := s.assignRequestID(rc)
	var e *apierr.Error
	var small *fasthttp.ErrSmallBuffer
	var nerr net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		e = apierr.New(apierr.ErrPayloadTooLarge, "the body exceeds %d bytes", MaxBodyBytes)
	case errors.As(err, &small):
		e = apierr.New(apierr.ErrHeaderTooLarge, "the request line and headers exceed %d bytes", maxHeaderBytes)
	case errors.As(err, &nerr) && nerr.Timeout():
		e = apierr.New(apierr.ErrRequestTimeout, "the request was not received in time")
	default:
		e = apierr.New(apierr.ErrInvalidRequest, "the request could not be parsed")
	}
	if e.Status != fasthttp.StatusRequestTimeout {
		if c, ok := rc.Conn().(*conncap.Conn); ok {
			c.Linger(true)
		}
	}
	s.writeError(rc, id, e)
}

// expectContinue answers a request that announces its body with Expect: 100-continue:
// a body over the limit is refused with the 413 before the client sends it (fasthttp
// then writes this answer and closes the connection); any other is let through, as is
// every body of a Stream route (its handler sets its limit).
func (s *Server) expectContinue(rc *fasthttp.RequestCtx) int {
	if rc.Request.Header.ContentLength() <= MaxBodyBytes || s.streamed(rc) {
		return fasthttp.StatusContinue
	}
	s.writeError(rc, s.assignRequestID(rc), apierr.New(apierr.ErrPayloadTooLarge, "the body exceeds %d bytes", MaxBodyBytes))
	return fasthttp.StatusRequestEntityTooLarge
}

// serveRoute wraps a route's handler: access check, the call, the answer.
func (s *Server) serveRoute(rt *api.Route) fasthttp.RequestHandler {
	metrics := s.metrics.forRoute(rt.Path)
	ar := newAuditRoute(rt)
	return func(rc *fasthttp.RequestCtx) {
		if r := current(rc); r != nil {
			r.route = metrics
		}
		id := requestID(rc)
		ctx := requestContext(rc)
		// A change is recorded in the audit log, a refusal too; a read is not.
		entry := s.auditEntry(rc, id, rt, ar)
		refuse := func(err error) {
			s.writeError(rc, id, err)
			s.auditRefusal(ctx, entry, err)
		}
		var principal *token.Claims
		if rt.Access != api.Public {
			claims, err := s.authenticate(ctx, rc)
			if claims != nil {
				auditActor(rc, entry, claims)
			}
			if err != nil && !(errors.Is(err, apierr.ErrTOTPEnrolmentRequired) && enrolling[rt.Method+" "+rt.Path]) {
				refuse(err)
				return
			}
			if rt.Access == api.AdminOnly && claims.Role != auth.RoleAdmin {
				refuse(apierr.New(apierr.ErrForbidden, "this route is for operators"))
				return
			}
			if claims.KeyID != "" {
				if err := keyMay(rt, claims.Scopes); err != nil {
					refuse(err)
					return
				}
			}
			if err := s.checkSuspended(ctx, rc, rt, claims); err != nil {
				refuse(err)
				return
			}
			principal = claims
		}
		// What the document says of media type and query holds before any work.
		if err := rt.CheckRequest(rc); err != nil {
			refuse(err)
			return
		}
		if entry != nil {
			if r := current(rc); r != nil && ctx == context.Context(&r.ctx) {
				r.ctx.audit.Store(entry) // kit.AuditOf finds it without a WithValue
			} else {
				ctx = kit.WithAudit(ctx, entry)
			}
		}
		if rt.Stream {
			// An upload lasts as long as its body takes to arrive: the handler bounds it.
			ctx = context.WithoutCancel(ctx)
		}
		ctx, answered, settle := s.idempotent(ctx, rc, id, principal, rt)
		if answered {
			return
		}
		if settle != nil {
			defer func() {
				// A handler that panicked may have changed something: its key stays
				// claimed (a retry answers 409), and handle's recovery answers 500.
				if p := recover(); p != nil {
					settle(true)
					panic(p)
				}
			}()
		}
		call := api.Request{Context: ctx, RC: rc, Route: rt, RequestID: id, Principal: principal,
			Log: s.log, Peer: peer{s}}
		var c *api.Call
		if r := current(rc); r != nil {
			c = &r.call // in the request's one allocation
			c.Init(call)
		} else {
			c = api.NewCall(call)
		}
		res, err := rt.Handler(c)
		if err != nil {
			s.writeError(rc, id, err)
			s.auditRefusal(ctx, entry, err)
		} else {
			s.writeResult(rc, id, rt, res)
			s.auditDone(ctx, entry, res)
		}
		s.audit(rc, id, principal, rt, rc.Response.StatusCode(), err)
		if settle != nil {
			settle(false)
		}
	}
}

func (s *Server) writeResult(rc *fasthttp.RequestCtx, id string, rt *api.Route, res any) {
	status := rt.Status
	if status == 0 {
		status = fasthttp.StatusOK
	}
	if _, ok := res.(api.Upgraded); ok {
		return // the websocket owns the connection now
	}
	body := res
	if r, ok := res.(api.Reply); ok {
		status, body = r.Status, r.Body
		for k, v := range r.Headers {
			rc.Response.Header.Set(k, v)
		}
	}
	rc.SetStatusCode(status)
	if body == nil || status == fasthttp.StatusNoContent {
		return
	}
	if raw, ok := body.(api.RawJSON); ok {
		rc.SetContentType("application/json")
		rc.Response.SetBodyRaw(raw) // not copied: a RawJSON is never changed
		return
	}
	if err := writeJSON(rc, body); err != nil {
		rc.Response.Reset()
		rc.Response.Header.Set("X-Request-Id", id)
		s.writeError(rc, id, err)
	}
}

// streamRoute is a Stream route's method and path segments ({id} matches any one).
type streamRoute struct {
	method string
	segs   []string
}

// streamed reports whether the request is for a Stream route, whose handler reads
// its body.
func (s *Server) streamed(rc *fasthttp.RequestCtx) bool {
	return s.streamedPath(rc.Method(), rc.Path())
}

// bodyLimit is the server's HeaderReceived: the body gets its own read time
// (bodyTimeout). With bodies streamed, fasthttp also reads the first 8 KiB of a body
// before the handler runs, even of one whose Content-Length is over the limit: a
// client that sent the headers and a byte and waits for the answer got the 413 only
// at the read timeout. A limit of one byte for such a request (a Stream route's
// excepted) hands it to the handler after its first byte, and bodyWithin answers 413;
// a limit of 0 would mean fasthttp's default.
func (s *Server) bodyLimit(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	c := fasthttp.RequestConfig{ReadTimeout: bodyTimeout}
	if h.ContentLength() <= MaxBodyBytes {
		return c
	}
	if path, _, _ := bytes.Cut(h.RequestURI(), []byte("?")); !s.streamedPath(h.Method(), path) {
		c.MaxRequestBodySize = 1
	}
	return c
}

// streamedPath reports whether method and path name a Stream route.
func (s *Server) streamedPath(method, path []byte) bool {
	if len(s.streams) == 0 {
		return false
	}
	var segs []string
	for _, r := range s.streams {
		if string(method) != r.method {
			continue
		}
		if segs == nil {
			segs = strings.Split(string(path), "/")
		}
		if len(segs) != len(r.segs) {
			continue
		}
		match := true
		for i, seg := range r.segs {
			if !strings.HasPrefix(seg, "{") && seg != segs[i] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// bodyWithin reads the body of a request that is not a Stream route's whole, before
// anything else sees the request: the server streams bodies (for the uploads), and
// this keeps every other route as it was, its body read and bounded by MaxBodyBytes.
// A body over the limit is answered 413, one that does not arrive in time 408, and
// the connection is closed (lingering after a 413, so that the client reads it).
func (s *Server) bodyWithin(rc *fasthttp.RequestCtx, id string) bool {
	n := rc.Request.Header.ContentLength()
	if rc.RequestBodyStream() == nil {
		return true
	}
	var err error
	switch {
	case n > MaxBodyBytes:
		err = apierr.New(apierr.ErrPayloadTooLarge, "the body exceeds %d bytes", MaxBodyBytes)
	case n >= 0:
		// Body reads the rest of the stream into the request's pooled buffer; a read
		// that fails leaves it short.
		if len(rc.Request.Body()) != n {
			err = apierr.New(apierr.ErrRequestTimeout, "the request was not received in time")
		}
	default: // chunked: no length announced
		body, rerr := io.ReadAll(io.LimitReader(rc.RequestBodyStream(), MaxBodyBytes+1))
		switch {
		case rerr != nil:
			err = apierr.New(apierr.ErrInvalidRequest, "the request could not be parsed")
		case len(body) > MaxBodyBytes:
			err = apierr.New(apierr.ErrPayloadTooLarge, "the body exceeds %d bytes", MaxBodyBytes)
		default:
			rc.Request.SetBody(body)
		}
	}
	if err == nil {
		return true
	}
	s.writeError(rc, id, err)
	if errors.Is(err, apierr.ErrRequestTimeout) {
		rc.SetConnectionClose()
	} else {
		s.closeUnread(rc)
	}
	return false
}

// closeUnread closes the connection of a request answered before its body was read
// to its end (what is left of it is not a next request), lingering so that the
// client reads the answer rather than a reset.
func (s *Server) closeUnread(rc *fasthttp.RequestCtx) {
	rc.SetConnectionClose()
	if c, ok := rc.Conn().(*conncap.Conn); ok {
		c.Linger(true)
	}
}
