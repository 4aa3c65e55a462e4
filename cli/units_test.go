package cli

import (
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	f := func(in, unit string, want int64, ok bool) {
		t.Helper()
		got, err := parseSize(in, unit)
		if (err == nil) != ok || got != want {
			t.Errorf("parseSize(%q, %q): got %d, %v; want %d, ok %v", in, unit, got, err, want, ok)
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

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"1h":                   now.Add(-time.Hour),
		"90m":                  now.Add(-90 * time.Minute),
		"2026-01-01T00:00:00Z": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q): got %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "yesterday", "-1h", "2026-01-01"} {
		if _, err := parseSince(in, now); err == nil {
			t.Errorf("parseSince(%q): no error", in)
		}
	}
}
