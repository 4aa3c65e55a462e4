package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A dynamically linked binary (a system tool) is refused, naming why.
func TestCheckStaticRefusesDynamicBinary(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to check")
	}
	sh, _ = filepath.EvalSymlinks(sh)
	err = checkStatic(sh)
	if err == nil {
		t.Fatalf("%s passed as static", sh)
	}
	if !strings.Contains(err.Error(), "dynamically linked") && !strings.Contains(err.Error(), "shared libraries") {
		t.Fatalf("unexpected reason: %v", err)
	}
}

// A file that is no ELF binary is refused.
func TestCheckStaticRefusesNonELF(t *testing.T) {
	p := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkStatic(p); err == nil || !strings.Contains(err.Error(), "not an ELF") {
		t.Fatalf("err = %v", err)
	}
}
