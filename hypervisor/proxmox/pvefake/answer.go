package pvefake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// schemaValue is a return schema (or part of one) in apidata's style.
type schemaValue struct {
	Type       string                  `json:"type"`
	Optional   int                     `json:"optional"`
	Enum       []string                `json:"enum"`
	Properties map[string]*schemaValue `json:"properties"`
	Items      *schemaValue            `json:"items"`
	// AdditionalProperties is 0 when an object may hold only its declared properties;
	// absent (nil) or 1 allows others, as PVE::JSONSchema does.
	AdditionalProperties *int `json:"additionalProperties"`
	// PerlString marks a number real Proxmox may answer as a JSON string.
	PerlString int `json:"x-perl-string"`
}

var (
	integerLit = regexp.MustCompile(`^-?[0-9]+$`)
	numberLit  = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
)

// ReturnSchema reports whether the embedded schema describes what a call ("GET
// /cluster/resources", as Request.Schema names it) answers.
func ReturnSchema(call string) bool {
	method, path, _ := strings.Cut(call, " ")
	m, ok := apiSchema[path][method]
	return ok && m.Returns != nil
}

// checkAnswer verifies the "data" of an answer, as encoded on the wire, against the
// call's return schema. It returns the violations, sorted; none for a call without
// one (the driver's test insists that every call it makes has one).
func (c *call) checkAnswer(data any) []string {
	sm, _, ok := schemaFor(c.method, c.route, c.p)
	if !ok || sm.Returns == nil {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return []string{"data: " + err.Error()}
	}
	return validateAnswer(sm.Returns, raw)
}

// validateAnswer checks raw JSON against a return schema.
func validateAnswer(sv *schemaValue, raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{"data: " + err.Error()}
	}
	var errs []string
	sv.validate("data", v, &errs)
	sort.Strings(errs)
	return errs
}

// validate appends to errs what is wrong with v at path.
func (sv *schemaValue) validate(path string, v any, errs *[]string) {
	bad := func(format string, args ...any) {
		*errs = append(*errs, path+": "+fmt.Sprintf(format, args...))
	}
	if v == nil {
		if sv.Type != "null" && sv.Optional != 1 {
			bad("is null, want %s", sv.Type)
		}
		return
	}
	lit := ""
	switch x := v.(type) {
	case json.Number:
		lit = x.String()
	case string:
		if sv.PerlString == 1 {
			lit = x
		}
	}
	switch sv.Type {
	case "null":
		bad("got %s, want null", jsonKind(v))
		return
	case "string":
		s, ok := v.(string)
		if !ok {
			bad("got %s, want a string", jsonKind(v))
			return
		}
		lit = s
	case "integer":
		if !integerLit.MatchString(lit) {
			bad("got %s, want an integer", jsonKind(v))
			return
		}
	case "number":
		if !numberLit.MatchString(lit) {
			bad("got %s, want a number", jsonKind(v))
			return
		}
	case "boolean":
		if _, isNum := v.(json.Number); !isNum || (lit != "0" && lit != "1") {
			bad("got %s, want a boolean (0 or 1)", jsonKind(v))
			return
		}
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("got %s, want an object", jsonKind(v))
			return
		}
		names := make([]string, 0, len(sv.Properties))
		for name := range sv.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if strings.HasSuffix(name, "[n]") {
				continue
			}
			p := sv.Properties[name]
			pv, given := m[name]
			if !given {
				if p.Optional != 1 {
					bad("property %q is missing and it is not optional", name)
				}
				continue
			}
			p.validate(path+"."+name, pv, errs)
		}
		for name, pv := range m {
			if _, declared := sv.Properties[name]; declared {
				continue
			}
			if sm := indexedParam.FindStringSubmatch(name); sm != nil {
				if p, ok := sv.Properties[sm[1]+"[n]"]; ok {
					p.validate(path+"."+name, pv, errs)
					continue
				}
			}
			if sv.AdditionalProperties != nil && *sv.AdditionalProperties == 0 {
				bad("property %q is not defined in the schema", name)
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			bad("got %s, want an array", jsonKind(v))
			return
		}
		if sv.Items != nil {
			for i, item := range a {
				sv.Items.validate(fmt.Sprintf("%s[%d]", path, i), item, errs)
			}
		}
	default:
		bad("the schema declares no known type (%q)", sv.Type)
		return
	}
	if len(sv.Enum) > 0 {
		for _, e := range sv.Enum {
			if e == lit {
				return
			}
		}
		bad("value %q is not in the enumeration '%s'", lit, strings.Join(sv.Enum, ", "))
	}
}

// jsonKind names a decoded JSON value's kind for an error, with the value.
func jsonKind(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case bool:
		return fmt.Sprintf("the JSON boolean %t", x)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}
