package actors

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
)

// machinePrefixes are the first parts of the keys actors/machines owns: its records
// and their indexes. No other package builds these keys: it asks machines.
var machinePrefixes = []string{"vm", "vm-tenant", "vm-vmid", "task", "task-open", "task-tenant", "node", "template",
	"backup", "backup-id", "backup-sched", "console-ticket"}

// keyUse is one place in the source that names a key by its first part: a call of
// persistence.Key or persistence.Prefix whose first argument is a string literal, or
// a string literal spelling a key ("vm/...").
type keyUse struct {
	dir    string // the package's directory, from the module root
	pos    string
	prefix string
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
		uses = append(uses, keyUse{dir: dir, pos: fset.Position(n.Pos()).String(), prefix: prefix})
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
			if s, ok := stringLit(n.Args[0]); ok {
				add(n, s)
			}
			// The arguments are not inspected again: a literal first part is counted once.
			for _, a := range n.Args[1:] {
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
// machines' records or their indexes (the tenants reserve quota and the insights and
// schedules read machines by asking machines).
func TestOnlyMachinesNamesMachineKeys(t *testing.T) {
	for _, u := range keyUses(t, "..", machinePrefixes) {
		if slices.Contains(machinePrefixes, u.prefix) && u.dir != "actors/machines" && !slices.Contains(storeTests, u.dir) {
			t.Errorf("%s: names machines' key %q/...; ask actors/machines instead", u.pos, u.prefix)
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
	_ = persistence.Prefix("vm-tenant", "t" + "/x")
	_ = []byte("vm/" + id)
	_ = strings.Prefix("vm", "x")
	_ = "vmx/1"
}`
	var got []string
	for _, u := range fileKeyUses(t, token.NewFileSet(), "p.go", "p", src, machinePrefixes) {
		got = append(got, u.prefix)
	}
	if want := []string{"vm", "vm-tenant", "vm"}; !slices.Equal(got, want) {
		t.Fatalf("got %v; want %v", got, want)
	}
}
