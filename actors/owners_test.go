package actors_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/audit"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/consoles"
	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/counters"
	"github.com/vmplane/vmplane/actors/machines/nodestate"
	"github.com/vmplane/vmplane/actors/machines/obsdigest"
	"github.com/vmplane/vmplane/actors/machines/quotahold"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/actors/traffic"
	"github.com/vmplane/vmplane/actors/usage"
	"github.com/vmplane/vmplane/actors/webhooks"
	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/cluster"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
	"github.com/vmplane/vmplane/persistence"
)

// keyTables are the packages that write keys, each with its table of them: the
// packages' directories from the module root. A package that starts writing keys adds
// its table here.
var keyTables = map[string][]persistence.KeyKind{
	"persistence":               persistence.Keys,
	"actors/auth":               auth.Keys,
	"actors/auth/signin":        signin.Keys,
	"actors/alerts":             alerts.Keys,
	"actors/machines":           machines.Keys,
	"actors/machines/capacity":  capacity.Keys,
	"actors/machines/tasks":     tasks.Keys,
	"actors/machines/counters":  counters.Keys,
	"actors/machines/nodestate": nodestate.Keys,
	"actors/machines/obsdigest": obsdigest.Keys,
	"actors/machines/quotahold": quotahold.Keys,
	"actors/backups":            backups.Keys,
	"actors/consoles":           consoles.Keys,
	"actors/isos":               isos.Keys,
	"actors/inventory":          inventory.Keys,
	"actors/tenants":            tenants.Keys,
	"actors/plans":              plans.Keys,
	"actors/addresses":          addresses.Keys,
	"actors/locations":          locations.Keys,
	"actors/usage":              usage.Keys,
	"actors/traffic":            traffic.Keys,
	"actors/schedules":          schedules.Keys,
	"actors/monitoring":         monitoring.Keys,
	"actors/webhooks":           webhooks.Keys,
	"app":                       app.Keys,
	"cluster":                   cluster.Keys,
	"hypervisor/sim/world":      world.Keys,
	"actors/audit":              audit.Keys,
}

// prefixesOf lists the prefixes of a table.
func prefixesOf(table []persistence.KeyKind) []string {
	out := make([]string, len(table))
	for i, k := range table {
		out[i] = k.Prefix
	}
	return out
}

// allPrefixes lists the prefixes of every table.
func allPrefixes() []string {
	var out []string
	for _, t := range keyTables {
		out = append(out, prefixesOf(t)...)
	}
	return out
}

// within reports whether the keys of kind a are among those of kind b: a is b, or b's
// parts followed by more ("meta/admin" within "meta"; "vm-tenant" is not within "vm").
func within(a, b string) bool { return strings.HasPrefix(a+"/", b+"/") }

// owner returns the package whose table holds the keys a use names: the kind the use
// is within, or, for a scan wider than a kind (Prefix("meta")), the kind within it.
func owner(prefix string) (dir string, kind string, ok bool) {
	for d, t := range keyTables {
		for _, k := range t {
			if within(prefix, k.Prefix) || within(k.Prefix, prefix) {
				return d, k.Prefix, true
			}
		}
	}
	return "", "", false
}

// keyUse is one place in the source that names a key by its leading parts: a call of
// persistence.Key or persistence.Prefix whose leading arguments are string literals
// (or persistence.KindMeta), joined by '/', or a string literal spelling a key under
// one of the prefixes asked for ("vm/...").
type keyUse struct {
	dir    string // the package's directory, from the module root
	pos    string
	prefix string
	test   bool // in a _test.go file
}

// keyUses reads every Go file of the module under root that imports persistence (tests
// too: a test that writes another package's records is as wrong as code that does) and
// returns where each names a key by its first part, among prefixes for literal keys.
func keyUses(t *testing.T, root string, prefixes []string) []keyUse {
	t.Helper()
	var uses []keyUse
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		uses = append(uses, fileKeyUses(t, fset, path, filepath.ToSlash(filepath.Dir(rel)), nil, prefixes)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return uses
}

// fileKeyUses is keyUses of one file (src, when not nil, is its text).
func fileKeyUses(t *testing.T, fset *token.FileSet, path, dir string, src any, prefixes []string) []keyUse {
	t.Helper()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(f.Imports, func(i *ast.ImportSpec) bool { return i.Path.Value == `"github.com/vmplane/vmplane/persistence"` }) {
		return nil // no store, no keys: a Proxmox resource id ("node/pve1") is not one
	}
	var uses []keyUse
	add := func(n ast.Node, prefix string) {
		uses = append(uses, keyUse{dir: dir, pos: fset.Position(n.Pos()).String(), prefix: prefix, test: strings.HasSuffix(path, "_test.go")})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || len(n.Args) == 0 || (sel.Sel.Name != "Key" && sel.Sel.Name != "Prefix") {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "persistence" {
				return true
			}
			var parts []string
			for _, a := range n.Args {
				s, ok := stringLit(a)
				if !ok {
					if x, isSel := a.(*ast.SelectorExpr); isSel && x.Sel.Name == "KindMeta" {
						s, ok = persistence.KindMeta, true
					}
				}
				if !ok {
					break
				}
				parts = append(parts, s)
			}
			if len(parts) > 0 {
				add(n, strings.Join(parts, "/"))
			}
			// The other arguments are inspected for literal keys; the leading parts
			// are counted once.
			for _, a := range n.Args[len(parts):] {
				ast.Inspect(a, func(m ast.Node) bool { return inspectLiteral(m, prefixes, add) })
			}
			return false
		default:
			return inspectLiteral(n, prefixes, add)
		}
	})
	return uses
}

