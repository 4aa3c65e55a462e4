package kit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/vmplane/vmplane/apierr"
)

// In a cluster, a request for an entity active on another member travels to that
// member and its answer travels back. protoactor's remoting only carries protobuf
// messages, and a plain struct that works locally is silently dropped across nodes
// (docs/cluster-design.md), so kit carries messages itself: as JSON, named by
// their Go type. Every message a Kind may be asked or told from outside its entity,
// and every answer it gives, is registered with Wire by the package that defines it;
// kittest.WireRoundTrip checks that each survives the trip whole (a field JSON cannot
// carry would be lost without a sound).

// Wired is a message or answer on its way between members: its registered name and its
// JSON body.
type Wired struct {
	Type string          `json:"type"`
	Body json.RawMessage `json:"body"`
}

// wireType is one registered type: the struct type, and whether values travel as a
// pointer to it.
type wireType struct {
	t   reflect.Type
	ptr bool
}

var wireTypes sync.Map // name → wireType

// wireErrorName names an *apierr.Error, the answer every request may get.
const wireErrorName = "error"

// Wire registers the types of vs (pointers or values) as able to cross members.
func Wire(vs ...any) {
	for _, v := range vs {
		t := reflect.TypeOf(v)
		wt := wireType{t: t}
		if t.Kind() == reflect.Pointer {
			wt = wireType{t: t.Elem(), ptr: true}
		}
		wireTypes.Store(wireName(t), wt)
	}
}

// wireName is a type's registered name: its package path and name, with a * for a
// pointer.
func wireName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return "*" + t.Elem().PkgPath() + "." + t.Elem().Name()
	}
	return t.PkgPath() + "." + t.Name()
}

// Encode turns a registered message or answer into its wire form. An error answer
// (*apierr.Error) is always encodable.
func Encode(v any) (Wired, error) {
	if e, ok := v.(*apierr.Error); ok {
		b, err := json.Marshal(e)
		return Wired{Type: wireErrorName, Body: b}, err
	}
	name := wireName(reflect.TypeOf(v))
	if _, ok := wireTypes.Load(name); !ok {
		return Wired{}, fmt.Errorf("kit: %s is not registered with kit.Wire and cannot reach another member", name)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Wired{}, fmt.Errorf("kit: encode %s: %w", name, err)
	}
	return Wired{Type: name, Body: b}, nil
}

// Decode turns a wire form back into the value Encode was given.
func Decode(w Wired) (any, error) {
	if w.Type == wireErrorName {
		e := new(apierr.Error)
		if err := json.Unmarshal(w.Body, e); err != nil {
			return nil, fmt.Errorf("kit: decode error answer: %w", err)
		}
		return e, nil
	}
	v, ok := wireTypes.Load(w.Type)
	if !ok {
		return nil, fmt.Errorf("kit: %s is not registered with kit.Wire on this member", w.Type)
	}
	wt := v.(wireType)
	p := reflect.New(wt.t)
	if err := json.Unmarshal(w.Body, p.Interface()); err != nil {
		return nil, fmt.Errorf("kit: decode %s: %w", w.Type, err)
	}
	if wt.ptr {
		return p.Interface(), nil
	}
	return p.Elem().Interface(), nil
}

// WireTypes lists one zero value of every registered type, for tests that check each
// one survives the trip.
func WireTypes() []any {
	var out []any
	wireTypes.Range(func(_, v any) bool {
		wt := v.(wireType)
		p := reflect.New(wt.t)
		if wt.ptr {
			out = append(out, p.Interface())
		} else {
			out = append(out, p.Elem().Interface())
		}
		return true
	})
	return out
}
