// Package wiretest checks that the messages a domain package registers with kit.Wire
// cross members whole. It is apart from kittest because kit's own tests use kittest.
package wiretest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
)

// WireRoundTrip checks that every type registered with kit.Wire survives the trip
// between members whole: each is filled with a distinct non-zero value in every field
// (recursively), encoded and decoded, and must come back deeply equal. A field JSON
// cannot carry (unexported, tagged "-", a func, a channel, an interface holding a
// struct) fails the test instead of vanishing on the first forwarded request.
func WireRoundTrip(t *testing.T) {
	t.Helper()
	entries := kit.WireEntries()
	if len(entries) == 0 {
		t.Fatal("no type is registered with kit.Wire")
	}
	for _, e := range entries {
		zero := e.Zero
		v := reflect.New(reflect.TypeOf(zero)).Elem()
		f := filler{seen: map[reflect.Type]int{}}
		if err := f.fill(v, reflect.TypeOf(zero).String()); err != nil {
			t.Errorf("%T: %v", zero, err)
			continue
		}
		in := v.Interface()
		w, err := kit.Encode(in)
		if err != nil {
			t.Errorf("%T: %v", zero, err)
			continue
		}
		out, err := kit.Decode(w)
		if err != nil {
			t.Errorf("%T: %v", zero, err)
			continue
		}
		if !reflect.DeepEqual(in, out) {
			a, _ := json.Marshal(in)
			t.Errorf("%T does not survive the wire:\n sent %#v\n got  %#v\n json %s", zero, in, out, a)
		}
	}
}

// filler sets every field to a value that differs from the zero value and from its
// siblings, so that a swapped or dropped field shows.
type filler struct {
	n    int
	seen map[reflect.Type]int
}

var timeType = reflect.TypeOf(time.Time{})

func (f *filler) fill(v reflect.Value, path string) error {
	f.n++
	// Recursive types (a tree) are filled one level deep.
	if f.seen[v.Type()] > 1 {
		return nil
	}
	f.seen[v.Type()]++
	defer func() { f.seen[v.Type()]-- }()
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, f.n%60, 0, time.UTC)))
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			sf := v.Type().Field(i)
			p := path + "." + sf.Name
			if !sf.IsExported() {
				return fmt.Errorf("%s is unexported: JSON does not carry it to another member", p)
			}
			if sf.Tag.Get("json") == "-" {
				return fmt.Errorf(`%s is tagged json:"-": it does not reach another member`, p)
			}
			if err := f.fill(v.Field(i), p); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		return f.fill(v.Elem(), path)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Type() == reflect.TypeOf(json.RawMessage{}) {
				v.SetBytes([]byte(fmt.Sprintf(`"b%d"`, f.n)))
			} else {
				v.SetBytes([]byte{byte(f.n), 1, 2})
			}
			return nil
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			if err := f.fill(s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		e := reflect.New(v.Type().Elem()).Elem()
		if err := f.fill(k, path+"[key]"); err != nil {
			return err
		}
		if err := f.fill(e, path+"[value]"); err != nil {
			return err
		}
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.n % 100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.n % 100))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.n) + 0.5)
	case reflect.Interface:
		// An interface field comes back as whatever JSON decodes to (a map for a
		// struct), never as the value sent: only plain JSON values are safe in one.
		v.Set(reflect.ValueOf(fmt.Sprintf("s%d", f.n)))
	default:
		return fmt.Errorf("%s is a %s: JSON does not carry it", path, v.Kind())
	}
	return nil
}

// Check runs the two checks every domain package's TestWire makes: every registered
// type crosses whole (WireRoundTrip), and every type the package is seen sending is
// registered (CheckSent).
func Check(t *testing.T) {
	t.Run("RoundTrip", WireRoundTrip)
	t.Run("Sent", CheckSent)
}
