package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/vmplane/vmplane/apierr"
)

// Types for the reflection cases. The oa prefix keeps them apart from the package's own.
type (
	// oaProblem stands for the error body, which the edge passes to Build.
	oaProblem struct {
		Code   string              `json:"code"`
		Detail string              `json:"detail,omitempty"`
		Errors []apierr.FieldError `json:"errors,omitempty"`
	}
	oaLogin struct {
		Email    string `json:"email" openapi:"required"`
		Password string `json:"password" openapi:"required"`
	}
	oaToken struct {
		Token string `json:"token"`
	}
	oaBase struct {
		ID        string    `json:"id"`
		CreatedAt time.Time `json:"created_at"`
	}
	oaAddress struct {
		Street string  `json:"street"`
		Zip    *string `json:"zip"`
	}
	oaNode struct {
		Name     string   `json:"name"`
		Children []oaNode `json:"children,omitempty"`
		Parent   *oaNode  `json:"parent,omitempty"`
	}
	oaList   []oaList // a named type that contains itself
	oaSample struct {
		oaBase
		Name    string         `json:"name"`
		Nick    *string        `json:"nick"`
		Note    string         `json:"note,omitempty"`
		Address oaAddress      `json:"address"`
		Home    *oaAddress     `json:"home"`
		Items   []oaAddress    `json:"items"`
		Labels  map[string]int `json:"labels"`
		Blob    []byte         `json:"blob"`
		Extra   any            `json:"extra"`
		Count   int64          `json:"count,string"`
		Ratio   float64        `json:"ratio"`
		Tree    oaNode         `json:"tree"`
		Nested  oaList         `json:"nested"`
		Skipped string         `json:"-"`
		//lint:ignore U1000 never read: it is there for the reflector to leave out
		unexported int
		Untagged   bool
	}
	oaX        struct{ X string }
	oaY        struct{ X string }
	oaConflict struct { // X from both at one depth: encoding/json drops it
		oaX
		oaY
		Z int `json:"z"`
	}
	oaShadow struct { // the shallower X wins
		oaX
		X int
	}
	oaViaPointer struct { // promoted through a pointer: absent when nil
		*oaBase
		Name string `json:"name"`
	}
)

// sampleOps covers each access level, path and query parameters, bodies, 202 and 204.
func sampleOps() []Operation {
	return []Operation{
		{Method: "GET", Path: "/api/health", Access: Public, Tag: "system", Summary: "Health", Reply: oaToken{}},
		{Method: "GET", Path: "/metrics", Access: Public, Tag: "system", Reply: RawBody{ContentType: "text/plain; version=0.0.4"}},
		{Method: "POST", Path: "/api/auth/login", Access: Public, Tag: "auth", Body: oaLogin{}, Reply: oaToken{}},
		{Method: "GET", Path: "/api/tasks/{id}", Access: Authenticated, Tag: "tasks", Reply: oaSample{}},
		{Method: "POST", Path: "/api/virt/vms/{id}/actions/{action}", Access: AdminOnly, Tag: "virt",
			Status: http.StatusAccepted, Reply: oaSample{}},
		{Method: "PATCH", Path: "/api/client/machines/{vmId}/resources", Access: Authenticated, Tag: "client",
			Body: oaAddress{}, Status: http.StatusAccepted, Reply: oaSample{}},
		{Method: "DELETE", Path: "/api/client/firewall/rules/{id}", Access: Authenticated, Tag: "client",
			Status: http.StatusNoContent},
		{Method: "GET", Path: "/api/monitoring/alerts/events", Access: AdminOnly, Tag: "monitoring",
			Query: map[string]string{"status": "firing|resolved|acknowledged", "severity": ""}, Reply: []oaNode{}},
	}
}

func mustBuild(t *testing.T, version string, ops []Operation) map[string]any {
	t.Helper()
	b, err := Build(version, oaProblem{}, ops)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the document is not JSON: %v", err)
	}
	return doc
}

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

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

