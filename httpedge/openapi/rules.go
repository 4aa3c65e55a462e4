package openapi

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The `openapi` struct tag states what a request body field must satisfy. The reflector
// writes it into the document and the edge enforces it (Body.Check), so the two
// cannot drift apart. Options, comma-separated:
//
//	required            the field must be present (in a create; a patch makes every field optional)
//	nullable            null is accepted: in a PATCH it clears the field
//	enum=a|b|c          the value must be one of these
//	minLength=N         strings: at least N characters (Unicode code points)
//	maxLength=N         strings: at most N characters
//	minItems=N          arrays: at least N items
//	maxItems=N          arrays: at most N items
//	minimum=N           numbers: at least N
//	maximum=N           numbers: at most N
//	format=F            a JSON Schema format, documented only (date-time, email, ...)
//	limit=NAME          the bounds of the limit registered under NAME (NameLimits): minimum
//	                    and maximum of a number, minLength and maxLength of a string,
//	                    minItems and maxItems of an array
//	items.OPTION        any of the options above, for the items of an array
//
// Example: `json:"ssh_keys,omitempty" openapi:"limit=machine.ssh_keys,items.limit=machine.ssh_key"`.
// A spelled minLength=1 (or minItems=1) next to a limit whose minimum is 0 says that
// this field, unlike others under that limit, is never empty.
//
// A bound that a service also enforces is named, never spelled: the service's constant
// is registered under a name (NameLimits, done by httpedge for every service) and the
// tag says limit=NAME, so that the document, the edge's check and the service's own check
// read one number. httpedge's tests fail on a tag that spells a named limit's numbers.
//
// A `doc` tag beside it is the property's description in the document, for what a
// client must know of a value that its schema cannot say (`doc:"-1: unlimited"`).
//
// A request string without maxLength gets defaultMaxLength, and an array without
// maxItems defaultMaxItems: every string and array a client sends is bounded.

// Default bounds of request strings and arrays that declare none.
const (
	defaultMaxLength = 1024
	defaultMaxItems  = 100
)

// fieldRules is a parsed `openapi` tag.
type fieldRules struct {
	required, nullable   bool
	enum                 []string
	minLength, maxLength *int
	minItems, maxItems   *int
	minimum, maximum     *float64
	format               string
	items                *fieldRules
}

// Limit is an inclusive range, of a number, a string's length in characters or an
// array's items, as the type of the field that names it says.
type Limit struct{ Min, Max int }

// Limits are limits by name.
type Limits map[string]Limit

// named holds the limits that tags may name.
var named struct {
	sync.RWMutex
	limits Limits
}

// NameLimits registers limits under their names for the tags' limit=NAME. Call it while
// the program initialises, before a document is built or a body checked: rules, once
// read, are cached. A name registered twice, or a range whose Min is above its Max,
// is a programming error and panics.
func NameLimits(l Limits) {
	named.Lock()
	defer named.Unlock()
	if named.limits == nil {
		named.limits = Limits{}
	}
	for name, r := range l {
		if _, dup := named.limits[name]; dup {
			panic("openapi: limit " + name + " is named twice")
		}
		if r.Min > r.Max {
			panic(fmt.Sprintf("openapi: limit %s: %d > %d", name, r.Min, r.Max))
		}
		named.limits[name] = r
	}
}

// lookupLimit is the limit registered under name.
func lookupLimit(name string) (Limit, bool) {
	named.RLock()
	defer named.RUnlock()
	l, ok := named.limits[name]
	return l, ok
}

