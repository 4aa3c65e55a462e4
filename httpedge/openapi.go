package httpedge

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The OpenAPI document is generated from the route table by a small reflector of our own
// rather than kin-openapi's openapi3gen: openapi3gen writes OpenAPI 3.0 schemas
// (`nullable: true`), while we serve 3.1, whose schemas are JSON Schema 2020-12
// (`type: ["string", "null"]`). The reflector follows encoding/json's rules, so the schema
// describes what the edge actually writes and reads.

// openAPIVersion is the version of the OpenAPI specification the document follows.
const openAPIVersion = "3.1.0"

// RawBody documents, as Route.Body or Route.Reply, a body that is not a reflected JSON
// type, such as the Prometheus text of /metrics or this document itself.
type RawBody struct {
	// ContentType is the media type of the body, e.g. "text/plain; version=0.0.4".
	ContentType string
}

// openapiCache holds one server's document. The route table is fixed once New returns,
// so the document is built at most once per server.
// openAPIDoc returns the document built in New; callers must not modify it.
func (s *Server) openAPIDoc() ([]byte, error) { return s.openapiDoc, s.openapiErr }

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

// obj is a JSON object of the document; encoding/json writes map keys sorted, which
// keeps the document byte-for-byte deterministic.
type obj = map[string]any

const (
	problemJSON  = "application/problem+json"
	appJSON      = "application/json"
	problemName  = "Problem"
	bearerScheme = "bearerAuth"
)

// accessName is the value of the x-vmplane-access extension.
func accessName(a Access) string {
	switch a {
	case Public:
		return "public"
	case AdminOnly:
		return "admin"
	}
	return "authenticated"
}