var templateParam = regexp.MustCompile(`\{([^}]+)\}`)

func TestOpenAPIDocument(t *testing.T) {
	routes := sampleOps()
	doc := mustBuild(t, "1.2.3", routes)

	if got := at(t, doc, "openapi"); got != "3.1.0" {
		t.Errorf("openapi: got %v; want 3.1.0", got)
	}
	if got := at(t, doc, "info", "version"); got != "1.2.3" {
		t.Errorf("info.version: got %v; want 1.2.3", got)
	}
	if got := at(t, doc, "info", "title"); got != "vmplane API" {
		t.Errorf("info.title: got %v; want vmplane API", got)
	}
	if got, want := jsonOf(t, at(t, doc, "servers")), `[{"url":"/"}]`; got != want {
		t.Errorf("servers: got %s; want %s", got, want)
	}

	ids := map[string]string{}
	for _, rt := range routes {
		op := at(t, doc, "paths", rt.Path, strings.ToLower(rt.Method)).(map[string]any)
		id, _ := op["operationId"].(string)
		if prev, dup := ids[id]; dup || id == "" {
			t.Errorf("%s %s: operationId %q is empty or already used by %s", rt.Method, rt.Path, id, prev)
		}
		ids[id] = rt.Method + " " + rt.Path

		var wantPath []string
		for _, m := range templateParam.FindAllStringSubmatch(rt.Path, -1) {
			wantPath = append(wantPath, m[1])
		}
		var gotPath, gotQuery []string
		params, _ := op["parameters"].([]any)
		for _, p := range params {
			p := deref(t, doc, p).(map[string]any)
			switch p["in"] {
			case "path":
				gotPath = append(gotPath, p["name"].(string))
				if p["required"] != true || jsonOf(t, p["schema"]) != `{"type":"string"}` {
					t.Errorf("%s %s: path parameter %s: got %s; want a required string", rt.Method, rt.Path, p["name"], jsonOf(t, p))
				}
			case "query":
				gotQuery = append(gotQuery, p["name"].(string))
				if p["required"] != false {
					t.Errorf("%s %s: query parameter %s: got required %v; want false", rt.Method, rt.Path, p["name"], p["required"])
				}
			}
		}
		if !slices.Equal(gotPath, wantPath) {
			t.Errorf("%s %s: path parameters: got %v; want %v", rt.Method, rt.Path, gotPath, wantPath)
		}
		wantQuery := slices.Sorted(func(yield func(string) bool) {
			for k := range rt.Query {
				if !yield(k) {
					return
				}
			}
		})
		if !slices.Equal(gotQuery, wantQuery) {
			t.Errorf("%s %s: query parameters: got %v; want %v", rt.Method, rt.Path, gotQuery, wantQuery)
		}
	}
	if got, want := ids["postVirtVmsByIdActionsByAction"], "POST /api/virt/vms/{id}/actions/{action}"; got != want {
		t.Errorf("operationId postVirtVmsByIdActionsByAction: got %q; want %q", got, want)
	}

	// 202 names the Location of its task; 204 has no content; RawBody keeps its media type.
	accepted := at(t, doc, "paths", "/api/virt/vms/{id}/actions/{action}", "post", "responses", "202").(map[string]any)
	at(t, accepted, "headers", "Location")
	// The edge's limiter sets RateLimit-* on every answer while limits are on.
	for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
		at(t, accepted, "headers", h)
	}
	at(t, accepted, "content", "application/json", "schema")
	if _, ok := at(t, doc, "paths", "/api/client/firewall/rules/{id}", "delete", "responses", "204").(map[string]any)["content"]; ok {
		t.Errorf("204: got content; want none")
	}
	at(t, doc, "paths", "/metrics", "get", "responses", "200", "content", "text/plain; version=0.0.4")
	body := at(t, doc, "paths", "/api/auth/login", "post", "requestBody").(map[string]any)
	if got, want := jsonOf(t, body), `{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/OaLogin"}}},"required":true}`; got != want {
		t.Errorf("requestBody: got %s; want %s", got, want)
	}

	again, err := Build("1.2.3", oaProblem{}, routes)
	if err != nil {
		t.Fatal(err)
	}
	if first, _ := Build("1.2.3", oaProblem{}, routes); !bytes.Equal(first, again) {
		t.Errorf("two builds differ; want the same bytes")
	}
}

