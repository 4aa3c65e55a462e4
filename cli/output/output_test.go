package output

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestYAMLKeepsTypes: YAML output has the API's field names and order, and a string
// that would read back as another type (a number, a boolean, null) stays a string.
func TestYAMLKeepsTypes(t *testing.T) {
	in := struct {
		Name    string  `json:"name"`
		Port    string  `json:"port"`
		Flag    string  `json:"flag"`
		Nothing *string `json:"nothing"`
		Cores   int     `json:"cpu_cores"`
		Enabled bool    `json:"enabled"`
	}{"web-1", "22", "yes", nil, 2, true}
	b, err := toYAML(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "name: web-1\nport: \"22\"\nflag: \"yes\"\nnothing: null\ncpu_cores: 2\nenabled: true\n"
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
	var back map[string]any
	if err := yaml.Unmarshal(b, &back); err != nil || back["port"] != "22" || back["flag"] != "yes" || back["cpu_cores"] != 2 {
		t.Fatalf("read back: %v %v", back, err)
	}
}

func TestBytesIEC(t *testing.T) {
	for in, want := range map[float64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		20 << 30: "20.0 GiB", 3 << 40: "3.0 TiB"} {
		if got := BytesIEC(in); got != want {
			t.Errorf("BytesIEC(%v): got %q; want %q", in, got, want)
		}
	}
}