// buildOpenAPI generates the document for a route table. It is a function of its
// arguments only, so tests can run it on a hand-made table without an actor system.
func buildOpenAPI(version string, routes []Route) ([]byte, error) {
	if version == "" {
		// info.version is required and must not be empty.
		version = "0.0.0-dev"
	}
	g := newSchemaGen()
	// Reflected first so that it gets the name Problem whatever the routes hold.
	g.schemas[problemName] = nil
	pk := typeMode{reflect.TypeFor[problem](), modeReply}
	g.names[pk] = problemName
	g.taken[problemName] = pk
	problemSchema := g.object(reflect.TypeFor[problem](), modeReply)
	problemSchema["description"] = "An RFC 9457 problem: the body of every error answer."
	g.schemas[problemName] = problemSchema

	// Answers are reflected before request bodies, so that a type used both ways is
	// named the same whatever the order of the table: Quota for the answer, QuotaInput
	// for the body.
	for i := range routes {
		if !routes[i].Hidden {
			g.content(routes[i].Reply, modeReply)
			for _, b := range routes[i].Also {
				g.content(b, modeReply)
			}
		}
	}

	paths := map[string]obj{}
	opIDs := map[string]bool{}
	tags := map[string]bool{}
	for i := range routes {
		rt := &routes[i]
		if rt.Hidden {
			continue
		}
		method := strings.ToLower(rt.Method)
		if !slices.Contains([]string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}, method) {
			return nil, fmt.Errorf("openapi: route %s %s: OpenAPI 3.1 cannot describe method %s", rt.Method, rt.Path, rt.Method)
		}
		variants, err := templatePaths(rt.Path)
		if err != nil {
			return nil, fmt.Errorf("openapi: route %s %s: %w", rt.Method, rt.Path, err)
		}
		for _, v := range variants {
			op := g.operation(rt, v)
			id := operationID(method, v.path)
			// Distinct routes can fold to one id (/a-b and /a/b); a suffix in table order
			// keeps ids unique and stable.
			for n := 2; opIDs[id]; n++ {
				id = operationID(method, v.path) + strconv.Itoa(n)
			}
			opIDs[id] = true
			op["operationId"] = id
			item := paths[v.path]
			if item == nil {
				item = obj{}
				paths[v.path] = item
			}
			if _, dup := item[method]; dup {
				return nil, fmt.Errorf("openapi: route %s %s: %s %s is declared twice", rt.Method, rt.Path, rt.Method, v.path)
			}
			item[method] = op
		}
		if rt.Tag != "" {
			tags[rt.Tag] = true
		}
		if g.err != nil {
			return nil, fmt.Errorf("openapi: route %s %s: %w", rt.Method, rt.Path, g.err)
		}
	}
	tagList := []obj{}
	for _, t := range slices.Sorted(maps.Keys(tags)) {
		tagList = append(tagList, obj{"name": t})
	}

	doc := obj{
		"openapi": openAPIVersion,
		"info": obj{
			"title":       "vmplane API",
			"version":     version,
			"description": apiDescription,
		},
		"servers": []obj{{"url": "/"}},
		"tags":    tagList,
		"paths":   paths,
		"components": obj{
			"schemas": g.schemas,
			"securitySchemes": obj{bearerScheme: obj{
				"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
				"description": "An access token from POST /api/auth/login or /api/auth/refresh.",
			}},
			"responses":  errorResponses(),
			"headers":    sharedHeaders(),
			"parameters": obj{"IdempotencyKey": idempotencyKeyParam()},
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return buf.Bytes(), nil
}

// apiDescription states the conventions that hold for every operation, so that they
// need not be repeated in each.
const apiDescription = `Control plane for virtual machines.

Bodies are JSON (UTF-8) sent with Content-Type application/json (PATCH also takes application/merge-patch+json); another media type gets 415. A request body must satisfy its schema: unknown fields, missing required fields, values outside an enum and strings or arrays over their bounds are rejected with 400 naming the field, and a body over 1 MiB gets 413. A PATCH body is a JSON merge patch: omitted fields keep their value, and null clears a field whose schema allows null. Query parameters not listed for an operation are rejected with 400 naming the parameter. Times are RFC 3339 in UTC. Every response carries X-Request-Id (echoed when the client sent one).

Every error is an RFC 9457 problem (application/problem+json, schema Problem) with a stable machine-readable ` + "`code`" + `.

Authenticate with ` + "`Authorization: Bearer <token>`" + ` using the token of POST /api/auth/login; operations marked x-vmplane-access: admin answer 403 to non-operators.

Slow work answers 202 Accepted with the task and a Location header; GET the Location to follow it. Every authenticated POST accepts an Idempotency-Key header: a retry with the same key within 24 h gets the first answer again.

Lists answer {"items": [...], "next_cursor": ...} and take ?limit= (default 50, max 500) and ?cursor=.`

// pathVariant is one OpenAPI path for a route: a router path with an optional parameter
// stands for two OpenAPI paths.
type pathVariant struct {
	path   string
	params []pathParam
}

type pathParam struct {
	name     string
	pattern  string // regular expression the router enforces, "" for any
	catchAll bool
}

// templatePaths converts a fasthttp/router path into OpenAPI path templates. The plain
// {name} syntax is the same in both; a regex ({name:re}) becomes a pattern, a catch-all
// ({name:*}) a parameter that may hold slashes, and an optional parameter ({name?}) one
// path with the segment and one without it.
func templatePaths(path string) ([]pathVariant, error) {
	variants := []pathVariant{{}}
	var lit strings.Builder
	for i := 0; i < len(path); {
		if path[i] != '{' {
			lit.WriteByte(path[i])
			i++
			continue
		}
		end, depth := -1, 0
		for j := i; j < len(path); j++ {
			switch path[j] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth == 0 {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("unbalanced braces in %q", path)
		}
		spec := path[i+1 : end]
		name, re, _ := strings.Cut(spec, ":")
		optional := strings.HasSuffix(name, "?")
		name = strings.TrimSuffix(name, "?")
		if name == "" {
			return nil, fmt.Errorf("unnamed parameter in %q", path)
		}
		p := pathParam{name: name}
		switch {
		case re == "*":
			p.catchAll = true
		case re != "":
			p.pattern = "^(?:" + strings.TrimSuffix(strings.TrimPrefix(re, "^"), "$") + ")$"
		}
		prefix := lit.String()
		lit.Reset()
		var next []pathVariant
		for _, v := range variants {
			with := pathVariant{path: v.path + prefix + "{" + name + "}", params: append(slices.Clip(v.params), p)}
			next = append(next, with)
			if optional {
				// Without the parameter, the router also drops the slash before it.
				next = append(next, pathVariant{path: v.path + strings.TrimSuffix(prefix, "/"), params: v.params})
			}
		}
		variants = next
		i = end + 1
	}
	for i := range variants {
		variants[i].path += lit.String()
		if variants[i].path == "" {
			variants[i].path = "/"
		}
	}
	return variants, nil
}

// operationID derives a camelCase id from the method and the OpenAPI path:
// POST /api/virt/vms/{id}/migrate → postVirtVmsByIdMigrate. The /api prefix every
// route shares is left out because it tells nothing.
func operationID(method, path string) string {
	path = strings.TrimPrefix(path, "/api/")
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	word := func(w string) {
		if w == "" {
			return
		}
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	var cur strings.Builder
	flush := func() { word(cur.String()); cur.Reset() }
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c == '{':
			flush()
			end := strings.IndexByte(path[i:], '}')
			b.WriteString("By")
			word(path[i+1 : i+end])
			i += end
		case c < 0x80 && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))):
			cur.WriteByte(c)
		default:
			flush()
		}
	}
	flush()
	return b.String()
}

