package wiretest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
)

// CheckSent reads the source of the package whose tests run (the current directory,
// test files left out) and fails the test for each message it sends to an entity
// through a Kind, and each answer its entities give, whose type is not registered with
// kit.Wire: such a request works on one member and fails with 500 on the first one
// forwarded to another.
//
// It reads syntax, not types, so it finds what is written where it is sent:
//
//   - messages: the msg of kit.Ask[T](ctx, kind, id, msg) and of kind.Send(id, msg)
//     (a Send whose receiver is named kind: x.kind.Send, kind.Send);
//   - answers: the v of Respond(v), on a kit.Ctx or a kit.Reply (ctx.Respond(v), and
//     reply.Respond(v) for an answer given later);
//   - through the package's own wrappers: a function that passes one of its parameters
//     on to one of these (Machines.ask, askMachine, Tenants.tell, Schedules.report,
//     respondDurable, ...) is followed to its callers, by name, to any depth;
//   - the value itself when it is a composite literal (&T{...} or T{...}), a local
//     variable assigned one in the same function (msg := &updateUser{...}), or a field
//     x.f given one in the same function (job{msg: &observe{...}}, j.msg = &observe{...}).
//
// It does not see a message built elsewhere and passed in (another function's
// result), a wrapper whose name another function of the package shares (both are
// followed: more is checked, not less), nor an answer written as an expression (ctx.Respond(e.rec.User), ctx.Respond(*task)): TestWire's round trip
// and a request forwarded for real are what catch those.
func CheckSent(t *testing.T) {
	t.Helper()
	pkgPath, err := importPath(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files, err := parseDir(fset, ".")
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, e := range kit.WireEntries() {
		registered[typeName(reflect.TypeOf(e.Zero))] = true
	}
	s := &sendScan{pkgPath: pkgPath, sinks: map[string]sink{}}
	s.findWrappers(files)
	found := s.collect(files)
	if len(found) == 0 {
		t.Fatalf("no message sent through a Kind found in %s: the reading is broken", pkgPath)
	}
	names := make([]string, 0, len(found))
	for name := range found {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if registered[name] {
			continue
		}
		reported := map[token.Pos]bool{}
		for _, u := range found[name] {
			if !reported[u.pos] {
				reported[u.pos] = true
				t.Errorf("%s: %s %s is not registered with kit.Wire: it cannot reach another member", fset.Position(u.pos), u.role, name)
			}
		}
	}
	t.Logf("%s: %d message and answer types found sent: %s", pkgPath, len(names), strings.Join(names, " "))
}

// typeName is a type's package path and name, * for a pointer, as the sends read it.
func typeName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return "*" + t.Elem().PkgPath() + "." + t.Elem().Name()
	}
	return t.PkgPath() + "." + t.Name()
}

// importPath is the import path of the package in dir, from the module's go.mod.
func importPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for root := abs; ; root = filepath.Dir(root) {
		mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(mod), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
					rel, err := filepath.Rel(root, abs)
					if err != nil {
						return "", err
					}
					return strings.TrimSuffix(f[1]+"/"+filepath.ToSlash(rel), "/."), nil
				}
			}
		}
		if filepath.Dir(root) == root {
			return "", os.ErrNotExist
		}
	}
}

// parseDir parses the package's non-test files.
func parseDir(fset *token.FileSet, dir string) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// sink is where a call carries a message or an answer: the index of the argument.
type sink struct {
	arg  int
	role string // "message" or "answer"
}

// use is one place a type is sent.
type use struct {
	pos  token.Pos
	role string
}

type sendScan struct {
	pkgPath string
	// sinks are the package's own functions that pass a parameter on to a send, by name.
	sinks map[string]sink
}

// builtin reports the sink of a call of kit.Ask, a Kind's Send or a Respond (of a
// kit.Ctx or a kit.Reply); kitName is what the file imports kit as.
func builtin(call *ast.CallExpr, kitName string) (sink, bool) {
	fun := call.Fun
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	} else if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return sink{}, false
	}
	pkg, _ := sel.X.(*ast.Ident)
	switch {
	case sel.Sel.Name == "Ask" && pkg != nil && pkg.Name == kitName && len(call.Args) == 4:
		return sink{3, "message"}, true
	case sel.Sel.Name == "Send" && len(call.Args) == 2 && namedKind(sel.X):
		return sink{1, "message"}, true
	case sel.Sel.Name == "Respond" && len(call.Args) == 1:
		return sink{0, "answer"}, true
	}
	return sink{}, false
}

// namedKind reports whether e is a Kind by the package's naming: kind or x.kind.
func namedKind(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "kind"
	case *ast.SelectorExpr:
		return e.Sel.Name == "kind"
	}
	return false
}

// calleeName is the name of the function a call calls: f, x.f, f[T], x.f[T].
func calleeName(call *ast.CallExpr) string {
	fun := call.Fun
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	} else if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// sinkOf is the sink of a call: a builtin one, or one of the package's wrappers.
func (s *sendScan) sinkOf(call *ast.CallExpr, kitName string) (sink, bool) {
	if k, ok := builtin(call, kitName); ok {
		return k, true
	}
	if k, ok := s.sinks[calleeName(call)]; ok && k.arg < len(call.Args) {
		return k, true
	}
	return sink{}, false
}

