package openapi

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vmplane/vmplane/apierr"
)

// A request body is parsed once (ParseBody): the strict decode into the handler's type,
// the check of its `openapi` rules, the nulls of a merge patch and the edge's look at
// tenant_id before the handler runs all read that one parse. The decode into a Go
// value follows encoding/json's rules and answers its errors as the edge always has:
// the first unknown field or mistyped value in the body's order, then the rules.

// object is a JSON object with its members in the body's order, a key given twice
// kept twice, as encoding/json reads it.
type object []member

// member is one member of a JSON object.
type member struct {
	key string
	val any
}

// get is the value of the last member named key, as a decode into a map keeps it.
func (o object) get(key string) (any, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return o[i].val, true
		}
	}
	return nil, false
}

// Body is a parsed request body: one JSON value (an object, []any, *string (a
// string: parser.boxStr), json.Number, bool or nil).
type Body struct {
	val      any
	trailing bool // more than one value: refused by Decode, unread by the peeks
}

// maxDepth bounds the nesting of a body, as encoding/json's does.
const maxDepth = 10000

// ParseBody parses body as JSON; a body that is not JSON is a 400 invalid_json.
//
// json.Valid checks the syntax (and the nesting, as encoding/json bounds it) without
// allocating; the values are then read off the checked bytes in one pass. A
// json.Decoder's Token would do both, but it builds a discarded syntax error after
// every scalar it reads (its end is "after a top-level value"): three allocations a
// field, a quarter of a small write's.
func ParseBody(body []byte) (*Body, error) {
	p := parser{b: bytes.TrimRight(body, " \t\r\n")}
	if len(p.b) <= maxSharedBody {
		p.s = string(p.b)
	}
	p.skipSpace()
	end := p.valueEnd()
	if !json.Valid(p.b[p.i:end]) {
		return nil, apierr.New(apierr.ErrInvalidJSON, "the body is not valid JSON")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, apierr.New(apierr.ErrInvalidJSON, "the body is not valid JSON")
	}
	return &Body{val: v, trailing: end < len(p.b)}, nil
}

var errTooDeep = errors.New("openapi: the body is nested too deep")

// parser reads JSON values off bytes whose syntax json.Valid checked.
type parser struct {
	b []byte
	i int
	// s is b as a string, for a small body (maxSharedBody): its plain strings, keys
	// and numbers are cut from it, one allocation for the body instead of one each
	// (a firewall rule's body has ten).
	s string
	// strs holds the body's string values: a value is a *string into it, which an
	// interface holds without an allocation, where a string in an interface is one
	// allocation each (a rule's body has five).
	strs []string
}

// boxStr is s as a parsed value: a *string from p.strs, which grows by eight.
func (p *parser) boxStr(s string) *string {
	if len(p.strs) == cap(p.strs) {
		p.strs = make([]string, 0, 8)
	}
	p.strs = append(p.strs, s)
	return &p.strs[len(p.strs)-1]
}

// maxSharedBody bounds the bodies whose strings share one allocation (parser.s): a
// string the handler keeps (a rule's description, held by its tenant's entity) keeps
// the whole body alive, so only a small one.
const maxSharedBody = 1 << 10

// cut is b[start:end] as a string.
func (p *parser) cut(start, end int) string {
	if p.s != "" {
		return p.s[start:end]
	}
	return string(p.b[start:end])
}

func (p *parser) skipSpace() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\r' || p.b[p.i] == '\n') {
		p.i++
	}
}