// operation describes one route at one of its paths.
func (g *schemaGen) operation(rt *Route, v pathVariant) obj {
	op := obj{"x-vmplane-access": accessName(rt.Access), "summary": rt.Summary, "description": describe(rt)}
	if rt.Tag != "" {
		op["tags"] = []string{rt.Tag}
	}
	if rt.Access == Public {
		// An empty list overrides any top-level requirement: no token needed.
		op["security"] = []obj{}
	} else {
		op["security"] = []obj{{bearerScheme: []string{}}}
	}

	params := []obj{}
	for _, p := range v.params {
		schema := obj{"type": "string"}
		if q, ok := rt.PathTypes[p.name]; ok {
			schema = q.schema()
		}
		if p.pattern != "" {
			schema["pattern"] = p.pattern
		}
		param := obj{"name": p.name, "in": "path", "required": true, "schema": schema}
		if p.catchAll {
			param["description"] = "The rest of the path; it may contain slashes."
		}
		params = append(params, param)
	}
	for _, name := range slices.Sorted(maps.Keys(rt.Query)) {
		param := obj{"name": name, "in": "query", "required": false, "schema": rt.queryType(name).schema()}
		if d := rt.Query[name]; d != "" {
			param["description"] = d
		}
		params = append(params, param)
	}
	for _, name := range slices.Sorted(maps.Keys(rt.Headers)) {
		params = append(params, obj{"name": name, "in": "header", "required": false, "description": rt.Headers[name],
			"schema": obj{"type": "string", "maxLength": 128}})
	}
	idempotent := rt.Access != Public && strings.EqualFold(rt.Method, http.MethodPost)
	if idempotent {
		params = append(params, ref("#/components/parameters/IdempotencyKey"))
	}
	if len(params) > 0 {
		op["parameters"] = params
	}

	responses := obj{}
	success := func(status int, body any) {
		r := obj{
			"description": successDescription(status),
			"headers":     obj{"X-Request-Id": ref("#/components/headers/X-Request-Id")},
		}
		if status == http.StatusAccepted {
			r["headers"].(obj)["Location"] = ref("#/components/headers/Location")
		}
		if body != nil && status != http.StatusNoContent && status != http.StatusNotModified {
			r["content"] = g.content(body, modeReply)
		}
		responses[strconv.Itoa(status)] = r
	}
	success(rt.status(), rt.Reply)
	for status, body := range rt.Also {
		success(status, body)
	}
	for status, name := range errorStatuses(rt) {
		responses[strconv.Itoa(status)] = ref("#/components/responses/" + name)
	}
	responses["default"] = ref("#/components/responses/Error")
	if rt.Body != nil {
		mode := modeRequest
		if rt.Patch {
			mode = modePatch
		}
		content := g.content(rt.Body, mode)
		if rt.Patch {
			content[mergePatchJSON] = content[appJSON]
		}
		op["requestBody"] = obj{"required": true, "content": content}
	}
	op["responses"] = responses
	return op
}

