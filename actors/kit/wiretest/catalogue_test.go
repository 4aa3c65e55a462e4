package wiretest

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

type shapeInner struct {
	Port int `json:"port"`
}

type shapeEmbedded struct {
	Zone string `json:"zone"`
}

type shapeMsg struct {
	shapeEmbedded
	ID      string            `json:"id"`
	Count   int64             `json:"count,string"`
	Ratio   float64           `json:"ratio,omitempty"`
	At      *time.Time        `json:"at,omitempty"`
	Raw     json.RawMessage   `json:"raw"`
	Rules   []shapeInner      `json:"rules"`
	Labels  map[string]string `json:"labels"`
	Blob    []byte            `json:"blob"`
	Next    *shapeMsg         `json:"next"`
	Skipped string            `json:"-"`
	Plain   bool
	hidden  int
}

func TestShapeFollowsTheJSONTags(t *testing.T) {
	_ = shapeMsg{}.hidden
	got := shapeOf(reflect.TypeOf(&shapeMsg{}))
	want := map[string]string{
		"": "object", "zone": "string", "id": "string", "count": "string", "ratio": "number",
		"at": "string", "raw": "any", "rules": "array", "rules[]": "object", "rules[].port": "integer",
		"labels": "object", "labels.*": "string", "blob": "string", "next": "object", "Plain": "bool",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("shape\n got  %v\n want %v", got, want)
	}
}

func TestCompareCatalogues(t *testing.T) {
	old := parseCatalogue("# header\nm.a@1 object\n\tid string\n\tn integer\nm.b@1 object\n\tx string\nm.c@1 object\n")
	cur := parseCatalogue("m.a@1 object\n\tid string\n\tn string\n\tnew bool\nm.b@1 object\n\ty string\nm.d@1 object\n")
	breaks, additions := compareCatalogues(old, cur)
	wantBreaks := []string{"m.a@1 n changed from integer to string", "m.b@1 x (string) was removed or renamed", "m.c@1 is no longer registered"}
	wantAdds := []string{"m.a@1 new (bool)", "m.b@1 y (string)", "m.d@1"}
	if !slices.Equal(breaks, wantBreaks) || !slices.Equal(additions, wantAdds) {
		t.Fatalf("breaks %q\n additions %q\nwant %q\n and %q", breaks, additions, wantBreaks, wantAdds)
	}
	if b, a := compareCatalogues(old, old); len(b)+len(a) != 0 {
		t.Fatalf("a catalogue against itself: %q %q", b, a)
	}
}
