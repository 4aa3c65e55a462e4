package openapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// schemaMode says which side of the wire a schema describes.
type schemaMode int

const (
	// modeReply describes what the server writes: pointers are nullable, plain fields
	// are required, and `openapi` tags are not applied.
	modeReply schemaMode = iota
	// modeRequest describes a body the server reads (strictly): required comes from the
	// `openapi` tag, bounds from the tag or the defaults, no unknown properties.
	modeRequest
	// modePatch is modeRequest for the top level of a merge patch: nothing required,
	// at least one property.
	modePatch
)

// typeMode keys a component: one Go type may be described on both sides of the wire.
type typeMode struct {
	t    reflect.Type
	mode schemaMode
}

// schemaGen reflects Go types into JSON Schema 2020-12, collecting named structs as
// components so that each is written once and recursive types terminate.
type schemaGen struct {
	schemas   obj                 // components/schemas
	names     map[typeMode]string // named struct → component name
	taken     map[string]typeMode // component name → its type
	expanding map[reflect.Type]bool
	err       error // the first type JSON cannot encode, or a bad `openapi` tag
}

func newSchemaGen() *schemaGen {
	return &schemaGen{
		schemas: obj{}, names: map[typeMode]string{}, taken: map[string]typeMode{},
		expanding: map[reflect.Type]bool{},
	}
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// implements reports whether t or *t has the method set of iface, as encoding/json
// uses pointer methods of addressable values.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}

// schemaIn returns the schema of values of type t on one side of the wire.
func (g *schemaGen) schemaIn(t reflect.Type, mode schemaMode) obj {
	if t == nil {
		return obj{}
	}
	inner := mode
	if inner == modePatch {
		inner = modeRequest // a merge patch is partial at its top level only
	}
	if t.Kind() == reflect.Pointer {
		if mode == modeReply {
			return nullable(g.schemaIn(t.Elem(), mode))
		}
		// In a request a pointer means optional; null is accepted only where the
		// field's tag says nullable.
		return g.schemaIn(t.Elem(), mode)
	}
	switch {
	case t == timeType:
		return obj{"type": "string", "format": "date-time"}
	case implements(t, jsonMarshalerType):
		// Its own MarshalJSON decides the shape; claim nothing rather than something false.
		return obj{}
	case implements(t, textMarshalerType):
		return obj{"type": "string"}
	}
	if t.Name() != "" && t.Kind() != reflect.Struct {
		// Named slices and maps are inlined; one that contains itself stops at {}.
		if g.expanding[t] {
			return obj{}
		}
		g.expanding[t] = true
		defer delete(g.expanding, t)
	}
	switch t.Kind() {
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return obj{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64:
		return obj{"type": "integer", "format": "int64"}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint, reflect.Uint64:
		return obj{"type": "integer", "format": "int64", "minimum": 0}
	case reflect.Float32:
		return obj{"type": "number", "format": "float"}
	case reflect.Float64:
		return obj{"type": "number", "format": "double"}
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Interface:
		return obj{}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), jsonMarshalerType) && !implements(t.Elem(), textMarshalerType) {
			// format byte is what OpenAPI 3.0 tools know; contentEncoding is the 3.1 way.
			return obj{"type": "string", "format": "byte", "contentEncoding": "base64"}
		}
		// A nil slice encodes as null, but handlers answer empty lists as [], and
		// declaring every array nullable would burden every client for nothing.
		return obj{"type": "array", "items": g.schemaIn(t.Elem(), inner)}
	case reflect.Array:
		return obj{"type": "array", "items": g.schemaIn(t.Elem(), inner), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		s := obj{"type": "object", "additionalProperties": g.schemaIn(t.Elem(), inner)}
		switch k := t.Key(); {
		case k.Kind() == reflect.String, implements(k, textMarshalerType):
		case k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
			s["propertyNames"] = obj{"pattern": "^-?[0-9]+$"}
		default:
			g.fail(t)
		}
		return s
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t, mode)
		}
		key := typeMode{t, mode}
		name, ok := g.names[key]
		if !ok {
			name = g.componentName(key)
			g.names[key] = name
			g.taken[name] = key
			g.schemas[name] = nil // reserved, so that a recursive field refers to it
			g.schemas[name] = g.object(t, mode)
		}
		return ref("#/components/schemas/" + name)
	}
	g.fail(t)
	return obj{}
}

