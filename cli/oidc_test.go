package cli_test

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/cli"
	"github.com/vmplane/vmplane/sso/ssotest"
)

// 'login --oidc' prints the provider's address, takes back the address the browser
// ends on, and keeps the login; the same address does not sign in twice.
func TestLoginOIDC(t *testing.T) {
	idp := ssotest.Start(t, ssotest.User{ID: "root", Email: apptest.AdminEmail, Groups: []string{"ops"}})
	cfg := apptest.Config(t.TempDir())
	cfg.Addr = idp.Serve()
	cfg.OIDCProvidersFile = idp.File(cfg.Addr, map[string]string{"ops": "operator"})
	srv, err := apptest.StartConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	w := &world{t: t, base: srv.Base, vars: map[string]string{"XDG_CONFIG_HOME": t.TempDir()}}
	w.ok("remote", "add", "corp", srv.Base)

	// The person at the terminal: reads the address printed, signs in with a browser
	// of its own, and pastes the address the browser ends on.
	inR, inW := io.Pipe()
	errR, errW := io.Pipe()
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() {
		env := cli.Env{Stdin: inR, Stdout: &out, Stderr: errW, Getenv: func(k string) string { return w.vars[k] }}
		done <- cli.Execute(cli.New(env), []string{"login", "corp", "--oidc", "corp"}, env)
		errW.Close()
	}()
	var callback string
	var stderr strings.Builder
	sc := bufio.NewScanner(errR)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		stderr.WriteString(line + "\n")
		if strings.HasPrefix(line, "http") && callback == "" {
			callback = ssotest.Browse(t, srv.Base, line, "root")
			// Not here: the command may be writing its next prompt, which this loop
			// has to read first.
			go func() { _, _ = io.WriteString(inW, callback+"\n") }()

		}
	}
	if code := <-done; code != 0 || !strings.Contains(out.String(), "logged in to corp as "+apptest.AdminEmail) {
		t.Fatalf("login --oidc: exit %d, %q %q", code, out.String(), stderr.String())
	}
	var sessions []struct {
		Method  string
		Current bool
	}
	w.okJSON(&sessions, "session", "list", "--remote", "corp")
	found := false
	for _, s := range sessions {
		found = found || (s.Current && s.Method == "oidc")
	}
	if !found {
		t.Fatalf("sessions: %+v; want the current one signed in through oidc", sessions)
	}
	// The same address again: the sign-in is spent.
	if r := w.run(callback+"\n", "login", "corp", "--oidc", "corp"); r.code != 1 || !strings.Contains(r.err, "oidc_state_invalid") && !strings.Contains(r.err, "sign-in") {
		t.Fatalf("a spent callback: exit %d, %q", r.code, r.err)
	}
	w.fails(2, "", "login", "corp", "--oidc", "corp", "--email", "x@example.test")
}
