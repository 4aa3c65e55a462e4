package httpedge

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/vmplane/vmplane/httpedge/openapi"
)

// Every list of the API documents the type of its items: an operation that takes
// ?cursor= answers a page whose items have a schema, so that a generated client gets a
// list of machines, not a list of anything. (Resource lists get their page type from
// itemOf; this is what fails when a new kind of list does not.)
func TestOpenAPIListsAreTyped(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(mustServerDoc(t), &doc); err != nil {
		t.Fatal(err)
	}
	lists := 0
	for path, item := range at(t, doc, "paths").(map[string]any) {
		get, ok := item.(map[string]any)["get"].(map[string]any)
		if !ok || !takesCursor(get) {
			continue
		}
		lists++
		content, ok := at(t, get, "responses", "200").(map[string]any)["content"].(map[string]any)
		if !ok {
			t.Errorf("GET %s: a list without a documented answer", path)
			continue
		}
		page, _ := deref(t, doc, at(t, content, openapi.AppJSON, "schema")).(map[string]any)
		props, _ := page["properties"].(map[string]any)
		items, _ := props["items"].(map[string]any)
		if items == nil || items["type"] != "array" {
			t.Errorf("GET %s: the answer %v has no items array", path, page)
			continue
		}
		if one, _ := deref(t, doc, items["items"]).(map[string]any); len(one) == 0 {
			t.Errorf("GET %s: the items of the list have no schema (declare the resource's item with itemOf)", path)
		}
	}
	if lists < 10 {
		t.Fatalf("found %d lists in the document; want every list of the API (over 10)", lists)
	}
}

func takesCursor(op map[string]any) bool {
	params, _ := op["parameters"].([]any)
	return slices.ContainsFunc(params, func(p any) bool {
		m, _ := p.(map[string]any)
		return m["name"] == "cursor" && m["in"] == "query"
	})
}
