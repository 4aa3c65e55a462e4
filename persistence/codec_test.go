package persistence

import (
	"errors"
	"testing"

	"github.com/vmplane/vmplane/apierr"
)

type testRecord struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	CPUs int    `json:"cpus"`
}

func TestCodecRoundTrip(t *testing.T) {
	t.Parallel()
	in := testRecord{ID: "01J", Name: "web-1", CPUs: 4}
	data, err := Encode(3, in)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if data[0] != 0 || data[1] != 3 || data[2] != '{' {
		t.Fatalf("Encode = %q; want a big-endian version 3 then JSON", data)
	}
	var out testRecord
	v, err := Decode(data, &out)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if v != 3 || out != in {
		t.Fatalf("Decode = version %d, %+v; want version 3, %+v", v, out, in)
	}

	data, _ = Encode(0x0102, in)
	if v, _ := Decode(data, &out); v != 0x0102 {
		t.Fatalf("Decode version = %#x; want 0x102", v)
	}
}

func TestCodecErrors(t *testing.T) {
	t.Parallel()
	internal := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, apierr.ErrInternal) {
			t.Errorf("%s: got %v; want an apierr.ErrInternal error", what, err)
		}
	}
	_, err := Encode(0, testRecord{})
	internal("Encode version 0", err)
	_, err = Encode(1, func() {})
	internal("Encode of a func", err)

	var r testRecord
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"nil", nil},
		{"one byte", []byte{1}},
		{"version 0", []byte("\x00\x00{}")},
		{"raw JSON", []byte(`{"id":"x"}`)},
		{"truncated", []byte("\x00\x01{\"id\":")},
		{"no body", []byte{0, 1}},
		{"wrong type", []byte("\x00\x01{\"cpus\":\"four\"}")},
	} {
		_, err := Decode(tt.data, &r)
		internal("Decode "+tt.name, err)
	}
}

// FuzzDecode: arbitrary stored bytes never panic Decode, and every failure is an
// apierr.ErrInternal error.
func FuzzDecode(f *testing.F) {
	good, _ := Encode(1, testRecord{ID: "x", CPUs: 2})
	for _, seed := range [][]byte{good, nil, {0, 1}, []byte("\x00\x00{}"), []byte(`{"id":1}`)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r testRecord
		if _, err := Decode(data, &r); err != nil && !errors.Is(err, apierr.ErrInternal) {
			t.Fatalf("Decode(%q): got %v; want nil or an apierr.ErrInternal error", data, err)
		}
	})
}
