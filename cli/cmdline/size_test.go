package cmdline

import "testing"

func TestParseSize(t *testing.T) {
	f := func(in, unit string, want int64, ok bool) {
		t.Helper()
		got, err := ParseSize(in, unit)
		if (err == nil) != ok || got != want {
			t.Errorf("ParseSize(%q, %q): got %d, %v; want %d, ok %v", in, unit, got, err, want, ok)
		}
	}
	f("2048", "M", 2048, true)
	f("2G", "M", 2048, true)
	f("2gb", "M", 2048, true)
	f("512M", "M", 512, true)
	f("1T", "G", 1024, true)
	f("40", "G", 40, true)
	f("40G", "G", 40, true)
	f("512M", "G", 0, false) // not a whole number of GB
	f("1.5G", "M", 0, false)
	f("-1", "M", 0, false)
	f("lots", "G", 0, false)
	f("", "G", 0, false)
}
