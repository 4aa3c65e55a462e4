package openapi

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

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

// validateBody checks a body against the rules of type t, as Body.Decode does after
// its strict decode.
func validateBody(body []byte, t reflect.Type, patch bool) error {
	b, err := ParseBody(body)
	if err != nil {
		return err
	}
	return b.Check(t, patch)
}

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

func TestCheckRules(t *testing.T) {
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

	if _, err := Build("1", oaProblem{}, []Operation{{Method: "POST", Path: "/x", Body: ctBadTag{}}}); err == nil ||
		!strings.Contains(err.Error(), "maxLength needs a whole number") {
		t.Errorf("a malformed openapi tag: got %v; want the build to fail naming it", err)
	}
	if _, err := parseRules("required,maxlen=3", nil); err == nil {
		t.Errorf("an unknown option: got no error; want one")
	}
}

// Types for the named limit cases: one limit bounds a number, a string and an array.
type (
	ltBody struct {
		Count *int     `json:"count,omitempty" openapi:"limit=test.range"`
		Name  *string  `json:"name,omitempty" openapi:"limit=test.range"`
		Keys  []string `json:"keys,omitempty" openapi:"limit=test.range,items.limit=test.range"`
	}
	ltUnknown struct {
		Count int `json:"count" openapi:"limit=test.nothing"`
	}
	ltBool struct {
		On bool `json:"on" openapi:"limit=test.range"`
	}
)

func init() { NameLimits(Limits{"test.range": {Min: 2, Max: 3}}) }

func TestNamedLimit(t *testing.T) {
	f := func(body string, want ...string) {
		t.Helper()
		var got []string
		if err := validateBody([]byte(body), reflect.TypeFor[ltBody](), false); err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: got %v; want a 400", body, err)
			}
			for _, f := range e.Fields {
				got = append(got, f.Field+": "+f.Message)
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: got %q; want %q", body, got, want)
		}
	}
	f(`{"count":2,"name":"abc","keys":["ab","abc"]}`)
	f(`{"count":1}`, "count: must be at least 2")
	f(`{"count":4}`, "count: must be at most 3")
	f(`{"name":"a"}`, "name: must be at least 2 characters")
	f(`{"keys":["ab","ab","ab","ab"]}`, "keys: must have at most 3 items")
	f(`{"keys":["ab","abcd"]}`, "keys[1]: must be at most 3 characters")

	g := newSchemaGen()
	g.schemaIn(reflect.TypeFor[ltBody](), modeRequest)
	b, _ := json.Marshal(g.schemas["LtBody"])
	want := `{"additionalProperties":false,"properties":{` +
		`"count":{"format":"int64","maximum":3,"minimum":2,"type":"integer"},` +
		`"keys":{"items":{"maxLength":3,"minLength":2,"type":"string"},"maxItems":3,"minItems":2,"type":"array"},` +
		`"name":{"maxLength":3,"minLength":2,"type":"string"}},"type":"object"}`
	if string(b) != want {
		t.Errorf("schema: got %s; want %s", b, want)
	}

	for _, c := range []struct {
		body any
		want string
	}{{ltUnknown{}, `no limit is named "test.nothing"`}, {ltBool{}, "limit=test.range on a bool field"}} {
		if _, err := Build("1", oaProblem{}, []Operation{{Method: "POST", Path: "/x", Body: c.body}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: got %v; want the build to fail with %q", c.body, err, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("a limit named twice: got no panic; want one")
		}
	}()
	NameLimits(Limits{"test.range": {Min: 1, Max: 1}})
}

// A small body's strings are cut from one copy of it (parser.s), a larger one's made
// one by one: both decode alike, to what encoding/json makes of them, escapes, non-ASCII
// and numbers included.
func TestSmallAndLargeBodiesDecodeAlike(t *testing.T) {
	type in struct {
		Name  string   `json:"name"`
		Note  string   `json:"note"`
		Tags  []string `json:"tags"`
		Count float64  `json:"count"`
		Pad   string   `json:"pad"`
	}
	for _, pad := range []int{0, maxSharedBody} {
		body := []byte(`{"name":"web","note":"caf\u00e9 \"x\" é","tags":["a","b"],"count":-1.5e2,"pad":"` + strings.Repeat("p", pad) + `"}`)
		if small := len(body) <= maxSharedBody; small != (pad == 0) {
			t.Fatalf("a body of %d bytes: small %v", len(body), small)
		}
		b, err := ParseBody(body)
		if err != nil {
			t.Fatal(err)
		}
		var got, want in
		if err := b.Decode(body, &got, false); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("a body of %d bytes: got %+v; want %+v", len(body), got, want)
		}
	}
}

// TestNullIsNullsWithoutTheMap: Body.Null answers as Nulls()[key] does, a key given
// twice by its last value, for every key of a set of bodies.
func TestNullIsNullsWithoutTheMap(t *testing.T) {
	bodies := []string{
		`{"port":null,"source":"10.0.0.1","comment":null}`,
		`{"port":null,"port":"80"}`,
		`{"port":"80","port":null}`,
		`{"Port":null}`,
		`{"port":{"x":null}}`,
		`[null]`,
		`null`,
		`{"port":null} {"source":null}`,
		`{}`,
	}
	for _, body := range bodies {
		b, err := ParseBody([]byte(body))
		if err != nil {
			continue // not a body a route would parse
		}
		nulls := b.Nulls()
		for _, key := range []string{"port", "Port", "source", "comment", "x", "machine_id"} {
			if got, want := b.Null(key), nulls[key]; got != want {
				t.Errorf("%s: Null(%q) = %v; Nulls says %v", body, key, got, want)
			}
		}
	}
}

// TestOptionalStringsShareNoValue: the *string fields of a decode point into one
// backing array (decoder.newString), each to its own element, past the eight of one
// array too, as encoding/json's separate allocations did.
func TestOptionalStringsShareNoValue(t *testing.T) {
	type many struct {
		A, B, C, D, E, F, G, H, I, J *string
	}
	raw := []byte(`{"A":"a","B":"b","C":"c","D":"d","E":"e","F":"f","G":"g","H":"h","I":"i","J":"j"}`)
	b, err := ParseBody(raw)
	if err != nil {
		t.Fatal(err)
	}
	var m many
	if err := b.Decode(raw, &m, false); err != nil {
		t.Fatal(err)
	}
	ptrs := []*string{m.A, m.B, m.C, m.D, m.E, m.F, m.G, m.H, m.I, m.J}
	for i, p := range ptrs {
		if p == nil || *p != string(rune('a'+i)) {
			t.Fatalf("field %d: %v; want %q", i, p, string(rune('a'+i)))
		}
	}
	*m.A = "changed"
	for i, p := range ptrs[1:] {
		if *p != string(rune('b'+i)) {
			t.Fatalf("field %d changed with another: %q", i+1, *p)
		}
	}
}