// mergePatchJSON is the media type of RFC 7396 merge patches, accepted on PATCH.
const mergePatchJSON = "application/merge-patch+json"

// status is the route's main success status.
func (rt *Route) status() int {
	if rt.Status == 0 {
		return http.StatusOK
	}
	return rt.Status
}

// errorStatuses are the error answers a route gives, each with the name of its shared
// response: what every route answers (400 for a bad parameter, 404, 429), what its access
// level, body and method add, and the route's own Errors. Server errors (5xx) are
// documented once, as the default answer.
func errorStatuses(rt *Route) map[int]string {
	m := map[int]string{
		http.StatusBadRequest: "BadRequest", http.StatusNotFound: "NotFound", http.StatusTooManyRequests: "TooManyRequests",
		// Answered below the router, to any request: headers too slow or too big.
		http.StatusRequestTimeout: "RequestTimeout", http.StatusRequestHeaderFieldsTooLarge: "HeaderTooLarge",
	}
	if rt.Access != Public {
		m[http.StatusUnauthorized] = "Unauthorized"
		m[http.StatusForbidden] = "Forbidden"
	}
	if rt.Body != nil {
		m[http.StatusRequestEntityTooLarge] = "PayloadTooLarge"
		m[http.StatusUnsupportedMediaType] = "UnsupportedMediaType"
	}
	if rt.Method != http.MethodGet && rt.Access != Public {
		m[http.StatusConflict] = "Conflict"
	}
	if rt.Access != Public && rt.Method == http.MethodPost {
		m[http.StatusUnprocessableEntity] = "IdempotencyKeyReused"
	}
	for _, st := range rt.Errors {
		switch st {
		case http.StatusUnauthorized:
			m[st] = "Unauthorized"
		case http.StatusForbidden:
			m[st] = "Forbidden"
		case http.StatusConflict:
			m[st] = "Conflict"
		default:
			m[st] = "Error"
		}
	}
	return m
}

// describe is the operation's description: the route's own, or one composed from what
// the table says about it, so that no operation goes without.
func describe(rt *Route) string {
	if rt.Description != "" {
		return rt.Description
	}
	var b strings.Builder
	b.WriteString(rt.Summary)
	if !strings.HasSuffix(rt.Summary, ".") {
		b.WriteString(".")
	}
	switch rt.Access {
	case Public:
		b.WriteString(" Needs no token.")
	case Authenticated:
		b.WriteString(" Any signed-in user; a tenant user acts within its own tenant only, and another tenant's records answer 404.")
	case AdminOnly:
		b.WriteString(" For operators (role admin); other users get 403.")
	}
	switch rt.status() {
	case http.StatusAccepted:
		b.WriteString(" The work runs as a task: the answer is 202 with the task, and its Location is the task to follow.")
	case http.StatusCreated:
		b.WriteString(" Answers 201 with the record created.")
	case http.StatusNoContent:
		b.WriteString(" Answers 204 with no body.")
	}
	if rt.Patch {
		b.WriteString(" The body is a JSON merge patch: omitted fields keep their value; null clears a field that allows it.")
	}
	return b.String()
}

