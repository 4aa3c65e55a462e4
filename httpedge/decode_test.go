package httpedge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"sort"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/openapi"
	"github.com/vmplane/vmplane/httpedge/resources"
)

// bodyTypes are the body types of the route table, in a fixed order.
func bodyTypes(t testing.TB) []reflect.Type {
	t.Helper()
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	for _, rt := range New(Options{}).Routes() {
		if rt.Body != nil && !seen[reflect.TypeOf(rt.Body)] {
			seen[reflect.TypeOf(rt.Body)] = true
			out = append(out, reflect.TypeOf(rt.Body))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// decodeTwice is how the edge decoded a body before it parsed it once: encoding/json
// strictly into the type, then the rules on a second decode. It is the oracle of
// Body.Decode, which must answer alike.
func decodeTwice(body []byte, v any, patch bool) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return openapi.DecodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apierr.New(apierr.ErrInvalidJSON, "the body must hold exactly one JSON value")
	}
	return checkRules(body, reflect.TypeOf(v), patch)
}

// checkRules checks body against the `openapi` rules of type t alone.
func checkRules(body []byte, t reflect.Type, patch bool) error {
	b, err := openapi.ParseBody(body)
	if err != nil {
		return err
	}
	return b.Check(t, patch)
}

// decodeOnce is the edge's decode now.
func decodeOnce(body []byte, v any, patch bool) error {
	b, err := openapi.ParseBody(body)
	if err != nil {
		return err
	}
	return b.Decode(body, v, patch)
}

// sameDecode fails when decoding body into a value of type typ answers differently
// once than twice, or stores a different value.
func sameDecode(t *testing.T, typ reflect.Type, body []byte, patch bool) {
	t.Helper()
	if len(bytes.TrimSpace(body)) == 0 {
		return // refused before either decode
	}
	once, twice := reflect.New(typ), reflect.New(typ)
	errOnce := decodeOnce(body, once.Interface(), patch)
	errTwice := decodeTwice(body, twice.Interface(), patch)
	if !reflect.DeepEqual(apierr.From(errOnce), apierr.From(errTwice)) {
		t.Fatalf("%s %q (patch %v):\n once:  %v %+v\n twice: %v %+v", typ, body, patch, errOnce, fields(errOnce), errTwice, fields(errTwice))
	}
	if errTwice == nil && !reflect.DeepEqual(once.Interface(), twice.Interface()) {
		t.Fatalf("%s %q: decoded once %+v; twice %+v", typ, body, once.Elem().Interface(), twice.Elem().Interface())
	}
}

func fields(err error) []apierr.FieldError {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

// decodeSeeds are bodies that probe encoding/json's corners: names in another case,
// keys given twice, nulls, wrong types at each depth, promoted fields, numbers that
// do not fit, trailing values, nesting and unknown fields.
var decodeSeeds = []string{
	`{}`, `[]`, `"x"`, `1`, `null`, `true`, `{} {}`, `{}}`, `{} x`, `[1] x`, `{"a":1,}`, `{"a"}`,
	`{"name":"web","template_id":"tpl","cpu_cores":2,"memory_mb":2048,"disk_gb":20}`,
	`{"name":"web","template_id":"tpl","cpu_cores":2,"memory_mb":2048,"disk_gb":20,"tenant_id":"t1"}`,
	`{"NAME":"web","Cpu_Cores":2}`, `{"name":"a","name":"b"}`, `{"name":"a","name":5}`, `{"name":5,"name":"a"}`,
	`{"cpu_cores":"2"}`, `{"cpu_cores":2.5}`, `{"cpu_cores":1e3}`, `{"cpu_cores":99999999999999999999}`, `{"cpu_cores":-0}`,
	`{"cpu_cores":129}`, `{"cpu_cores":0}`, `{"memory_mb":127}`, `{"disk_gb":65537}`,
	`{"ssh_keys":"k"}`, `{"ssh_keys":[1]}`, `{"ssh_keys":[null]}`, `{"ssh_keys":[]}`, `{"ssh_keys":null}`, `{"ssh_keys":["a","b"],"ssh_keys":["c"]}`,
	`{"quota":{"machines":1},"quota":{"cpu_cores":2}}`, `{"quota":"x"}`, `{"quota":{"cpu_cores":"x"}}`, `{"quota":{"nope":1}}`, `{"quota":null}`,
	`{"interfaces":[{"id":"net0","vlan":"x"}]}`, `{"interfaces":[{"id":"net0","vlan":5000},{"id":"net1","nope":1}]}`, `{"interfaces":{}}`,
	`{"unknown":1,"cpu_cores":"x"}`, `{"cpu_cores":"x","unknown":1}`, `{"a":1,"b":2}`,
	`{"tenant_id":null}`, `{"tenant_id":"t1","TENANT_ID":"t2"}`, `{"machine_id":null,"port":null}`,
	`{"cron":"0 * * * *","retention":3,"machine_id":"m"}`, `{"retention":0}`, `{"enabled":"yes"}`, `{"enabled":1}`,
	`{"email":"a@b","name":"n","role":"user","password":"12345678"}`, `{"role":"root"}`,
	`{"name":"x","type":"http","target":"http://a","interval_s":0}`, `{"quota":{"machines":-2}}`,
	`{"name":"é\u00e9","comment":"\ud800"}`, `{"name":"a\u0000b"}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
}

func TestDecodeOnceAsTwice(t *testing.T) {
	for _, typ := range bodyTypes(t) {
		for _, body := range decodeSeeds {
			for _, patch := range []bool{false, true} {
				sameDecode(t, typ, []byte(body), patch)
			}
		}
	}
}

// FuzzDecodeOnce checks Body.Decode against the two decodes it replaced, on every body
// type of the route table.
func FuzzDecodeOnce(f *testing.F) {
	types := bodyTypes(f)
	for i := range types {
		for _, body := range decodeSeeds {
			f.Add(uint8(i), []byte(body), false)
		}
	}
	f.Fuzz(func(t *testing.T, i uint8, body []byte, patch bool) {
		sameDecode(t, types[int(i)%len(types)], body, patch)
	})
}

// BenchmarkDecodeBody measures the decode of a machine create, once and (as before)
// twice.
func BenchmarkDecodeBody(b *testing.B) {
	body := []byte(`{"name":"web-1","template_id":"tpl-debian-12","cpu_cores":2,"memory_mb":2048,"disk_gb":20,"ssh_keys":["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG user@host"]}`)
	for _, c := range []struct {
		name   string
		decode func([]byte, any, bool) error
	}{{"once", decodeOnce}, {"twice", decodeTwice}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var v resources.MachineCreate
				if err := c.decode(body, &v, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
