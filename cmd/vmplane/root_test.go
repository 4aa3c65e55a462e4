package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/cli"
)

// executeIn runs `vmplane args...` in-process with the environment vars and returns
// stdout, stderr and the exit status.
func executeIn(vars map[string]string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := execute(cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }}, args)
	return out.String(), errb.String(), code
}

// TestEverySettingIsAServeFlag: every row of the settings table is a flag of `vmplane
// serve` (and of `config check` and `proxmox check`, which read the same settings),
// named as the setting, its help naming its environment variable; and a flag given on
// the command line beats the environment and is reported as the source, whether
// written --name (pflag) or -name (Go's flag package, which serve used before).
func TestEverySettingIsAServeFlag(t *testing.T) {
	root := newRoot(cli.Env{Getenv: noEnv})
	defaults := app.Loaded{Config: app.Defaults()}
	settings := defaults.Effective()
	if len(settings) < 50 {
		t.Fatalf("%d settings; the table has more", len(settings))
	}
	for _, path := range [][]string{{"serve"}, {"config", "check"}, {"proxmox", "check"}} {
		cmd, _, err := root.Find(path)
		if err != nil || cmd.Name() != path[len(path)-1] {
			t.Fatalf("vmplane %s: %v", strings.Join(path, " "), err)
		}
		for _, s := range settings {
			f := cmd.Flags().Lookup(s.Name)
			if f == nil {
				t.Errorf("vmplane %s has no flag --%s", strings.Join(path, " "), s.Name)
				continue
			}
			if !strings.Contains(f.Usage, "(env "+s.Env+")") {
				t.Errorf("vmplane %s --%s: help %q does not name %s", strings.Join(path, " "), s.Name, f.Usage, s.Env)
			}
		}
		if cmd.Flags().Lookup("config") == nil {
			t.Errorf("vmplane %s has no --config", strings.Join(path, " "))
		}
	}

	env := map[string]string{"VMPLANE_RATE_GLOBAL": "5", "VMPLANE_SIM_NODES": "4", "VMPLANE_LOG_FORMAT": "console"}
	for _, args := range [][]string{
		{"config", "check", "--driver", "sim", "--rate-global", "7", "--sim-nodes=2", "--proxmox-insecure", "--access-ttl", "1h"},
		{"config", "check", "-driver", "sim", "-rate-global", "7", "-sim-nodes=2", "-proxmox-insecure", "-access-ttl", "1h"},
	} {
		out, errOut, code := executeIn(env, args...)
		if code != 0 {
			t.Fatalf("vmplane %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		for _, re := range []string{
			`(?m)^rate-global = 7 +# flag$`, `(?m)^sim-nodes = 2 +# flag$`, `(?m)^proxmox-insecure = true +# flag$`,
			`(?m)^access-ttl = "1h0m0s" +# flag$`, `(?m)^log-format = "console" +# env$`, `(?m)^driver = "sim" +# flag$`,
		} {
			if !regexp.MustCompile(re).MatchString(out) {
				t.Errorf("vmplane %s: the output lacks %s:\n%s", strings.Join(args, " "), re, out)
			}
		}
	}
}

// TestBackupHelpListsBothFamilies: `vmplane backup --help` shows the client's verbs for
// machines' backups and points to the server store's backup and restore, which `vmplane
// admin --help` lists; neither is told apart by peeking at the arguments any more.
func TestBackupHelpListsBothFamilies(t *testing.T) {
	out, errOut, code := executeIn(nil, "backup", "--help")
	if code != 0 {
		t.Fatalf("backup --help: exit %d: %s", code, errOut)
	}
	for _, re := range []string{`(?m)^  list +`, `(?m)^  show +`, `(?m)^  delete +`,
		`vmplane admin backup --out FILE`, `vmplane admin restore FILE --data-dir DIR`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("backup --help lacks %s:\n%s", re, out)
		}
	}
	out, errOut, code = executeIn(nil, "admin", "--help")
	if code != 0 {
		t.Fatalf("admin --help: exit %d: %s", code, errOut)
	}
	for _, re := range []string{`(?m)^  backup +save a running server's store`, `(?m)^  restore +load a backup`,
		`(?m)^  reset-password +`, `vmplane backup list`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("admin --help lacks %s:\n%s", re, out)
		}
	}
	// Each family's command line reaches its own command.
	if _, errOut, code := executeIn(nil, "admin", "backup"); code != 2 || !strings.Contains(errOut, "--out FILE is required") {
		t.Errorf("admin backup without --out: exit %d, %q; want 2 and --out asked for", code, errOut)
	}
	if _, errOut, code := executeIn(map[string]string{"XDG_CONFIG_HOME": t.TempDir()}, "backup", "list"); code != 2 || !strings.Contains(errOut, "no remote") {
		t.Errorf("backup list: exit %d, %q; want the client's verb (no remote: 2)", code, errOut)
	}
	if _, errOut, code := executeIn(nil, "backup"); code != 2 || !strings.Contains(errOut, "needs a subcommand") {
		t.Errorf("backup: exit %d, %q; want 2 and the subcommands", code, errOut)
	}
}

// TestHelpAtEveryLevel: -h of every command of the tree exits 0 and prints its usage,
// and so does `vmplane help COMMAND ...`.
func TestHelpAtEveryLevel(t *testing.T) {
	root := newRoot(cli.Env{Getenv: noEnv})
	var paths [][]string
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		paths = append(paths, []string{c.Name()})
		for _, sub := range c.Commands() {
			if !sub.Hidden {
				paths = append(paths, []string{c.Name(), sub.Name()})
			}
		}
	}
	for _, p := range paths {
		out, errOut, code := executeIn(nil, append(p, "-h")...)
		if code != 0 || !strings.Contains(out, "vmplane "+strings.Join(p, " ")) || errOut != "" {
			t.Errorf("vmplane %s -h: exit %d, stderr %q, stdout:\n%s", strings.Join(p, " "), code, errOut, out)
		}
		out2, _, code := executeIn(nil, append([]string{"help"}, p...)...)
		if code != 0 || out2 != out {
			t.Errorf("vmplane help %s: exit %d, and not what -h prints:\n%s", strings.Join(p, " "), code, out2)
		}
	}
}

// TestGoStyleFlagsOfServerCommands: the server's commands parsed their flags with Go's
// flag package, which reads -name as --name; those command lines still work (pflag
// alone would read -data-dir as the shorthands d, a, t, ...), and the client's verbs,
// which always took pflag's, are left alone.
func TestGoStyleFlagsOfServerCommands(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := executeIn(nil, "admin", "reset-password", "-data-dir", dir, "-email=a@example.test", "-bcrypt-cost", "4", "-password-stdin")
	if code != 1 || !strings.Contains(errOut, dir+" holds no vmplane data") {
		t.Errorf("admin reset-password -data-dir %s: exit %d, %q; want 1 and the directory named", dir, code, errOut)
	}
	if _, errOut, code := executeIn(nil, "bench", "-model", "sideways"); code != 2 || !strings.Contains(errOut, `unknown model "sideways"`) {
		t.Errorf("bench -model sideways: exit %d, %q; want 2 and the model refused", code, errOut)
	}
	if out, _, code := executeIn(nil, "version", "-json"); code != 0 || !strings.HasPrefix(out, `{"version":`) {
		t.Errorf("version -json: exit %d, %q", code, out)
	}
	if _, errOut, code := executeIn(nil, "tenant", "list", "-tenant", "x"); code != 2 || !strings.Contains(errOut, "unknown shorthand flag") {
		t.Errorf("tenant list -tenant x: exit %d, %q; want the client's usual usage error", code, errOut)
	}
}
