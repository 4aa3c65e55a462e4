// Package openapi builds vmplane's OpenAPI 3.1 document from a plain description of the
// routes, and holds what the document and the edge's request checks share: the schema
// reflection of Go types, the `openapi` struct-tag rules (rules.go) and the validation of
// request bodies and query parameters against them (validate.go), so that what the
// document promises and what the edge enforces cannot drift apart. httpedge keeps the
// route table and passes each route's documentation here as an Operation.
package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The OpenAPI document is generated from the route table by a small reflector of our own
// rather than kin-openapi's openapi3gen: openapi3gen writes OpenAPI 3.0 schemas
// (`nullable: true`), while we serve 3.1, whose schemas are JSON Schema 2020-12
// (`type: ["string", "null"]`). The reflector follows encoding/json's rules, so the schema
// describes what the edge actually writes and reads.

// openAPIVersion is the version of the OpenAPI specification the document follows.
const openAPIVersion = "3.1.0"

// Access says who may call an operation.
type Access int

// Access levels.
const (
	// Public operations need no token.
	Public Access = iota
	// Authenticated operations need a valid token of any role.
	Authenticated
	// AdminOnly operations need an admin token; users get 403.
	AdminOnly
)

// Operation is what the document says of one route: httpedge's Route without its
// handler.
type Operation struct {
	Method string
	Path   string // fasthttp/router syntax: /api/tasks/{id}
	Access Access

	Summary string
	Tag     string
	// Body is a zero value of the request body type (nil: no body).
	Body any
	// Reply is a zero value of the success body type (nil: no body).
	Reply any
	// Status is the success status (200 when zero).
	Status int
	// Query declares the query parameters: name → description.
	Query map[string]string
	// QueryTypes types the parameters of Query (a string when absent).
	QueryTypes map[string]QueryType
	// PathTypes types path parameters (a string when absent).
	PathTypes map[string]QueryType
	// Headers documents the request headers the route reads: name → description.
	Headers map[string]string
	// Description is the operation's description; empty: composed by Describe.
	Description string
	// Patch marks Body as a JSON merge patch (RFC 7396).
	Patch bool
	// Also lists the other success answers: status → zero value of their body.
	Also map[int]any
	// Errors lists error statuses beyond those every operation of its kind answers.
	Errors []int
	// Stamped: the operation's write carries its Idempotency-Key's claim, so a retry
	// after the server died completes it.
	Stamped bool
	// Exempt, for a POST that is not Stamped, says why it need not be: its retry
	// after the server died answers 409.
	Exempt string
	// KeyScope is the scope an API key needs to call the operation; empty: no key
	// calls it (a route for a signed-in user, or one that needs no token).
	KeyScope string
	// OtherQuery: query parameters beyond Query are ignored, not refused (a redirect
	// back from another system, which adds its own); the document says so
	// (x-vmplane-other-query-parameters).
	OtherQuery bool
	// Stream: the body is the raw content the handler reads as it arrives (an
	// upload), not held to the 1 MiB of other bodies; the document says so
	// (x-vmplane-stream).
	Stream bool
}

// RawBody documents, as Operation.Body or Operation.Reply, a body that is not a
// reflected JSON type, such as the Prometheus text of /metrics or this document itself.
type RawBody struct {
	// ContentType is the media type of the body, e.g. "text/plain; version=0.0.4".
	ContentType string
}

// obj is a JSON object of the document; encoding/json writes map keys sorted, which
// keeps the document byte-for-byte deterministic.
type obj = map[string]any

// Media types of request bodies: JSON, and on PATCH also a merge patch's own type.
const (
	AppJSON = "application/json"
	// MergePatchJSON is the media type of RFC 7396 merge patches, accepted on PATCH.
	MergePatchJSON = "application/merge-patch+json"
)

