package httpedge

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/apierr"
)

// Types for the request rule cases.
type (
	ctInner struct {
		Port int    `json:"port" openapi:"required,minimum=1,maximum=65535"`
		Note string `json:"note,omitempty"`
	}
	ctBody struct {
		Name   string    `json:"name" openapi:"required,minLength=1,maxLength=5"`
		Kind   *string   `json:"kind,omitempty" openapi:"enum=a|b"`
		Keys   []string  `json:"keys,omitempty" openapi:"maxItems=3,items.maxLength=4"`
		Tags   []string  `json:"tags,omitempty"`
		Clear  *string   `json:"clear,omitempty" openapi:"nullable"`
		Inner  *ctInner  `json:"inner,omitempty"`
		Inners []ctInner `json:"inners,omitempty" openapi:"maxItems=2"`
		Count  *int      `json:"count,omitempty" openapi:"minimum=0,maximum=10"`
	}
	ctBadTag struct {
		Name string `json:"name" openapi:"maxLength=many"`
	}
)

// fieldErrors runs validateBody and returns "field: message" lines, or nil.
func fieldErrors(t *testing.T, body string, patch bool) []string {
	t.Helper()
	err := validateBody([]byte(body), reflect.TypeFor[ctBody](), patch)
	if err == nil {
		return nil
	}
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != 400 {
		t.Fatalf("%s: got %v; want a 400", body, err)
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Field+": "+f.Message)
	}
	return out
}

func TestValidateBody(t *testing.T) {
	t.Parallel()
	f := func(body string, patch bool, want ...string) {
		t.Helper()
		got := fieldErrors(t, body, patch)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s (patch %v): got %q; want %q", body, patch, got, want)
		}
	}
	f(`{"name":"ok"}`, false)
	f(`{}`, false, "name: is required")
	f(`{}`, true, "body: a patch must change at least one field")
	f(`{"kind":"a"}`, true)
	f(`{"name":null}`, false, "name: must not be null")
	f(`{"name":"ok","kind":null}`, false, "kind: must not be null")
	f(`{"name":"ok","clear":null}`, false)
	f(`{"name":""}`, false, "name: must not be empty")
	f(`{"name":"toolong"}`, false, "name: must be at most 5 characters")
	f(`{"name":"ééééé"}`, false) // characters, not bytes
	f(`{"name":"ok","kind":"c"}`, false, "kind: must be one of a, b")
	f(`{"name":"ok","keys":["a","b","c","d"]}`, false, "keys: must have at most 3 items")
	f(`{"name":"ok","keys":["abcde"]}`, false, "keys[0]: must be at most 4 characters")
	f(`{"name":"ok","keys":[null]}`, false, "keys[0]: must not be null")
	f(`{"name":"ok","tags":["`+strings.Repeat("x", defaultMaxLength+1)+`"]}`, false, "tags[0]: must be at most 1024 characters")
	f(`{"name":"ok","inner":{}}`, false, "inner.port: is required")
	f(`{"name":"ok","inner":{"port":0}}`, false, "inner.port: must be at least 1")
	f(`{"name":"ok","inners":[{"port":1},{"port":70000}]}`, false, "inners[1].port: must be at most 65535")
	f(`{"name":"ok","inner":{"port":1,"note":"`+strings.Repeat("x", defaultMaxLength+1)+`"}}`, false, "inner.note: must be at most 1024 characters")
	f(`{"name":"ok","count":11}`, false, "count: must be at most 10")
	// A patch relaxes required at its top level only.
	f(`{"inner":{}}`, true, "inner.port: is required")

	// An array over its bound is refused whole, with one error, however long it is
	// (issue 17.7: 150,000 ssh keys).
	keys := make([]string, 150000)
	for i := range keys {
		keys[i] = strings.Repeat("k", 10)
	}
	b, _ := json.Marshal(map[string]any{"name": "ok", "tags": keys})
	f(string(b), false, "tags: must have at most 100 items")
	// Many bad fields are listed up to a bound.
	many := make([]map[string]any, 0)
	for range 2 {
		many = append(many, map[string]any{"port": -1, "note": strings.Repeat("x", 2000)})
	}
	b, _ = json.Marshal(map[string]any{"inners": many})
	if got := fieldErrors(t, string(b), false); len(got) != 5 {
		t.Errorf("got %q; want name and two errors per inner", got)
	}
}

