package httpedge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/vmplane/vmplane/httpedge/api"
)

// The document builder is tested in package openapi on hand-made tables; these tests
// run it on the real route table, and check what the edge hands it. at and deref are
// the openapi tests' own, again: a test file cannot import another package's tests.

// at walks a decoded document by object keys.
func at(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for i, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: got %T; want an object", strings.Join(keys[:i], "."), v)
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("%s: missing", strings.Join(keys[:i+1], "."))
		}
	}
	return v
}

// deref follows a local $ref, as a client would.
func deref(t *testing.T, doc map[string]any, v any) any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	r, ok := m["$ref"].(string)
	if !ok {
		return v
	}
	if !strings.HasPrefix(r, "#/") {
		t.Fatalf("$ref %q is not local", r)
	}
	return at(t, doc, strings.Split(strings.TrimPrefix(r, "#/"), "/")...)
}

// TestOpenAPIServer runs the real route table: New needs no actor system to build it.
func TestOpenAPIServer(t *testing.T) {
	t.Parallel()
	s := New(Options{Version: "9.9.9"})
	var wg sync.WaitGroup
	docs := make([][]byte, 4)
	for i := range docs {
		wg.Go(func() {
			b, err := s.OpenAPI()
			if err != nil {
				t.Errorf("OpenAPI: %v", err)
			}
			docs[i] = b
		})
	}
	wg.Wait()
	for i := range docs {
		if !bytes.Equal(docs[i], docs[0]) {
			t.Fatalf("concurrent calls: got different documents; want one")
		}
	}
	docs[0][0] = 'X' // the caller's copy, not the cache
	var doc map[string]any
	b, _ := s.OpenAPI()
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the document is not JSON: %v", err)
	}
	if got := at(t, doc, "info", "version"); got != "9.9.9" {
		t.Errorf("info.version: got %v; want 9.9.9", got)
	}
	var served bool
	for _, rt := range s.Routes() {
		at(t, doc, "paths", rt.Path, strings.ToLower(rt.Method))
		if rt.Path == "/api/openapi.json" {
			res, err := rt.Handler(&api.Call{})
			if err != nil {
				t.Fatalf("handler: %v", err)
			}
			raw, ok := res.(api.RawJSON)
			if !ok || !bytes.Equal(raw, b) {
				t.Errorf("handler: got %T of %d bytes; want rawJSON equal to OpenAPI()", res, len(raw))
			}
			served = true
		}
	}
	if !served {
		t.Errorf("route table: got no GET /api/openapi.json; want it")
	}
}

// TestOpenAPIValidates loads the served document with kin-openapi, an independent
// OpenAPI 3.1 implementation, and validates it.
func TestOpenAPIValidates(t *testing.T) {
	d, err := openapi3.NewLoader().LoadFromData(mustServerDoc(t))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if !d.IsOpenAPI31OrLater() {
		t.Fatalf("got version %q; want 3.1", d.OpenAPI)
	}
	if err := d.Validate(context.Background()); err != nil {
		t.Fatalf("got %v; want a valid document", err)
	}
}

// TestOpenAPIProblem checks that the error body the edge writes is the document's
// Problem, every member of it.
func TestOpenAPIProblem(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(mustServerDoc(t), &doc); err != nil {
		t.Fatal(err)
	}
	problem := at(t, doc, "components", "schemas", "Problem").(map[string]any)
	props := at(t, problem, "properties").(map[string]any)
	for _, name := range []string{"type", "title", "status", "code", "detail", "request_id", "errors", "allowed"} {
		if _, ok := props[name]; !ok {
			t.Errorf("Problem: got no property %s; want it", name)
		}
	}
	fieldError := deref(t, doc, at(t, props, "errors", "items")).(map[string]any)
	if got, want := fmt.Sprint(fieldError["required"]), "[field message]"; got != want {
		t.Errorf("Problem.errors items required: got %s; want %s", got, want)
	}
}

func mustServerDoc(t *testing.T) []byte {
	t.Helper()
	b, err := New(Options{Version: "test"}).OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Each operation that takes a token names the scope an API key needs for it, as the
// edge checks it (keyScope): a billing module's author reads it there.
func TestOpenAPIKeyScopes(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(mustServerDoc(t), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, method, want string }{
		{"/api/resources/tenants", "get", "read"},
		{"/api/resources/tenants", "post", "tenants:write"},
		{"/api/client/machines", "post", "machines:write"},
		{"/api/resources/api-keys", "post", "admin"},
		{"/api/resources/users/{id}/login-links", "post", "billing"},
		{"/api/auth/password", "post", "none"},
		{"/api/events", "get", "none"},
	} {
		if got := at(t, doc, "paths", c.path, c.method, "x-vmplane-key-scope"); got != c.want {
			t.Errorf("%s %s: x-vmplane-key-scope %v; want %s", c.method, c.path, got, c.want)
		}
	}
	if op := at(t, doc, "paths", "/api/auth/login", "post").(map[string]any); op["x-vmplane-key-scope"] != nil {
		t.Errorf("a public route names a key scope: %v", op["x-vmplane-key-scope"])
	}
}
