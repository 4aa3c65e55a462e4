package httpedge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/apierr"
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
// `openapi` rules of v's type (see rules.go), which the document states for it. On a
// route whose body is a merge patch, no field is required but one must be present.
func (c *Call) Decode(v any) error {
	body := c.rc.PostBody()
	if len(bytes.TrimSpace(body)) == 0 {
		return apierr.New(apierr.ErrInvalidJSON, "a JSON body is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apierr.New(apierr.ErrInvalidJSON, "the body must hold exactly one JSON value")
	}
	patch := c.route != nil && c.route.Patch
	return validateBody(body, reflect.TypeOf(v), patch)
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return apierr.New(apierr.ErrInvalidJSON, "the body is not valid JSON")
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return apierr.Invalid(apierr.Field(field, "must be %s", jsonKind(typ.Type.Kind().String())))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no typed error for unknown fields; its message is stable.
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apierr.Invalid(apierr.Field(name, "is not a known field"))
	}
	return apierr.New(apierr.ErrInvalidJSON, "the body could not be decoded")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	return "a number"
}

// jsonUnmarshal decodes leniently, for peeking at one field before a strict decode.
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// jsonMediaTypes are the media types a JSON body may be sent as; PATCH also takes a
// merge patch's own type.
var (
	jsonMediaTypes  = []string{appJSON}
	patchMediaTypes = []string{appJSON, mergePatchJSON}
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

// schema is the parameter's schema in the document.
func (q QueryType) schema() obj {
	s := obj{"type": "string"}
	if q.Type != "" {
		s["type"] = q.Type
	}
	if q.Format != "" {
		s["format"] = q.Format
	}
	if len(q.Enum) > 0 {
		s["enum"] = q.Enum
	}
	if q.Minimum != nil {
		s["minimum"] = *q.Minimum
	}
	if q.Maximum != nil {
		s["maximum"] = *q.Maximum
	}
	if s["type"] == "string" && len(q.Enum) == 0 {
		s["maxLength"] = q.maxLength()
	}
	return s
}

func (q QueryType) maxLength() int {
	if q.MaxLength > 0 {
		return q.MaxLength
	}
	return defaultMaxLength
}

// check is the parameter's value checked against its type; nil when it fits.
func (q QueryType) check(name, v string) *apierr.FieldError {
	bad := func(format string, args ...any) *apierr.FieldError {
		f := apierr.Field(name, format, args...)
		return &f
	}
	switch q.Type {
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return bad("must be a whole number")
		}
		if (q.Minimum != nil && n < *q.Minimum) || (q.Maximum != nil && n > *q.Maximum) {
			switch {
			case q.Maximum == nil:
				return bad("must be at least %d", *q.Minimum)
			case q.Minimum == nil:
				return bad("must be at most %d", *q.Maximum)
			}
			return bad("must be %d..%d", *q.Minimum, *q.Maximum)
		}
		return nil
	case "boolean":
		if v != "true" && v != "false" {
			return bad("must be true or false")
		}
		return nil
	}
	if len(q.Enum) > 0 {
		if !slices.Contains(q.Enum, v) {
			return bad("must be one of %s", strings.Join(q.Enum, ", "))
		}
		return nil
	}
	if utf8.RuneCountInString(v) > q.maxLength() {
		return bad("must be at most %d characters", q.maxLength())
	}
	if q.Format == "date-time" {
		if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
			return bad("must be an RFC 3339 time")
		}
	}
	return nil
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
			if fe := rt.queryType(name).check(name, v); fe != nil {
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

// bodyField is one member of a request body type with its rules, as validateValue
// checks it.
type bodyField struct {
	name  string
	typ   reflect.Type
	rules *fieldRules
}

// bodyFields caches each request type's members (reflect.Type → []bodyField).
var bodyFields sync.Map

func fieldsOf(t reflect.Type) []bodyField {
	if v, ok := bodyFields.Load(t); ok {
		return v.([]bodyField)
	}
	var out []bodyField
	for _, f := range jsonFields(t) {
		out = append(out, bodyField{name: f.name, typ: f.typ, rules: f.requestRules()})
	}
	bodyFields.Store(t, out)
	return out
}

// validateBody checks a decoded body against the rules of its type, the same rules
// the document states: required fields present, null only where nullable, enums,
// lengths, item counts and number bounds. patch relaxes required at the top level and
// asks for at least one field instead.
func validateBody(body []byte, t reflect.Type, patch bool) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return apierr.New(apierr.ErrInvalidJSON, "the body is not valid JSON")
	}
	var errs []apierr.FieldError
	if m, ok := v.(map[string]any); ok && patch && len(m) == 0 {
		errs = append(errs, apierr.Field("body", "a patch must change at least one field"))
	}
	validateValue(&errs, "", v, t, &fieldRules{}, patch)
	if len(errs) > 0 {
		return apierr.Invalid(errs...)
	}
	return nil
}