// setLimit writes the named limit into r as the bounds that values of type t have.
func (r *fieldRules) setLimit(tag, name string, t reflect.Type) error {
	l, ok := lookupLimit(name)
	if !ok {
		return fmt.Errorf("openapi tag %q: no limit is named %q", tag, name)
	}
	if t == nil {
		return fmt.Errorf("openapi tag %q: limit=%s needs the field's type", tag, name)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	lo, hi := l.Min, l.Max
	switch t.Kind() {
	case reflect.String:
		r.maxLength = &hi
		if lo > 0 { // no length is below 0: the document leaves that out, or keeps the tag's minLength
			r.minLength = &lo
		}
	case reflect.Slice, reflect.Array:
		r.maxItems = &hi
		if lo > 0 {
			r.minItems = &lo
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		fl, fh := float64(lo), float64(hi)
		r.minimum, r.maximum = &fl, &fh
	default:
		return fmt.Errorf("openapi tag %q: limit=%s on a %s field", tag, name, t.Kind())
	}
	return nil
}

// parseRules parses the `openapi` tag of a field of type t (nil in the rules' own tests,
// where no tag names a limit); a malformed tag is a programming error, reported by the
// reflector when it builds the document (so a bad tag fails every test).
func parseRules(tag string, t reflect.Type) (*fieldRules, error) {
	r := &fieldRules{}
	if tag == "" {
		return r, nil
	}
	for opt := range strings.SplitSeq(tag, ",") {
		target, typ := r, t
		if rest, ok := strings.CutPrefix(opt, "items."); ok {
			if r.items == nil {
				r.items = &fieldRules{}
			}
			target, opt = r.items, rest
			for typ != nil && typ.Kind() == reflect.Pointer {
				typ = typ.Elem()
			}
			if typ != nil && (typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array) {
				typ = typ.Elem()
			} else {
				typ = nil
			}
		}
		key, val, hasVal := strings.Cut(opt, "=")
		num := func() (int, error) {
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("openapi tag %q: %s needs a whole number", tag, key)
			}
			return n, nil
		}
		switch key {
		case "required":
			target.required = true
		case "nullable":
			target.nullable = true
		case "enum":
			if !hasVal || val == "" {
				return nil, fmt.Errorf("openapi tag %q: enum needs values", tag)
			}
			target.enum = strings.Split(val, "|")
		case "format":
			target.format = val
		case "limit":
			if err := target.setLimit(tag, val, typ); err != nil {
				return nil, err
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			n, err := num()
			if err != nil {
				return nil, err
			}
			switch key {
			case "minLength":
				target.minLength = &n
			case "maxLength":
				target.maxLength = &n
			case "minItems":
				target.minItems = &n
			default:
				target.maxItems = &n
			}
		case "minimum", "maximum":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, fmt.Errorf("openapi tag %q: %s needs a number", tag, key)
			}
			if key == "minimum" {
				target.minimum = &f
			} else {
				target.maximum = &f
			}
		default:
			return nil, fmt.Errorf("openapi tag %q: unknown option %q", tag, opt)
		}
	}
	return r, nil
}

// apply writes the rules into a field's schema s (a copy is returned).
func (r *fieldRules) apply(s obj) obj {
	if r == nil {
		return s
	}
	out := make(obj, len(s)+2)
	for k, v := range s {
		out[k] = v
	}
	if len(r.enum) > 0 {
		out["enum"] = r.enum
	}
	if r.format != "" {
		out["format"] = r.format
	}
	set := func(k string, p *int) {
		if p != nil {
			out[k] = *p
		}
	}
	set("minLength", r.minLength)
	set("maxLength", r.maxLength)
	set("minItems", r.minItems)
	set("maxItems", r.maxItems)
	if r.minimum != nil {
		out["minimum"] = num(*r.minimum)
	}
	if r.maximum != nil {
		out["maximum"] = num(*r.maximum)
	}
	if r.items != nil {
		if it, ok := out["items"].(obj); ok {
			out["items"] = r.items.apply(it)
		}
	}
	return out
}

// num writes whole numbers as integers, so that the document reads 500, not 500.0.
func num(f float64) any {
	if f == float64(int64(f)) {
		return int64(f)
	}
	return f
}

// withDefaults is r with the default bounds filled in for a value of schema type typ,
// as request bodies get them.
func (r *fieldRules) withDefaults(typ string, itemType string) *fieldRules {
	c := *r
	switch typ {
	case "string":
		if c.maxLength == nil && len(c.enum) == 0 && c.format != "date-time" {
			n := defaultMaxLength
			c.maxLength = &n
		}
	case "array":
		if c.maxItems == nil {
			n := defaultMaxItems
			c.maxItems = &n
		}
		if itemType == "string" {
			var it fieldRules
			if c.items != nil {
				it = *c.items
			}
			c.items = it.withDefaults("string", "")
		}
	}
	return &c
}