// valueEnd is where the value at p.i ends, found without checking it (json.Valid does
// that next), so that a second value after it is told apart, where a json.Decoder
// would end it: a container at its closing bracket, a string at its closing quote, a
// literal after its letters, a number where the number grammar ends ("00" is two).
func (p *parser) valueEnd() int {
	b, i := p.b, p.i
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '{', '[':
		depth, inString := 0, false
		for ; i < len(b); i++ {
			c := b[i]
			switch {
			case inString:
				if c == '\\' {
					i++
				} else if c == '"' {
					inString = false
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	case '"':
		for i++; i < len(b) && b[i] != '"'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		return min(i+1, len(b))
	case 't', 'n':
		return min(i+4, len(b))
	case 'f':
		return min(i+5, len(b))
	}
	// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, read as encoding/json's scanner
	// does: "00" is two values, "0." a bad one.
	digits := func() {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else {
		digits()
	}
	// As encoding/json's scanner: a '.' or an 'e' goes on the number, digits or not.
	if i < len(b) && b[i] == '.' {
		i++
		digits()
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		digits()
	}
	return max(i, p.i+1)
}

// value reads one value: an object, []any, *string, json.Number, bool or nil.
func (p *parser) value(depth int) (any, error) {
	p.skipSpace()
	switch c := p.b[p.i]; c {
	case '{', '[':
		if depth >= maxDepth {
			return nil, errTooDeep
		}
		p.i++
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		var o object
		a := []any{}
		if c == '{' {
			// Room for a small body's members (a rule has five to eight): one
			// allocation rather than the four of growing from none.
			o = make(object, 0, 8)
		}
		for {
			p.skipSpace()
			if p.b[p.i] == closing {
				p.i++
				break
			}
			if p.b[p.i] == ',' {
				p.i++
				p.skipSpace()
			}
			if c == '[' {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
				continue
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.skipSpace()
			p.i++ // ':'
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o = append(o, member{key: k, val: v})
		}
		if c == '[' {
			return a, nil
		}
		return o, nil
	case '"':
		v, err := p.str()
		if err != nil {
			return nil, err
		}
		return p.boxStr(v), nil
	case 't':
		p.i += 4
		return true, nil
	case 'f':
		p.i += 5
		return false, nil
	case 'n':
		p.i += 4
		return nil, nil
	default:
		start := p.i
		for p.i < len(p.b) && strings.IndexByte("+-0123456789.eE", p.b[p.i]) >= 0 {
			p.i++
		}
		return json.Number(p.cut(start, p.i)), nil
	}
}

// str reads a string at p.i. One of plain ASCII with no escape is its bytes; any other
// is decoded by encoding/json, which unescapes it and replaces invalid UTF-8 as a
// decode into a string field does.
func (p *parser) str() (string, error) {
	start, plain := p.i, true
	for p.i++; p.b[p.i] != '"'; p.i++ {
		if c := p.b[p.i]; c == '\\' {
			plain = false
			p.i++
		} else if c >= utf8.RuneSelf {
			plain = false
		}
	}
	p.i++
	if plain {
		return p.cut(start+1, p.i-1), nil
	}
	var s string
	err := json.Unmarshal(p.b[start:p.i], &s)
	return s, err
}

// Nulls are the top-level members that are JSON null: in a merge patch, the fields to
// clear.
func (b *Body) Nulls() map[string]bool {
	o, ok := b.val.(object)
	if !ok || b.trailing {
		return nil
	}
	// A key given twice is what its last value says, as a decode into a map keeps it.
	out := map[string]bool{}
	for _, m := range o {
		if m.val == nil {
			out[m.key] = true
		} else {
			delete(out, m.key)
		}
	}
	return out
}

// Null is Nulls()[key] without the map: whether the last top-level member key is null.
func (b *Body) Null(key string) bool {
	o, ok := b.val.(object)
	if !ok || b.trailing {
		return false
	}
	null := false
	for _, m := range o {
		if m.key == key {
			null = m.val == nil
		}
	}
	return null
}

// String is the top-level string member key as a lenient decode into a *string field
// of that name reads it: matched as encoding/json matches names (case folded), the
// last one that is a string or null winning, anything else ignored. nil when absent.
func (b *Body) String(key string) *string {
	o, ok := b.val.(object)
	if !ok || b.trailing {
		return nil
	}
	var out *string
	for _, m := range o {
		if m.key != key && !strings.EqualFold(m.key, key) {
			continue
		}
		switch v := m.val.(type) {
		case *string:
			s := *v // the caller's own copy, as before
			out = &s
		case nil:
			out = nil
		}
	}
	return out
}

// Decode stores the body in v (a pointer) strictly: it must be one JSON value, every
// field must be known and every value of the right type; then the body must satisfy
// the `openapi` rules of v's type. patch relaxes required fields and asks for one.
func (b *Body) Decode(raw []byte, v any, patch bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return apierr.New(apierr.ErrInternal, "openapi: Decode needs a non-nil pointer, not %T", v)
	}
	if decodable(rv.Type().Elem()) {
		d := decoder{}
		d.value(b.val, rv.Elem())
		if d.err != nil {
			return d.err
		}
	} else if err := strictUnmarshal(raw, v); err != nil {
		// A type this decoder leaves to encoding/json (none of the API's bodies).
		return err
	}
	if b.trailing {
		return apierr.New(apierr.ErrInvalidJSON, "the body must hold exactly one JSON value")
	}
	return b.Check(rv.Type(), patch)
}

// strictUnmarshal is encoding/json's strict decode of raw into v, for the types the
// decoder here does not take.
func strictUnmarshal(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return DecodeError(err)
	}
	return nil
}

// DecodeError is encoding/json's error as the edge answers it.
func DecodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return apierr.New(apierr.ErrInvalidJSON, "the body is not valid JSON")
	case errors.As(err, &typ):
		return typeError(typ.Field, typ.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no typed error for unknown fields; its message is stable.
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apierr.Invalid(apierr.Field(name, "is not a known field"))
	}
	return apierr.New(apierr.ErrInvalidJSON, "the body could not be decoded")
}

// typeError answers a value of the wrong JSON type for a Go value of type t.
func typeError(field string, t reflect.Type) error {
	if field == "" {
		field = "body"
	}
	return apierr.Invalid(apierr.Field(field, "must be %s", jsonKind(t.Kind())))
}

func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	}
	return "a number"
}

// decodables caches decodable (reflect.Type → bool).
var decodables sync.Map

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodable reports whether the decoder here takes values of type t: structs,
// pointers, slices, strings, booleans and numbers, none with a method of its own to
// decode itself or a ,string field.
func decodable(t reflect.Type) bool {
	if v, ok := decodables.Load(t); ok {
		return v.(bool)
	}
	ok := decodableIn(t, map[reflect.Type]bool{})
	decodables.Store(t, ok)
	return ok
}

