package counters

import (
	"maps"
	"testing"
)

// Delta moves the counters of the tenants a write leaves and joins by what the
// machine held and holds, and none for a write that changes neither.
func TestDelta(t *testing.T) {
	small := Usage{Machines: 1, CPUCores: 1, MemoryMB: 512, DiskGB: 10}
	big := Usage{Machines: 1, CPUCores: 4, MemoryMB: 2048, DiskGB: 30}
	for _, c := range []struct {
		name    string
		was, is string
		a, b    Usage
		want    map[string]Usage
	}{
		{"create", "", "T", Usage{}, small, map[string]Usage{"T": small}},
		{"delete", "T", "", small, Usage{}, map[string]Usage{"T": small.Plus(small, -2)}},
		{"resize", "T", "T", small, big, map[string]Usage{"T": {CPUCores: 3, MemoryMB: 1536, DiskGB: 20}}},
		{"move", "A", "B", small, small, map[string]Usage{"A": small.Plus(small, -2), "B": small}},
		{"reboot", "T", "T", small, small, nil},
		{"no tenant", "", "", small, big, map[string]Usage{}},
	} {
		if got := Delta(c.was, c.a, c.is, c.b); !maps.Equal(got, c.want) {
			t.Errorf("%s: Delta = %v; want %v", c.name, got, c.want)
		}
	}
}
