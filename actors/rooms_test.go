package actors

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// rooms says which of the actors' packages each may import (besides kit, the runtime,
// which every domain package may). Arrows point one way, from the composition root
// down to the runtime; a dependency that would point back is injected (a Deps func)
// or goes over the event bus. docs/layout.md tells the same.
var rooms = map[string][]string{
	"actors/kit":                nil,
	"actors/kit/kittest":        nil, // the actors' tests' shared support: leak check, wait
	"actors/kit/wiretest":       nil, // the domain packages' wire checks (kit.Wire round trip, sends)
	"actors/kit/derived":        nil, // the marker and job that make derived data (an index, counters) trusted
	"actors/kit/fresh":          nil, // a cluster member's copy of entities' answers, exact by the watch's clock
	"actors/events":             nil,
	"actors/alerts":             {"events"},
	"actors/auth":               {"auth/signin", "kit/fresh"},
	"actors/auth/signin":        nil, // the sign-ins' single-use records and the second factor's codes, below auth
	"actors/limiter":            nil,
	"actors/audit":              nil, // the audit log: every room writes its entries through kit
	"actors/backups":            nil,
	"actors/machines":           {"events", "alerts", "backups", "machines/listcache", "machines/capacity", "machines/tasks", "machines/counters", "machines/quotahold", "machines/media", "machines/nodestate", "machines/obsdigest", "machines/vmids"},
	"actors/machines/tasks":     nil,                // the task records, below machines, which write them
	"actors/machines/capacity":  {"alerts"},         // the nodes and the capacity arithmetic, below machines
	"actors/machines/counters":  {"kit/derived"},    // the tenants' usage counters, below machines, which move them
	"actors/machines/nodestate": {"kit/derived"},    // the machines by node and by state, below machines, which write them
	"actors/machines/obsdigest": {"kit/derived"},    // the sync's digests of the machine records, below machines, which write them
	"actors/machines/quotahold": {"machines/tasks"}, // the tenants' counted tasks in flight, below machines
	"actors/machines/media":     {},                 // the media operations' parameters, checks and driver calls; no state
	"actors/machines/vmids":     {},                 // a location's machine ids by vmid, as the sync reads them; no state
	"actors/inventory":          {"machines", "machines/tasks", "machines/capacity", "machines/vmids", "backups"},
	"actors/consoles":           {"machines", "auth"},
	"actors/isos":               {"events", "machines", "machines/tasks"},
	"actors/machines/listcache": nil, // machines' list cache, a helper that knows no store
	"actors/plans":              {"machines", "machines/capacity"},
	"actors/addresses":          nil, // the IP pools and allocations, written in their holders' batches
	"actors/usage":              nil, // hourly usage, fed by the composition root from machines and backups
	"actors/traffic":            nil, // the machines' traffic, fed by the composition root from the sync
	"actors/tenants":            {"events", "alerts", "machines", "machines/tasks", "machines/capacity", "inventory", "plans", "addresses", "kit/fresh"},
	"actors/schedules":          {"events", "alerts", "backups", "machines", "machines/tasks", "tenants"},
	"actors/monitoring":         {"events", "alerts", "machines", "machines/tasks", "machines/capacity", "tenants"},
	"actors/webhooks":           {"events", "alerts"},
	"actors/locations":          nil, // the hypervisor clusters beside the configured one, and the dispatcher's drivers
}

// TestRoomsImportOneWay: no package of the actors imports one it may not: the runtime
// none, no domain package the composition root, and the domain packages only those
// below them.
func TestRoomsImportOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/vmplane/vmplane/"
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		if pkg == "actors" {
			continue // the composition root builds them all
		}
		allowed, ok := rooms[pkg]
		if !ok {
			t.Errorf("package %s has no room in the rooms table: say what it may import", pkg)
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			room, ours := strings.CutPrefix(imp, mod+"actors")
			if !ours {
				continue
			}
			room = strings.TrimPrefix(room, "/")
			if room == "" {
				t.Errorf("%s imports the composition root (actors): inject what it needs instead", pkg)
			} else if room != "kit" && !slices.Contains(allowed, room) || room == "kit" && pkg == "actors/kit" {
				t.Errorf("%s imports actors/%s; it may import only kit and %v", pkg, room, allowed)
			}
		}
	}
	if seen != len(rooms) {
		t.Errorf("found %d of the %d rooms; a package was renamed or removed", seen, len(rooms))
	}
}

// TestProtoactorOnlyInKit: protoactor is the runtime, and it lives in actors/kit
// alone. The domain packages handle messages through kit.Ctx, answer later through
// kit.Reply and address the actors that are not entities by kit.Ref; nothing else in
// the module imports protoactor, in its code or its tests, so replacing or upgrading
// the runtime touches one package.
func TestProtoactorOnlyInKit(t *testing.T) {
	const protoactor = "github.com/asynkron/protoactor-go"
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	kit := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], "github.com/vmplane/vmplane/")
		for _, imp := range fields[1:] {
			if imp != protoactor && !strings.HasPrefix(imp, protoactor+"/") {
				continue
			}
			if pkg == "actors/kit" {
				kit = true
			} else {
				t.Errorf("%s imports %s: only actors/kit may (use kit.Ctx, kit.Reply, kit.Ref)", pkg, imp)
			}
		}
	}
	if !kit {
		t.Error("actors/kit does not import protoactor: did go list see the module?")
	}
}
