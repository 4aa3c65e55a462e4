package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/client"
)

// TestSaysWhatWasDone: remote add, switch and remove, and a delete, each say what
// they did in one line (and nothing with -o json, where stdout holds data only).
func TestSaysWhatWasDone(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"remote", "add", "test", w.base}, "added remote test (" + w.base + "), now the current one"},
		{[]string{"remote", "add", "other", w.base}, "added remote other (" + w.base + "); use it with --remote other"},
		{[]string{"remote", "switch", "other"}, "the current remote is now other (" + w.base + ")"},
		{[]string{"remote", "switch", "test"}, "the current remote is now test"},
		{[]string{"remote", "remove", "other"}, "removed remote other"},
	} {
		if out := w.ok(c.args...); !strings.HasPrefix(out, c.want) || strings.Count(out, "\n") != 1 {
			t.Errorf("vmplane %s: stdout %q; want the one line %q", strings.Join(c.args, " "), out, c.want)
		}
	}
	if out := w.ok("remote", "add", "quiet", w.base, "-o", "json"); out != "" {
		t.Errorf("remote add -o json: stdout %q; want nothing", out)
	}
	r := w.run(apptest.AdminPassword+"\n", "login", "--email", apptest.AdminEmail, "--password-stdin")
	if r.code != 0 {
		t.Fatalf("login: %d %s", r.code, r.err)
	}
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Acme")
	var hc client.HealthCheck
	w.okJSON(&hc, "health-check", "create", "--tenant", ten.ID, "--name", "web", "--type", "tcp", "--target", "127.0.0.1:9", "--enabled=false")
	if out := w.ok("health-check", "delete", hc.ID, "--tenant", ten.ID); out != "deleted health check "+hc.ID+"\n" {
		t.Errorf("health-check delete: stdout %q; want it to say so", out)
	}
	w.fails(1, "not_found", "health-check", "show", hc.ID, "--tenant", ten.ID)
}

// TestUsageErrorsSayWhatIsWrong: an empty id, a value of the wrong type, a mistyped
// command or flag, a --url with no login: each a usage line a person can act on, never
// a route, a Go parse error or a command with a blank in it.
func TestUsageErrorsSayWhatIsWrong(t *testing.T) {
	w := newWorld(t)
	w.login()
	other := strings.Replace(w.base, "127.0.0.1", "localhost", 1) // the server, under no remote
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"task", "wait", ""}, 2, "vmplane task wait: ID is empty"},
		{[]string{"machine", "show", " "}, 2, "vmplane machine show: ID is empty"},
		{[]string{"events", "--since", "abc"}, 2, `--since "abc": want a whole number`},
		{[]string{"task", "wait", "x", "--timeout", "soon"}, 2, `--timeout "soon": want a duration`},
		{[]string{"machine", "lst"}, 2, `unknown command "lst" for "vmplane machine"; did you mean list?`},
		{[]string{"machne", "list"}, 2, "did you mean machine?"},
		{[]string{"machine", "list", "--tenat", "x"}, 2, "unknown flag: --tenat; did you mean --tenant?"},
		{[]string{"tenant", "create", ""}, 2, "vmplane tenant create: NAME is empty"},
		{[]string{"machine", "list", "--url", other}, 1, "no login for " + other + ": give --token"},
	} {
		r := w.run("", c.args...)
		if r.code != c.code || !strings.Contains(r.err, c.want) || strings.Count(r.err, "\n") != 1 {
			t.Errorf("vmplane %q: exit %d, stderr %q; want exit %d and the one line %q", c.args, r.code, r.err, c.code, c.want)
		}
		for _, bad := range []string{"no route", "strconv", "login '"} {
			if strings.Contains(r.err, bad) {
				t.Errorf("vmplane %q: stderr %q shows %q", c.args, r.err, bad)
			}
		}
	}
}

// TestMachineDeleteNeedsYes: without a terminal, machine delete needs --yes and deletes
// nothing without it; with it, the machine goes.
func TestMachineDeleteNeedsYes(t *testing.T) {
	w := newWorld(t)
	w.login()
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Acme")
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "web-1", "--template", "tpl-ubuntu-24.04", "--wait")
	w.fails(2, "give --yes to confirm", "machine", "delete", m.ID)
	w.fails(2, "give --yes to confirm", "machine", "rm", m.ID, "--wait")
	w.okJSON(&m, "machine", "show", m.ID)
	if m.Status != "running" {
		t.Fatalf("after a delete without --yes: machine %s; want it still running", m.Status)
	}
	var task client.Task
	w.okJSON(&task, "machine", "delete", m.ID, "--yes", "--wait")
	if task.Status != client.TaskSucceeded {
		t.Fatalf("machine delete --yes: %+v", task)
	}
	w.fails(1, "not_found", "machine", "show", m.ID)
}
