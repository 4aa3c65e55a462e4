package cli_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/vmplane/vmplane/client"
)

// TestFlow is an operator's session from a shell, against a real server: a remote and
// a login, a tenant and its user, a machine created, powered, resized and deleted
// with --wait, firewall rules, the overview, tasks and events; tables compared with
// golden files, JSON and YAML read back.
func TestFlow(t *testing.T) {
	w := newWorld(t)
	w.login()
	golden(t, "remote_list", w.ok("remote", "list"))

	// The configuration directory is private: the credentials open the account.
	st, err := os.Stat(w.configDir())
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("config dir: %v, mode %v; want 0700", err, st.Mode().Perm())
	}
	for _, f := range []string{"config.json", "credentials.json"} {
		st, err := os.Stat(filepath.Join(w.configDir(), f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v, mode %v; want 0600", f, err, st.Mode().Perm())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.configDir(), "credentials.json")); strings.Contains(string(b), "correct horse") {
		t.Fatal("credentials.json holds the password; it must keep only the tokens")
	}

	golden(t, "template_list", w.ok("template", "list"))

	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Acme", "--quota-machines", "3")
	if ten.Name != "Acme" || ten.Quota.Machines != 3 || ten.ID == "" {
		t.Fatalf("tenant create: got %+v; want Acme with 3 machines", ten)
	}
	w.ok("tenant", "create", "Globex")
	golden(t, "tenant_list", w.ok("tenant", "list"))
	w.okJSON(&ten, "tenant", "update", ten.ID, "--quota-cores", "16")
	if ten.Quota.CPUCores != 16 || ten.Quota.Machines != 3 {
		t.Fatalf("tenant update: got %+v; want 16 cores, 3 machines", ten.Quota)
	}
	w.okJSON(&ten, "tenant", "update", ten.ID, "--quota-backups", "4", "--quota-snapshots", "2", "--quota-backup-gb", "50")
	if ten.Quota.Backups != 4 || ten.Quota.Snapshots != 2 || ten.Quota.BackupGB != 50 || ten.Quota.CPUCores != 16 {
		t.Fatalf("tenant update: got %+v; want 4 backups, 2 snapshots, 50 backup GB, 16 cores", ten.Quota)
	}

	r := w.run("a long enough password\n", "user", "create", "--tenant", ten.ID, "--email", "ops@acme.test", "--name", "Acme Ops", "--password-stdin", "-o", "json")
	var u client.User
	if r.code != 0 || jsonInto(r.out, &u) != nil || u.Email != "ops@acme.test" || u.TenantID == nil || *u.TenantID != ten.ID {
		t.Fatalf("user create: exit %d, %q, %s", r.code, r.out, r.err)
	}
	var users []client.User
	w.okJSON(&users, "user", "list", "--tenant", ten.ID)
	if len(users) != 1 || users[0].ID != u.ID {
		t.Fatalf("user list --tenant: got %+v; want the one user", users)
	}
	w.okJSON(&u, "user", "update", u.ID, "--name", "Ada")
	if u.Name != "Ada" {
		t.Fatalf("user update: got name %q", u.Name)
	}

	// A machine, built with --wait: the progress goes to stderr, the machine to stdout.
	r = w.run("", "machine", "create", "--tenant", ten.ID, "--name", "web-1", "--template", "Debian 12 (bookworm)", "--plan", "medium", "--memory", "2G", "--wait", "-o", "json")
	var m client.Machine
	if r.code != 0 || jsonInto(r.out, &m) != nil {
		t.Fatalf("machine create --wait: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	if m.Status != "running" || m.CPUCores != 2 || m.MemoryMB != 2048 || m.DiskGB != 40 || m.TemplateID != "tpl-debian-12" {
		t.Fatalf("machine create: got %+v; want running, 2 cores, 2048 MB, 40 GB, tpl-debian-12", m)
	}
	if !strings.Contains(r.err, "waiting for task") || !strings.Contains(r.err, "succeeded after") {
		t.Fatalf("machine create --wait: stderr %q; want the progress lines", r.err)
	}
	golden(t, "machine_list", w.ok("machine", "list", "--tenant", ten.ID))
	// The tenant list counts the machines against the quota.
	if out := w.ok("tenant", "list"); !regexp.MustCompile(`(?m)^` + ten.ID + ` +Acme +1/3 `).MatchString(out) {
		t.Fatalf("tenant list: got\n%s\nwant Acme holding 1 machine of 3", out)
	}
	golden(t, "machine_show", w.ok("machine", "show", m.ID))

	// Power actions: the operator names no tenant, the CLI finds the machine's.
	var task client.Task
	w.okJSON(&task, "machine", "stop", m.ID, "--wait")
	if task.Status != client.TaskSucceeded || task.TargetID != m.ID {
		t.Fatalf("machine stop --wait: got %+v; want a succeeded task of the machine", task)
	}
	var stopped map[string]any
	if err := yaml.Unmarshal([]byte(w.ok("machine", "show", m.ID, "-o", "yaml")), &stopped); err != nil || stopped["status"] != "stopped" || stopped["cpu_cores"] != 2 {
		t.Fatalf("machine show -o yaml: %v, %v; want status stopped with the API's field names", err, stopped)
	}
	w.okJSON(&task, "machine", "start", m.ID)
	w.okJSON(&task, "task", "wait", task.ID)
	if task.Status != client.TaskSucceeded || task.Type != "vm.start" {
		t.Fatalf("task wait: got %+v; want vm.start succeeded", task)
	}
	golden(t, "task_show", w.ok("task", "show", task.ID))
	w.okJSON(&task, "machine", "resize", m.ID, "--cores", "4", "--wait")
	w.okJSON(&m, "machine", "show", m.ID)
	if m.CPUCores != 4 {
		t.Fatalf("resize: got %d cores; want 4", m.CPUCores)
	}

	// The serial console: the simulated machine's shell answers, exit ends the session.
	r = w.run("hostname\nexit\n", "machine", "console", m.ID)
	if r.code != 0 || !regexp.MustCompile(`(?m)# hostname\r?\nweb-1\r?$`).MatchString(r.out) {
		t.Fatalf("machine console: exit %d, stdout %q, stderr %q; want hostname answered with web-1", r.code, r.out, r.err)
	}
	// --vnc prints the graphical console's websocket URL, with its ticket, for noVNC.
	if out := w.ok("machine", "console", m.ID, "--vnc"); !regexp.MustCompile(`^ws://.*/machines/` + m.ID + `/console/ws\?ticket=\S+\n$`).MatchString(out) {
		t.Fatalf("machine console --vnc: %q; want the websocket URL", out)
	}

	// Firewall rules of the tenant.
	var rule client.FirewallRule
	w.okJSON(&rule, "firewall", "add", "--tenant", ten.ID, "--direction", "in", "--action", "accept", "--protocol", "tcp", "--port", "22", "--comment", "ssh")
	w.ok("firewall", "add", "--tenant", ten.ID, "--direction", "in", "--action", "drop", "--protocol", "any", "--machine", m.ID, "--source", "198.51.100.0/24")
	golden(t, "firewall_list", w.ok("firewall", "list", "--tenant", ten.ID))
	w.okJSON(&rule, "firewall", "update", rule.ID, "--tenant", ten.ID, "--port", "2222", "--enabled=false")
	if rule.Port == nil || *rule.Port != "2222" || rule.Enabled || rule.Comment != "ssh" {
		t.Fatalf("firewall update: got %+v; want port 2222, disabled, comment kept", rule)
	}
	w.fails(1, "invalid_request", "firewall", "add", "--tenant", ten.ID, "--direction", "in", "--action", "accept", "--protocol", "tcp", "--source", "not-a-cidr")
	w.ok("firewall", "delete", rule.ID, "--tenant", ten.ID)
	var rules []client.FirewallRule
	w.okJSON(&rules, "firewall", "list", "--tenant", ten.ID)
	if len(rules) != 1 || rules[0].ID == rule.ID {
		t.Fatalf("firewall list after delete: got %+v; want the other rule only", rules)
	}

	golden(t, "overview", w.ok("overview", "--tenant", ten.ID))

	// The event stream: the backlog replayed, each event a JSON line.
	out := w.ok("events", "--since", "0", "--limit", "3", "-o", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("events --limit 3: got %d lines; want 3:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var ev struct {
			ID   uint64         `json:"id"`
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := jsonInto(l, &ev); err != nil || ev.ID == 0 || ev.Type == "" || ev.Data["id"] == nil {
			t.Fatalf("event line %q: %v", l, err)
		}
	}
	if out := w.ok("events", "--since", "0", "--limit", "1"); !strings.Contains(out, ".updated") {
		t.Fatalf("events table: %q; want an event line", out)
	}

	// The tenant's own user logs in to the same server under a second remote name.
	w.ok("remote", "add", "acme", w.base)
	if r := w.run("a long enough password\n", "login", "acme", "--email", "ops@acme.test", "--password-stdin"); r.code != 0 {
		t.Fatalf("login acme: %d %s", r.code, r.err)
	}
	var mine []client.Machine
	w.okJSON(&mine, "machine", "list", "--remote", "acme", "--name", "web-1")
	if len(mine) != 1 || mine[0].ID != m.ID {
		t.Fatalf("the tenant's user lists %+v; want its machine web-1", mine)
	}
	// It creates a machine of its own (no --tenant: its tenant is its own), within the
	// quota, and meets the quota beyond it.
	var m2 client.Machine
	w.okJSON(&m2, "machine", "create", "--remote", "acme", "--name", "web-2", "--template", "tpl-ubuntu-24.04", "--wait")
	if m2.Status != "running" || m2.TenantID == nil || *m2.TenantID != ten.ID || m2.CPUCores != 1 {
		t.Fatalf("the user's machine: got %+v; want a running small machine of its tenant", m2)
	}
	w.fails(1, "vmplane: quota_exceeded: ", "machine", "create", "--remote", "acme", "--name", "web-3", "--template", "tpl-ubuntu-24.04", "--cores", "64")
	w.fails(1, "forbidden", "tenant", "list", "--remote", "acme")
	// Its own machine's console is the user's too (the client area's); a migration is not.
	w.ok("machine", "console", m.ID, "--remote", "acme")
	w.fails(1, "forbidden", "machine", "migrate", m.ID, "--node", "pve2", "--remote", "acme")
	w.ok("remote", "switch", "acme")
	w.okJSON(&mine, "machine", "list")
	if len(mine) != 2 {
		t.Fatalf("after remote switch: got %d machines; want 2", len(mine))
	}
	// Its own account: a second session (an API client elsewhere) is listed and
	// ended; the password changes, the CLI's own session goes on, the old password
	// no longer signs in.
	elsewhere, err := client.New(w.base, client.WithCredentials("ops@acme.test", "a long enough password"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := elsewhere.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	var sessions []client.Session
	w.okJSON(&sessions, "session", "list")
	if len(sessions) != 2 || !sessions[1].Current || sessions[0].Current {
		t.Fatalf("session list: %+v; want the API client's session, then the CLI's (current)", sessions)
	}
	if sessions[1].UserAgent != "vmplane-cli" || sessions[0].UserAgent != client.DefaultUserAgent {
		t.Fatalf("session list: %+v; want the CLI's and the Go client's user agents", sessions)
	}
	if out := w.ok("session", "list"); !regexp.MustCompile(sessions[1].ID + `\s+\*\s`).MatchString(out) {
		t.Fatalf("session table: %q; want the CLI's own session marked *", out)
	}
	w.ok("session", "end", sessions[0].ID)
	w.fails(1, "not_found", "session", "end", sessions[0].ID)
	if r := w.run("wrong password\nanother long password\n", "password", "--password-stdin"); r.code != 1 || !strings.Contains(r.err, "current_password") {
		t.Fatalf("password with a wrong current one: %d %q; want exit 1 naming current_password", r.code, r.err)
	}
	if r := w.run("a long enough password\nanother long password\n", "password", "--password-stdin"); r.code != 0 {
		t.Fatalf("password: %d %s", r.code, r.err)
	}
	w.okJSON(&sessions, "session", "list")
	if len(sessions) != 1 || !sessions[0].Current {
		t.Fatalf("after the password change: %+v; want the CLI's session alone", sessions)
	}
	old, err := client.New(w.base, client.WithCredentials("ops@acme.test", "a long enough password"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Login(context.Background()); !errors.Is(err, client.ErrInvalidCredentials) {
		t.Fatalf("the old password: %v; want invalid credentials", err)
	}
	w.ok("logout")
	w.fails(1, "not logged in to acme", "machine", "list")
	w.ok("remote", "switch", "test")

	w.okJSON(&task, "machine", "delete", m.ID, "--yes", "--wait")
	w.okJSON(&task, "machine", "delete", m2.ID, "--yes", "--wait")
	w.fails(1, "not_found", "machine", "show", m.ID)
	w.ok("user", "delete", u.ID)
	w.ok("tenant", "delete", ten.ID)
	w.fails(1, "not_found", "tenant", "show", ten.ID)
	w.ok("remote", "remove", "acme")
	if _, ok := w.credentials()["acme"]; ok {
		t.Fatal("remote remove kept the remote's login")
	}
}