const (
	problemJSON  = "application/problem+json"
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

// Build generates the document of the operations, in table order. problem is a zero
// value of the body of every error answer, documented as the component Problem. Build
// is a function of its arguments only, so tests can run it on a hand-made table without
// a server; an operation it cannot describe (a method OpenAPI lacks, a malformed path or
// `openapi` tag, a type JSON cannot encode) is an error naming the route.
func Build(version string, problem any, ops []Operation) ([]byte, error) {
	if version == "" {
		// info.version is required and must not be empty.
		version = "0.0.0-dev"
	}
	g := newSchemaGen()
	// Reflected first so that it gets the name Problem whatever the routes hold.
	problemType := reflect.TypeOf(problem)
	g.schemas[problemName] = nil
	pk := typeMode{problemType, modeReply}
	g.names[pk] = problemName
	g.taken[problemName] = pk
	problemSchema := g.object(problemType, modeReply)
	problemSchema["description"] = "An RFC 9457 problem: the body of every error answer."
	g.schemas[problemName] = problemSchema

	// Answers are reflected before request bodies, so that a type used both ways is
	// named the same whatever the order of the table: Quota for the answer, QuotaInput
	// for the body.
	for i := range ops {
		g.content(ops[i].Reply, modeReply)
		for _, b := range ops[i].Also {
			g.content(b, modeReply)
		}
	}

	paths := map[string]obj{}
	opIDs := map[string]bool{}
	tags := map[string]bool{}
	for i := range ops {
		rt := &ops[i]
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
func (g *schemaGen) operation(rt *Operation, v pathVariant) obj {
	op := obj{"x-vmplane-access": accessName(rt.Access), "summary": rt.Summary, "description": Describe(rt)}
	if rt.Tag != "" {
		op["tags"] = []string{rt.Tag}
	}
	if rt.Access == Public {
		// An empty list overrides any top-level requirement: no token needed.
		op["security"] = []obj{}
	} else {
		op["security"] = []obj{{bearerScheme: []string{}}}
		// What a key needs, stated per operation so that a billing module's author
		// reads which scope to give its key; "none" where keys are refused.
		scope := rt.KeyScope
		if scope == "" {
			scope = "none"
		}
		op["x-vmplane-key-scope"] = scope
	}
	if rt.OtherQuery {
		op["x-vmplane-other-query-parameters"] = "ignored"
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
		param := obj{"name": name, "in": "query", "required": false, "schema": rt.QueryTypes[name].schema()}
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
			"headers": obj{"X-Request-Id": ref("#/components/headers/X-Request-Id"),
				// The request rate limit that applies, on every answer while limits are on.
				"RateLimit-Limit":     ref("#/components/headers/RateLimit-Limit"),
				"RateLimit-Remaining": ref("#/components/headers/RateLimit-Remaining"),
				"RateLimit-Reset":     ref("#/components/headers/RateLimit-Reset")},
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
			content[MergePatchJSON] = content[AppJSON]
		}
		op["requestBody"] = obj{"required": true, "content": content}
	}
	if rt.Stream {
		op["x-vmplane-stream"] = true
	}
	op["responses"] = responses
	return op
}

// status is the route's main success status.
func (rt *Operation) status() int {
	if rt.Status == 0 {
		return http.StatusOK
	}
	return rt.Status
}

// errorStatuses are the error answers a route gives, each with the name of its shared
// response: what every route answers (400 for a bad parameter, 404, 429), what its access
// level, body and method add, and the route's own Errors. Server errors (5xx) are
// documented once, as the default answer.
func errorStatuses(rt *Operation) map[int]string {
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

// Describe is the operation's description: its own, or one composed from what the
// table says about it (summary, access, status, patch), so that no operation goes
// without.
func Describe(rt *Operation) string {
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
	if rt.Stamped {
		b.WriteString(" A retry with the Idempotency-Key of a request cut short by a crash or a failover gets its one answer:" +
			" the request ran once, or runs now.")
	}
	if rt.Exempt != "" {
		b.WriteString(" A retry with the Idempotency-Key of a request cut short by a crash or a failover answers 409 conflict, since " +
			rt.Exempt + ".")
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
		if raw.ContentType == "application/octet-stream" {
			schema["format"] = "binary"
		}
		if strings.Contains(raw.ContentType, "json") {
			schema = obj{"type": "object"}
		}
		return obj{raw.ContentType: obj{"schema": schema}}
	}
	return obj{AppJSON: obj{"schema": g.schemaIn(reflect.TypeOf(v), mode)}}
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
		"BadRequest":           problemResp("invalid_json or invalid_request: the body or a parameter is malformed; `errors` names the offending fields. oidc_state_invalid: an OpenID Connect callback's state is unknown, spent or expired."),
		"Unauthorized":         problemResp("unauthorized: the bearer token is missing, malformed, forged or expired; on a login, refresh or console socket, invalid_credentials, invalid_refresh_token or an invalid ticket; on an OpenID Connect callback, oidc_login_failed (the code was refused, or the ID token fails a check).", "WWW-Authenticate"),
		"Forbidden":            problemResp("forbidden: this operation is for operators (role admin), or the request names another tenant; tenant_suspended: the caller's tenant is suspended (the detail gives the reason), which holds back every write but the account routes; machine_suspended: the machine is suspended for billing (the detail gives the reason); oidc_not_mapped: an OpenID Connect sign-in of nobody vmplane has or may create."),
		"UnsupportedMediaType": problemResp("unsupported_media_type: the body is not sent as application/json; `allowed` lists the media types this operation takes."),
		"NotFound":             problemResp("not_found: no such record, or it belongs to another tenant."),
		"Conflict":             problemResp("conflict, operation_in_progress, invalid_state or quota_exceeded; insufficient_capacity (no node has room for the machine), pool_exhausted (no IP pool usable on the machine's node has a free address) or address_taken (the address asked for is held, or cooling down after its release); also a request with the same Idempotency-Key still in flight, with Retry-After: retry with the key after it.", "Retry-After"),
		"PayloadTooLarge":      problemResp("payload_too_large: the body is over 1 MiB."),
		"IdempotencyKeyReused": problemResp("idempotency_key_reused: the Idempotency-Key was used with a different body; address_unusable: the address asked for is in no IP pool usable on the machine's node (or is a pool's network, broadcast or gateway address)."),
		"TooManyRequests":      problemResp("rate_limited: a rate limit is exceeded (the detail says which), with that limit's RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; too_many_connections: the client address has the most connections allowed open (answered on a new connection, then closed). Retry after Retry-After seconds.", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"),
		"RequestTimeout":       problemResp("request_timeout: the request line and headers, or the body, did not arrive in time; the connection is closed."),
		"HeaderTooLarge":       problemResp("header_too_large: the request line and headers are over 4 KiB together."),
	}
}

func sharedHeaders() obj {
	str := obj{"type": "string"}
	return obj{
		"X-Request-Id":        obj{"description": "The request id, echoed when the client sent one; quote it when reporting a problem.", "schema": str},
		"Location":            obj{"description": "The task that carries the work: GET it to follow the work.", "schema": str},
		"Retry-After":         obj{"description": "Seconds to wait before retrying.", "schema": obj{"type": "integer", "minimum": 0}},
		"RateLimit-Limit":     obj{"description": "The size (burst) of the rate limit that applies to the request (on a 429: the one that refused it); absent while that limit is off.", "schema": obj{"type": "integer", "minimum": 0}},
		"RateLimit-Remaining": obj{"description": "What that limit has left after this request: 0 on a refusal.", "schema": obj{"type": "integer", "minimum": 0}},
		"RateLimit-Reset":     obj{"description": "Seconds until that limit is whole again.", "schema": obj{"type": "integer", "minimum": 0}},
		"WWW-Authenticate":    obj{"description": "The Bearer challenge.", "schema": str},
	}
}

func idempotencyKeyParam() obj {
	return obj{
		"name": "Idempotency-Key", "in": "header", "required": false,
		"description": "Makes a retry safe: the same key from the same user within 24 h gets the first answer again and changes nothing.",
		"schema":      obj{"type": "string", "minLength": 1, "maxLength": 255},
	}
}
