package api

import (
	"reflect"
	"testing"
)

// TestRouteOperation checks that a route hands the document all it says: every field
// of Route but the handler and Hidden is a field of openapi.Operation and is copied, so
// that a field added to one and not the other fails here, not silently in the document.
func TestRouteOperation(t *testing.T) {
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString("limit")
		case reflect.Int, reflect.Int64:
			v.SetInt(2)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Interface:
			v.Set(reflect.ValueOf(loginBody{}))
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			fill(v.Index(0))
		case reflect.Map:
			key, elem := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(key)
			fill(elem)
			v.Set(reflect.MakeMap(v.Type()))
			v.SetMapIndex(key, elem)
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem())
		default:
			t.Fatalf("no test value for a %s", v.Type())
		}
	}
	var rt Route
	rv := reflect.ValueOf(&rt).Elem()
	for i := range rv.NumField() {
		if name := rv.Type().Field(i).Name; name != "Handler" && name != "Hidden" {
			fill(rv.Field(i))
		}
	}
	op := rt.Operation()
	ov := reflect.ValueOf(op)
	for i := range rv.NumField() {
		name := rv.Type().Field(i).Name
		if name == "Handler" || name == "Hidden" {
			continue
		}
		f := ov.FieldByName(name)
		if !f.IsValid() {
			t.Errorf("Route.%s: openapi.Operation has no such field", name)
			continue
		}
		if !reflect.DeepEqual(f.Interface(), rv.Field(i).Interface()) {
			t.Errorf("Route.%s: the operation has %v; want %v", name, f.Interface(), rv.Field(i).Interface())
		}
	}
	for i := range ov.NumField() {
		if name := ov.Type().Field(i).Name; !rv.FieldByName(name).IsValid() {
			t.Errorf("openapi.Operation.%s: Route has no such field", name)
		}
	}
	// A query parameter without a type of the route's own gets the shared one by name.
	rt = Route{Query: map[string]string{"limit": "", "other": ""}}
	op = rt.Operation()
	if got := op.QueryTypes["limit"]; got.Type != "integer" || got.Maximum == nil || *got.Maximum != 500 {
		t.Errorf("limit: got %+v; want the shared integer 1..500", got)
	}
	if got := op.QueryTypes["other"]; !reflect.DeepEqual(got, QueryType{}) {
		t.Errorf("other: got %+v; want a plain string", got)
	}
}