func (g *schemaGen) fail(t reflect.Type) {
	if g.err == nil {
		g.err = fmt.Errorf("type %s cannot be encoded as JSON", t)
	}
}

// nullable widens a schema to also accept null, as a pointer encodes nil as null.
func nullable(s obj) obj {
	if len(s) == 0 {
		return s // {} already accepts null
	}
	if t, ok := s["type"].(string); ok {
		n := make(obj, len(s))
		for k, v := range s {
			n[k] = v
		}
		n["type"] = []string{t, "null"}
		return n
	}
	if _, ok := s["type"].([]string); ok {
		return s // already a union; pointers to pointers add nothing
	}
	return obj{"anyOf": []obj{s, {"type": "null"}}}
}

// object is the schema of a struct's JSON object.
func (g *schemaGen) object(t reflect.Type, mode schemaMode) obj {
	props := obj{}
	required := []string{}
	inner := mode
	if inner == modePatch {
		inner = modeRequest
	}
	for _, f := range jsonFields(t) {
		s := g.schemaIn(f.typ, inner)
		if f.doc != "" {
			// A copy: schemaIn may hand out a shared $ref object.
			s = maps.Clone(s)
			s["description"] = f.doc
		}
		if f.quoted {
			s = obj{"type": "string"}
			if f.typ.Kind() == reflect.Pointer && mode == modeReply {
				s = nullable(s)
			}
		}
		if mode != modeReply {
			if f.rulesErr != nil && g.err == nil {
				g.err = fmt.Errorf("%s.%s: %w", t, f.name, f.rulesErr)
			}
			r := f.requestRules()
			s = r.apply(s)
			if r.nullable {
				s = nullable(s)
			}
			if mode == modeRequest && r.required {
				required = append(required, f.name)
			}
			props[f.name] = s
			continue
		}
		props[f.name] = s
		// Pointer fields are how request types spell optional inputs (`name?`), and the
		// same types describe replies, so only plain non-omitempty fields are promised.
		if !f.omitEmpty && !f.viaPointer && f.typ.Kind() != reflect.Pointer {
			required = append(required, f.name)
		}
	}
	s := obj{"type": "object"}
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(required) > 0 {
		s["required"] = required
	}
	if mode != modeReply {
		// Decode refuses unknown fields.
		s["additionalProperties"] = false
	}
	if mode == modePatch {
		s["minProperties"] = 1
	}
	return s
}

// componentName is a type's Go name, capitalised; generic arguments are folded in
// (List[pkg.Machine] → ListMachine), and a clash gets the package name, then a number.
// A request body of a type that is also an answer is named with Input, a merge patch
// with Patch (unless its Go name already says Patch or Change).
func (g *schemaGen) componentName(key typeMode) string {
	t := key.t
	name := t.Name()
	base, args, generic := strings.Cut(name, "[")
	var b strings.Builder
	b.WriteString(capitalise(base))
	if generic {
		for _, tok := range strings.FieldsFunc(args, func(r rune) bool {
			return !(r == '_' || r == '.' || r == '/' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r))
		}) {
			if i := strings.LastIndexAny(tok, "./"); i >= 0 {
				tok = tok[i+1:]
			}
			b.WriteString(capitalise(tok))
		}
	}
	name = b.String()
	switch key.mode {
	case modeRequest:
		if _, reply := g.names[typeMode{t, modeReply}]; reply {
			name += "Input"
		}
	case modePatch:
		if !strings.HasSuffix(name, "Patch") && !strings.HasSuffix(name, "Change") {
			name += "Patch"
		}
	}
	pkg := t.PkgPath()
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		pkg = pkg[i+1:]
	}
	candidates := []string{name, capitalise(pkg) + name}
	for _, c := range candidates {
		if _, taken := g.taken[c]; !taken {
			return c
		}
	}
	for n := 2; ; n++ {
		if c := candidates[1] + strconv.Itoa(n); g.taken[c].t == nil {
			return c
		}
	}
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	// Component names must match ^[a-zA-Z0-9._-]+$.
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '.' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return -1
	}, string(r))
}

