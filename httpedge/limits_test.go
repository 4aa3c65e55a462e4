package httpedge

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
)

// bodyField is a field of a request body type, found by walking the route table.
type bodyField struct {
	owner reflect.Type
	field reflect.StructField
	name  string // its JSON name
}

// requestFields lists every field of every route's body, nested ones included.
func requestFields(t *testing.T) []bodyField {
	t.Helper()
	var out []bodyField
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for _, f := range reflect.VisibleFields(typ) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || (f.Anonymous && name == "") {
				continue
			}
			out = append(out, bodyField{owner: typ, field: f, name: name})
			walk(f.Type)
		}
	}
	for _, rt := range New(Options{}).Routes() {
		if rt.Body != nil {
			walk(reflect.TypeOf(rt.Body))
		}
	}
	if len(out) == 0 {
		t.Fatal("no request body fields found")
	}
	return out
}

// spelled is what a tag spells literally of one kind of bound: lo and hi, -1 when absent.
type spelled struct {
	kind   string // "number", "length" or "items"
	lo, hi int
}

// spelledBounds reads the literal bounds of an `openapi` tag, the items' ones apart.
func spelledBounds(tag string) []spelled {
	bounds := map[string]*spelled{}
	get := func(prefix, kind string) *spelled {
		k := prefix + kind
		if bounds[k] == nil {
			bounds[k] = &spelled{kind: kind, lo: -1, hi: -1}
		}
		return bounds[k]
	}
	for opt := range strings.SplitSeq(tag, ",") {
		prefix := ""
		if rest, ok := strings.CutPrefix(opt, "items."); ok {
			prefix, opt = "items.", rest
		}
		key, val, _ := strings.Cut(opt, "=")
		n, err := strconv.Atoi(val)
		if err != nil {
			continue
		}
		switch key {
		case "minimum":
			get(prefix, "number").lo = n
		case "maximum":
			get(prefix, "number").hi = n
		case "minLength":
			get(prefix, "length").lo = n
		case "maxLength":
			get(prefix, "length").hi = n
		case "minItems":
			get(prefix, "items").lo = n
		case "maxItems":
			get(prefix, "items").hi = n
		}
	}
	var out []spelled
	for _, s := range bounds {
		out = append(out, *s)
	}
	return out
}

// TestLimitsNamed fails on a request body's tag that spells an upper bound (every one
// is an owner's constant, named with limit=NAME), on one that spells a named limit's
// bounds, and on a named limit no tag uses.
func TestLimitsNamed(t *testing.T) {
	fields := requestFields(t)
	// The kinds of bound each limit is (number, length, items), by the fields naming it.
	kinds := map[string]map[string]bool{}
	for _, bf := range fields {
		for opt := range strings.SplitSeq(bf.field.Tag.Get("openapi"), ",") {
			typ := bf.field.Type
			for typ.Kind() == reflect.Pointer {
				typ = typ.Elem()
			}
			if rest, ok := strings.CutPrefix(opt, "items."); ok {
				opt, typ = rest, typ.Elem()
			}
			name, ok := strings.CutPrefix(opt, "limit=")
			if !ok {
				continue
			}
			if kinds[name] == nil {
				kinds[name] = map[string]bool{}
			}
			switch typ.Kind() {
			case reflect.String:
				kinds[name]["length"] = true
			case reflect.Slice:
				kinds[name]["items"] = true
			default:
				kinds[name]["number"] = true
			}
		}
	}
	for _, bf := range fields {
		tag := bf.field.Tag.Get("openapi")
		for _, s := range spelledBounds(tag) {
			if s.hi != -1 {
				// Every upper bound is some owner's constant, stated once.
				t.Errorf("%s.%s: the tag %q spells an upper bound; want limit=NAME naming the constant", bf.owner, bf.field.Name, tag)
			}
			for name, l := range limits {
				if kinds[name][s.kind] && s.hi == l.Max && (s.lo == -1 || s.lo == l.Min) {
					t.Errorf("%s.%s: the tag %q spells the bounds of limit %s (%d..%d); want limit=%s",
						bf.owner, bf.field.Name, tag, name, l.Min, l.Max, name)
				}
			}
		}
	}
	for name := range limits {
		if kinds[name] == nil {
			t.Errorf("limit %s: no tag names it; want it used or gone", name)
		}
	}
}

// TestLimitsChecked sends, for every field that names a limit, its bounds and one past
// each through the edge's body check: the bounds pass, one past is refused naming the
// field. The document states the same rules (openapi.TestNamedLimit), so the document
// and the check agree with the service's constants.
func TestLimitsChecked(t *testing.T) {
	checked := map[string]bool{}
	for _, bf := range requestFields(t) {
		tag := bf.field.Tag.Get("openapi")
		for opt := range strings.SplitSeq(tag, ",") {
			items := strings.HasPrefix(opt, "items.")
			name, ok := strings.CutPrefix(strings.TrimPrefix(opt, "items."), "limit=")
			if !ok {
				continue
			}
			l := limits[name]
			typ := bf.field.Type
			for typ.Kind() == reflect.Pointer {
				typ = typ.Elem()
			}
			field := bf.name
			if items {
				typ, field = typ.Elem(), field+"[0]"
			}
			value := func(n int) any {
				var v any = n
				switch typ.Kind() {
				case reflect.String:
					v = strings.Repeat("a", max(n, 0))
				case reflect.Slice:
					v = slices.Repeat([]any{"a"}, max(n, 0))
				}
				if items {
					return []any{v}
				}
				return v
			}
			// A tag may add minLength=1 (or minItems=1) to a limit that allows empty.
			lo := l.Min
			for _, s := range spelledBounds(tag) {
				if !items && s.lo > lo {
					lo = s.lo
				}
			}
			for _, c := range []struct {
				n    int
				pass bool
			}{{lo, true}, {l.Max, true}, {lo - 1, false}, {l.Max + 1, false}} {
				if !c.pass && (typ.Kind() == reflect.String || typ.Kind() == reflect.Slice) && c.n < 0 {
					continue // no length is below 0
				}
				body, err := json.Marshal(map[string]any{bf.name: value(c.n)})
				if err != nil {
					t.Fatal(err)
				}
				// As a patch: the fields the body leaves out are not required.
				err = checkRules(body, bf.owner, true)
				var e *apierr.Error
				refused := errors.As(err, &e) && slices.ContainsFunc(e.Fields, func(f apierr.FieldError) bool { return f.Field == field })
				if refused == c.pass {
					t.Errorf("%s.%s (limit %s) = %d: got %v; want refused %v", bf.owner, bf.field.Name, name, c.n, err, !c.pass)
				}
			}
			checked[name] = true
		}
	}
	for name := range limits {
		if !checked[name] {
			t.Errorf("limit %s: not checked", name)
		}
	}
}