// maxFieldErrors bounds the errors one answer lists (a body of 100,000 bad items
// needs no 100,000 lines to be refused).
const maxFieldErrors = 20

func validateValue(errs *[]apierr.FieldError, path string, v any, t reflect.Type, r *fieldRules, patch bool) {
	if len(*errs) >= maxFieldErrors {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := path
	if name == "" {
		name = "body"
	}
	bad := func(format string, args ...any) { *errs = append(*errs, apierr.Field(name, format, args...)) }
	switch v := v.(type) {
	case string:
		if len(r.enum) > 0 && !slices.Contains(r.enum, v) {
			bad("must be one of %s", strings.Join(r.enum, ", "))
			return
		}
		n := utf8.RuneCountInString(v)
		if r.minLength != nil && n < *r.minLength {
			if *r.minLength == 1 {
				bad("must not be empty")
			} else {
				bad("must be at least %d characters", *r.minLength)
			}
		}
		if r.maxLength != nil && n > *r.maxLength {
			bad("must be at most %d characters", *r.maxLength)
		}
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return
		}
		if r.minimum != nil && f < *r.minimum {
			bad("must be at least %v", num(*r.minimum))
		}
		if r.maximum != nil && f > *r.maximum {
			bad("must be at most %v", num(*r.maximum))
		}
		if len(r.enum) > 0 && !slices.Contains(r.enum, v.String()) {
			bad("must be one of %s", strings.Join(r.enum, ", "))
		}
	case []any:
		if r.minItems != nil && len(v) < *r.minItems {
			bad("must have at least %d items", *r.minItems)
		}
		if r.maxItems != nil && len(v) > *r.maxItems {
			// The items are not looked at: the array is refused whole.
			bad("must have at most %d items", *r.maxItems)
			return
		}
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return
		}
		ir := r.items
		if ir == nil {
			ir = &fieldRules{}
		}
		for i, e := range v {
			p := path + "[" + strconv.Itoa(i) + "]"
			if e == nil {
				*errs = append(*errs, apierr.Field(p, "must not be null"))
				continue
			}
			validateValue(errs, p, e, t.Elem(), ir, false)
		}
	case map[string]any:
		if t.Kind() != reflect.Struct || t == timeType {
			return
		}
		prefix := ""
		if path != "" {
			prefix = path + "."
		}
		for _, f := range fieldsOf(t) {
			fv, present := v[f.name]
			switch {
			case !present:
				if f.rules.required && !patch {
					*errs = append(*errs, apierr.Field(prefix+f.name, "is required"))
				}
			case fv == nil:
				if !f.rules.nullable {
					*errs = append(*errs, apierr.Field(prefix+f.name, "must not be null"))
				}
			default:
				validateValue(errs, prefix+f.name, fv, f.typ, f.rules, false)
			}
		}
	}
}

// nulls are the top-level members of the body that are JSON null: in a merge patch, the
// fields to clear. Only a body with a null in it is decoded again (null cannot be
// escaped, so a body without the bytes has none).
func (c *Call) nulls() map[string]bool {
	body := c.rc.PostBody()
	if !bytes.Contains(body, []byte("null")) {
		return nil
	}
	var present map[string]json.RawMessage
	if json.Unmarshal(body, &present) != nil {
		return nil
	}
	out := map[string]bool{}
	for k, v := range present {
		if string(v) == "null" {
			out[k] = true
		}
	}
	return out
}