func successDescription(status int) string {
	switch status {
	case http.StatusAccepted:
		return "Accepted: the work runs as a task; GET the Location to follow it."
	case http.StatusNoContent:
		return "Done; no body."
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "Success"
}

// content is the media type map of a body given by a zero value (nil: none).
func (g *schemaGen) content(v any, mode schemaMode) obj {
	if v == nil {
		return nil
	}
	if raw, ok := v.(RawBody); ok {
		schema := obj{"type": "string"}
		if strings.Contains(raw.ContentType, "json") {
			schema = obj{"type": "object"}
		}
		return obj{raw.ContentType: obj{"schema": schema}}
	}
	return obj{appJSON: obj{"schema": g.schemaIn(reflect.TypeOf(v), mode)}}
}

func ref(to string) obj { return obj{"$ref": to} }

// errorResponses are the problem answers operations refer to.
func errorResponses() obj {
	problemResp := func(description string, headers ...string) obj {
		h := obj{"X-Request-Id": ref("#/components/headers/X-Request-Id")}
		for _, name := range headers {
			h[name] = ref("#/components/headers/" + name)
		}
		return obj{
			"description": description,
			"headers":     h,
			"content":     obj{problemJSON: obj{"schema": ref("#/components/schemas/" + problemName)}},
		}
	}
	return obj{
		"Error":                problemResp("Any other error: 405 method_not_allowed, 409 conflict, operation_in_progress, invalid_state or quota_exceeded, 500 internal, 503 unavailable, 504 timeout, 507 insufficient_storage (the server's disk is full; writes resume when there is room)."),
		"BadRequest":           problemResp("invalid_json or invalid_request: the body or a parameter is malformed; `errors` names the offending fields."),
		"Unauthorized":         problemResp("unauthorized: the bearer token is missing, malformed, forged or expired; on a login, refresh or console socket, invalid_credentials, invalid_refresh_token or an invalid ticket.", "WWW-Authenticate"),
		"Forbidden":            problemResp("forbidden: this operation is for operators (role admin), or the request names another tenant."),
		"UnsupportedMediaType": problemResp("unsupported_media_type: the body is not sent as application/json; `allowed` lists the media types this operation takes."),
		"NotFound":             problemResp("not_found: no such record, or it belongs to another tenant."),
		"Conflict":             problemResp("conflict, operation_in_progress, invalid_state or quota_exceeded; also a request with the same Idempotency-Key still in flight."),
		"PayloadTooLarge":      problemResp("payload_too_large: the body is over 1 MiB."),
		"IdempotencyKeyReused": problemResp("idempotency_key_reused: the Idempotency-Key was used with a different body."),
		"TooManyRequests":      problemResp("rate_limited: a rate limit is exceeded; too_many_connections: the client address has the most connections allowed open (answered on a new connection, then closed). Retry after Retry-After seconds.", "Retry-After"),
		"RequestTimeout":       problemResp("request_timeout: the request line and headers, or the body, did not arrive in time; the connection is closed."),
		"HeaderTooLarge":       problemResp("header_too_large: the request line and headers are over 4 KiB together."),
	}
}

func sharedHeaders() obj {
	str := obj{"type": "string"}
	return obj{
		"X-Request-Id":     obj{"description": "The request id, echoed when the client sent one; quote it when reporting a problem.", "schema": str},
		"Location":         obj{"description": "The task that carries the work: GET it to follow the work.", "schema": str},
		"Retry-After":      obj{"description": "Seconds to wait before retrying.", "schema": obj{"type": "integer", "minimum": 0}},
		"WWW-Authenticate": obj{"description": "The Bearer challenge.", "schema": str},
	}
}

func idempotencyKeyParam() obj {
	return obj{
		"name": "Idempotency-Key", "in": "header", "required": false,
		"description": "Makes a retry safe: the same key from the same user within 24 h gets the first answer again and changes nothing.",
		"schema":      obj{"type": "string", "minLength": 1, "maxLength": 255},
	}
}

// schemaMode says which side of the wire a schema describes.
type schemaMode int

const (
	// modeReply describes what the server writes: pointers are nullable, plain fields
	// are required, and `openapi` tags are not applied.
	modeReply schemaMode = iota
	// modeRequest describes a body the server reads (strictly): required comes from the
	// `openapi` tag, bounds from the tag or the defaults, no unknown properties.
	modeRequest
	// modePatch is modeRequest for the top level of a merge patch: nothing required,
	// at least one property.
	modePatch
)

// typeMode keys a component: one Go type may be described on both sides of the wire.
type typeMode struct {
	t    reflect.Type
	mode schemaMode
}

// schemaGen reflects Go types into JSON Schema 2020-12, collecting named structs as
// components so that each is written once and recursive types terminate.
type schemaGen struct {
	schemas   obj                 // components/schemas
	names     map[typeMode]string // named struct → component name
	taken     map[string]typeMode // component name → its type
	expanding map[reflect.Type]bool
	err       error // the first type JSON cannot encode, or a bad `openapi` tag
}

func newSchemaGen() *schemaGen {
	return &schemaGen{
		schemas: obj{}, names: map[typeMode]string{}, taken: map[string]typeMode{},
		expanding: map[reflect.Type]bool{},
	}
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// implements reports whether t or *t has the method set of iface, as encoding/json
// uses pointer methods of addressable values.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}

// schemaIn returns the schema of values of type t on one side of the wire.
func (g *schemaGen) schemaIn(t reflect.Type, mode schemaMode) obj {
	if t == nil {
		return obj{}
	}
	inner := mode
	if inner == modePatch {
		inner = modeRequest // a merge patch is partial at its top level only
	}
	if t.Kind() == reflect.Pointer {
		if mode == modeReply {
			return nullable(g.schemaIn(t.Elem(), mode))
		}
		// In a request a pointer means optional; null is accepted only where the
		// field's tag says nullable.
		return g.schemaIn(t.Elem(), mode)
	}
	switch {
	case t == timeType:
		return obj{"type": "string", "format": "date-time"}
	case implements(t, jsonMarshalerType):
		// Its own MarshalJSON decides the shape; claim nothing rather than something false.
		return obj{}
	case implements(t, textMarshalerType):
		return obj{"type": "string"}
	}
	if t.Name() != "" && t.Kind() != reflect.Struct {
		// Named slices and maps are inlined; one that contains itself stops at {}.
		if g.expanding[t] {
			return obj{}
		}
		g.expanding[t] = true
		defer delete(g.expanding, t)
	}
	switch t.Kind() {
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return obj{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64:
		return obj{"type": "integer", "format": "int64"}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint, reflect.Uint64:
		return obj{"type": "integer", "format": "int64", "minimum": 0}
	case reflect.Float32:
		return obj{"type": "number", "format": "float"}
	case reflect.Float64:
		return obj{"type": "number", "format": "double"}
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Interface:
		return obj{}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), jsonMarshalerType) && !implements(t.Elem(), textMarshalerType) {
			// format byte is what OpenAPI 3.0 tools know; contentEncoding is the 3.1 way.
			return obj{"type": "string", "format": "byte", "contentEncoding": "base64"}
		}
		// A nil slice encodes as null, but handlers answer empty lists as [], and
		// declaring every array nullable would burden every client for nothing.
		return obj{"type": "array", "items": g.schemaIn(t.Elem(), inner)}
	case reflect.Array:
		return obj{"type": "array", "items": g.schemaIn(t.Elem(), inner), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		s := obj{"type": "object", "additionalProperties": g.schemaIn(t.Elem(), inner)}
		switch k := t.Key(); {
		case k.Kind() == reflect.String, implements(k, textMarshalerType):
		case k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
			s["propertyNames"] = obj{"pattern": "^-?[0-9]+$"}
		default:
			g.fail(t)
		}
		return s
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t, mode)
		}
		key := typeMode{t, mode}
		name, ok := g.names[key]
		if !ok {
			name = g.componentName(key)
			g.names[key] = name
			g.taken[name] = key
			g.schemas[name] = nil // reserved, so that a recursive field refers to it
			g.schemas[name] = g.object(t, mode)
		}
		return ref("#/components/schemas/" + name)
	}
	g.fail(t)
	return obj{}
}

