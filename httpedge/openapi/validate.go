package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/vmplane/vmplane/apierr"
)

// QueryType is the type of a query or path parameter, for the document (its schema)
// and for the edge's check of a request (Check).
type QueryType struct {
	// Type is "string" (when empty), "integer" or "boolean".
	Type string
	// Format is a JSON Schema format such as date-time (checked for date-time).
	Format string
	// Enum lists the allowed values.
	Enum []string
	// Minimum and Maximum bound integers.
	Minimum, Maximum *int64
	// MaxLength bounds strings (defaultMaxLength when zero).
	MaxLength int
}

// schema is the parameter's schema in the document.
func (q QueryType) schema() obj {
	s := obj{"type": "string"}
	if q.Type != "" {
		s["type"] = q.Type
	}
	if q.Format != "" {
		s["format"] = q.Format
	}
	if len(q.Enum) > 0 {
		s["enum"] = q.Enum
	}
	if q.Minimum != nil {
		s["minimum"] = *q.Minimum
	}
	if q.Maximum != nil {
		s["maximum"] = *q.Maximum
	}
	if s["type"] == "string" && len(q.Enum) == 0 {
		s["maxLength"] = q.maxLength()
	}
	return s
}

func (q QueryType) maxLength() int {
	if q.MaxLength > 0 {
		return q.MaxLength
	}
	return defaultMaxLength
}

// Check is the parameter's value v checked against its type; nil when it fits.
func (q QueryType) Check(name, v string) *apierr.FieldError {
	bad := func(format string, args ...any) *apierr.FieldError {
		f := apierr.Field(name, format, args...)
		return &f
	}
	switch q.Type {
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return bad("must be a whole number")
		}
		if (q.Minimum != nil && n < *q.Minimum) || (q.Maximum != nil && n > *q.Maximum) {
			switch {
			case q.Maximum == nil:
				return bad("must be at least %d", *q.Minimum)
			case q.Minimum == nil:
				return bad("must be at most %d", *q.Maximum)
			}
			return bad("must be %d..%d", *q.Minimum, *q.Maximum)
		}
		return nil
	case "boolean":
		if v != "true" && v != "false" {
			return bad("must be true or false")
		}
		return nil
	}
	if len(q.Enum) > 0 {
		if !slices.Contains(q.Enum, v) {
			return bad("must be one of %s", strings.Join(q.Enum, ", "))
		}
		return nil
	}
	if utf8.RuneCountInString(v) > q.maxLength() {
		return bad("must be at most %d characters", q.maxLength())
	}
	if q.Format == "date-time" {
		if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
			return bad("must be an RFC 3339 time")
		}
	}
	return nil
}

// bodyField is one member of a request body type with its rules, as validateValue
// checks it.
type bodyField struct {
	name  string
	typ   reflect.Type
	rules *fieldRules
}

// bodyFields caches each request type's members (reflect.Type → []bodyField).
var bodyFields sync.Map

func fieldsOf(t reflect.Type) []bodyField {
	if v, ok := bodyFields.Load(t); ok {
		return v.([]bodyField)
	}
	var out []bodyField
	for _, f := range jsonFields(t) {
		out = append(out, bodyField{name: f.name, typ: f.typ, rules: f.requestRules()})
	}
	bodyFields.Store(t, out)
	return out
}

// Check checks the body against the rules of type t, the same rules the document
// states: required fields present, null only where nullable, enums, lengths, item
// counts and number bounds. patch relaxes required at the top level and asks for at
// least one field instead. Decode runs it after the strict decode.
func (b *Body) Check(t reflect.Type, patch bool) error {
	v := b.val
	var errs []apierr.FieldError
	if m, ok := v.(object); ok && patch && len(m) == 0 {
		errs = append(errs, apierr.Field("body", "a patch must change at least one field"))
	}
	validateValue(&errs, "", v, t, &fieldRules{}, patch)
	if len(errs) > 0 {
		return apierr.Invalid(errs...)
	}
	return nil
}

// maxFieldErrors bounds the errors one answer lists (a body of 100,000 bad items
// needs no 100,000 lines to be refused).
const maxFieldErrors = 20

func validateValue(errs *[]apierr.FieldError, path string, v any, t reflect.Type, r *fieldRules, patch bool) {
	if len(*errs) >= maxFieldErrors {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := path
	if name == "" {
		name = "body"
	}
	bad := func(format string, args ...any) { *errs = append(*errs, apierr.Field(name, format, args...)) }
	switch v := v.(type) {
	case *string:
		s := *v
		if len(r.enum) > 0 && !slices.Contains(r.enum, s) {
			bad("must be one of %s", strings.Join(r.enum, ", "))
			return
		}
		n := utf8.RuneCountInString(s)
		if r.minLength != nil && n < *r.minLength {
			if *r.minLength == 1 {
				bad("must not be empty")
			} else {
				bad("must be at least %d characters", *r.minLength)
			}
		}
		if r.maxLength != nil && n > *r.maxLength {
			bad("must be at most %d characters", *r.maxLength)
		}
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return
		}
		if r.minimum != nil && f < *r.minimum {
			bad("must be at least %v", num(*r.minimum))
		}
		if r.maximum != nil && f > *r.maximum {
			bad("must be at most %v", num(*r.maximum))
		}
		if len(r.enum) > 0 && !slices.Contains(r.enum, v.String()) {
			bad("must be one of %s", strings.Join(r.enum, ", "))
		}
	case []any:
		if r.minItems != nil && len(v) < *r.minItems {
			bad("must have at least %d items", *r.minItems)
		}
		if r.maxItems != nil && len(v) > *r.maxItems {
			// The items are not looked at: the array is refused whole.
			bad("must have at most %d items", *r.maxItems)
			return
		}
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return
		}
		ir := r.items
		if ir == nil {
			ir = &fieldRules{}
		}
		for i, e := range v {
			p := path + "[" + strconv.Itoa(i) + "]"
			if e == nil {
				*errs = append(*errs, apierr.Field(p, "must not be null"))
				continue
			}
			validateValue(errs, p, e, t.Elem(), ir, false)
		}
	case object:
		if t.Kind() != reflect.Struct || t == timeType {
			return
		}
		prefix := ""
		if path != "" {
			prefix = path + "."
		}
		for _, f := range fieldsOf(t) {
			fv, present := v.get(f.name)
			switch {
			case !present:
				if f.rules.required && !patch {
					*errs = append(*errs, apierr.Field(prefix+f.name, "is required"))
				}
			case fv == nil:
				if !f.rules.nullable {
					*errs = append(*errs, apierr.Field(prefix+f.name, "must not be null"))
				}
			default:
				validateValue(errs, prefix+f.name, fv, f.typ, f.rules, false)
			}
		}
	}
}