func TestRulesInTheDocument(t *testing.T) {
	t.Parallel()
	g := newSchemaGen()
	g.schemaIn(reflect.TypeFor[ctBody](), modeRequest)
	g.schemaIn(reflect.TypeFor[ctBody](), modePatch)
	g.schemaIn(reflect.TypeFor[ctBody](), modeReply)
	if g.err != nil {
		t.Fatal(g.err)
	}
	f := func(component, want string) {
		t.Helper()
		if got := jsonOf(t, g.schemas[component]); got != want {
			t.Errorf("%s: got %s; want %s", component, got, want)
		}
	}
	inner := `{"additionalProperties":false,"properties":{"note":{"maxLength":1024,"type":"string"},"port":{"format":"int64","maximum":65535,"minimum":1,"type":"integer"}},"required":["port"],"type":"object"}`
	props := `"properties":{"clear":{"maxLength":1024,"type":["string","null"]},"count":{"format":"int64","maximum":10,"minimum":0,"type":"integer"},` +
		`"inner":{"$ref":"#/components/schemas/CtInner"},"inners":{"items":{"$ref":"#/components/schemas/CtInner"},"maxItems":2,"type":"array"},` +
		`"keys":{"items":{"maxLength":4,"type":"string"},"maxItems":3,"type":"array"},"kind":{"enum":["a","b"],"type":"string"},` +
		`"name":{"maxLength":5,"minLength":1,"type":"string"},"tags":{"items":{"maxLength":1024,"type":"string"},"maxItems":100,"type":"array"}}`
	f("CtInner", inner)
	f("CtBody", `{"additionalProperties":false,`+props+`,"required":["name"],"type":"object"}`)
	f("CtBodyPatch", `{"additionalProperties":false,"minProperties":1,`+props+`,"type":"object"}`)
	// The answer keeps encoding/json's view: tags say nothing there.
	f("CtBodyReply", "null")
	if _, ok := g.schemas["CtBodyInput"]; ok {
		t.Errorf("got CtBodyInput; the request schema was reflected first, so it keeps the plain name")
	}

	if _, err := buildOpenAPI("1", []Route{{Method: "POST", Path: "/x", Body: ctBadTag{}}}); err == nil ||
		!strings.Contains(err.Error(), "maxLength needs a whole number") {
		t.Errorf("a malformed openapi tag: got %v; want the build to fail naming it", err)
	}
	if _, err := parseRules("required,maxlen=3"); err == nil {
		t.Errorf("an unknown option: got no error; want one")
	}
}

// callFor is a Call of route rt for a request with the given URI, content type and body.
func callFor(rt *Route, uri, contentType, body string) *Call {
	rc := &fasthttp.RequestCtx{}
	rc.Request.SetRequestURI(uri)
	rc.Request.Header.SetMethod(rt.Method)
	if contentType != "" {
		rc.Request.Header.SetContentType(contentType)
	}
	rc.Request.SetBodyString(body)
	return &Call{rc: rc, route: rt}
}

func TestCheckMediaType(t *testing.T) {
	t.Parallel()
	post := &Route{Method: "POST", Path: "/x", Body: ctBody{}}
	patch := &Route{Method: "PATCH", Path: "/x", Body: ctBody{}, Patch: true}
	f := func(rt *Route, ct, body string, want bool, allowed ...string) {
		t.Helper()
		err := callFor(rt, "/x", ct, body).checkRequest()
		if (err == nil) == !want {
			var e *apierr.Error
			if err != nil && (!errors.As(err, &e) || e.Status != 415 || strings.Join(e.Allowed, ",") != strings.Join(allowed, ",")) {
				t.Errorf("%s %q: got %v (allowed %v); want 415 allowing %v", rt.Method, ct, err, e.Allowed, allowed)
			}
			return
		}
		t.Errorf("%s %q %q: got %v; want refused %v", rt.Method, ct, body, err, want)
	}
	f(post, "application/json", `{}`, false)
	f(post, "application/json; charset=utf-8", `{}`, false)
	f(post, "Application/JSON", `{}`, false)
	f(post, "text/plain", `{}`, true, "application/json")
	f(post, "", `{}`, true, "application/json")
	f(post, "application/json; charset=latin1", `{}`, true, "application/json")
	f(post, "application/merge-patch+json", `{}`, true, "application/json")
	f(patch, "application/merge-patch+json", `{}`, false)
	f(patch, "text/plain", `{}`, true, "application/json", "application/merge-patch+json")
	// An empty body is left to Decode, which names what is missing.
	f(post, "", "", false)
	// A route without a body ignores what is sent.
	f(&Route{Method: "POST", Path: "/x"}, "text/plain", "hello", false)
}

