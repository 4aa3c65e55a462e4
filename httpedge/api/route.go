// Package api is what the edge's areas share: the route table's entry (Route, Handler,
// Access), the Call a handler reads its request from, the answers (Reply, Page,
// TaskReply), the paging and query declarations several areas use, and the Services
// the handlers call. The core package httpedge serves these routes; each area (virt,
// clientarea, resources, monitor, accounts) builds its own from here.
package api

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/httpedge/openapi"
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
// of it (Operation copies that part for the openapi package, which builds the document).
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
	// OtherQuery lets the route ignore query parameters beyond Query: the callback of
	// a redirect made by another system (an OpenID Connect provider), which adds
	// parameters of its own that vmplane has no use for.
	OtherQuery bool
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
	// kind answers (see Operation), e.g. 401 for a login.
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
	// KeyScope is the scope an API key needs to call the route, where it is not the one
	// its method and path imply (keyScope in the edge): the billing routes, which
	// billing systems call with keys that may do nothing else.
	KeyScope string
	// Stream says the handler reads the request body itself, as it arrives
	// (Call.BodyStream), up to a size it decides: the edge reads nothing of it before
	// the handler, its MaxBodyBytes does not apply, and Body is the RawBody of the one
	// media type the route takes (an ISO image's content). The request's context has
	// no deadline of the edge's: the handler bounds its work.
	Stream bool
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

// RawJSON is an answer body that is already encoded (as EncodeJSON would), served as
// it is, without a copy: its bytes must never change once returned (a cached page's
// encoding, the OpenAPI document).
type RawJSON []byte

// Upgraded is the result of a handler that took the connection over (a websocket, an
// event stream, a backup): the edge writes no answer of its own.
type Upgraded struct{}

// EncodeJSON is the one JSON form of every answer: HTML characters unescaped, a
// newline at the end.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// MarshalJSON is v as the edge writes it, for bodies encoded once and served many
// times (as RawJSON).
func MarshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := EncodeJSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// queryTypes are the types of the query parameters shared by many routes, by name.
var queryTypes = map[string]QueryType{
	"limit":         {Type: "integer", Minimum: ptrTo[int64](1), Maximum: ptrTo[int64](500)},
	"cursor":        {MaxLength: 128},
	"tenant_id":     {MaxLength: 64},
	"machine_id":    {MaxLength: 64},
	"days":          {Type: "integer", Minimum: ptrTo[int64](1), Maximum: ptrTo[int64](365)},
	"horizon_days":  {Type: "integer", Minimum: ptrTo[int64](1), Maximum: ptrTo[int64](365)},
	"timeframe":     {Enum: []string{"hour", "day", "week", "month", "year"}},
	"severity":      {Enum: []string{"info", "warning", "critical"}},
	"kind":          {Enum: alerts.AlertKinds},
	"since":         {Format: "date-time", MaxLength: 64},
	"until":         {Format: "date-time", MaxLength: 64},
	"last_event_id": {Type: "integer", Minimum: ptrTo[int64](0)},
	"ticket":        {MaxLength: 256},
	"name":          {MaxLength: 100},
	"node":          {MaxLength: 64},
}

func ptrTo[T any](v T) *T { return &v }

// queryType is the type of query parameter name on this route.
func (rt *Route) queryType(name string) QueryType {
	if q, ok := rt.QueryTypes[name]; ok {
		return q
	}
	return queryTypes[name]
}

// Operation is what the document says of the route. Every query parameter gets its
// type here, as checkQuery finds it (queryType), so that the two agree.
func (rt *Route) Operation() openapi.Operation {
	var qt map[string]QueryType
	if len(rt.Query) > 0 {
		qt = make(map[string]QueryType, len(rt.Query))
		for name := range rt.Query {
			qt[name] = rt.queryType(name)
		}
	}
	return openapi.Operation{
		Method: rt.Method, Path: rt.Path, Access: rt.Access,
		Summary: rt.Summary, Tag: rt.Tag, Body: rt.Body, Reply: rt.Reply, Status: rt.Status,
		Query: rt.Query, QueryTypes: qt, PathTypes: rt.PathTypes, Headers: rt.Headers,
		Description: rt.Description, Patch: rt.Patch, Also: rt.Also, Errors: rt.Errors, Stamped: rt.Stamped,
		Exempt: rt.Exempt, KeyScope: rt.KeyScope, OtherQuery: rt.OtherQuery, Stream: rt.Stream,
	}
}

// Describe is the route's description in the document (see openapi.Describe), for a
// route that adds a sentence to it.
func Describe(rt *Route) string {
	op := rt.Operation()
	return openapi.Describe(&op)
}