// TestOpenAPIStructure checks what a validator would: every $ref resolves, names are
// legal, no OpenAPI 3.0 keyword slipped in. kin-openapi's openapi3 (v0.152.0, which
// loads and validates 3.1 documents) cannot be imported here while go.mod lacks its
// dependencies (jsonpointer, oasdiff/yaml, santhosh-tekuri/jsonschema); the document
// of the real route table was validated with it out of tree instead.
func TestOpenAPIStructure(t *testing.T) {
	doc := mustBuild(t, "", sampleOps())
	if got := at(t, doc, "info", "version"); got == "" {
		t.Errorf("info.version: got empty; want a placeholder")
	}
	componentName := regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)
	for kind, set := range at(t, doc, "components").(map[string]any) {
		for name := range set.(map[string]any) {
			if !componentName.MatchString(name) {
				t.Errorf("components.%s.%s: got an illegal name", kind, name)
			}
		}
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				switch k {
				case "$ref":
					deref(t, doc, v)
				case "nullable":
					// A property may be named nullable; the keyword has a boolean value.
					if _, keyword := e.(bool); keyword {
						t.Errorf("%s: got the 3.0 keyword nullable; want type [..., \"null\"]", path)
					}
				}
				walk(path+"/"+k, e)
			}
		case []any:
			for _, e := range v {
				walk(path+"/[]", e)
			}
		}
	}
	walk("#", doc)
}

func TestOpenAPIErrorsAndSecurity(t *testing.T) {
	routes := sampleOps()
	doc := mustBuild(t, "1", routes)

	scheme := at(t, doc, "components", "securitySchemes", "bearerAuth")
	if got, want := jsonOf(t, scheme), `{"bearerFormat":"JWT","description":"An access token from POST /api/auth/login or /api/auth/refresh.","scheme":"bearer","type":"http"}`; got != want {
		t.Errorf("bearerAuth: got %s; want %s", got, want)
	}
	problem := at(t, doc, "components", "schemas", "Problem").(map[string]any)
	props := at(t, problem, "properties").(map[string]any)
	// The error body the edge passes is the component Problem, whatever its Go name.
	for _, name := range []string{"code", "detail", "errors"} {
		if _, ok := props[name]; !ok {
			t.Errorf("Problem: got no property %s; want it", name)
		}
	}
	fieldError := deref(t, doc, at(t, props, "errors", "items")).(map[string]any)
	if got, want := jsonOf(t, fieldError["required"]), `["field","message"]`; got != want {
		t.Errorf("Problem.errors items required: got %s; want %s", got, want)
	}

	access := map[Access]string{Public: "public", Authenticated: "authenticated", AdminOnly: "admin"}
	for _, rt := range routes {
		name := rt.Method + " " + rt.Path
		op := at(t, doc, "paths", rt.Path, strings.ToLower(rt.Method)).(map[string]any)
		responses := at(t, op, "responses").(map[string]any)
		want := map[string]bool{"default": true, "400": true, "404": true, "429": true,
			"401": rt.Access != Public, "403": rt.Access != Public, "413": rt.Body != nil, "415": rt.Body != nil,
			"409": rt.Access != Public && rt.Method != "GET", "422": rt.Access != Public && rt.Method == "POST"}
		for code, present := range want {
			r, ok := responses[code]
			if ok != present {
				t.Errorf("%s: response %s: got present %v; want %v", name, code, ok, present)
				continue
			}
			if !ok {
				continue
			}
			schema := at(t, deref(t, doc, r), "content", "application/problem+json", "schema")
			if got, want := jsonOf(t, schema), `{"$ref":"#/components/schemas/Problem"}`; got != want {
				t.Errorf("%s: response %s schema: got %s; want %s", name, code, got, want)
			}
		}
		wantSecurity := `[{"bearerAuth":[]}]`
		if rt.Access == Public {
			wantSecurity = `[]`
		}
		if got := jsonOf(t, at(t, op, "security")); got != wantSecurity {
			t.Errorf("%s: security: got %s; want %s", name, got, wantSecurity)
		}
		if got := at(t, op, "x-vmplane-access"); got != access[rt.Access] {
			t.Errorf("%s: x-vmplane-access: got %v; want %s", name, got, access[rt.Access])
		}
	}
}

