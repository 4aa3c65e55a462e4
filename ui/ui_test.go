package ui_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vmplane/vmplane/ui"
)

// TestBuildCurrent fails when ui/dist is stale: its sources, lockfile or build
// settings changed since `make ui` last ran, or a built file was changed by hand. It
// needs neither Node nor the packages, so every `make test` runs it.
func TestBuildCurrent(t *testing.T) {
	m, err := readManifest()
	if err != nil {
		t.Fatalf("reading the manifest: %v (run make ui)", err)
	}
	digest, err := ui.Digest("..")
	if err != nil {
		t.Fatal(err)
	}
	if digest != m.Sources {
		t.Errorf("ui/dist was built from other sources (digest %s; the manifest says %s): run make ui and commit ui/dist and ui/manifest.json", digest, m.Sources)
	}
	seen := map[string]bool{}
	err = fs.WalkDir(ui.Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		seen[p] = true
		b, err := fs.ReadFile(ui.Files(), p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); m.Files[p] != got {
			t.Errorf("ui/dist/%s: sha256 %s; the manifest says %q: run make ui", p, got, m.Files[p])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range m.Files {
		if !seen[p] {
			t.Errorf("ui/dist/%s is in the manifest but not built: run make ui", p)
		}
	}
}

// TestRebuildSame builds the console again into a temporary folder and compares it
// with ui/dist byte for byte: the build is reproducible, and what is committed is what
// the sources give. It needs the packages (ui/node_modules, from `npm ci`), and skips
// without them unless VMPLANE_REQUIRE_UI_BUILD is set.
func TestRebuildSame(t *testing.T) {
	if _, err := os.Stat("node_modules"); err != nil {
		if os.Getenv("VMPLANE_REQUIRE_UI_BUILD") != "" {
			t.Fatal("ui/node_modules is missing: run npm ci --ignore-scripts in ui/")
		}
		t.Skip("ui/node_modules is missing (npm ci in ui/ fetches it); TestBuildCurrent still checks the manifest")
	}
	// Beside dist/ (a hidden folder, which go:embed leaves out), so that the build's
	// rename stays on one file system.
	tmp, err := os.MkdirTemp(".", ".rebuild-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	out := filepath.Join(tmp, "dist")
	cmd := exec.Command("go", "run", "./tools/uibuild", "-out", filepath.Join("ui", out))
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("uibuild: %v\n%s", err, b)
	}
	want := map[string][]byte{}
	_ = fs.WalkDir(ui.Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			want[p], _ = fs.ReadFile(ui.Files(), p)
		}
		return err
	})
	got := map[string][]byte{}
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r, _ := filepath.Rel(out, p)
			got[filepath.ToSlash(r)], _ = os.ReadFile(p)
		}
		return err
	})
	for p, b := range got {
		if !bytes.Equal(b, want[p]) {
			t.Errorf("a rebuild gives another %s than ui/dist holds: run make ui", p)
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			t.Errorf("ui/dist/%s: a rebuild does not write it: run make ui", p)
		}
	}
}

// readManifest reads ui/manifest.json.
func readManifest() (ui.Manifest, error) {
	var m ui.Manifest
	b, err := os.ReadFile(ui.ManifestFile)
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}
