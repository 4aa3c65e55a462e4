package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/client"
)

// recorder is an httptest server whose answers the test scripts: answer n serves the
// n-th request (the last one serves every later request too). It records the
// Idempotency-Key of every request.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	keys []string
	n    atomic.Int32
}

func newRecorder(t *testing.T, answers ...http.HandlerFunc) *recorder {
	t.Helper()
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		i := int(r.n.Add(1)) - 1
		r.mu.Lock()
		r.keys = append(r.keys, req.Header.Get("Idempotency-Key"))
		r.mu.Unlock()
		answers[min(i, len(answers)-1)](w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) requests() int { return int(r.n.Load()) }

func status(code int, hdr map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range hdr {
			w.Header().Set(k, v)
		}
		if strings.HasPrefix(body, `{"type"`) {
			w.Header().Set("Content-Type", "application/problem+json")
		}
		w.WriteHeader(code)
		w.Write([]byte(body))
	}
}

// drop closes the connection without an answer, as a crashing server or a proxy does.
func drop(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

const tenantJSON = `{"id":"t1","name":"Acme","quota":{"machines":5,"cpu_cores":8,"memory_mb":8192,"disk_gb":100},"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z"}`

func problemJSON(status int, code, detail string) string {
	return `{"type":"about:blank","title":"x","status":` + itoa(status) + `,"code":"` + code + `","detail":"` + detail + `","request_id":"req-1"}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func newTestClient(t *testing.T, base string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(base, append([]client.Option{client.WithToken("tok")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRetry503And429SameKey: 503 and 429 answers are retried, as Retry-After asks, and
// every try of the POST carries the same Idempotency-Key.
func TestRetry503And429SameKey(t *testing.T) {
	t.Parallel()
	r := newRecorder(t,
		status(503, map[string]string{"Retry-After": "1"}, problemJSON(503, "unavailable", "shutting down")),
		status(429, map[string]string{"RateLimit-Reset": "1"}, problemJSON(429, "rate_limited", "slow down")),
		status(201, nil, tenantJSON))
	var waits []time.Duration
	c := newTestClient(t, r.srv.URL, client.WithPause(func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}))
	ten, err := c.CreateTenant(context.Background(), client.TenantCreate{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	if ten.ID != "t1" || ten.Quota.Machines != 5 {
		t.Fatalf("got %+v", ten)
	}
	if r.requests() != 3 {
		t.Fatalf("got %d requests; want 3", r.requests())
	}
	if r.keys[0] == "" || r.keys[1] != r.keys[0] || r.keys[2] != r.keys[0] {
		t.Fatalf("Idempotency-Keys %q: want one key, the same on every try", r.keys)
	}
	// Retry-After and RateLimit-Reset each asked for a second.
	if len(waits) != 2 || waits[0] != time.Second || waits[1] != time.Second {
		t.Fatalf("waited %v between the tries; the server asked for 1s twice", waits)
	}
}

// TestRetry409InProgressSameKey: a 409 with Retry-After for our key (its first try
// still runs, or ran on a member that died) is retried with the same key.
func TestRetry409InProgressSameKey(t *testing.T) {
	t.Parallel()
	r := newRecorder(t,
		status(409, map[string]string{"Retry-After": "1"}, problemJSON(409, "conflict", "a request with this Idempotency-Key is still in progress")),
		status(201, nil, tenantJSON))
	c := newTestClient(t, r.srv.URL)
	if _, err := c.CreateTenant(context.Background(), client.TenantCreate{Name: "Acme"}); err != nil {
		t.Fatal(err)
	}
	if r.requests() != 2 || r.keys[0] == "" || r.keys[1] != r.keys[0] {
		t.Fatalf("got %d requests with keys %q; want 2 with one key", r.requests(), r.keys)
	}
}

// TestRetryDroppedConnection: a connection dropped without an answer is retried with
// the same key.
func TestRetryDroppedConnection(t *testing.T) {
	t.Parallel()
	r := newRecorder(t, drop, drop, status(201, nil, tenantJSON))
	c := newTestClient(t, r.srv.URL)
	if _, err := c.CreateTenant(context.Background(), client.TenantCreate{Name: "Acme"}); err != nil {
		t.Fatal(err)
	}
	if r.requests() != 3 || r.keys[0] == "" || r.keys[1] != r.keys[0] || r.keys[2] != r.keys[0] {
		t.Fatalf("got %d requests with keys %q; want 3 with one key", r.requests(), r.keys)
	}
}

// TestNo4xxRetry: a 4xx other than 429 is final, including the 409 conflict a server
// gives (without Retry-After) for a key whose first request a crash cut short; the
// error carries the problem.
func TestNo4xxRetry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		code   string
		kind   error
	}{
		{409, "conflict", client.ErrConflict},
		{409, "quota_exceeded", client.ErrQuotaExceeded},
		{404, "not_found", client.ErrNotFound},
		{400, "invalid_request", client.ErrInvalidRequest},
		{422, "idempotency_key_reused", client.ErrIdempotencyKeyReused},
	} {
		body := `{"type":"about:blank","title":"x","status":` + itoa(tc.status) + `,"code":"` + tc.code +
			`","detail":"d","request_id":"req-9","errors":[{"field":"name","message":"too long"}]}`
		r := newRecorder(t, status(tc.status, nil, body), status(201, nil, tenantJSON))
		c := newTestClient(t, r.srv.URL)
		_, err := c.CreateTenant(context.Background(), client.TenantCreate{Name: "Acme"})
		if !errors.Is(err, tc.kind) || r.requests() != 1 {
			t.Fatalf("%s: got %v after %d requests; want %v after 1", tc.code, err, r.requests(), tc.kind)
		}
		var e *client.Error
		if !errors.As(err, &e) || e.Status != tc.status || e.Detail != "d" || e.RequestID != "req-9" ||
			len(e.Fields) != 1 || e.Fields[0].Field != "name" {
			t.Fatalf("%s: got %#v", tc.code, e)
		}
		if errors.Is(err, client.ErrUnavailable) {
			t.Fatalf("%s matches ErrUnavailable", tc.code)
		}
	}
}

// TestEmptyIDIsRefused: an empty id is refused before anything is sent, instead of
// reaching another route (or none) of the server.
func TestEmptyIDIsRefused(t *testing.T) {
	t.Parallel()
	r := newRecorder(t, status(200, nil, tenantJSON))
	c := newTestClient(t, r.srv.URL)
	if _, err := c.GetTenant(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "an id in the path is empty") {
		t.Fatalf("GetTenant(\"\"): got %v; want the empty id named", err)
	}
	if _, err := c.GetTask(context.Background(), ""); err == nil {
		t.Fatal("GetTask(\"\"): no error")
	}
	if n := r.requests(); n != 0 {
		t.Fatalf("%d requests sent; want none", n)
	}
}

// TestRetryBudget: retries stop after the budget, with the last answer as the error,
// and at once when the server asks for a longer pause than the client may wait.
func TestRetryBudget(t *testing.T) {
	t.Parallel()
	r := newRecorder(t, status(503, nil, problemJSON(503, "unavailable", "store")))
	c := newTestClient(t, r.srv.URL, client.WithRetryBudget(2, time.Second))
	if _, err := c.GetTenant(context.Background(), "t1"); !errors.Is(err, client.ErrUnavailable) || r.requests() != 3 {
		t.Fatalf("got %v after %d requests; want unavailable after 3", err, r.requests())
	}

	r = newRecorder(t, status(429, map[string]string{"Retry-After": "120"}, problemJSON(429, "rate_limited", "")), status(200, nil, tenantJSON))
	c = newTestClient(t, r.srv.URL, client.WithRetryBudget(5, 10*time.Second))
	if _, err := c.GetTenant(context.Background(), "t1"); !errors.Is(err, client.ErrRateLimited) || r.requests() != 1 {
		t.Fatalf("got %v after %d requests; want rate_limited after 1", err, r.requests())
	}

	r = newRecorder(t, drop)
	c = newTestClient(t, r.srv.URL, client.WithRetryBudget(1, time.Second))
	var e *client.Error
	if _, err := c.GetTenant(context.Background(), "t1"); err == nil || errors.As(err, &e) || r.requests() != 2 {
		t.Fatalf("got %v after %d requests; want a network error after 2", err, r.requests())
	}
}

// TestNonProblemError: an error answer that is not problem JSON (a proxy's page) still
// gets the API's code for its status.
func TestNonProblemError(t *testing.T) {
	t.Parallel()
	r := newRecorder(t, status(404, nil, "<html>nope</html>"))
	c := newTestClient(t, r.srv.URL)
	if _, err := c.GetTenant(context.Background(), "x"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("got %v; want not_found", err)
	}
}

// TestIdempotencyKeyFromContext: a key given by the caller is the one sent.
func TestIdempotencyKeyFromContext(t *testing.T) {
	t.Parallel()
	r := newRecorder(t, status(201, nil, tenantJSON))
	c := newTestClient(t, r.srv.URL)
	ctx := client.WithIdempotencyKey(context.Background(), "order-42")
	if _, err := c.CreateTenant(ctx, client.TenantCreate{Name: "Acme"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTenant(context.Background(), client.TenantCreate{Name: "Acme"}); err != nil {
		t.Fatal(err)
	}
	if r.keys[0] != "order-42" || r.keys[1] == "" || r.keys[1] == "order-42" || len(r.keys[1]) != 32 {
		t.Fatalf("got keys %q; want order-42, then a fresh random one", r.keys)
	}
}

// TestFailover: a member that refuses connections, or drops them, is left for the next
// one, which stays in use.
func TestFailover(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	dropping := newRecorder(t, drop)
	live := newRecorder(t, status(200, nil, tenantJSON))
	c := newTestClient(t, refused, client.WithBaseURLs(dropping.srv.URL, live.srv.URL), client.WithRetryBudget(2, time.Second))
	for range 3 {
		if _, err := c.GetTenant(context.Background(), "t1"); err != nil {
			t.Fatal(err)
		}
	}
	if dropping.requests() != 1 || live.requests() != 3 {
		t.Fatalf("the dropping member got %d requests and the live one %d; want 1 and 3", dropping.requests(), live.requests())
	}
}

// authServer is a fake of the auth routes: it counts logins and refreshes, and accepts
// on GET /api/auth/me only the tokens it issued and has not revoked.
type authServer struct {
	srv               *httptest.Server
	mu                sync.Mutex
	valid             map[string]bool
	seq               int
	expiresIn         int
	logins, refreshes atomic.Int32
}

func newAuthServer(t *testing.T, expiresIn int) *authServer {
	a := &authServer{valid: map[string]bool{}, expiresIn: expiresIn}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		issue := func() {
			a.mu.Lock()
			a.seq++
			tok := "tok-" + itoa(a.seq)
			a.valid[tok] = true
			a.mu.Unlock()
			json.NewEncoder(w).Encode(map[string]any{"token": tok, "refresh_token": "r-" + tok, "token_type": "Bearer",
				"expires_in": a.expiresIn, "user": map[string]any{"id": "u1", "email": "a@b.test", "role": "admin"}})
		}
		switch r.URL.Path {
		case "/api/auth/login":
			a.logins.Add(1)
			issue()
		case "/api/auth/refresh":
			a.refreshes.Add(1)
			issue()
		default:
			a.mu.Lock()
			ok := a.valid[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
			a.mu.Unlock()
			if !ok {
				status(401, nil, problemJSON(401, "unauthorized", "token expired"))(w, r)
				return
			}
			w.Write([]byte(`{"id":"u1","email":"a@b.test","name":"A","role":"admin","tenant_id":null,"disabled":false,"created_at":"2026-01-02T03:04:05Z"}`))
		}
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *authServer) revokeAll() {
	a.mu.Lock()
	clear(a.valid)
	a.mu.Unlock()
}

// TestLoginOnceConcurrently: many goroutines starting at once share one login, and
// after the server refuses the token (401) they share one refresh.
func TestLoginOnceConcurrently(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, 900)
	c, err := client.New(a.srv.URL, client.WithCredentials("a@b.test", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	run := func() {
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if _, err := c.Me(context.Background()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	run()
	if a.logins.Load() != 1 || a.refreshes.Load() != 0 {
		t.Fatalf("got %d logins and %d refreshes; want 1 and 0", a.logins.Load(), a.refreshes.Load())
	}
	a.revokeAll()
	run()
	if a.logins.Load() != 1 || a.refreshes.Load() != 1 {
		t.Fatalf("after a 401: got %d logins and %d refreshes; want 1 and 1", a.logins.Load(), a.refreshes.Load())
	}
}

// TestRefreshBeforeExpiry: a token at the end of its life is renewed before it is
// used, not after the server refuses it.
func TestRefreshBeforeExpiry(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, 0) // every token is due for renewal as soon as it is issued
	c, err := client.New(a.srv.URL, client.WithCredentials("a@b.test", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := c.Me(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if a.logins.Load() != 1 || a.refreshes.Load() != 2 {
		t.Fatalf("got %d logins and %d refreshes; want 1 and 2", a.logins.Load(), a.refreshes.Load())
	}
}

// TestStaticTokenUnauthorized: a given token is not renewed: a 401 is the caller's.
func TestStaticTokenUnauthorized(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, 900)
	c := newTestClient(t, a.srv.URL)
	if _, err := c.Me(context.Background()); !errors.Is(err, client.ErrUnauthorized) || a.logins.Load() != 0 {
		t.Fatalf("got %v (%d logins); want unauthorized, no login", err, a.logins.Load())
	}
}

// TestNoServerDependencies: the client builds without the server: no vmplane package
// but its own (itself, apitype, webhook), nothing outside the standard library (so no
// Badger, fasthttp, protoactor).
func TestNoServerDependencies(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}",
		"github.com/vmplane/vmplane/client").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "github.com/vmplane/vmplane/client") {
		t.Fatalf("go list did not list the client itself:\n%s", out)
	}
	for _, p := range strings.Fields(string(out)) {
		if !clientPackages[p] {
			t.Errorf("the client imports %s; it must depend on the standard library only", p)
		}
	}
	for _, bad := range []string{"badger", "fasthttp", "protoactor", "vmplane/actors", "vmplane/httpedge", "vmplane/persistence", "vmplane/app", "vmplane/hypervisor"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("%s is in the client's import graph", bad)
		}
	}
}

// clientPackages are the client's own: itself and the packages it aliases from.
var clientPackages = map[string]bool{
	"github.com/vmplane/vmplane/client":         true,
	"github.com/vmplane/vmplane/client/apitype": true,
	"github.com/vmplane/vmplane/client/webhook": true,
}

// TestWaitTaskFailed: WaitTask reads the task until it ends, also without an event
// stream (this server has none), and a failed task is a *TaskError carrying the
// server's explanation.
func TestWaitTaskFailed(t *testing.T) {
	t.Parallel()
	task := func(st, errText string) string {
		return `{"id":"k1","type":"machine.create","target_type":"machine","target_id":"m1","tenant_id":null,"status":"` +
			st + `","error":` + errText + `,"created_at":"2026-01-02T03:04:05Z","started_at":null,"finished_at":null,"result":null}`
	}
	answers := []string{task("queued", "null"), task("running", "null"), task("failed", `"no node has room"`)}
	var reads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tasks/k1" {
			status(404, nil, problemJSON(404, "not_found", "no such route"))(w, r)
			return
		}
		w.Write([]byte(answers[min(int(reads.Add(1))-1, len(answers)-1)]))
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL)
	got, err := c.WaitTask(context.Background(), "k1")
	var te *client.TaskError
	if !errors.Is(err, client.ErrTaskFailed) || !errors.As(err, &te) || te.Task.ID != "k1" ||
		!strings.Contains(err.Error(), "no node has room") || got.Status != client.TaskFailed {
		t.Fatalf("got %+v, %v; want the failed task and its error", got, err)
	}
	if reads.Load() != 3 {
		t.Fatalf("read the task %d times; want 3", reads.Load())
	}
}

// TestKeepAlive: calls one after the other reuse one keep-alive connection (every
// answer is read to its end and closed).
func TestKeepAlive(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(status(200, nil, tenantJSON))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := newTestClient(t, srv.URL, client.WithMaxConns(4))
	for range 50 {
		if _, err := c.GetTenant(context.Background(), "t1"); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("50 calls one after the other opened %d connections; want 1", n)
	}
}

// TestLoginRetries429: a login refused with 429 is retried after its Retry-After, like
// every other call (the server refuses it before any password is checked), and the
// login of the answer after it is used.
func TestLoginRetries429(t *testing.T) {
	t.Parallel()
	r := newRecorder(t,
		status(429, map[string]string{"Retry-After": "0"}, problemJSON(429, "rate_limited", "too many logins for this e-mail at once")),
		status(200, nil, `{"token":"tok","refresh_token":"ref","token_type":"Bearer","expires_in":900,"user":{"id":"u1","email":"a@b.test","role":"admin"}}`))
	c, err := client.New(r.srv.URL, client.WithCredentials("a@b.test", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.Login(context.Background())
	if err != nil || u == nil || u.Email != "a@b.test" || r.requests() != 2 {
		t.Fatalf("got %+v, %v after %d requests; want the user after 2", u, err, r.requests())
	}
}