func TestOpenAPISchemaReflection(t *testing.T) {
	g := newSchemaGen()
	if got, want := jsonOf(t, g.schemaIn(reflect.TypeFor[oaSample](), modeReply)), `{"$ref":"#/components/schemas/OaSample"}`; got != want {
		t.Fatalf("oaSample: got %s; want %s", got, want)
	}
	if g.err != nil {
		t.Fatalf("reflect: %v", g.err)
	}
	component := func(name string) map[string]any {
		t.Helper()
		s, ok := g.schemas[name].(obj)
		if !ok {
			t.Fatalf("components.schemas.%s: missing", name)
		}
		return s
	}
	sample := component("OaSample")
	props := sample["properties"].(obj)
	f := func(property, want string) {
		t.Helper()
		if got := jsonOf(t, props[property]); got != want {
			t.Errorf("property %s: got %s; want %s", property, got, want)
		}
	}
	f("id", `{"type":"string"}`) // promoted from the embedded oaBase
	f("created_at", `{"format":"date-time","type":"string"}`)
	f("name", `{"type":"string"}`)
	f("nick", `{"type":["string","null"]}`)
	f("address", `{"$ref":"#/components/schemas/OaAddress"}`)
	f("home", `{"anyOf":[{"$ref":"#/components/schemas/OaAddress"},{"type":"null"}]}`)
	f("items", `{"items":{"$ref":"#/components/schemas/OaAddress"},"type":"array"}`)
	f("labels", `{"additionalProperties":{"format":"int64","type":"integer"},"type":"object"}`)
	f("blob", `{"contentEncoding":"base64","format":"byte","type":"string"}`)
	f("extra", `{}`)
	f("count", `{"type":"string"}`) // the ,string option
	f("ratio", `{"format":"double","type":"number"}`)
	f("tree", `{"$ref":"#/components/schemas/OaNode"}`)
	f("nested", `{"items":{},"type":"array"}`)
	f("Untagged", `{"type":"boolean"}`)
	if got, want := jsonOf(t, sample["required"]),
		`["id","created_at","name","address","items","labels","blob","extra","count","ratio","tree","nested","Untagged"]`; got != want {
		t.Errorf("required: got %s; want %s", got, want)
	}
	for _, absent := range []string{"oaBase", "Skipped", "unexported"} {
		if _, ok := props[absent]; ok {
			t.Errorf("property %s: got present; want absent", absent)
		}
	}
	if _, ok := g.schemas["OaBase"]; ok {
		t.Errorf("components.schemas.OaBase: got present; want it flattened into OaSample")
	}

	node := component("OaNode")
	if got, want := jsonOf(t, node), `{"properties":{"children":{"items":{"$ref":"#/components/schemas/OaNode"},"type":"array"},"name":{"type":"string"},"parent":{"anyOf":[{"$ref":"#/components/schemas/OaNode"},{"type":"null"}]}},"required":["name"],"type":"object"}`; got != want {
		t.Errorf("OaNode: got %s; want %s", got, want)
	}

	g.schemaIn(reflect.TypeFor[oaConflict](), modeReply)
	g.schemaIn(reflect.TypeFor[oaShadow](), modeReply)
	g.schemaIn(reflect.TypeFor[oaViaPointer](), modeReply)
	for _, c := range []struct{ name, want string }{
		{"OaConflict", `{"properties":{"z":{"format":"int64","type":"integer"}},"required":["z"],"type":"object"}`},
		{"OaShadow", `{"properties":{"X":{"format":"int64","type":"integer"}},"required":["X"],"type":"object"}`},
		{"OaViaPointer", `{"properties":{"created_at":{"format":"date-time","type":"string"},"id":{"type":"string"},"name":{"type":"string"}},"required":["name"],"type":"object"}`},
	} {
		if got := jsonOf(t, component(c.name)); got != c.want {
			t.Errorf("%s: got %s; want %s", c.name, got, c.want)
		}
	}
}