func (g *schemaGen) fail(t reflect.Type) {
	if g.err == nil {
		g.err = fmt.Errorf("type %s cannot be encoded as JSON", t)
	}
}

// nullable widens a schema to also accept null, as a pointer encodes nil as null.
func nullable(s obj) obj {
	if len(s) == 0 {
		return s // {} already accepts null
	}
	if t, ok := s["type"].(string); ok {
		n := make(obj, len(s))
		for k, v := range s {
			n[k] = v
		}
		n["type"] = []string{t, "null"}
		return n
	}
	if _, ok := s["type"].([]string); ok {
		return s // already a union; pointers to pointers add nothing
	}
	return obj{"anyOf": []obj{s, {"type": "null"}}}
}

// object is the schema of a struct's JSON object.
func (g *schemaGen) object(t reflect.Type, mode schemaMode) obj {
	props := obj{}
	required := []string{}
	inner := mode
	if inner == modePatch {
		inner = modeRequest
	}
	for _, f := range jsonFields(t) {
		s := g.schemaIn(f.typ, inner)
		if f.doc != "" {
			// A copy: schemaIn may hand out a shared $ref object.
			s = maps.Clone(s)
			s["description"] = f.doc
		}
		if f.quoted {
			s = obj{"type": "string"}
			if f.typ.Kind() == reflect.Pointer && mode == modeReply {
				s = nullable(s)
			}
		}
		if mode != modeReply {
			if f.rulesErr != nil && g.err == nil {
				g.err = fmt.Errorf("%s.%s: %w", t, f.name, f.rulesErr)
			}
			r := f.requestRules()
			s = r.apply(s)
			if r.nullable {
				s = nullable(s)
			}
			if mode == modeRequest && r.required {
				required = append(required, f.name)
			}
			props[f.name] = s
			continue
		}
		props[f.name] = s
		// Pointer fields are how request types spell optional inputs (`name?`), and the
		// same types describe replies, so only plain non-omitempty fields are promised.
		if !f.omitEmpty && !f.viaPointer && f.typ.Kind() != reflect.Pointer {
			required = append(required, f.name)
		}
	}
	s := obj{"type": "object"}
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(required) > 0 {
		s["required"] = required
	}
	if mode != modeReply {
		// Decode refuses unknown fields.
		s["additionalProperties"] = false
	}
	if mode == modePatch {
		s["minProperties"] = 1
	}
	return s
}

