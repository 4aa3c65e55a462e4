package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/cli"
)

const packagedConfig = "../../packaging/vmplane.toml"

func noEnv(string) string { return "" }

// runConfig runs `vmplane config args...` in the environment getenv.
func runConfig(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return execute(cli.Env{Stdout: stdout, Stderr: stderr, Getenv: getenv}, append([]string{"config"}, args...))
}

// The packaged example configuration, as shipped, is refused by `vmplane config check`
// (exit 2, one line) until a driver is chosen; with one it is accepted, names every
// setting of the table, and stays valid with every example line uncommented (except the
// *-file secrets, which would need the files).
func TestPackagedConfigChecks(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runConfig([]string{"check", "--config", packagedConfig}, noEnv, &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "no hypervisor driver chosen") {
		t.Fatalf("as shipped: exit %d: %s; want 2 and the line asking for a driver", code, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := runConfig([]string{"check", "--config", packagedConfig, "--driver", "sim"}, noEnv, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), `data-dir = "/var/lib/vmplane"`) || !strings.Contains(out.String(), "valid") {
		t.Fatalf("output:\n%s", out.String())
	}
	text, err := os.ReadFile(packagedConfig)
	if err != nil {
		t.Fatal(err)
	}
	l, err := app.Load([]string{"--config", packagedConfig, "--driver", "sim"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Effective() { // every setting of the table
		if !regexp.MustCompile(`(?m)^(# )?` + regexp.QuoteMeta(s.Name) + ` = `).Match(text) {
			t.Errorf("packaging/vmplane.toml lacks %s", s.Name)
		}
	}
	var all []string
	for _, line := range strings.Split(string(text), "\n") {
		if strings.Contains(line, "-file = ") {
			continue
		}
		if line == `driver = ""` {
			line = `driver = "sim"`
		}
		all = append(all, regexp.MustCompile(`^# ([a-z0-9-]+ = )`).ReplaceAllString(line, "$1"))
	}
	f := filepath.Join(t.TempDir(), "all.toml")
	if err := os.WriteFile(f, []byte(strings.Join(all, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := runConfig([]string{"check", "--config", f}, noEnv, &out, &errOut); code != 0 {
		t.Fatalf("every line uncommented: exit %d: %s", code, errOut.String())
	}
}

// `vmplane config check` prints the effective settings with their sources and the
// secrets masked, whether they come from the environment, a flag or a *_FILE.
func TestConfigCheckMasksSecrets(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("pw-from-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"VMPLANE_ADMIN_PASSWORD_FILE":      pw,
		"VMPLANE_JWT_KEY":                  strings.Repeat("j", 32),
		"VMPLANE_PROXMOX_CONSOLE_PASSWORD": "console-pw",
		"VMPLANE_RATE_GLOBAL":              "7",
	}
	var out, errOut bytes.Buffer
	code := runConfig([]string{"check", "--config", packagedConfig, "--driver", "sim", "--proxmox-token-secret", "tok-secret"},
		func(k string) string { return env[k] }, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	got := out.String()
	for _, secret := range []string{"pw-from-a-file", "jjjj", "console-pw", "tok-secret"} {
		if strings.Contains(got, secret) {
			t.Errorf("output shows %q:\n%s", secret, got)
		}
	}
	for _, re := range []string{
		`(?m)^admin-password = "\[redacted\]" +# env$`,
		`(?m)^jwt-key = "\[redacted\]" +# env$`,
		`(?m)^proxmox-token-secret = "\[redacted\]" +# flag$`,
		`(?m)^proxmox-console-password = "\[redacted\]" +# env$`,
		`(?m)^rate-global = 7 +# env$`,
		`(?m)^addr = ":8080" +# file$`,
		`(?m)^bcrypt-cost = 10 +# default$`,
	} {
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("output lacks %s:\n%s", re, got)
		}
	}
}

// A typo in the configuration file stops `vmplane serve` (and fails `config check`)
// with exit status 2 and one line naming the key, the value and the file.
func TestConfigFileTypoExitsTwo(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "vmplane.toml")
	if err := os.WriteFile(f, []byte("addr = \"127.0.0.1:0\"\nrate-globl = 100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, baseEnv(t), "serve", "--config", f)
	if code := p.exitCode(time.Minute); code != 2 {
		t.Fatalf("exit status %d; want 2", code)
	}
	out := strings.TrimSpace(p.output())
	if strings.Contains(out, "\n") || !strings.Contains(out, "rate-globl") || !strings.Contains(out, `"100"`) || !strings.Contains(out, f) {
		t.Fatalf("got\n%s\nwant one line naming rate-globl, its value and %s", out, f)
	}
	var stdout, stderr bytes.Buffer
	if code := runConfig([]string{"check", "--config", f}, noEnv, &stdout, &stderr); code != 2 || strings.TrimSpace(stderr.String()) != out {
		t.Fatalf("config check: exit %d, %q; want 2 and %q", code, stderr.String(), out)
	}
}
