package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/cli"
	"github.com/vmplane/vmplane/client"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ with the output of this run")

// world is a real server on loopback and a CLI configuration directory of its own.
type world struct {
	t    *testing.T
	base string
	vars map[string]string // the environment the commands see
}

func newWorld(t *testing.T) *world {
	t.Helper()
	srv, err := apptest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	// A fresh server knows the hypervisor's templates after its first sync.
	admin, err := client.New(srv.Base, client.WithCredentials(apptest.AdminEmail, apptest.AdminPassword))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := admin.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	return &world{t: t, base: srv.Base, vars: map[string]string{"XDG_CONFIG_HOME": t.TempDir()}}
}

// result is what one command printed and its exit status.
type result struct {
	out, err string
	code     int
}

// run runs `vmplane args...` in-process with stdin, as the binary would.
func (w *world) run(stdin string, args ...string) result {
	w.t.Helper()
	var out, errb bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return w.vars[k] }}
	code := cli.Execute(cli.New(env), args, env)
	return result{out.String(), errb.String(), code}
}

// ok runs a command that must succeed and returns its stdout.
func (w *world) ok(args ...string) string {
	w.t.Helper()
	r := w.run("", args...)
	if r.code != 0 {
		w.t.Fatalf("vmplane %s: exit %d; want 0\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.out, r.err)
	}
	return r.out
}

// okJSON runs a command with -o json and decodes its output into v.
func (w *world) okJSON(v any, args ...string) {
	w.t.Helper()
	out := w.ok(append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		w.t.Fatalf("vmplane %s -o json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// fails runs a command that must end with exit status code and an error line
// naming want on stderr.
func (w *world) fails(code int, want string, args ...string) result {
	w.t.Helper()
	r := w.run("", args...)
	if r.code != code || !strings.Contains(r.err, want) {
		w.t.Fatalf("vmplane %s: got exit %d, stderr %q; want exit %d and %q", strings.Join(args, " "), r.code, r.err, code, want)
	}
	return r
}

// login adds the server as remote "test" and logs in as the admin.
func (w *world) login() {
	w.t.Helper()
	w.ok("remote", "add", "test", w.base)
	r := w.run(apptest.AdminPassword+"\n", "login", "--email", apptest.AdminEmail, "--password-stdin")
	if r.code != 0 {
		w.t.Fatalf("login: exit %d: %s", r.code, r.err)
	}
}

func (w *world) configDir() string { return filepath.Join(w.vars["XDG_CONFIG_HOME"], "vmplane") }

func (w *world) credentials() map[string]cli.Credentials {
	w.t.Helper()
	m, err := cli.Store{Dir: w.configDir()}.LoadCredentials()
	if err != nil {
		w.t.Fatal(err)
	}
	return m
}

var (
	ulid = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)
	when = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\b`)
	port = regexp.MustCompile(`127\.0\.0\.1:\d{5}\b`) // Linux's ephemeral ports have five digits
)

// normalize replaces what changes from run to run (record ids, times) by stand-ins of
// the same width, so that table columns stay aligned as printed: the ids in order of
// first appearance (ID000...1, ID000...2), the times by one fixed time, the test
// server's port by a fixed one.
func normalize(s string) string {
	ids := map[string]string{}
	s = ulid.ReplaceAllStringFunc(s, func(id string) string {
		if ids[id] == "" {
			ids[id] = fmt.Sprintf("ID%024d", len(ids)+1)
		}
		return ids[id]
	})
	s = port.ReplaceAllString(s, "127.0.0.1:12345")
	return when.ReplaceAllString(s, "2000-01-01T00:00:00Z")
}

// golden compares out, normalized, with testdata/name.golden (or writes it with -update).
func golden(t *testing.T, name, out string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	got := normalize(out)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cli -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s: got\n%s\nwant\n%s", path, got, want)
	}
}

func jsonInto(s string, v any) error { return json.Unmarshal([]byte(s), v) }
