package cli_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestExitCodes: 2 for a command line that does not parse, 1 for a failure, the API's
// code and detail on one line.
func TestExitCodes(t *testing.T) {
	w := newWorld(t)
	w.login()
	for _, args := range [][]string{
		{"frobnicate"},
		{"machine"},
		{"machine", "frobnicate"},
		{"machine", "show"},
		{"machine", "show", "a", "b"},
		{"machine", "list", "--no-such-flag"},
		{"machine", "list", "-o", "xml"},
		{"machine", "create", "--name", "x"},
		{"machine", "create", "--name", "x", "--template", "t", "--plan", "huge"},
		{"machine", "create", "--name", "x", "--template", "t", "--memory", "lots"},
		{"machine", "resize", "m"},
		{"tenant", "update", "t"},
		{"firewall", "add", "--direction", "in"},
		{"remote", "add", "x", "ftp://example.test"},
		{"login", "--password-stdin"},
		{"events", "--since", "-5"},
		{"schedule", "create", "--machine", "m", "--cron", "@daily"},
		{"schedule", "create", "--kind", "power", "--machine", "m", "--cron", "@daily"},
		{"schedule", "create", "--kind", "backup", "--machine", "m", "--cron", "@daily"},
		{"schedule", "create", "--action", "stop", "--retention", "2", "--machine", "m", "--cron", "@daily"},
		{"schedule", "list", "--kind", "daily"},
		{"schedule", "update", "s"},
		{"backup", "show"},
		{"health-check", "create", "--name", "x"},
		{"health-check", "update", "h"},
		{"health-check", "update", "h", "--machine", "m", "--clear-machine"},
		{"alert", "list", "--since", "soon"},
		{"alert", "frobnicate"},
		{"monitoring", "forecast", "--horizon", "-1"},
		{"machine", "reinstall", "m"},
		{"machine", "migrate", "m"},
		{"machine", "migrate", "m", "--node", "n", "--online", "--offline"},
		{"machine", "usage", "m", "--last", "-1"},
		{"machine", "update", "m"},
		{"task", "wait", "--timeout", "soon", "x"},
		{"--remote", "nope", "tenant", "list"},
	} {
		r := w.run("", args...)
		if r.code != 2 || !strings.HasPrefix(r.err, "vmplane: ") && !strings.Contains(r.err, "Usage:") {
			t.Errorf("vmplane %s: got exit %d, stderr %q; want 2 and a usage message", strings.Join(args, " "), r.code, r.err)
		}
	}
	r := w.fails(1, "vmplane: not_found: ", "machine", "show", "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	if strings.Count(r.err, "\n") != 1 {
		t.Errorf("an API error: stderr %q; want one line", r.err)
	}
	w.fails(1, "invalid_request", "tenant", "create", strings.Repeat("x", 101))
	// An operator must say which tenant's machines: the error names the flag.
	w.fails(1, "give --tenant ID", "machine", "list")
	w.fails(1, "no template \"nope\"", "machine", "create", "--tenant", "t", "--name", "x", "--template", "nope")
	if r := w.run("", "--help"); r.code != 0 || !strings.Contains(r.out, "machine") {
		t.Errorf("--help: exit %d, %q", r.code, r.out)
	}
}

// TestCompletion: the completion scripts of the three shells, and completion of the
// remote names.
func TestCompletion(t *testing.T) {
	w := &world{t: t, vars: map[string]string{"XDG_CONFIG_HOME": t.TempDir()}}
	for shell, want := range map[string]string{"bash": "__start_vmplane", "zsh": "#compdef vmplane", "fish": "complete -c vmplane"} {
		if out := w.ok("completion", shell); !strings.Contains(out, want) {
			t.Errorf("completion %s: no %q in %d bytes", shell, want, len(out))
		}
	}
	w.ok("remote", "add", "alpha", "http://127.0.0.1:1")
	w.ok("remote", "add", "beta", "http://127.0.0.1:2")
	out := w.ok("__complete", "remote", "switch", "")
	if !strings.Contains(out, "alpha\nbeta\n") {
		t.Errorf("remote names completed: %q", out)
	}
	if out := w.ok("__complete", "machine", "s"); !strings.Contains(out, "show") || !strings.Contains(out, "start") {
		t.Errorf("machine subcommands completed: %q", out)
	}
	if out := w.ok("__complete", "schedule", "create", "--kind", ""); !strings.Contains(out, "power\nbackup\n") {
		t.Errorf("schedule --kind completed: %q", out)
	}
	if out := w.ok("__complete", "h"); !strings.Contains(out, "health-check") {
		t.Errorf("health-check completed: %q", out)
	}
}

// TestNoServerDependencies: the CLI builds on the Go client alone, without the
// server's packages (so without Badger, fasthttp or protoactor).
func TestNoServerDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}",
		"github.com/vmplane/vmplane/cli").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list listed nothing")
	}
	for _, p := range deps {
		for _, bad := range []string{"badger", "fasthttp", "protoactor", "vmplane/actors", "vmplane/httpedge",
			"vmplane/persistence", "vmplane/app", "vmplane/hypervisor", "vmplane/apierr"} {
			if strings.Contains(p, bad) {
				t.Errorf("the CLI imports %s; it must speak to the server through package client only", p)
			}
		}
	}
}
