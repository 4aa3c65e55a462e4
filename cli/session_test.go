package cli_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/cli"
)

// expire makes the stored access token of remote look expired, so that the next
// command renews it; with spend it also replaces the refresh token by one the server
// never issued, as if the login had ended.
func (w *world) expire(remote string, spend bool) cli.Credentials {
	w.t.Helper()
	st := cli.Store{Dir: w.configDir()}
	var before cli.Credentials
	err := st.UpdateCredentials(remote, func(cur cli.Credentials, ok bool) (*cli.Credentials, error) {
		if !ok {
			w.t.Fatalf("no login of %s stored", remote)
		}
		before = cur
		cur.ExpiresAt = time.Now().Add(-time.Minute)
		if spend {
			cur.RefreshToken = "spent." + cur.RefreshToken
		}
		return &cur, nil
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return before
}

// TestRefreshPersistsRotatedTokens: a stored login whose access token expired is
// renewed by the next command, which stores the rotated refresh token (the old one
// is spent) and goes on; a token the server refuses is renewed once the same way.
func TestRefreshPersistsRotatedTokens(t *testing.T) {
	w := newWorld(t)
	w.login()
	before := w.expire("test", false)
	w.ok("template", "list")
	after := w.credentials()["test"]
	// (The access token may be the same string: a JWT's times have a resolution of
	// one second.)
	if after.RefreshToken == before.RefreshToken || time.Until(after.ExpiresAt) < 5*time.Minute {
		t.Fatalf("after a renewal: got %+v; want a rotated refresh token, expiring later (was %+v)", after, before)
	}
	// Again: the stored (rotated) refresh token works, so it was the live one.
	w.expire("test", false)
	w.ok("tenant", "list")

	// An access token the server refuses (a forged one here) is renewed on the 401.
	st := cli.Store{Dir: w.configDir()}
	_ = st.UpdateCredentials("test", func(cur cli.Credentials, _ bool) (*cli.Credentials, error) {
		cur.Token = "forged"
		return &cur, nil
	})
	w.ok("tenant", "list")
	if got := w.credentials()["test"].Token; got == "forged" {
		t.Fatal("the refused token was kept")
	}
}

// TestLoginEnded: when the stored login can no longer be renewed, a command fails at
// once with exit status 1 and says to log in again, and the dead login is removed.
func TestLoginEnded(t *testing.T) {
	w := newWorld(t)
	w.login()
	w.expire("test", true)
	r := w.fails(1, "the login to test has ended (invalid_refresh_token): run 'vmplane login test'", "tenant", "list")
	if strings.Count(r.err, "\n") != 1 {
		t.Fatalf("stderr %q; want one line", r.err)
	}
	if _, ok := w.credentials()["test"]; ok {
		t.Fatal("the ended login is still stored")
	}
	w.fails(1, "not logged in to test", "tenant", "list")
	w.login2()
	w.ok("tenant", "list")
}

// login2 logs in again to the remote "test" that exists already.
func (w *world) login2() {
	w.t.Helper()
	if r := w.run("correct horse battery staple\n", "login", "--email", "admin@example.test", "--password-stdin"); r.code != 0 {
		w.t.Fatalf("login: %d %s", r.code, r.err)
	}
}

// TestConcurrentRefresh: commands run at once with an expired token each need a
// renewal, and the server takes a refresh token spent twice for theft (it ends the
// login). The store's lock makes one of them renew and the others take its tokens:
// all succeed and the login lives on.
func TestConcurrentRefresh(t *testing.T) {
	w := newWorld(t)
	w.login()
	for round := 0; round < 3; round++ {
		w.expire("test", false)
		var wg sync.WaitGroup
		results := make([]result, 6)
		for i := range results {
			wg.Go(func() { results[i] = w.run("", "template", "list", "-o", "json") })
		}
		wg.Wait()
		for i, r := range results {
			if r.code != 0 {
				t.Fatalf("round %d, command %d: exit %d: %s", round, i, r.code, r.err)
			}
		}
	}
	w.ok("tenant", "list")
}

// TestStaticToken: --token (or VMPLANE_TOKEN) and --url (or VMPLANE_URL) need no
// remote and no stored login.
func TestStaticToken(t *testing.T) {
	w := newWorld(t)
	w.login()
	tok := w.credentials()["test"].Token
	other := &world{t: t, base: w.base, vars: map[string]string{"XDG_CONFIG_HOME": t.TempDir()}}
	if out := other.ok("template", "list", "--url", w.base, "--token", tok); !strings.Contains(out, "tpl-debian-12") {
		t.Fatalf("template list with --token: %q", out)
	}
	other.vars["VMPLANE_URL"], other.vars["VMPLANE_TOKEN"] = w.base, tok
	other.ok("tenant", "list")
	other.vars["VMPLANE_TOKEN"] = "forged"
	other.fails(1, "unauthorized", "tenant", "list")
	if cfg, err := (cli.Store{Dir: other.configDir()}).LoadConfig(); err != nil || len(cfg.Remotes) != 0 {
		t.Fatalf("config: %+v, %v; want no remote added", cfg, err)
	}
}
