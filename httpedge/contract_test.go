package httpedge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/apierr"
)

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
	post := &Route{Method: "POST", Path: "/x", Body: LoginRequest{}}
	patch := &Route{Method: "PATCH", Path: "/x", Body: LoginRequest{}, Patch: true}
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