// inspectLiteral adds a string literal that spells a key under one of prefixes.
func inspectLiteral(n ast.Node, prefixes []string, add func(ast.Node, string)) bool {
	s, ok := stringLit(n)
	if !ok {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(s, p+"/") {
			add(n, p)
		}
	}
	return true
}

func stringLit(n ast.Node) (string, bool) {
	lit, ok := n.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// storeTests are the packages whose tests write keys of every shape to test a store,
// not anybody's records.
var storeTests = []string{"persistence", "persistence/storetest"}

// TestOnlyMachinesNamesMachineKeys: no package but actors/machines builds a key of
// machines' records or their indexes, in its code or its tests (the tenants reserve
// quota, and the insights and schedules read machines, by asking machines).
func TestOnlyMachinesNamesMachineKeys(t *testing.T) {
	for _, u := range keyUses(t, "..", prefixesOf(machines.Keys)) {
		if d, _, ok := owner(u.prefix); ok && d == "actors/machines" && u.dir != "actors/machines" && !slices.Contains(storeTests, u.dir) {
			t.Errorf("%s: names machines' key %q; ask actors/machines instead", u.pos, u.prefix)
		}
	}
}

// foreignReads are the reads of another package's keys allowed in code (tests may read
// any key), by the reading package and the kind read ("actors/tenants user-tenant"),
// each with its reason. There are none: a package asks the owner. An entry no read
// needs any more fails the test.
var foreignReads = map[string]string{}

// TestPackagesBuildOnlyTheirKeys: a package's code builds only keys of its own table
// (foreignReads aside), and every key the code or the tests build is in some
// package's table, so that the tables list every kind in the store.
func TestPackagesBuildOnlyTheirKeys(t *testing.T) {
	used := map[string]bool{}
	for _, u := range keyUses(t, "..", allPrefixes()) {
		if slices.Contains(storeTests, u.dir) {
			continue
		}
		dir, kind, ok := owner(u.prefix)
		switch {
		case !ok && u.test && u.dir == "actors/kit":
			// The runtime's tests store a kind of their own ("test").
		case !ok:
			t.Errorf("%s: key %q is in no package's key table: add it to the table of the package that writes it", u.pos, u.prefix)
		case u.test || dir == u.dir:
		case foreignReads[u.dir+" "+kind] != "":
			used[u.dir+" "+kind] = true
		default:
			t.Errorf("%s: %s builds %s's key %q: ask %s, or, if %s writes it, move the kind to its table", u.pos, u.dir, dir, u.prefix, dir, u.dir)
		}
	}
	for k := range foreignReads {
		if !used[k] {
			t.Errorf("foreignReads lists %q, which no code reads any more: remove it", k)
		}
	}
}

// TestKeyTablesDoNotOverlap: no two kinds in the tables share keys (one equal to the
// other, or the other's parts followed by more), so that each key has one owner, and
// every kind says what it holds.
func TestKeyTablesDoNotOverlap(t *testing.T) {
	if !within("meta/admin", "meta") || within("vm-tenant", "vm") || !within("vm", "vm") {
		t.Fatal("within is wrong")
	}
	type entry struct{ dir, prefix string }
	var all []entry
	for d, table := range keyTables {
		for _, k := range table {
			if k.Prefix == "" || strings.HasSuffix(k.Prefix, "/") || k.Holds == "" {
				t.Errorf("%s: kind %+v: want a prefix without a trailing '/' and what it holds", d, k)
			}
			all = append(all, entry{d, k.Prefix})
		}
	}
	for i, a := range all {
		for _, b := range all[i+1:] {
			if within(a.prefix, b.prefix) || within(b.prefix, a.prefix) {
				t.Errorf("%s's kind %q and %s's kind %q share keys: give one of them another name", a.dir, a.prefix, b.dir, b.prefix)
			}
		}
	}
}

// TestKeyUsesFindsKeys: the scan behind the ownership tests sees the ways a key is
// written, so that their silence means something.
func TestKeyUsesFindsKeys(t *testing.T) {
	src := `package p

import "github.com/vmplane/vmplane/persistence"

func f(id string) {
	_ = persistence.Key("vm", id)
	_ = persistence.Key(persistence.KindMeta, "admin")
	_ = persistence.Prefix("vm-tenant", "t" + "/x")
	_ = []byte("vm/" + id)
	_ = strings.Prefix("vm", "x")
	_ = "vmx/1"
}`
	var got []string
	for _, u := range fileKeyUses(t, token.NewFileSet(), "p.go", "p", src, prefixesOf(machines.Keys)) {
		got = append(got, u.prefix)
	}
	if want := []string{"vm", "meta/admin", "vm-tenant", "vm"}; !slices.Equal(got, want) {
		t.Fatalf("got %v; want %v", got, want)
	}
}
