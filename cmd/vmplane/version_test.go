package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/app"
)

// `vmplane version --json` prints exactly the four fields, with the stamped values and
// the Go release of the build.
func TestVersionJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	var got map[string]string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %q: %v", out.String(), err)
	}
	want := map[string]string{"version": app.Version, "commit": app.Commit, "date": app.Date, "go": runtime.Version()}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

// The plain form names all four on one line; an unknown flag exits 2.
func TestVersionText(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, s := range []string{app.Version, app.Commit, app.Date, runtime.Version()} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("%q lacks %q", out.String(), s)
		}
	}
	if code := run([]string{"version", "--yaml"}, &out, &errOut); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
}

// TestBareVmplaneIsTheOverview: a bare `vmplane`, `vmplane -h` and `vmplane --help`
// print the overview of every command and exit 0, starting no server: nothing is
// written in the working directory (no ./data) and nothing listens. `vmplane
// --version` prints the version; serve's flags without the command are a usage error.
func TestBareVmplaneIsTheOverview(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"-h"}, {"--help"}, {"--version"}, {"--addr", "127.0.0.1:0"}, {"--tenat", "x", "machine", "list"}} {
		t.Run(strings.Join(append([]string{"vmplane"}, args...), " "), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], args...)
			cmd.Dir = dir
			// Were it to serve, it would do so on a free loopback port with a data
			// directory of its own default (./data), and the wait below would fail.
			cmd.Env = append(os.Environ(), "VMPLANE_TEST_MAIN=1", "GORACE=atexit_sleep_ms=0", "VMPLANE_ADDR=127.0.0.1:0",
				"VMPLANE_DATA_DIR=", "VMPLANE_ADMIN_PASSWORD=", "VMPLANE_BCRYPT_COST=4")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(time.Minute): // a hang, not a timing: it serves
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("still running a minute later; stderr:\n%s", stderr.String())
			}
			code := cmd.ProcessState.ExitCode()
			switch {
			case len(args) == 0 || args[0] == "-h" || args[0] == "--help":
				if code != 0 || stderr.Len() != 0 {
					t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
				}
				for _, w := range []string{`(?m)^  serve +run the API server`, `(?m)^  bench `, `(?m)^  admin reset-password `,
					`(?m)^  admin backup `, `(?m)^  admin restore `, `(?m)^  config check `, `(?m)^  backup +backups of machines`,
					`(?m)^  machine `, `(?m)^  login `, "--version"} {
					if !regexp.MustCompile(w).MatchString(stdout.String()) {
						t.Fatalf("the overview lacks %s:\n%s", w, stdout.String())
					}
				}
			case args[0] == "--version":
				if code != 0 || !strings.HasPrefix(stdout.String(), "vmplane "+app.Version+" (commit ") {
					t.Fatalf("exit %d, stdout %q, stderr %q; want the version", code, stdout.String(), stderr.String())
				}
			case args[0] == "--tenat":
				if code != 2 || stderr.String() != "vmplane: unknown flag: --tenat; did you mean --tenant?\n" {
					t.Fatalf("exit %d, stderr %q; want 2 and the client's flag suggested", code, stderr.String())
				}
			default:
				if code != 2 || !strings.Contains(stderr.String(), "vmplane serve --addr 127.0.0.1:0") || strings.Count(stderr.String(), "\n") != 1 {
					t.Fatalf("exit %d, stderr %q; want 2 and one line naming 'vmplane serve'", code, stderr.String())
				}
			}
			if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
				t.Fatalf("the working directory holds %v (%v); want nothing written", entries, err)
			}
		})
	}
}