// componentName is a type's Go name, capitalised; generic arguments are folded in
// (List[pkg.Machine] → ListMachine), and a clash gets the package name, then a number.
// A request body of a type that is also an answer is named with Input, a merge patch
// with Patch (unless its Go name already says Patch or Change).
func (g *schemaGen) componentName(key typeMode) string {
	t := key.t
	name := t.Name()
	base, args, generic := strings.Cut(name, "[")
	var b strings.Builder
	b.WriteString(capitalise(base))
	if generic {
		for _, tok := range strings.FieldsFunc(args, func(r rune) bool {
			return !(r == '_' || r == '.' || r == '/' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r))
		}) {
			if i := strings.LastIndexAny(tok, "./"); i >= 0 {
				tok = tok[i+1:]
			}
			b.WriteString(capitalise(tok))
		}
	}
	name = b.String()
	switch key.mode {
	case modeRequest:
		if _, reply := g.names[typeMode{t, modeReply}]; reply {
			name += "Input"
		}
	case modePatch:
		if !strings.HasSuffix(name, "Patch") && !strings.HasSuffix(name, "Change") {
			name += "Patch"
		}
	}
	pkg := t.PkgPath()
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		pkg = pkg[i+1:]
	}
	candidates := []string{name, capitalise(pkg) + name}
	for _, c := range candidates {
		if _, taken := g.taken[c]; !taken {
			return c
		}
	}
	for n := 2; ; n++ {
		if c := candidates[1] + strconv.Itoa(n); g.taken[c].t == nil {
			return c
		}
	}
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	// Component names must match ^[a-zA-Z0-9._-]+$.
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '.' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return -1
	}, string(r))
}

