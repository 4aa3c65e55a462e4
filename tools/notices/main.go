// Command notices writes the licence and notice files of every module a package is built
// from into one text file, for the release archives and packages: the binary is
// statically linked, so it carries their code, and their licences (Apache-2.0, MIT,
// BSD; docs/licences.md) ask that their notices travel with it.
//
//	go run ./tools/notices ./cmd/vmplane dist/third-party-notices
//
// The modules are those `go list -deps` names (the main module aside), in path order,
// each with the files of its root directory named LICENSE, LICENCE, COPYING or NOTICE
// (any case, any extension), as the module cache holds them. A module without any is an
// error: its terms would be unknown.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

var noticeFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice)([.-].*)?$`)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: notices PACKAGE OUTPUT")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
}

func run(pkg, output string) error {
	cmd := exec.Command("go", "list", "-deps", "-f",
		"{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}", pkg)
	// The release binaries are Linux's, whatever the build host: their dependencies.
	cmd.Env = append(os.Environ(), "GOOS=linux")
	list, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	seen := map[string]bool{}
	var mods [][3]string
	for _, line := range strings.Split(string(list), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		mods = append(mods, [3]string{f[0], f[1], f[2]})
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i][0] < mods[j][0] })

	var out bytes.Buffer
	fmt.Fprintf(&out, "vmplane is built from the Go modules below. Each module's licence and notice\nfiles follow its name, as the module publishes them.\n")
	for _, m := range mods {
		entries, err := os.ReadDir(m[2])
		if err != nil {
			return fmt.Errorf("%s %s: %w", m[0], m[1], err)
		}
		var names []string
		for _, e := range entries {
			if !e.IsDir() && noticeFile.MatchString(e.Name()) {
				names = append(names, e.Name())
			}
		}
		if len(names) == 0 {
			return fmt.Errorf("%s %s has no licence file in %s", m[0], m[1], m[2])
		}
		for _, n := range names {
			text, err := os.ReadFile(filepath.Join(m[2], n))
			if err != nil {
				return err
			}
			fmt.Fprintf(&out, "\n%s\n%s %s: %s\n%s\n\n%s\n", strings.Repeat("=", 79), m[0], m[1], n,
				strings.Repeat("=", 79), bytes.TrimSpace(text))
		}
	}
	return os.WriteFile(output, out.Bytes(), 0o644)
}
