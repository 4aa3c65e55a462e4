// Command uibuild builds the web console (package ui) for `make ui`: esbuild, pinned
// in go.mod and run through `go tool`, bundles ui/src into ES modules split at every
// dynamic import (so a page's code loads when it is opened), minified, with hashed
// names; index.html is written from ui/src/index.html with those names, and
// ui/manifest.json records the digest of the inputs and of every file written, which
// ui's tests check so that a stale build fails `make test`.
//
// It reads the packages from ui/node_modules, which `npm ci` fetches from the lockfile;
// Node itself plays no part in the build.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vmplane/vmplane/ui"
)

// entries are the console's entry points: the script and the style sheet index.html
// loads; every other file is a chunk of the script's dynamic imports.
var entries = map[string]string{"ui/src/main.js": "{{script}}", "ui/src/style.css": "{{style}}"}

// esbuildFlags are the build's settings (part of the inputs ui.Digest reads: this file).
var esbuildFlags = []string{
	"--bundle", "--splitting", "--format=esm", "--minify", "--target=es2022",
	"--entry-names=assets/[name]-[hash]", "--chunk-names=assets/[name]-[hash]", "--asset-names=assets/[name]-[hash]",
	"--charset=utf8", "--legal-comments=eof", "--log-level=warning",
}

func main() {
	root := flag.String("root", ".", "the repository's root")
	out := flag.String("out", "ui/dist", "where the build goes (replaced whole); ui/manifest.json is written only for ui/dist")
	flag.Parse()
	if err := build(*root, *out); err != nil {
		log.Fatalf("uibuild: %v", err)
	}
}

func build(root, out string) error {
	if _, err := os.Stat(filepath.Join(root, "ui/node_modules")); err != nil {
		return fmt.Errorf("ui/node_modules is missing: run `npm ci --ignore-scripts` in ui/ first (make ui does)")
	}
	tmp, err := os.MkdirTemp(filepath.Join(root, "ui"), ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	meta := filepath.Join(tmp, "meta.json")
	dir := filepath.Join(tmp, "dist")
	args := []string{"tool", "esbuild"}
	for in := range entries {
		args = append(args, in)
	}
	args = append(args, esbuildFlags...)
	args = append(args, "--outdir="+dir, "--metafile="+meta)
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("esbuild: %w", err)
	}
	var m struct {
		Outputs map[string]struct {
			EntryPoint string `json:"entryPoint"`
		} `json:"outputs"`
	}
	b, err := os.ReadFile(meta)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	page, err := os.ReadFile(filepath.Join(root, "ui/src/index.html"))
	if err != nil {
		return err
	}
	for path, o := range m.Outputs {
		if mark, ok := entries[o.EntryPoint]; ok {
			rel, err := filepath.Rel(dir, filepath.Join(root, path))
			if err != nil {
				return err
			}
			page = bytes.ReplaceAll(page, []byte(mark), []byte("/"+filepath.ToSlash(rel)))
		}
	}
	if bytes.Contains(page, []byte("{{")) {
		return fmt.Errorf("ui/src/index.html: a mark was not replaced: %s", page)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), page, 0o644); err != nil {
		return err
	}
	sums := map[string]string{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(b)
		sums[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		return err
	}
	target := filepath.Join(root, out)
	if err := os.RemoveAll(target); err != nil {
		return err
	}
	if err := os.Rename(dir, target); err != nil {
		return err
	}
	if filepath.Clean(out) != filepath.Clean("ui/dist") {
		return nil
	}
	digest, err := ui.Digest(root)
	if err != nil {
		return err
	}
	mb, err := json.MarshalIndent(ui.Manifest{Sources: digest, Files: sums}, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "uibuild: %d files in %s\n", len(sums), strings.TrimPrefix(target, "./"))
	return os.WriteFile(filepath.Join(root, "ui", ui.ManifestFile), append(mb, '\n'), 0o644)
}
