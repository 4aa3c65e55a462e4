package httpedge

import (
	"encoding/json"
	"strings"
	"testing"
)

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
			// A binary body (an upload's content) is bounded by its route's size check.
			if m["maxLength"] == nil && m["enum"] == nil && m["format"] != "date-time" && m["format"] != "binary" {
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
