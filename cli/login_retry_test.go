package cli_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/app/apptest"
)

// limitedServer answers POST /api/auth/login with 429 rate_limited and Retry-After
// retryAfter to the first refusals requests, and with a token pair after. It counts
// the requests.
func limitedServer(t *testing.T, refusals int, retryAfter string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/auth/login" {
			http.NotFound(w, r)
			return
		}
		if int(n.Add(1)) <= refusals {
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Retry-After", retryAfter)
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"type":"about:blank","title":"Too Many Requests","status":429,"code":"rate_limited","detail":"too many logins","request_id":"r1"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"token":"t","refresh_token":"r","token_type":"Bearer","expires_in":900,"user":{"email":"a@example.test","role":"admin"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func loginTo(t *testing.T, base string) (*world, result) {
	t.Helper()
	w := &world{t: t, base: base, vars: map[string]string{"XDG_CONFIG_HOME": t.TempDir()}}
	w.ok("remote", "add", "test", base)
	return w, w.run("password\n", "login", "--email", "a@example.test", "--password-stdin")
}

// TestLoginRetriesRateLimited: `vmplane login` retries a 429 after its Retry-After, as
// the Go client does and the README says (it failed at once); a 429 asking for longer
// than the client waits, or one more than its retries, is the error.
func TestLoginRetriesRateLimited(t *testing.T) {
	t.Parallel()
	t.Run("retried", func(t *testing.T) {
		t.Parallel()
		srv, n := limitedServer(t, 2, "0")
		w, r := loginTo(t, srv.URL)
		if r.code != 0 || n.Load() != 3 {
			t.Fatalf("got exit %d after %d requests (stderr %q); want 0 after 3", r.code, n.Load(), r.err)
		}
		if got := w.credentials()["test"].Token; got != "t" {
			t.Fatalf("got stored token %q; want the one of the answer after the 429s", got)
		}
	})
	t.Run("after Retry-After", func(t *testing.T) {
		t.Parallel()
		srv, n := limitedServer(t, 1, "1")
		if _, r := loginTo(t, srv.URL); r.code != 0 || n.Load() != 2 {
			t.Fatalf("got exit %d after %d requests (stderr %q); want 0 after 2", r.code, n.Load(), r.err)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		t.Parallel()
		srv, n := limitedServer(t, 100, "0")
		if _, r := loginTo(t, srv.URL); r.code == 0 || !strings.Contains(r.err, "too many logins") || n.Load() != 6 {
			t.Fatalf("got exit %d after %d requests (stderr %q); want the 429 after 6 (5 retries)", r.code, n.Load(), r.err)
		}
	})
	t.Run("too long a wait", func(t *testing.T) {
		t.Parallel()
		srv, n := limitedServer(t, 100, "3600")
		if _, r := loginTo(t, srv.URL); r.code == 0 || !strings.Contains(r.err, "too many logins") || n.Load() != 1 {
			t.Fatalf("got exit %d after %d requests (stderr %q); want the 429 at once", r.code, n.Load(), r.err)
		}
	})
}

// TestLoginRetriesRateLimitedByServer: the same against a real server whose auth limit
// (one request per 2 s per address, burst 1) refuses the login right after another
// request: it is retried after the Retry-After and succeeds.
func TestLoginRetriesRateLimitedByServer(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t.TempDir())
	cfg.RateAuth, cfg.RateAuthBurst = 30, 1
	a, err := app.Start(cfg, zap.NewNop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx)
	})
	base := "http://" + a.Addr()
	// Spend the address's token.
	res, err := http.Post(base+"/api/auth/login", "application/json", strings.NewReader(`{"email":"x@example.test","password":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	w := &world{t: t, base: base, vars: map[string]string{"XDG_CONFIG_HOME": t.TempDir()}}
	w.login()
	if got := w.credentials()["test"]; got.Token == "" {
		t.Fatal("no login stored")
	}
}
