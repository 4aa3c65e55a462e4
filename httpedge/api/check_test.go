package api

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/apierr"
)

// requestFor is a request to route rt with the given URI, content type and body.
func requestFor(rt *Route, uri, contentType, body string) *fasthttp.RequestCtx {
	rc := &fasthttp.RequestCtx{}
	rc.Request.SetRequestURI(uri)
	rc.Request.Header.SetMethod(rt.Method)
	if contentType != "" {
		rc.Request.Header.SetContentType(contentType)
	}
	rc.Request.SetBodyString(body)
	return rc
}

// callFor is a Call of route rt for a request with the given URI, content type and body.
func callFor(rt *Route, uri, contentType, body string) *Call {
	return NewCall(Request{RC: requestFor(rt, uri, contentType, body), Route: rt})
}

// loginBody is a body type for the routes of these tests (only its presence counts).
type loginBody struct {
	Email string `json:"email" openapi:"required,maxLength=64"`
}

// ruleBody is a body like a firewall rule's: a tenant_id, and fields null clears.
type ruleBody struct {
	Port     *string `json:"port,omitempty" openapi:"nullable,maxLength=64"`
	Comment  *string `json:"comment,omitempty" openapi:"nullable,maxLength=64"`
	TenantID *string `json:"tenant_id,omitempty" openapi:"maxLength=64"`
}

func TestCheckMediaType(t *testing.T) {
	post := &Route{Method: "POST", Path: "/x", Body: loginBody{}}
	patch := &Route{Method: "PATCH", Path: "/x", Body: loginBody{}, Patch: true}
	f := func(rt *Route, ct, body string, want bool, allowed ...string) {
		t.Helper()
		err := rt.CheckRequest(requestFor(rt, "/x", ct, body))
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
		err := rt.CheckRequest(requestFor(rt, "/x?"+query, "", ""))
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

// TestBodyParsedOnce checks that the tenant peek, Decode and nulls of one request
// read one parse of the body.
func TestBodyParsedOnce(t *testing.T) {
	rt := &Route{Method: "PATCH", Path: "/x", Body: ruleBody{}, Patch: true}
	c := callFor(rt, "/x", "application/json", `{"tenant_id":"t1","port":null,"comment":"c"}`)
	if got := c.BodyString("tenant_id"); got == nil || *got != "t1" {
		t.Fatalf("tenant_id: got %v; want t1", got)
	}
	first := c.body
	var b ruleBody
	if err := c.Decode(&b); err != nil {
		t.Fatal(err)
	}
	if got := c.Nulls(); !reflect.DeepEqual(got, map[string]bool{"port": true}) {
		t.Errorf("nulls: got %v; want port", got)
	}
	if c.body != first {
		t.Errorf("the body was parsed again")
	}
	if b.Comment == nil || *b.Comment != "c" || b.Port != nil {
		t.Errorf("decoded %+v; want comment c and no port", b)
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for k := range c.Nulls() {
			yield(k)
		}
	}); !slices.Equal(got, []string{"port"}) {
		t.Errorf("nulls again: got %v", got)
	}
}
