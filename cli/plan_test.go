package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// TestPlanVerbs: plans written, read and counted from the command line, a machine made
// from one by name and moved to another, and the refusals each says why.
func TestPlanVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var small, medium client.Plan
	w.okJSON(&small, "plan", "create", "S-1", "--cores", "1", "--memory", "1G", "--disk", "20", "--snapshots", "2",
		"--template", "tpl-debian-12", "--ipv6-prefix", "64")
	if small.CPUCores != 1 || small.MemoryMB != 1024 || small.DiskGB != 20 || small.Snapshots == nil || *small.Snapshots != 2 ||
		small.IPv6Prefix == nil || *small.IPv6Prefix != 64 || small.IPv4 != 1 || len(small.AllowedTemplates) != 1 {
		t.Fatalf("plan create: got %+v", small)
	}
	w.fails(1, "conflict", "plan", "create", "s-1", "--cores", "1", "--memory", "1G", "--disk", "20")
	w.fails(2, "--cores, --memory and --disk are needed", "plan", "create", "X", "--cores", "1")
	w.okJSON(&medium, "plan", "create", "M-2", "--cores", "2", "--memory", "2G", "--disk", "40")
	if out := w.ok("plan", "list"); !strings.Contains(out, "S-1") || !strings.Contains(out, "M-2") || !strings.Contains(out, "tpl-debian-12") {
		t.Fatalf("plan list: got\n%s", out)
	}
	w.okJSON(&small, "plan", "update", "s-1", "--snapshots", "-1", "--ipv4", "2")
	if small.Snapshots != nil || small.IPv4 != 2 || small.CPUCores != 1 {
		t.Fatalf("plan update: got %+v; want no snapshot bound, 2 addresses", small)
	}
	w.fails(2, "nothing to change", "plan", "update", "S-1")
	if out := w.ok("plan", "show", small.ID); !strings.Contains(out, "IPv6 prefix:") || !strings.Contains(out, "/64") {
		t.Fatalf("plan show: got\n%s", out)
	}
	var c client.PlanCapacity
	w.okJSON(&c, "plan", "capacity", "S-1")
	if c.PlanID != small.ID || c.Total < 1 || len(c.Nodes) == 0 {
		t.Fatalf("plan capacity: got %+v", c)
	}
	if out := w.ok("plan", "capacity", "S-1"); !strings.Contains(out, "total") || !strings.Contains(out, "FREE_MEMORY_MB") {
		t.Fatalf("plan capacity table: got\n%s", out)
	}
	w.fails(2, "no plan has that id or name", "plan", "show", "nope")

	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Planned")
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "p-1", "--template", "Debian 12 (bookworm)", "--plan", "S-1", "--wait")
	if m.PlanID == nil || *m.PlanID != small.ID || m.CPUCores != 1 || m.MemoryMB != 1024 || m.DiskGB != 20 {
		t.Fatalf("machine create --plan S-1: got %+v", m)
	}
	if out := w.ok("machine", "show", m.ID); !strings.Contains(out, "Plan:") {
		t.Fatalf("machine show: got\n%s; want its plan", out)
	}
	w.fails(2, "do not go with plan", "machine", "create", "--tenant", ten.ID, "--name", "p-2", "--template", "tpl-debian-12", "--plan", "S-1", "--cores", "2")
	w.fails(2, "none of small", "machine", "create", "--tenant", ten.ID, "--name", "p-2", "--template", "tpl-debian-12", "--plan", "XL-9")
	var task client.Task
	w.okJSON(&task, "machine", "plan", m.ID, "M-2", "--wait")
	if task.Status != client.TaskSucceeded {
		t.Fatalf("machine plan: got %+v", task)
	}
	w.okJSON(&m, "machine", "show", m.ID)
	if m.PlanID == nil || *m.PlanID != medium.ID || m.MemoryMB != 2048 || m.DiskGB != 40 {
		t.Fatalf("after machine plan M-2: got %+v", m)
	}
	w.fails(1, "disks never shrink", "machine", "plan", m.ID, "S-1")
	w.fails(1, "conflict", "plan", "delete", "M-2")
	w.ok("plan", "delete", "S-1")
}
