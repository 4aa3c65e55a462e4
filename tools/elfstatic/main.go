// Command elfstatic fails unless every file it is given is a statically linked Go ELF
// binary built without cgo: no program interpreter (PT_INTERP), no shared libraries
// (DT_NEEDED) and CGO_ENABLED=0 in its build settings. `make dist` runs it on each
// release binary, so a build that would need a C library on the target fails the target
// instead of shipping a binary that does not start on a minimal appliance image.
package main

import (
	"debug/buildinfo"
	"debug/elf"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: elfstatic BINARY...")
		os.Exit(2)
	}
	failed := false
	for _, path := range os.Args[1:] {
		if err := checkStatic(path); err != nil {
			fmt.Fprintf(os.Stderr, "elfstatic: %v\n", err)
			failed = true
			continue
		}
		fmt.Printf("%s: static\n", path)
	}
	if failed {
		os.Exit(1)
	}
}

// checkStatic returns why the binary at path is not a static, cgo-free Go ELF binary,
// or nil.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s: not an ELF binary: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s: dynamically linked (has a program interpreter)", path)
		}
	}
	// An ELF without a dynamic section has no DT_NEEDED: ImportedLibraries then
	// returns nothing (or an error naming the missing section).
	if libs, err := f.ImportedLibraries(); err == nil && len(libs) > 0 {
		return fmt.Errorf("%s: needs shared libraries %v", path, libs)
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: no Go build information: %w", path, err)
	}
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" && s.Value != "0" {
			return fmt.Errorf("%s: built with CGO_ENABLED=%s", path, s.Value)
		}
	}
	return nil
}