// jsonField is one member of a struct's JSON object.
type jsonField struct {
	name       string
	typ        reflect.Type
	index      []int
	tagged     bool        // the name comes from a json tag
	omitEmpty  bool        // omitempty or omitzero: the member may be absent
	quoted     bool        // the ,string option: a number or bool written as a string
	viaPointer bool        // promoted through an embedded pointer, absent when it is nil
	rules      *fieldRules // the `openapi` tag
	rulesErr   error       // a malformed `openapi` tag
	doc        string      // the `doc` tag: the property's description in the document
}

// requestRules are the field's rules as a request body has them: the tag, with the
// default bounds of strings and arrays filled in.
func (f jsonField) requestRules() *fieldRules {
	r := f.rules
	if r == nil {
		r = &fieldRules{}
	}
	t := f.typ
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if f.quoted || implements(t, jsonMarshalerType) || implements(t, textMarshalerType) || t == timeType {
		return r
	}
	switch t.Kind() {
	case reflect.String:
		return r.withDefaults("string", "")
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return r
		}
		item := ""
		if t.Elem().Kind() == reflect.String {
			item = "string"
		}
		return r.withDefaults("array", item)
	}
	return r
}

// jsonFields lists the members encoding/json writes for struct type t: exported fields
// under their tag names, the fields of untagged embedded structs promoted, and among
// members of one name the shallowest (or the only tagged one at that depth) kept,
// with ties dropped, as encoding/json does.
func jsonFields(t reflect.Type) []jsonField {
	type level struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var fields []jsonField
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		// A type embedded twice at one depth yields each of its fields twice, so that
		// they cancel out below, as in encoding/json.
		count := map[reflect.Type]int{}
		for _, l := range current {
			count[l.typ]++
		}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validJSONName(name) {
					name = ""
				}
				index := append(slices.Clip(l.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{
						name: name, typ: sf.Type, index: index, tagged: name != "", viaPointer: l.viaPointer,
						omitEmpty: hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero"),
					}
					if f.name == "" {
						f.name = sf.Name
					}
					f.rules, f.rulesErr = parseRules(sf.Tag.Get("openapi"))
					f.doc = sf.Tag.Get("doc")
					if hasOpt(opts, "string") {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64:
							f.quoted = true
						}
					}
					fields = append(fields, f)
					if count[l.typ] > 1 {
						fields = append(fields, f)
					}
					continue
				}
				next = append(next, level{typ: ft, index: index, viaPointer: l.viaPointer || sf.Type.Kind() == reflect.Pointer})
			}
		}
	}

	sort.SliceStable(fields, func(i, j int) bool {
		if fields[i].name != fields[j].name {
			return fields[i].name < fields[j].name
		}
		if len(fields[i].index) != len(fields[j].index) {
			return len(fields[i].index) < len(fields[j].index)
		}
		return fields[i].tagged && !fields[j].tagged
	})
	var out []jsonField
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		i = j
		if len(group) == 1 {
			out = append(out, group[0])
			continue
		}
		// The group is sorted shallowest first, tagged first: the first dominates unless
		// the second is as deep and as tagged.
		if len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue
		}
		out = append(out, group[0])
	}
	sort.Slice(out, func(i, j int) bool { return slices.Compare(out[i].index, out[j].index) < 0 })
	return out
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// validJSONName mirrors encoding/json's isValidTag: a tag name it would ignore is
// ignored here too.
func validJSONName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
