package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/cli"
	"github.com/vmplane/vmplane/persistence"
)

// call makes one API request and returns status and body.
func call(t *testing.T, method, url, tok, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// runCmd runs `vmplane args...` as a process and returns its status and output.
func runCmd(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	p := startProc(t, env, args...)
	code := p.exitCode(2 * time.Minute)
	return code, strings.TrimSpace(p.output())
}

// TestBackupRestoreCommands: `vmplane admin backup` saves a running server's store (and
// refuses, in one line, a missing, bad or non-operator token, leaving the target file
// alone); `vmplane admin restore` refuses a held directory, a non-empty one and a
// damaged backup, and loads a good one into an empty directory, where a server serves
// it. The spellings from before `admin` (`vmplane backup --out`, `vmplane restore`)
// still work and say what to use.
func TestBackupRestoreCommands(t *testing.T) {
	t.Parallel()
	env := baseEnv(t)
	srcDir := strings.TrimPrefix(env[1], "VMPLANE_DATA_DIR=")
	src := startProc(t, env, "serve")
	base := src.addr()
	admin := login(t, base)
	if st, body := call(t, "POST", base+"/api/resources/tenants", admin, `{"name":"Kept"}`); st != 201 {
		t.Fatalf("create tenant: %d %s", st, body)
	}
	_, body := call(t, "GET", base+"/api/resources/tenants", admin, "")
	if !strings.Contains(body, `"Kept"`) {
		t.Fatalf("tenants: %s", body)
	}
	st, body := call(t, "POST", base+"/api/resources/users", admin,
		`{"email":"u@example.test","name":"U","role":"user","password":"user-password-1","tenant_id":"`+tenantID(t, body)+`"}`)
	if st != 201 {
		t.Fatalf("create user: %d %s", st, body)
	}
	st, body = call(t, "POST", base+"/api/auth/login", "", `{"email":"u@example.test","password":"user-password-1"}`)
	if st != 200 {
		t.Fatalf("user login: %d %s", st, body)
	}
	userTok := jsonField(t, body, "token")

	out := filepath.Join(t.TempDir(), "vmplane.backup")
	if err := os.WriteFile(out, []byte("the previous backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	noLogin := "XDG_CONFIG_HOME=" + t.TempDir() // no saved login of the command-line client
	for _, c := range []struct {
		name, token string
		code        int
		want        string
	}{
		{"no token and no saved login", "", 2, "VMPLANE_TOKEN is not set and there is no saved login"},
		{"a bad token", "not-a-token", 1, "refused the token (401"},
		{"a user's token", userTok, 1, "(403 forbidden): it takes an operator's"},
	} {
		code, got := runCmd(t, []string{"VMPLANE_TOKEN=" + c.token, noLogin}, "admin", "backup", "--url", base, "--out", out)
		if code != c.code || strings.Count(got, "\n") != 0 || !strings.Contains(got, c.want) {
			t.Errorf("backup with %s: status %d, %q; want status %d and one line with %q", c.name, code, got, c.code, c.want)
		}
	}
	// An --out in a folder that does not exist: one line naming it, before any request.
	missing := filepath.Join(t.TempDir(), "no-such-folder", "vmplane.backup")
	if code, got := runCmd(t, []string{"VMPLANE_TOKEN=" + admin}, "admin", "backup", "--url", base, "--out", missing); code != 1 ||
		got != "vmplane backup: --out "+missing+": the folder "+filepath.Dir(missing)+" does not exist" {
		t.Errorf("backup to a missing folder: status %d, %q; want 1 and one line naming the folder", code, got)
	}
	// `vmplane backup list` is the client's verb for machines' backups, not the store's.
	if code, got := runCmd(t, []string{"VMPLANE_URL=", noLogin}, "backup", "list"); code != 2 || !strings.Contains(got, "no remote") {
		t.Errorf("backup list: status %d, %q; want the client's verb (no remote configured: 2)", code, got)
	}
	if b, _ := os.ReadFile(out); string(b) != "the previous backup" {
		t.Errorf("a refused backup changed %s: %q", out, b)
	}
	code, got := runCmd(t, []string{"VMPLANE_TOKEN=" + admin}, "admin", "backup", "--url", base, "--out", out)
	if code != 0 || !strings.Contains(got, "written to "+out) {
		t.Fatalf("backup: status %d, %s", code, got)
	}
	// The old spelling, flags only on the client's backup verbs, still takes it (Go's
	// single-dash flags too), and names the new one.
	old := filepath.Join(t.TempDir(), "old.backup")
	code, got = runCmd(t, []string{"VMPLANE_TOKEN=" + admin}, "backup", "--url", base, "-out", old)
	if code != 0 || !strings.Contains(got, "written to "+old) || !strings.Contains(got, "'vmplane admin backup --out'") {
		t.Fatalf("backup --out (the old spelling): status %d, %s", code, got)
	}
	// Without VMPLANE_TOKEN, the saved login of the command-line client (vmplane login)
	// of its current remote is used.
	cfgHome := t.TempDir()
	store := cli.Store{Dir: filepath.Join(cfgHome, "vmplane")}
	if err := store.SaveConfig(&cli.Config{Current: "src", Remotes: []cli.Remote{{Name: "src", URL: base}}}); err != nil {
		t.Fatal(err)
	}
	if err := store.SaveCredentials(map[string]cli.Credentials{"src": {Email: "admin@localhost", Token: admin,
		ExpiresAt: time.Now().Add(10 * time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	viaLogin := filepath.Join(t.TempDir(), "via-login.backup")
	code, got = runCmd(t, []string{"VMPLANE_TOKEN=", "VMPLANE_URL=", "XDG_CONFIG_HOME=" + cfgHome}, "admin", "backup", "--out", viaLogin)
	if code != 0 || !strings.Contains(got, "written to "+viaLogin) {
		t.Fatalf("backup with the saved login: status %d, %s", code, got)
	}
	if es, _ := os.ReadDir(filepath.Dir(out)); len(es) != 1 {
		t.Errorf("the backup left files beside it: %v", es)
	}

	// Restores that are refused.
	code, got = runCmd(t, nil, "admin", "restore", out, "--data-dir", srcDir)
	if want := "is in use by vmplane process " + strconv.Itoa(src.cmd.Process.Pid); code != 1 || !strings.Contains(got, want) {
		t.Errorf("restore into the running server's directory: status %d, %q; want 1 and %q", code, got, want)
	}
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "notes.txt"), []byte("x"), 0o600)
	code, got = runCmd(t, nil, "admin", "restore", "--data-dir", full, out)
	if code != 1 || !strings.Contains(got, "is not empty (it holds notes.txt)") {
		t.Errorf("restore into a non-empty directory: status %d, %q", code, got)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.backup")
	os.WriteFile(cut, raw[:len(raw)-10], 0o600)
	empty := filepath.Join(t.TempDir(), "empty")
	code, got = runCmd(t, nil, "admin", "restore", cut, "--data-dir", empty)
	if code != 1 || !strings.Contains(got, "not a usable vmplane backup: it is truncated") {
		t.Errorf("restore of a cut backup: status %d, %q", code, got)
	}
	if es, _ := os.ReadDir(empty); len(es) != 0 {
		t.Errorf("a refused restore wrote %v", es)
	}

	// The restore, into a directory holding only a lock file (as a stopped server leaves it).
	dst := filepath.Join(t.TempDir(), "restored")
	os.MkdirAll(dst, 0o700)
	os.WriteFile(filepath.Join(dst, persistence.LockFile), nil, 0o600)
	code, got = runCmd(t, nil, "admin", "restore", out, "--data-dir", dst)
	if code != 0 || !strings.Contains(got, "restored "+out) {
		t.Fatalf("restore: status %d, %s", code, got)
	}
	// The old spelling restores too, and names the new one.
	oldDst := filepath.Join(t.TempDir(), "restored-old")
	code, got = runCmd(t, nil, "restore", old, "-data-dir", oldDst)
	if code != 0 || !strings.Contains(got, "restored "+old) || !strings.Contains(got, "'vmplane admin restore'") {
		t.Fatalf("restore (the old spelling): status %d, %s", code, got)
	}
	stop(t, src)
	// The same settings, the restored directory (the last VMPLANE_DATA_DIR wins).
	second := startProc(t, append(env, "VMPLANE_DATA_DIR="+dst), "serve")
	base2 := second.addr()
	if _, body := call(t, "GET", base2+"/api/resources/tenants", login(t, base2), ""); !strings.Contains(body, `"Kept"`) {
		t.Errorf("the restored server's tenants: %s", body)
	}
	if st, _ := call(t, "POST", base2+"/api/auth/login", "", `{"email":"u@example.test","password":"user-password-1"}`); st != 200 {
		t.Errorf("the user's login on the restored server: %d", st)
	}
	stop(t, second)
}

func tenantID(t *testing.T, tenants string) string {
	t.Helper()
	i := strings.Index(tenants, `"name":"Kept"`)
	j := strings.LastIndex(tenants[:i], `"id":"`)
	if i < 0 || j < 0 {
		t.Fatalf("no tenant Kept in %s", tenants)
	}
	id := tenants[j+len(`"id":"`):]
	return id[:strings.IndexByte(id, '"')]
}

func jsonField(t *testing.T, body, field string) string {
	t.Helper()
	k := `"` + field + `":"`
	i := strings.Index(body, k)
	if i < 0 {
		t.Fatalf("no %s in %s", field, body)
	}
	v := body[i+len(k):]
	return v[:strings.IndexByte(v, '"')]
}

// TestServeRefusesNewerStore: a data directory stamped by a newer vmplane stops serve
// with status 2 and one line naming the directory and both versions.
func TestServeRefusesNewerStore(t *testing.T) {
	t.Parallel()
	env := baseEnv(t)
	dir := strings.TrimPrefix(env[1], "VMPLANE_DATA_DIR=")
	st, err := persistence.Open(persistence.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	newer := persistence.SchemaVersion + 1
	key := persistence.Key(persistence.KindMeta, "schema-version")
	if err := st.Commit(context.Background(), new(persistence.Batch).Put(key, []byte(strconv.Itoa(newer)))); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, got := runCmd(t, env, "serve")
	want := "vmplane: data directory " + dir + ": the store has schema version " + strconv.Itoa(newer) +
		", newer than this vmplane knows (" + strconv.Itoa(persistence.SchemaVersion) + ")"
	if code != 2 || strings.Count(got, "\n") != 0 || !strings.HasPrefix(got, want) {
		t.Errorf("serve on a newer store: status %d\n%s\nwant status 2 and one line starting %q", code, got, want)
	}
}
