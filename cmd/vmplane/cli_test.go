package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/app/apptest"
)

// vmplaneCmd runs this binary as `vmplane args...` (see TestMain) in a process of its
// own, with stdin, in the environment env adds, and returns stdout, stderr and the
// exit status.
func vmplaneCmd(t *testing.T, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "VMPLANE_TEST_MAIN=1", "GORACE=atexit_sleep_ms=0"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestClientCommands: the client verbs in the shipped binary, as a script runs them
// against a real server: remote, login from stdin, JSON output, exit statuses, and
// the credentials file's mode.
func TestClientCommands(t *testing.T) {
	t.Parallel()
	srv, err := apptest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	cfg := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + cfg, "VMPLANE_URL=", "VMPLANE_TOKEN=", "VMPLANE_REMOTE=", "VMPLANE_TENANT="}
	run := func(stdin string, want int, args ...string) string {
		t.Helper()
		out, errOut, code := vmplaneCmd(t, env, stdin, args...)
		if code != want {
			t.Fatalf("vmplane %s: exit %d; want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out + errOut
	}
	run("", 0, "remote", "add", "lab", srv.Base)
	if out := run(apptest.AdminPassword+"\n", 0, "login", "--email", apptest.AdminEmail, "--password-stdin"); !strings.Contains(out, "logged in to lab as "+apptest.AdminEmail) {
		t.Fatalf("login: %q", out)
	}
	st, err := os.Stat(filepath.Join(cfg, "vmplane", "credentials.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials.json: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
	var ten struct {
		ID, Name string
	}
	if err := json.Unmarshal([]byte(run("", 0, "tenant", "create", "Acme", "-o", "json")), &ten); err != nil || ten.Name != "Acme" {
		t.Fatalf("tenant create -o json: %+v %v", ten, err)
	}
	if out := run("", 0, "tenant", "list"); !strings.Contains(out, ten.ID) || !strings.HasPrefix(out, "ID ") {
		t.Fatalf("tenant list: %q", out)
	}
	// The client's global flags may come first: that is no serve.
	if out := run("", 0, "--remote", "lab", "-o", "json", "tenant", "list"); !strings.HasPrefix(out, "[") || !strings.Contains(out, ten.ID) {
		t.Fatalf("--remote lab -o json tenant list: %q", out)
	}
	run("", 2, "--remote=nope", "tenant", "list")
	if out := run("", 1, "tenant", "show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"); !strings.HasPrefix(out, "vmplane: not_found: ") {
		t.Fatalf("tenant show of no tenant: %q", out)
	}
	run("", 2, "tenant", "show")
	run("", 2, "frobnicate")
	if out := run("", 0, "completion", "bash"); !strings.Contains(out, "__start_vmplane") {
		t.Fatal("completion bash printed no bash completion")
	}
	// `vmplane help` lists the server's commands as before, and the client's.
	if out := run("", 0, "help"); !regexp.MustCompile(`(?m)^  serve +run the API server`).MatchString(out) ||
		!strings.Contains(out, "machine") || !strings.Contains(out, "login") {
		t.Fatalf("help: %q", out)
	}
	if out := run("", 0, "help", "serve"); !strings.Contains(out, "vmplane serve [flags]") || !strings.Contains(out, "--proxmox-token-id") {
		t.Fatalf("help serve: %q; want serve's own help", out)
	}
	run("", 0, "logout")
	run("", 1, "tenant", "list")
}
