package client_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutsideProgram builds testdata/outside, a program in a module of its own that
// imports github.com/vmplane/vmplane/client as any user's program would (a replace
// points at this checkout), and runs it against a real server: login, a tenant, a user
// and machines, their tasks, power, paging, events and typed errors.
func TestOutsideProgram(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a program of its own")
	}
	base := startServer(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "outside", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	// The checkout's go.sum holds every checksum the module graph needs.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := "module example.test/outside\n\ngo 1.26\n\nrequire github.com/vmplane/vmplane v0.0.0\n\nreplace github.com/vmplane/vmplane => " + root + "\n"
	for name, data := range map[string][]byte{"main.go": src, "go.mod": []byte(mod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", "-mod=mod", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "VMPLANE_URL="+base,
		"VMPLANE_EMAIL="+adminEmail, "VMPLANE_PASSWORD="+adminPassword)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "done") {
		t.Fatalf("the outside program: %v\n%s", err, out)
	}
	// Its import graph: the client's packages and the standard library, nothing of the
	// server.
	list := exec.Command("go", "list", "-mod=mod", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
	list.Dir, list.Env = dir, cmd.Env
	deps, err := list.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(deps))
	if len(got) != len(clientPackages)+1 || got[len(got)-1] != "example.test/outside" {
		t.Fatalf("the outside program's packages beyond the standard library: %v; want only the client's", got)
	}
	for _, p := range got[:len(got)-1] {
		if !clientPackages[p] {
			t.Fatalf("the outside program's packages beyond the standard library: %v; want only the client's", got)
		}
	}
}