func decodableIn(t reflect.Type, visiting map[reflect.Type]bool) bool {
	if visiting[t] {
		return true
	}
	if implements(t, jsonUnmarshalerType) || implements(t, textUnmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Pointer:
		return decodableIn(t.Elem(), visiting)
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8 && decodableIn(t.Elem(), visiting)
	case reflect.Struct:
		visiting[t] = true
		defer delete(visiting, t)
		for _, f := range plan(t).fields {
			if f.quoted || f.viaPointer || !decodableIn(f.typ, visiting) {
				return false
			}
		}
		return true
	}
	return false
}

// structPlan is how the decoder finds a struct's fields by a body's keys.
type structPlan struct {
	fields []jsonField
	byName map[string]int
}

// plans caches plan (reflect.Type → *structPlan).
var plans sync.Map

func plan(t reflect.Type) *structPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*structPlan)
	}
	p := &structPlan{fields: jsonFields(t), byName: map[string]int{}}
	for i, f := range p.fields {
		p.byName[f.name] = i
	}
	plans.Store(t, p)
	return p
}

// field is the field a key names: its exact name, else the first whose name equals
// the key folded, as encoding/json matches them.
func (p *structPlan) field(key string) (jsonField, bool) {
	if i, ok := p.byName[key]; ok {
		return p.fields[i], true
	}
	for _, f := range p.fields {
		if strings.EqualFold(f.name, key) {
			return f, true
		}
	}
	return jsonField{}, false
}

// decoder stores a parsed body in a Go value as encoding/json with
// DisallowUnknownFields would: the first error in the body's order is kept (with the
// field path encoding/json gives it), the rest of the value still stored.
type decoder struct {
	err   error
	stack []string
	// strs is where the *string fields a decode sets point: one allocation for a
	// body's optional strings (a rule has up to eight) rather than one each.
	strs []string
}

// stringPtr is the type of the optional string fields newString serves.
var stringPtr = reflect.TypeFor[*string]()

// newString is a new *string from d.strs, which grows by eight at a time.
func (d *decoder) newString() *string {
	if len(d.strs) == cap(d.strs) {
		d.strs = make([]string, 0, 8)
	}
	d.strs = d.strs[:len(d.strs)+1]
	return &d.strs[len(d.strs)-1]
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) typeError(t reflect.Type) { d.fail(typeError(strings.Join(d.stack, "."), t)) }

func (d *decoder) value(j any, v reflect.Value) {
	if j == nil {
		// null sets a pointer or a slice to nil, and leaves anything else as it is.
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice:
			v.SetZero()
		}
		return
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			if v.Type() == stringPtr {
				v.Set(reflect.ValueOf(d.newString()))
			} else {
				v.Set(reflect.New(v.Type().Elem()))
			}
		}
		v = v.Elem()
	}
	switch j := j.(type) {
	case object:
		if v.Kind() != reflect.Struct {
			d.typeError(v.Type())
			return
		}
		d.object(j, v)
	case []any:
		if v.Kind() != reflect.Slice {
			d.typeError(v.Type())
			return
		}
		if len(j) == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0)) // [] is empty, not nil
			return
		}
		if v.Cap() < len(j) {
			v.Grow(len(j) - v.Len())
		}
		v.SetLen(len(j))
		for i, e := range j {
			d.value(e, v.Index(i))
		}
	case *string:
		if v.Kind() != reflect.String {
			d.typeError(v.Type())
			return
		}
		v.SetString(*j)
	case bool:
		if v.Kind() != reflect.Bool {
			d.typeError(v.Type())
			return
		}
		v.SetBool(j)
	case json.Number:
		d.number(j.String(), v)
	}
}

func (d *decoder) number(s string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v.OverflowInt(n) {
			d.typeError(v.Type())
			return
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v.OverflowUint(n) {
			d.typeError(v.Type())
			return
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil || v.OverflowFloat(f) {
			d.typeError(v.Type())
			return
		}
		v.SetFloat(f)
	default:
		d.typeError(v.Type())
	}
}

func (d *decoder) object(o object, v reflect.Value) {
	p := plan(v.Type())
	for _, m := range o {
		f, ok := p.field(m.key)
		if !ok {
			// Named as encoding/json's message quotes it, as the edge always has.
			d.fail(apierr.Invalid(apierr.Field(strings.Trim(strconv.Quote(m.key), `"`), "is not a known field")))
			continue
		}
		depth := len(d.stack)
		sub := v
		for i, ind := range f.index {
			if i < len(f.index)-1 {
				// A promoted field: encoding/json names the embedded field on the way.
				d.stack = append(d.stack, sub.Type().Field(ind).Name)
			}
			sub = sub.Field(ind)
		}
		d.stack = append(d.stack, f.name)
		d.value(m.val, sub)
		d.stack = d.stack[:depth]
	}
}
