package api

import (
	"bytes"
	"io"
	"maps"
	"mime"
	"slices"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/openapi"
)

// Decode reads the JSON body strictly into v: it must be one JSON value, every field
// must be known, every value must have the right type, and the body must satisfy the
// `openapi` rules of v's type (see openapi/rules.go), which the document states for it.
// On a route whose body is a merge patch, no field is required but one must be present.
// The body is parsed once for the whole request (parsedBody): Decode, Nulls and the
// look at tenant_id (BodyString) read that parse.
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

// BodyString is the body's top-level string member key, read leniently before the
// handler decodes the body strictly (and reports a bad body itself): nil when the body
// is not JSON or has no such string.
func (c *Call) BodyString(key string) *string {
	if len(c.rc.PostBody()) == 0 {
		return nil
	}
	b, err := c.parsedBody()
	if err != nil {
		return nil
	}
	return b.String(key)
}

// Nulls are the top-level members of the body that are JSON null: in a merge patch, the
// fields to clear.
func (c *Call) Nulls() map[string]bool {
	if len(c.rc.PostBody()) == 0 {
		return nil
	}
	b, err := c.parsedBody()
	if err != nil {
		return nil
	}
	return b.Nulls()
}

// Null reports whether the body's top-level member key is JSON null, as Nulls()[key]
// would, without making the map: a handler that asks of a few fields (a rule's) spares
// an allocation on every request.
func (c *Call) Null(key string) bool {
	if len(c.rc.PostBody()) == 0 {
		return false
	}
	b, err := c.parsedBody()
	if err != nil {
		return false
	}
	return b.Null(key)
}

// jsonMediaTypes are the media types a JSON body may be sent as; PATCH also takes a
// merge patch's own type.
var (
	jsonMediaTypes  = []string{openapi.AppJSON}
	patchMediaTypes = []string{openapi.AppJSON, openapi.MergePatchJSON}
)

// CheckRequest enforces what the document says of a request to the route before its
// handler runs: the media type of the body, and the query parameters. The body's own
// checks run in Decode, where its type is known.
func (rt *Route) CheckRequest(rc *fasthttp.RequestCtx) error {
	if err := rt.checkMediaType(rc); err != nil {
		return err
	}
	return rt.checkQuery(rc)
}

// checkMediaType answers 415 for a body sent as anything but JSON on a route that takes
// one: a text/plain body is not silently read as JSON. A route without a body ignores
// what is sent. A Stream route takes its RawBody's media type alone.
func (rt *Route) checkMediaType(rc *fasthttp.RequestCtx) error {
	allowed := jsonMediaTypes
	switch raw, ok := rt.Body.(RawBody); {
	case rt.Stream:
		// The body is the handler's to read: its length is what the headers say.
		if !ok || rc.Request.Header.ContentLength() == 0 {
			return nil
		}
		allowed = []string{raw.ContentType}
	case rt.Body == nil || len(rc.PostBody()) == 0:
		return nil
	case rt.Patch:
		allowed = patchMediaTypes
	}
	raw := rc.Request.Header.ContentType()
	// The usual header is exactly an allowed type ("application/json"): what
	// ParseMediaType would accept, without its string, its map and its lower-casing.
	for _, a := range allowed {
		if string(raw) == a {
			return nil
		}
	}
	ct := string(raw)
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

// checkQuery refuses a query parameter the route does not declare, one given twice,
// and one whose value does not fit its type, naming the parameter: a filter a client
// believes it applied is never silently ignored.
func (rt *Route) checkQuery(rc *fasthttp.RequestCtx) error {
	if rc.QueryArgs().Len() == 0 {
		return nil // the common case costs nothing
	}
	var errs []apierr.FieldError
	seen := map[string]bool{}
	for k, v := range rc.QueryArgs().All() {
		name := string(k)
		if seen[name] {
			errs = append(errs, apierr.Field(name, "is given more than once"))
			continue
		}
		seen[name] = true
		if _, ok := rt.Query[name]; !ok {
			if rt.OtherQuery {
				continue
			}
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

// StreamReadTimeout bounds each wait for data of a Stream route's body
// (Call.BodyStream): the body as a whole has no bound but the handler's, so a large
// upload from a client that keeps sending is taken, and one that stalls is cut off.
const StreamReadTimeout = 30 * time.Second

// BodyStream is the request body of a Stream route, read as it arrives (each read
// waits at most StreamReadTimeout for data). Other routes' bodies are read whole by
// the edge: Decode them.
func (c *Call) BodyStream() io.Reader {
	if s := c.rc.RequestBodyStream(); s != nil {
		return &streamBody{rc: c.rc, r: s}
	}
	return bytes.NewReader(c.rc.PostBody()) // a server that read the body whole (tests)
}

// ContentLength is the length of the request body as its headers announce it; -1
// when they announce none (a chunked body).
func (c *Call) ContentLength() int64 {
	if n := c.rc.Request.Header.ContentLength(); n >= 0 {
		return int64(n)
	}
	return -1
}

// streamBody moves the connection's read deadline on before each read of a body.
type streamBody struct {
	rc *fasthttp.RequestCtx
	r  io.Reader
}

func (b *streamBody) Read(p []byte) (int, error) {
	if c := b.rc.Conn(); c != nil {
		_ = c.SetReadDeadline(time.Now().Add(StreamReadTimeout))
	}
	return b.r.Read(p)
}
