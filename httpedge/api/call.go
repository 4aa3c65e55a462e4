package api

import (
	"context"
	"net"
	"strings"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/openapi"
	"github.com/vmplane/vmplane/httpedge/token"
)

// Call is what a handler knows about its request. The RequestCtx behind it is valid only
// while the handler runs: handlers copy what they need (Param, Query and Decode return
// copies) and never hand rc to an actor.
type Call struct {
	ctx       context.Context
	rc        *fasthttp.RequestCtx
	log       *zap.Logger
	RequestID string
	// Principal is the verified token's claims; nil on public routes.
	Principal *token.Claims
	peer      Peer
	// route is the route being served; nil when a test calls a handler directly.
	route *Route
	// body is the request body parsed, once (parsed); bodyErr why it is not JSON.
	body    *openapi.Body
	bodyErr error
	parsed  bool
}

// Peer tells who sent a request as the edge's rate limits see it: the server
// implements it from its trusted proxies and its IPv6 prefix.
type Peer interface {
	// ClientAddr is the client's key: an IPv4 address or an IPv6 prefix.
	ClientAddr(rc *fasthttp.RequestCtx) string
	// ClientIP is the TCP peer, or the address a trusted proxy names for it.
	ClientIP(rc *fasthttp.RequestCtx) net.IP
}

// Request is what the edge hands a handler's Call: everything the edge has settled of
// the request before the handler runs.
type Request struct {
	// Context is the request's context (its deadline, an Idempotency-Key's stamp).
	Context context.Context
	// RC is the request itself.
	RC *fasthttp.RequestCtx
	// Route is the route being served.
	Route *Route
	// RequestID is the request's id (X-Request-Id).
	RequestID string
	// Principal is the verified token's claims (nil on public routes).
	Principal *token.Claims
	// Log is the edge's logger; Call.Log adds the request id.
	Log *zap.Logger
	// Peer tells who sent the request.
	Peer Peer
}

// NewCall is the Call the edge hands a route's handler.
func NewCall(r Request) *Call {
	c := new(Call)
	c.Init(r)
	return c
}

// Init makes c the Call of r, in place: the edge keeps the Call in the struct it
// allocates for the request anyway, instead of allocating one more per request.
func (c *Call) Init(r Request) {
	*c = Call{ctx: r.Context, rc: r.RC, route: r.Route, RequestID: r.RequestID, Principal: r.Principal,
		log: r.Log, peer: r.Peer}
}

// ClientAddr is the caller as the rate limits see it: the TCP peer, or the
// X-Forwarded-For of a trusted proxy, as an IPv4 address or an IPv6 prefix (clientKey);
// computed on demand, since few handlers need it.
func (c *Call) ClientAddr() string { return c.peer.ClientAddr(c.rc) }

// ClientIP is the caller's address: the TCP peer, or the one a trusted proxy names.
func (c *Call) ClientIP() net.IP { return c.peer.ClientIP(c.rc) }

// Context carries the request deadline to actor requests.
func (c *Call) Context() context.Context { return c.ctx }

// RequestCtx is the fasthttp request behind the call, for the few handlers that write
// the response themselves or take the connection over (a websocket, an event stream, a
// backup, /metrics). It is valid only while the handler runs.
func (c *Call) RequestCtx() *fasthttp.RequestCtx { return c.rc }

// RoutePath is the path pattern of the route being served (/api/virt/vms/{id}/console),
// as the caller reached it; "" when a test calls a handler directly.
func (c *Call) RoutePath() string {
	if c.route == nil {
		return ""
	}
	return c.route.Path
}

// Param returns a copy of a path parameter.
func (c *Call) Param(name string) string {
	if v, ok := c.rc.UserValue(name).(string); ok {
		// A copy (the router's value may share the request's buffer), in one
		// allocation.
		return strings.Clone(v)
	}
	return ""
}

// Query returns a copy of a query parameter ("" when absent).
func (c *Call) Query(name string) string {
	return string(c.rc.QueryArgs().Peek(name))
}

// Header returns a copy of a request header.
func (c *Call) Header(name string) string {
	return string(c.rc.Request.Header.Peek(name))
}

// Log returns a logger that carries the request id.
func (c *Call) Log() *zap.Logger {
	return c.log.With(zap.String("request_id", c.RequestID))
}

// IsAdmin reports whether the caller is an operator.
func (c *Call) IsAdmin() bool { return c.Principal != nil && c.Principal.Role == "admin" }

// Scope is the tenant a caller is confined to; nil for operators.
func (c *Call) Scope() *string {
	if c.IsAdmin() {
		return nil
	}
	if c.Principal == nil || c.Principal.TenantID == nil {
		none := ""
		return &none
	}
	t := *c.Principal.TenantID
	return &t
}

// Tenant is the tenant a client-area call acts for: the user's own, or for an operator
// the one named by ?tenant_id=.
func (c *Call) Tenant() (string, error) {
	if !c.IsAdmin() {
		if c.Principal.TenantID == nil {
			return "", apierr.New(apierr.ErrForbidden, "this user belongs to no tenant")
		}
		if t := c.Query("tenant_id"); t != "" && t != *c.Principal.TenantID {
			return "", apierr.New(apierr.ErrForbidden, "tenant_id cannot name another tenant")
		}
		return *c.Principal.TenantID, nil
	}
	t := c.Query("tenant_id")
	if t == "" {
		return "", apierr.Invalid(apierr.Field("tenant_id", "an operator must name the tenant to act for"))
	}
	return t, nil
}

// CheckBodyTenant refuses a body whose tenant_id names another tenant.
func (c *Call) CheckBodyTenant(tenant string) error {
	if named := c.BodyString("tenant_id"); named != nil && *named != tenant {
		return apierr.New(apierr.ErrForbidden, "tenant_id cannot name another tenant")
	}
	return nil
}