// jsonField is one member of a struct's JSON object.
type jsonField struct {
	name       string
	typ        reflect.Type
	index      []int
	tagged     bool        // the name comes from a json tag
	omitEmpty  bool        // omitempty or omitzero: the member may be absent
	quoted     bool        // the ,string option: a number or bool written as a string
	viaPointer bool        // promoted through an embedded pointer, absent when it is nil
	rules      *fieldRules // the `openapi` tag
	rulesErr   error       // a malformed `openapi` tag
	doc        string      // the `doc` tag: the property's description in the document
}

// requestRules are the field's rules as a request body has them: the tag, with the
// default bounds of strings and arrays filled in.
func (f jsonField) requestRules() *fieldRules {
	r := f.rules
	if r == nil {
		r = &fieldRules{}
	}
	t := f.typ
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if f.quoted || implements(t, jsonMarshalerType) || implements(t, textMarshalerType) || t == timeType {
		return r
	}
	switch t.Kind() {
	case reflect.String:
		return r.withDefaults("string", "")
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return r
		}
		item := ""
		if t.Elem().Kind() == reflect.String {
			item = "string"
		}
		return r.withDefaults("array", item)
	}
	return r
}

// jsonFields lists the members encoding/json writes for struct type t: exported fields
// under their tag names, the fields of untagged embedded structs promoted, and among
// members of one name the shallowest (or the only tagged one at that depth) kept,
// with ties dropped, as encoding/json does.
func jsonFields(t reflect.Type) []jsonField {
	type level struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var fields []jsonField
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		// A type embedded twice at one depth yields each of its fields twice, so that
		// they cancel out below, as in encoding/json.
		count := map[reflect.Type]int{}
		for _, l := range current {
			count[l.typ]++
		}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validJSONName(name) {
					name = ""
				}
				index := append(slices.Clip(l.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{
						name: name, typ: sf.Type, index: index, tagged: name != "", viaPointer: l.viaPointer,
						omitEmpty: hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero"),
					}
					if f.name == "" {
						f.name = sf.Name
					}
					f.rules, f.rulesErr = parseRules(sf.Tag.Get("openapi"), sf.Type)
					f.doc = sf.Tag.Get("doc")
					if hasOpt(opts, "string") {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64:
							f.quoted = true
						}
					}
					fields = append(fields, f)
					if count[l.typ] > 1 {
						fields = append(fields, f)
					}
					continue
				}
				next = append(next, level{typ: ft, index: index, viaPointer: l.viaPointer || sf.Type.Kind() == reflect.Pointer})
			}
		}
	}

	sort.SliceStable(fields, func(i, j int) bool {
		if fields[i].name != fields[j].name {
			return fields[i].name < fields[j].name
		}
		if len(fields[i].index) != len(fields[j].index) {
			return len(fields[i].index) < len(fields[j].index)
		}
		return fields[i].tagged && !fields[j].tagged
	})
	var out []jsonField
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		i = j
		if len(group) == 1 {
			out = append(out, group[0])
			continue
		}
		// The group is sorted shallowest first, tagged first: the first dominates unless
		// the second is as deep and as tagged.
		if len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue
		}
		out = append(out, group[0])
	}
	sort.Slice(out, func(i, j int) bool { return slices.Compare(out[i].index, out[j].index) < 0 })
	return out
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// validJSONName mirrors encoding/json's isValidTag: a tag name it would ignore is
// ignored here too.
func validJSONName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
