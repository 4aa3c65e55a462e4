package wiretest

import (
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
)

// The catalogue lists every message and answer registered with kit.Wire as name@version
// with the JSON shape its body has: the type at the root, then each field's path and
// JSON type (string, integer, number, bool, object, array, any), from the struct's json
// tags, recursively ("rules[].ports" is a field of an array's elements, "labels.*" a
// map's values). It is what members of two versions of vmplane must agree on.

// catalogueHeader opens the golden file.
const catalogueHeader = `# The messages and answers that cross cluster members, as name@version with the JSON
# shape of their body. Generated: go test ./actors -run TestWireCatalogue -update
# A name@version here is read by members of older versions: its fields may be added to,
# never removed, renamed or retyped (register the new shape as name@version+1 instead).
`

// Catalogue is the current catalogue, in the golden file's form.
func Catalogue() string {
	var b strings.Builder
	b.WriteString(catalogueHeader)
	for _, e := range kit.WireEntries() {
		fields := shapeOf(reflect.TypeOf(e.Zero))
		fmt.Fprintf(&b, "%s@%d %s\n", e.Name, e.Version, fields[""])
		paths := make([]string, 0, len(fields))
		for p := range fields {
			if p != "" {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			fmt.Fprintf(&b, "\t%s %s\n", p, fields[p])
		}
	}
	return b.String()
}

// CheckCatalogue compares the current catalogue with the golden file at path. A
// name@version that disappeared, or one of its fields removed, renamed or retyped,
// fails the test with what to do; new names or fields fail it until the golden file is
// rewritten (update, from the test's -update flag, rewrites it).
func CheckCatalogue(t *testing.T, path string, update bool) {
	t.Helper()
	cur := Catalogue()
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	breaks, additions := compareCatalogues(parseCatalogue(string(old)), parseCatalogue(cur))
	if update {
		if err := os.WriteFile(path, []byte(cur), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, b := range breaks {
			t.Logf("accepted by -update, incompatible with members of the previous version: %s", b)
		}
		return
	}
	switch {
	case len(breaks) > 0:
		t.Errorf("messages between members changed incompatibly:\n\t%s\n"+
			"Members of the previous version still send and read them as they were. Revert the change, or "+
			"give the new shape a new version: register it as name@N+1 (kit.Wire(name, N+1, v)), keep a type "+
			"with the old shape registered as name@N while members that send it may run (the entity reads "+
			"both), and rewrite %s: go test ./actors -run TestWireCatalogue -update.", strings.Join(breaks, "\n\t"), path)
	case string(old) != cur:
		t.Errorf("the wire catalogue has new messages or fields:\n\t%s\n"+
			"They are compatible; record them: go test ./actors -run TestWireCatalogue -update, and commit %s.",
			strings.Join(additions, "\n\t"), path)
	}
}

// parseCatalogue reads a catalogue: name@version → path → JSON type, the root at "".
func parseCatalogue(s string) map[string]map[string]string {
	out := map[string]map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(s, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		indented := strings.HasPrefix(line, "\t")
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if !indented {
			cur = map[string]string{"": f[1]}
			out[f[0]] = cur
		} else if cur != nil {
			cur[f[0]] = f[1]
		}
	}
	return out
}

// compareCatalogues lists what cur breaks of old, and what it adds.
func compareCatalogues(old, cur map[string]map[string]string) (breaks, additions []string) {
	for _, key := range sortedKeys(old) {
		fields, ok := cur[key]
		if !ok {
			breaks = append(breaks, key+" is no longer registered")
			continue
		}
		for _, p := range sortedKeys(old[key]) {
			was, now := old[key][p], fields[p]
			name := key + " " + p
			if p == "" {
				name = key
			}
			switch {
			case now == "":
				breaks = append(breaks, fmt.Sprintf("%s (%s) was removed or renamed", name, was))
			case now != was:
				breaks = append(breaks, fmt.Sprintf("%s changed from %s to %s", name, was, now))
			}
		}
		for _, p := range sortedKeys(fields) {
			if _, ok := old[key][p]; !ok {
				additions = append(additions, fmt.Sprintf("%s %s (%s)", key, p, fields[p]))
			}
		}
	}
	for _, key := range sortedKeys(cur) {
		if _, ok := old[key]; !ok {
			additions = append(additions, key)
		}
	}
	return breaks, additions
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var (
	jsonMarshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshaler = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
)

// shapeOf is the JSON shape of t: path → JSON type.
func shapeOf(t reflect.Type) map[string]string {
	fields := map[string]string{}
	s := shaper{fields: fields, open: map[reflect.Type]bool{}}
	s.shape(t, "")
	return fields
}

type shaper struct {
	fields map[string]string
	// open are the struct types being described, so that a recursive type ends.
	open map[reflect.Type]bool
}

// join appends a field name to a path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// shape records the JSON type of t at path, and those of its parts below it.
func (s *shaper) shape(t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if marshals(t) {
		s.fields[path] = marshaledType(t)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		s.fields[path] = "object"
		if s.open[t] {
			return
		}
		s.open[t] = true
		s.structFields(t, path)
		delete(s.open, t)
	case reflect.Map:
		s.fields[path] = "object"
		s.shape(t.Elem(), join(path, "*"))
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			s.fields[path] = "string" // base64
			return
		}
		s.fields[path] = "array"
		s.shape(t.Elem(), path+"[]")
	default:
		s.fields[path] = scalarType(t)
	}
}

// structFields records the fields of struct t at path, as encoding/json names them.
func (s *shaper) structFields(t reflect.Type, path string) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		for ft.Kind() == reflect.Pointer && sf.Anonymous {
			ft = ft.Elem()
		}
		if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct && !marshals(ft) {
			// An embedded struct's fields are the outer one's.
			s.structFields(ft, path)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		p := join(path, name)
		if strings.Contains(","+opts+",", ",string,") && isScalar(sf.Type) {
			s.fields[p] = "string"
			continue
		}
		s.shape(sf.Type, p)
	}
}

// marshals reports whether t writes its own JSON.
func marshals(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler))
}

// marshaledType is the JSON type a type that writes its own JSON writes, from its zero
// value: "any" when that says nothing (null).
func marshaledType(t reflect.Type) (typ string) {
	defer func() {
		if recover() != nil {
			typ = "any"
		}
	}()
	b, err := json.Marshal(reflect.New(t).Interface())
	if err != nil || len(b) == 0 {
		return "any"
	}
	switch c := b[0]; {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "bool"
	case c == '-' || c >= '0' && c <= '9':
		return "number"
	}
	return "any"
}

func isScalar(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch scalarType(t) {
	case "string", "integer", "number", "bool":
		return true
	}
	return false
}

// scalarType is the JSON type of a type that is neither a struct, a map nor a list.
func scalarType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Interface:
		return "any"
	}
	return "unencodable:" + t.Kind().String()
}
