// Package ui holds the web console: its sources (src/, plain ES modules and CSS), the
// pinned packages they import (package.json, package-lock.json), and the bundle built
// from them (dist/, written by `make ui`, committed), which this package embeds so that
// the binary serves the console without Node or anything fetched at run time.
package ui

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

//go:embed dist
var dist embed.FS

// Files are the built console: index.html at its root, the hashed assets under
// assets/.
func Files() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // not reached: dist is embedded
	}
	return sub
}

// ManifestFile is the build's record, beside dist/: what it was built from and what it
// wrote (tools/uibuild writes it; the package's tests check it).
const ManifestFile = "manifest.json"

// Manifest is the content of ManifestFile.
type Manifest struct {
	// Sources is Digest of the sources the build read.
	Sources string `json:"sources"`
	// Files are the SHA-256 of each file of dist/, by its path there.
	Files map[string]string `json:"files"`
}

// Inputs are what a build depends on, relative to the repository's root: the sources,
// the package list and lockfile (which pin every byte npm fetches), the build program
// (its esbuild settings), and go.mod (esbuild's version).
var Inputs = []string{"ui/src", "ui/package.json", "ui/package-lock.json", "tools/uibuild", "go.mod"}

// Digest is the SHA-256 over the inputs of a build under the repository's root: each
// file's path and content, in path order. From go.mod only esbuild's requirement
// counts, so an unrelated dependency's update leaves the build current.
func Digest(root string) (string, error) {
	var files []string
	for _, in := range Inputs {
		err := filepath.WalkDir(filepath.Join(root, in), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
			return err
		})
		if err != nil {
			return "", err
		}
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return "", err
		}
		if f == "go.mod" {
			b = []byte(esbuildRequirement(string(b)))
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// esbuildRequirement is go.mod's line that requires esbuild.
func esbuildRequirement(gomod string) string {
	for line := range strings.SplitSeq(gomod, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "github.com/evanw/esbuild" {
			return f[0] + " " + f[1]
		}
	}
	return ""
}
