package httpedge

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/openapi"
	"github.com/vmplane/vmplane/persistence"
)

// rawJSON is a body that is already encoded.
type rawJSON []byte

func writeJSON(rc *fasthttp.RequestCtx, v any) error {
	rc.SetContentType("application/json")
	if a, ok := v.(persistence.JSONAppender); ok {
		b, err := a.AppendJSON(make([]byte, 0, 512))
		if err != nil {
			return err
		}
		rc.Response.SetBodyRaw(append(b, '\n'))
		return nil
	}
	return encodeJSON(rc.Response.BodyWriter(), v)
}

// marshalJSON is v as writeJSON writes it, for bodies encoded once and served many times.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeJSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encodeJSON is the one JSON form of every answer: HTML characters unescaped, a
// newline at the end.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Decode reads the JSON body strictly into v: it must be one JSON value, every field
// must be known, every value must have the right type, and the body must satisfy the
// `openapi` rules of v's type (see openapi/rules.go), which the document states for it.
// On a route whose body is a merge patch, no field is required but one must be present.
// The body is parsed once for the whole request (parsedBody): Decode, nulls and the
// edge's look at tenant_id read that parse.
func (c *Call) Decode(v any) error {
	raw := c.rc.PostBody()
	if len(bytes.TrimSpace(raw)) == 0 {
		return apierr.New(apierr.ErrInvalidJSON, "a JSON body is required")
	}
	b, err := c.parsedBody()
	if err != nil {
		return err
	}
	patch := c.route != nil && c.route.Patch
	return b.Decode(raw, v, patch)
}

// parsedBody is the request body parsed as JSON, parsed on the first call only.
func (c *Call) parsedBody() (*openapi.Body, error) {
	if !c.parsed {
		c.body, c.bodyErr = openapi.ParseBody(c.rc.PostBody())
		c.parsed = true
	}
	return c.body, c.bodyErr
}

// bodyString is the body's top-level string member key, read leniently before the
// handler decodes the body strictly (and reports a bad body itself): nil when the body
// is not JSON or has no such string.
func (c *Call) bodyString(key string) *string {
	if len(c.rc.PostBody()) == 0 {
		return nil
	}
	b, err := c.parsedBody()
	if err != nil {
		return nil
	}
	return b.String(key)
}

// jsonMediaTypes are the media types a JSON body may be sent as; PATCH also takes a
// merge patch's own type.
var (
	jsonMediaTypes  = []string{openapi.AppJSON}
	patchMediaTypes = []string{openapi.AppJSON, openapi.MergePatchJSON}
)

// checkRequest enforces what the document says of a request before its handler runs:
// the media type of the body, and the query parameters. The body's own checks run in
// Decode, where its type is known.
func (c *Call) checkRequest() error {
	if err := c.checkMediaType(); err != nil {
		return err
	}
	return c.checkQuery()
}

// checkMediaType answers 415 for a body sent as anything but JSON on a route that takes
// one: a text/plain body is not silently read as JSON. A route without a body ignores
// what is sent.
func (c *Call) checkMediaType() error {
	rt := c.route
	if rt == nil || rt.Body == nil || len(c.rc.PostBody()) == 0 {
		return nil
	}
	allowed := jsonMediaTypes
	if rt.Patch {
		allowed = patchMediaTypes
	}
	ct := string(c.rc.Request.Header.ContentType())
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && slices.Contains(allowed, mt) {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return nil
		}
	}
	if ct == "" {
		ct = "no Content-Type"
	}
	e := apierr.New(apierr.ErrUnsupportedMedia, "the body must be sent as %s (UTF-8), not %s", strings.Join(allowed, " or "), ct)
	e.Allowed = slices.Clone(allowed)
	return e
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

// checkQuery refuses a query parameter the route does not declare, one given twice,
// and one whose value does not fit its type, naming the parameter: a filter a client
// believes it applied is never silently ignored.
func (c *Call) checkQuery() error {
	rt := c.route
	if rt == nil || c.rc.QueryArgs().Len() == 0 {
		return nil // the common case costs nothing
	}
	var errs []apierr.FieldError
	seen := map[string]bool{}
	for k, v := range c.rc.QueryArgs().All() {
		name := string(k)
		if seen[name] {
			errs = append(errs, apierr.Field(name, "is given more than once"))
			continue
		}
		seen[name] = true
		if _, ok := rt.Query[name]; !ok {
			errs = append(errs, apierr.Field(name, "is not a query parameter of %s %s", rt.Method, rt.Path))
			continue
		}
		if v := string(v); v != "" {
			if fe := rt.queryType(name).Check(name, v); fe != nil {
				errs = append(errs, *fe)
			}
		}
	}
	if len(errs) > 0 {
		e := apierr.Invalid(errs...)
		if len(rt.Query) > 0 {
			e.Allowed = slices.Sorted(maps.Keys(rt.Query))
		}
		return e
	}
	return nil
}

// nulls are the top-level members of the body that are JSON null: in a merge patch, the
// fields to clear.
func (c *Call) nulls() map[string]bool {
	if len(c.rc.PostBody()) == 0 {
		return nil
	}
	b, err := c.parsedBody()
	if err != nil {
		return nil
	}
	return b.Nulls()
}
