// Package httpedge is vmplane's HTTP edge: the fasthttp server, the route table as data,
// middleware (request id, panic recovery, body limit, rate limits, JWT check, metrics),
// strict JSON codecs, the mapping of typed errors to problem JSON, and the OpenAPI
// document generated from the same route table (by package httpedge/openapi).
package httpedge

import (
	"context"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/httpedge/openapi"
	"github.com/vmplane/vmplane/httpedge/token"
)

// Access says who may call a route; the document states it (x-vmplane-access, security).
type Access = openapi.Access

// Access levels.
const (
	// Public routes need no token.
	Public = openapi.Public
	// Authenticated routes need a valid token of any role.
	Authenticated = openapi.Authenticated
	// AdminOnly routes need an admin token; users get 403.
	AdminOnly = openapi.AdminOnly
)

// Handler is the one handler shape: parse, one actor request, return the result or a
// typed error. The edge turns either into the response.
type Handler func(c *Call) (any, error)

// Route is one entry of the route table: its handler, and what the OpenAPI document says
// of it (operation copies that part for the openapi package, which builds the document).
type Route struct {
	Method  string
	Path    string // fasthttp/router syntax: /api/tasks/{id}
	Access  Access
	Handler Handler

	// Documentation, for the OpenAPI document.
	Summary string
	Tag     string
	// Body is a zero value of the request body type (nil: no body).
	Body any
	// Reply is a zero value of the success body type (nil: no body).
	Reply any
	// Status is the success status (200 when zero).
	Status int
	// Query declares the query parameters: name → description. A parameter not
	// declared here is refused with 400 (checkQuery); its type comes from QueryTypes,
	// else from queryTypes by name, else it is a string.
	Query map[string]string
	// QueryTypes overrides the type of a parameter of Query on this route.
	QueryTypes map[string]QueryType
	// PathTypes types path parameters (default: a string), e.g. an enum of actions;
	// the handler checks them.
	PathTypes map[string]QueryType
	// Headers documents the request headers the route reads: name → description
	// (Authorization and Idempotency-Key are documented for every route that takes them).
	Headers map[string]string

	// Description is the operation's description; empty: composed from Summary, Access
	// and Status (see openapi.Describe).
	Description string
	// Patch marks Body as a JSON merge patch (RFC 7396): every field optional, at least
	// one present, and null clears a field tagged nullable.
	Patch bool
	// Also lists the other success answers of the route: status → zero value of their
	// body (nil: no body).
	Also map[int]any
	// Errors lists error statuses the route answers beyond those every route of its
	// kind answers (see operation), e.g. 401 for a login.
	Errors []int
	// Stamped says the handler's one write carries the claim of the request's
	// Idempotency-Key (kit.Stamp, from the call's context): a claim left without an
	// answer then tells whether the request applied, and a retry after its process
	// died runs it, or answers with the reply its write recorded, instead of a 409.
	Stamped bool
	// Exempt, on an authenticated POST that is not Stamped, says why it need not be
	// (it writes nothing durable, or running it again is harmless), as a clause the
	// document completes "a retry ... answers 409 conflict, since ...": every other
	// one is stamped (TestPostRoutesStamped).
	Exempt string
	// Hidden routes are served but not documented: the driver-named aliases of
	// /api/virt, which would give a generated client two of everything.
	Hidden bool
}

// QueryType is the type of a query or path parameter, for the document and for
// checkQuery.
type QueryType = openapi.QueryType

// RawBody documents, as Route.Body or Route.Reply, a body that is not a reflected JSON
// type, such as the Prometheus text of /metrics or the OpenAPI document itself.
type RawBody = openapi.RawBody

// Reply lets a handler choose the status and headers of its answer.
type Reply struct {
	Status  int
	Body    any
	Headers map[string]string
}

// Created is a 201 with body.
func Created(body any) Reply { return Reply{Status: fasthttp.StatusCreated, Body: body} }

// Accepted is a 202 with body and a Location header.
func Accepted(body any, location string) Reply {
	return Reply{Status: fasthttp.StatusAccepted, Body: body, Headers: map[string]string{"Location": location}}
}

// NoContent is a 204.
var NoContent = Reply{Status: fasthttp.StatusNoContent}

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
	srv       *Server
	// route is the route being served; nil when a test calls a handler directly.
	route *Route
	// body is the request body parsed, once (parsed); bodyErr why it is not JSON.
	body    *openapi.Body
	bodyErr error
	parsed  bool
}

// ClientAddr is the caller as the rate limits see it: the TCP peer, or the
// X-Forwarded-For of a trusted proxy, as an IPv4 address or an IPv6 prefix (clientKey);
// computed on demand, since few handlers need it.
func (c *Call) ClientAddr() string { return c.srv.clientAddr(c.rc) }

// Context carries the request deadline to actor requests.
func (c *Call) Context() context.Context { return c.ctx }

// Param returns a copy of a path parameter.
func (c *Call) Param(name string) string {
	if v, ok := c.rc.UserValue(name).(string); ok {
		return string(append([]byte(nil), v...))
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

// requestTimeout bounds each request's actor work.
const requestTimeout = 15 * time.Second