// TestOpenAPISchemaMatchesEncoding checks the reflector against encoding/json itself:
// a value with every field set encodes exactly the properties the schema declares.
func TestOpenAPISchemaMatchesEncoding(t *testing.T) {
	nick := "n"
	f := func(v any) {
		t.Helper()
		g := newSchemaGen()
		s := deref(t, map[string]any{"components": map[string]any{"schemas": g.schemas}},
			map[string]any(g.schemaIn(reflect.TypeOf(v), modeReply))).(obj)
		var want []string
		for k := range s["properties"].(obj) {
			want = append(want, k)
		}
		var enc map[string]any
		if err := json.Unmarshal([]byte(jsonOf(t, v)), &enc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for k := range enc {
			got = append(got, k)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%T: encoding/json writes %v; want the schema's %v", v, got, want)
		}
	}
	f(oaSample{Nick: &nick, Note: "x", Home: &oaAddress{}, Skipped: "s"})
	f(oaConflict{})
	f(oaShadow{})
	f(oaViaPointer{oaBase: &oaBase{}})
}

func TestOpenAPITemplatePaths(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		vs, err := templatePaths(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var got []string
		for _, v := range vs {
			s := v.path
			for _, p := range v.params {
				s += " " + p.name + "=" + p.pattern
				if p.catchAll {
					s += "*"
				}
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " | "); g != want {
			t.Errorf("%s: got %q; want %q", in, g, want)
		}
	}
	f("/api/health", "/api/health")
	f("/api/tasks/{id}", "/api/tasks/{id} id=")
	f("/api/vms/{id}/actions/{action}", "/api/vms/{id}/actions/{action} id= action=")
	f("/api/vms/{vmid:[0-9]{1,9}}", "/api/vms/{vmid} vmid=^(?:[0-9]{1,9})$")
	f("/files/{path:*}", "/files/{path} path=*")
	f("/api/items/{id?}", "/api/items/{id} id= | /api/items")
}

func TestOpenAPIOperationID(t *testing.T) {
	f := func(method, path, want string) {
		t.Helper()
		if got := operationID(method, path); got != want {
			t.Errorf("%s %s: got %q; want %q", method, path, got, want)
		}
	}
	f("get", "/api/health", "getHealth")
	f("get", "/metrics", "getMetrics")
	f("get", "/api/openapi.json", "getOpenapiJson")
	f("get", "/api/virt/vms/{id}/usage-graphs", "getVirtVmsByIdUsageGraphs")
	f("patch", "/api/client/machines/{vmId}/resources", "patchClientMachinesByVmIdResources")
}

// TestOpenAPIValidates loads a document with kin-openapi, an independent OpenAPI 3.1
// implementation, and validates it (httpedge's tests do the same for the real table).
func TestOpenAPIValidates(t *testing.T) {
	b, err := Build("test", oaProblem{}, sampleOps())
	if err != nil {
		t.Fatal(err)
	}
	d, err := openapi3.NewLoader().LoadFromData(b)
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
