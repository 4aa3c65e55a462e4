package httpedge

import (
	"bytes"

	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/openapi"
)

// The OpenAPI document is built by package openapi from the route table: each
// documented route is passed as an openapi.Operation, its Route without the handler
// (api.Route.Operation).
// The document is built once, on its first use, as the route table is fixed once New
// returns: not in New, where it would cost every start (some 20 ms, a second under the
// race detector) for a document most processes are never asked for.

// openAPIDoc returns the route table's document; callers must not modify it.
func (s *Server) openAPIDoc() ([]byte, error) {
	s.openapiOnce.Do(func() { s.openapiDoc, s.openapiErr = buildOpenAPI(s.opts.Version, s.routes) })
	return s.openapiDoc, s.openapiErr
}

// buildOpenAPI generates the document of a route table; hidden routes are left out.
func buildOpenAPI(version string, routes []api.Route) ([]byte, error) {
	var ops []openapi.Operation
	for i := range routes {
		if !routes[i].Hidden {
			op := routes[i].Operation()
			op.KeyScope = keyScope(&routes[i])
			ops = append(ops, op)
		}
	}
	return openapi.Build(version, problem{}, ops)
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
func (s *Server) openapi(*api.Call) (any, error) {
	doc, err := s.openAPIDoc()
	if err != nil {
		// A route the generator cannot describe is a bug; apierr.From turns it into a
		// 500 whose detail does not leak, and writeError logs the cause.
		return nil, err
	}
	return api.RawJSON(doc), nil
}
