package app

import (
	"maps"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/machines"
)

// TestMachineBoundsEndToEnd sends a machine's bounds, and one past each, through the
// whole server: a create and a resize at the API's bounds run to the end on the
// hypervisor (no valid request is refused by a driver for its shape), and one past a
// bound is a 400 naming the field.
func TestMachineBoundsEndToEnd(t *testing.T) {
	t.Parallel()
	// Machines at the bounds are far larger than a simulated node: the overcommit
	// ratios make room for them, so that placement (a test of its own) refuses none.
	s, admin := synced(t, func(c *Config) { c.OvercommitCPU, c.OvercommitMemory, c.OvercommitDisk = 1000, 1000, 1000 })
	a := s.tenant(admin, "Bounds", map[string]int{"machines": -1, "cpu_cores": -1, "memory_mb": -1, "disk_gb": -1})
	spec := func(field string, v int) map[string]any {
		out := maps.Clone(smallMachine)
		out[field] = v
		return out
	}
	refused := func(r *response, field string) {
		t.Helper()
		expect(t, r, 400, "invalid_request")
		var p problemBody
		r.decode(t, &p)
		if len(p.Errors) != 1 || p.Errors[0].Field != field {
			t.Fatalf("got errors %+v; want one naming %s", p.Errors, field)
		}
	}
	for _, c := range []struct {
		field    string
		min, max int
	}{
		{"cpu_cores", machines.MinCores, machines.MaxCores},
		{"memory_mb", machines.MinMemoryMB, machines.MaxMemoryMB},
		{"disk_gb", 0, machines.MaxDiskGB}, // the least disk is the template's
	} {
		for _, v := range []int{c.min, c.max} {
			if v > 0 {
				s.provision(a.Token, spec(c.field, v))
			}
		}
		for _, v := range []int{c.min - 1, c.max + 1} {
			if v >= 0 {
				refused(s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: spec(c.field, v)}), c.field)
			}
		}
	}

	m := s.provision(a.Token, smallMachine)
	resize := "/api/client/machines/" + m.ID + "/resources"
	s.run(req{method: "PATCH", path: resize, token: a.Token, body: map[string]any{
		"cpu_cores": machines.MaxCores, "memory_mb": machines.MaxMemoryMB, "disk_gb": machines.MaxDiskGB}})
	s.run(req{method: "PATCH", path: resize, token: a.Token, body: map[string]any{
		"cpu_cores": machines.MinCores, "memory_mb": machines.MinMemoryMB}})
	refused(s.do(req{method: "PATCH", path: resize, token: a.Token, body: map[string]any{"cpu_cores": machines.MaxCores + 1}}), "cpu_cores")
	refused(s.do(req{method: "PATCH", path: resize, token: a.Token, body: map[string]any{"memory_mb": machines.MinMemoryMB - 1}}), "memory_mb")

	// An operator's config and disk, at the bounds too.
	vm := "/api/virt/vms/" + m.ID
	s.run(req{method: "PATCH", path: vm + "/config", token: admin, body: map[string]any{
		"cpu_cores": machines.MaxCores, "memory_mb": machines.MaxMemoryMB, "name": strings.Repeat("a", machines.MaxNameLen)}})
	s.run(req{method: "POST", path: vm + "/disks", token: admin, body: map[string]any{"size_gb": machines.MaxDiskGB}})
	refused(s.do(req{method: "POST", path: vm + "/disks", token: admin, body: map[string]any{"size_gb": machines.MaxDiskGB + 1}}), "size_gb")
}
