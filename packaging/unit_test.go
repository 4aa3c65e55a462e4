package packaging

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const unitFile = "vmplane.service"

// maxScore is the highest `systemd-analyze security` exposure the unit may have
// (issue 21; docs/packaging.md records the current score).
const maxScore = 2.0

// settings reads the [Service] section of the unit: each key with its values, in order.
func settings(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: %q is not key=value", unitFile, line)
			}
			out[k] = append(out[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUnitSettings pins what the rest of vmplane relies on: Type=notify (serve sends
// READY=1 and watchdog pings), the command, the data directory, the user, and the
// sandbox settings the issue asks for.
func TestUnitSettings(t *testing.T) {
	s := settings(t)
	want := map[string]string{
		"Type":                     "notify",
		"ExecStart":                "/usr/bin/vmplane serve --config /etc/vmplane/vmplane.toml",
		"WatchdogSec":              "30",
		"Restart":                  "on-failure",
		"RestartPreventExitStatus": "2",
		"User":                     "vmplane",
		"DynamicUser":              "no",
		"StateDirectory":           "vmplane",
		"UMask":                    "0077",
		"CapabilityBoundingSet":    "",
		"NoNewPrivileges":          "yes",
		"ProtectSystem":            "strict",
		"RestrictAddressFamilies":  "AF_UNIX AF_INET AF_INET6",
		"MemoryDenyWriteExecute":   "yes",
		"SystemCallArchitectures":  "native",
		"RestrictRealtime":         "yes",
		"ProtectProc":              "invisible",
		"ProcSubset":               "pid",
	}
	for k, v := range want {
		got, ok := s[k]
		if !ok || got[len(got)-1] != v {
			t.Errorf("%s: %s=%q; want %q", unitFile, k, got, v)
		}
	}
	if f := s["SystemCallFilter"]; len(f) == 0 || f[0] != "@system-service" {
		t.Errorf("%s: SystemCallFilter=%q; want @system-service first", unitFile, f)
	}
}

// TestUnitSecurityScore: systemd's own analyzer rates the unit's exposure at most
// maxScore, and the unit's system call filter lets the hash-worker children start and
// lower their priority (nice 19, SCHED_IDLE; actors/auth/passwords_linux.go).
func TestUnitSecurityScore(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (apt-get install systemd): the unit's security score is not checked")
	}
	out, err := exec.Command(analyze, "security", "--offline=yes", unitFile).CombinedOutput()
	if err != nil && strings.Contains(string(out), "offline") && strings.Contains(string(out), "unrecognized") {
		t.Skipf("this systemd-analyze has no --offline (systemd 250 or later has): %s", out)
	}
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for vmplane\.service: (\d+\.\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no overall exposure level in\n%s", out)
	}
	score, _ := strconv.ParseFloat(string(m[1]), 64)
	t.Logf("exposure level %.1f", score)
	if score > maxScore {
		t.Fatalf("exposure level %.1f; want at most %.1f:\n%s", score, maxScore, out)
	}

	allowed, denied := map[string]bool{}, map[string]bool{}
	for _, f := range settings(t)["SystemCallFilter"] {
		set := allowed
		if strings.HasPrefix(f, "~") {
			set, f = denied, f[1:]
		}
		for _, name := range strings.Fields(f) {
			expand(t, analyze, name, set, map[string]bool{})
		}
	}
	for _, call := range []string{"execve", "setpriority", "sched_setattr", "flock", "clone3"} {
		if !allowed[call] || denied[call] {
			t.Errorf("the unit's SystemCallFilter does not allow %s, which vmplane needs", call)
		}
	}
}

// expand adds the system calls of a filter entry (a call or an @group, recursively).
func expand(t *testing.T, analyze, name string, into, seen map[string]bool) {
	t.Helper()
	if !strings.HasPrefix(name, "@") {
		into[name] = true
		return
	}
	if seen[name] {
		return
	}
	seen[name] = true
	out, err := exec.Command(analyze, "syscall-filter", name).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("systemd-analyze syscall-filter %s: %v\n%s", name, err, ee.Stderr)
	} else if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(out), "\n")
	for _, l := range lines[1:] { // the first line is the group's own name
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		expand(t, analyze, l, into, seen)
	}
}