// kitName is what f imports kit as ("" when it does not).
func kitName(f *ast.File) string {
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != "github.com/vmplane/vmplane/actors/kit" {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return "kit"
	}
	return ""
}

// params lists a function's parameter names in order (variadic last as one).
func params(fd *ast.FuncDecl) []string {
	var out []string
	for _, f := range fd.Type.Params.List {
		if len(f.Names) == 0 {
			out = append(out, "_")
		}
		for _, n := range f.Names {
			out = append(out, n.Name)
		}
	}
	return out
}

// eachSend calls fn for every call in the package's functions that sends: a builtin
// send, or one of the wrappers found so far.
func (s *sendScan) eachSend(files []*ast.File, fn func(f *ast.File, fd *ast.FuncDecl, call *ast.CallExpr, k sink)) {
	for _, f := range files {
		kn := kitName(f)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if k, ok := s.sinkOf(call, kn); ok {
						fn(f, fd, call, k)
					}
				}
				return true
			})
		}
	}
}

// findWrappers finds, until nothing new turns up, the functions that pass one of
// their parameters on to a send.
func (s *sendScan) findWrappers(files []*ast.File) {
	for changed := true; changed; {
		changed = false
		s.eachSend(files, func(_ *ast.File, fd *ast.FuncDecl, call *ast.CallExpr, k sink) {
			id, ok := call.Args[k.arg].(*ast.Ident)
			if !ok {
				return
			}
			for i, p := range params(fd) {
				if _, known := s.sinks[fd.Name.Name]; p == id.Name && !known {
					s.sinks[fd.Name.Name] = sink{i, k.role}
					changed = true
				}
			}
		})
	}
}

// collect returns every type found sent, with where.
func (s *sendScan) collect(files []*ast.File) map[string][]use {
	found := map[string][]use{}
	s.eachSend(files, func(f *ast.File, fd *ast.FuncDecl, call *ast.CallExpr, k sink) {
		for _, lit := range literals(fd.Body, call.Args[k.arg]) {
			if name := s.litType(lit, imports(f)); name != "" {
				found[name] = append(found[name], use{lit.Pos(), k.role})
			}
		}
	})
	return found
}

// imports maps the names a file imports packages as to their paths.
func imports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndexByte(p, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = p
	}
	return out
}

// literals returns the composite literals (with their & when taken) that e is, or
// that the function body gives the variable or field e names.
func literals(body *ast.BlockStmt, e ast.Expr) []ast.Expr {
	e = ast.Unparen(e)
	if isLiteral(e) {
		return []ast.Expr{e}
	}
	var out []ast.Expr
	switch v := e.(type) {
	case *ast.Ident:
		ast.Inspect(body, func(n ast.Node) bool {
			switch st := n.(type) {
			case *ast.AssignStmt:
				for i, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == v.Name && i < len(st.Rhs) && isLiteral(ast.Unparen(st.Rhs[i])) {
						out = append(out, ast.Unparen(st.Rhs[i]))
					}
				}
			case *ast.ValueSpec:
				for i, id := range st.Names {
					if id.Name == v.Name && i < len(st.Values) && isLiteral(ast.Unparen(st.Values[i])) {
						out = append(out, ast.Unparen(st.Values[i]))
					}
				}
			}
			return true
		})
	case *ast.SelectorExpr:
		field := v.Sel.Name
		ast.Inspect(body, func(n ast.Node) bool {
			switch st := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := st.Key.(*ast.Ident); ok && id.Name == field && isLiteral(ast.Unparen(st.Value)) {
					out = append(out, ast.Unparen(st.Value))
				}
			case *ast.AssignStmt:
				for i, l := range st.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == field && i < len(st.Rhs) && isLiteral(ast.Unparen(st.Rhs[i])) {
						out = append(out, ast.Unparen(st.Rhs[i]))
					}
				}
			}
			return true
		})
	}
	return out
}

// isLiteral reports whether e is T{...} or &T{...}.
func isLiteral(e ast.Expr) bool {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	_, ok := e.(*ast.CompositeLit)
	return ok
}

// litType is the kit.Wire name of a literal's type, or "" for one without a named type.
func (s *sendScan) litType(e ast.Expr, imports map[string]string) string {
	ptr := ""
	if u, ok := e.(*ast.UnaryExpr); ok {
		ptr, e = "*", ast.Unparen(u.X)
	}
	lit := e.(*ast.CompositeLit)
	switch t := lit.Type.(type) {
	case *ast.Ident:
		return ptr + s.pkgPath + "." + t.Name
	case *ast.SelectorExpr:
		if pkg, ok := t.X.(*ast.Ident); ok {
			if p, ok := imports[pkg.Name]; ok {
				return ptr + p + "." + t.Sel.Name
			}
		}
	}
	return ""
}
