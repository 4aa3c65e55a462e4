package client_test

import (
	"encoding/json"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// An Optional field with omitzero is left out when zero, sent as null when Null, and
// as its value when Set; decoding tells the three apart again.
func TestOptionalJSON(t *testing.T) {
	t.Parallel()
	type body struct {
		A client.Optional[string] `json:"a,omitzero"`
		B client.Optional[int64]  `json:"b,omitzero"`
		C client.Optional[bool]   `json:"c,omitzero"`
	}
	for _, tc := range []struct {
		in   body
		want string
	}{
		{body{}, `{}`},
		{body{A: client.Null[string]()}, `{"a":null}`},
		{body{A: client.Set(""), B: client.Set[int64](0), C: client.Set(false)}, `{"a":"","b":0,"c":false}`},
		{body{B: client.Set[int64](7), C: client.Null[bool]()}, `{"b":7,"c":null}`},
	} {
		got, err := json.Marshal(tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("marshal %+v: got %s %v; want %s", tc.in, got, err, tc.want)
			continue
		}
		var back body
		if err := json.Unmarshal(got, &back); err != nil || back != tc.in {
			t.Errorf("unmarshal %s: got %+v %v; want %+v", got, back, err, tc.in)
		}
	}
	o := client.Set("x")
	if v, ok := o.Get(); !ok || v != "x" || o.IsNull() || o.IsZero() {
		t.Errorf("Set(x): Get %q %v, IsNull %v, IsZero %v", v, ok, o.IsNull(), o.IsZero())
	}
	n := client.Null[string]()
	if _, ok := n.Get(); ok || !n.IsNull() || n.IsZero() {
		t.Errorf("Null: Get ok %v, IsNull %v, IsZero %v", ok, n.IsNull(), n.IsZero())
	}
	var z client.Optional[string]
	if _, ok := z.Get(); ok || z.IsNull() || !z.IsZero() {
		t.Errorf("zero: Get ok %v, IsNull %v, IsZero %v", ok, z.IsNull(), z.IsZero())
	}
	var bad body
	if err := json.Unmarshal([]byte(`{"b":"seven"}`), &bad); err == nil {
		t.Error("decoded a string into Optional[int64]")
	}
}