func TestCheckQuery(t *testing.T) {
	t.Parallel()
	rt := &Route{Method: "GET", Path: "/x", Query: map[string]string{"limit": "", "cursor": "", "status": "", "since": "", "flag": ""},
		QueryTypes: map[string]QueryType{"status": {Enum: []string{"on", "off"}}, "flag": {Type: "boolean"}}}
	f := func(query string, want ...string) {
		t.Helper()
		err := callFor(rt, "/x?"+query, "", "").checkRequest()
		var got []string
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != 400 {
				t.Fatalf("%s: got %v; want 400", query, err)
			}
			for _, fe := range e.Fields {
				got = append(got, fe.Field+": "+fe.Message)
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("?%s: got %q; want %q", query, got, want)
		}
	}
	f("")
	f("limit=1&cursor=abc&status=on&since=2026-01-02T03:04:05Z&flag=true")
	f("limit=", "") // an empty value means the default
	f("name=demo-003", "name: is not a query parameter of GET /x")
	f("limit=0", "limit: must be 1..500")
	f("limit=x", "limit: must be a whole number")
	f("limit=1&limit=2", "limit: is given more than once")
	f("status=maybe", "status: must be one of on, off")
	f("flag=yes", "flag: must be true or false")
	f("since=yesterday", "since: must be an RFC 3339 time")
	f("cursor="+strings.Repeat("c", 129), "cursor: must be at most 128 characters")
}

// TestOpenAPIOperationsDescribed checks the real route table: every operation has a
// summary and a description (issue 16.16), and its request body is bounded and closed
// (issue 17.7, 16.9).
func TestOpenAPIOperationsDescribed(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(mustServerDoc(t), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range at(t, doc, "paths").(map[string]any) {
		for method, op := range item.(map[string]any) {
			op := op.(map[string]any)
			n++
			summary, _ := op["summary"].(string)
			description, _ := op["description"].(string)
			if summary == "" || description == "" || len(summary) > 120 {
				t.Errorf("%s %s: got summary %q and description %q; want both, the summary short", method, path, summary, description)
			}
			if strings.HasPrefix(path, "/api/sim/") || strings.HasPrefix(path, "/api/proxmox/") {
				t.Errorf("%s %s: a driver alias is documented; want /api/virt only", method, path)
			}
			if strings.HasPrefix(path, "/api/virt/") && !strings.Contains(description, "/api/sim or /api/proxmox") {
				t.Errorf("%s %s: the description does not mention the driver alias", method, path)
			}
		}
	}
	if n < 90 {
		t.Fatalf("got %d operations; want the whole table", n)
	}
	// Every schema reachable from a request body: closed objects, bounded strings and
	// arrays.
	seen := map[string]bool{}
	var walk func(where string, s any)
	walk = func(where string, s any) {
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		if r, ok := m["$ref"].(string); ok {
			if seen[r] {
				return
			}
			seen[r] = true
			walk(r, deref(t, doc, m))
			return
		}
		typ := m["type"]
		if l, ok := typ.([]any); ok {
			typ = l[0]
		}
		switch typ {
		case "string":
			if m["maxLength"] == nil && m["enum"] == nil && m["format"] != "date-time" {
				t.Errorf("%s: an unbounded string in a request body", where)
			}
		case "array":
			if m["maxItems"] == nil {
				t.Errorf("%s: an unbounded array in a request body", where)
			}
			walk(where+"[]", m["items"])
		case "object":
			if m["additionalProperties"] != false {
				t.Errorf("%s: a request object that does not refuse unknown fields", where)
			}
			props, _ := m["properties"].(map[string]any)
			for k, p := range props {
				walk(where+"."+k, p)
			}
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if l, ok := m[k].([]any); ok {
				for _, e := range l {
					walk(where, e)
				}
			}
		}
	}
	bodies := 0
	for path, item := range at(t, doc, "paths").(map[string]any) {
		for method, op := range item.(map[string]any) {
			rb, ok := op.(map[string]any)["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			bodies++
			for _, media := range rb["content"].(map[string]any) {
				schema := media.(map[string]any)["schema"]
				walk(method+" "+path, schema)
				if method == "patch" {
					if s := deref(t, doc, schema).(map[string]any); s["minProperties"] == nil && path != "/api/virt/vms/{id}/network" {
						t.Errorf("%s %s: a patch body without minProperties", method, path)
					}
				}
			}
		}
	}
	if bodies < 20 {
		t.Fatalf("got %d request bodies; want every one", bodies)
	}
}
