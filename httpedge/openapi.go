package httpedge

import (
	"bytes"

	"github.com/vmplane/vmplane/httpedge/openapi"
)

// The OpenAPI document is built by package openapi from the route table: each
// documented route is passed as an openapi.Operation, its Route without the handler.
// The document is built once, in New, as the route table is fixed once New returns.

// openAPIDoc returns the document built in New; callers must not modify it.
func (s *Server) openAPIDoc() ([]byte, error) { return s.openapiDoc, s.openapiErr }

// buildOpenAPI generates the document of a route table; hidden routes are left out.
func buildOpenAPI(version string, routes []Route) ([]byte, error) {
	var ops []openapi.Operation
	for i := range routes {
		if !routes[i].Hidden {
			ops = append(ops, routes[i].operation())
		}
	}
	return openapi.Build(version, problem{}, ops)
}

// operation is what the document says of the route. Every query parameter gets its
// type here, as checkQuery finds it (queryType), so that the two agree.
func (rt *Route) operation() openapi.Operation {
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
		Exempt: rt.Exempt,
	}
}

// describe is the route's description in the document (see openapi.Describe).
func describe(rt *Route) string {
	op := rt.operation()
	return openapi.Describe(&op)
}

// OpenAPI returns the OpenAPI 3.1 document that GET /api/openapi.json serves, for tests
// and for tools that print it without running a server. The slice is the caller's.
func (s *Server) OpenAPI() ([]byte, error) {
	doc, err := s.openAPIDoc()
	if err != nil {
		return nil, err
	}
	return bytes.Clone(doc), nil
}

// openapi serves GET /api/openapi.json.
func (s *Server) openapi(c *Call) (any, error) {
	doc, err := s.openAPIDoc()
	if err != nil {
		// A route the generator cannot describe is a bug; apierr.From turns it into a
		// 500 whose detail does not leak, and writeError logs the cause.
		return nil, err
	}
	return rawJSON(doc), nil
}
