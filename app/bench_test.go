package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// benchClients is the number of concurrent clients of the edge benchmarks, whatever
// GOMAXPROCS is: a server is measured under concurrent load, not one request at a time.
const benchClients = 16

// Benchmark credentials.
const (
	benchAdminEmail    = "admin@example.test"
	benchAdminPassword = "correct horse battery staple"
	benchJWTKey        = "0123456789abcdef0123456789abcdef-bench-key"
)

// benchEdge is a whole vmplane server whose edge also serves an in-memory listener, and
// a fasthttp client that dials it: the benchmarks measure the edge, its middleware and
// the actors behind it, not the kernel's loopback.
type benchEdge struct {
	app    *App
	client *fasthttp.HostClient
	token  string
}

// startBenchEdge starts a server like the integration tests do, except that the rate
// limits are on (so that every request pays for the limiter's decision, as in
// production) but so high that nothing is ever refused.
func startBenchEdge(b *testing.B) *benchEdge {
	b.Helper()
	cfg := Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = b.TempDir()
	cfg.AdminEmail, cfg.AdminPassword = benchAdminEmail, benchAdminPassword
	cfg.JWTKey = benchJWTKey
	cfg.BcryptCost = 4
	cfg.RateGlobal, cfg.RateGlobalBurst = 1e9, 1e9
	cfg.RateAuth, cfg.RateAuthBurst = 1e9, 1e9
	cfg.RateLogin, cfg.RateLoginBurst = 0, 0
	cfg.SimOpDelay = time.Millisecond
	cfg.StoreCacheMB = 8
	a, err := Start(cfg, nil, nil)
	if err != nil {
		b.Fatalf("start: %v", err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Shutdown(ctx); err != nil {
			b.Errorf("shutdown: %v", err)
		}
	})
	ln := fasthttputil.NewInmemoryListener()
	go func() { _ = a.Edge().Serve(ln) }() // Shutdown closes every listener the edge serves
	e := &benchEdge{app: a, client: inmemoryClient(ln)}

	body := fmt.Sprintf(`{"email":%q,"password":%q}`, benchAdminEmail, benchAdminPassword)
	status, raw := e.do(b, "POST", "/api/auth/login", "", []byte(body))
	if status != fasthttp.StatusOK {
		b.Fatalf("login: got status %d (body %s); want 200", status, raw)
	}
	var p struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.Token == "" {
		b.Fatalf("login: got body %s (%v); want a token", raw, err)
	}
	e.token = p.Token
	return e
}

// inmemoryClient is a client of ln. Each connection comes from its own address, as if
// from its own client, so the per-address limiter buckets spread over their shards
// the way they do in production.
func inmemoryClient(ln *fasthttputil.InmemoryListener) *fasthttp.HostClient {
	var conns atomic.Uint32
	return &fasthttp.HostClient{
		Addr:     "vmplane.bench",
		MaxConns: 4 * benchClients,
		Dial: func(string) (net.Conn, error) {
			n := conns.Add(1)
			return ln.DialWithLocalAddr(&net.TCPAddr{IP: net.IPv4(10, 1, byte(n>>8), byte(n)), Port: 40000})
		},
	}
}

// do sends one request and returns the status and a copy of the body.
func (e *benchEdge) do(b *testing.B, method, path, tok string, body []byte) (int, []byte) {
	b.Helper()
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.Header.SetMethod(method)
	req.SetRequestURI("http://vmplane.bench" + path)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(body)
	}
	if err := e.client.Do(req, res); err != nil {
		b.Fatalf("%s %s: %v", method, path, err)
	}
	return res.StatusCode(), append([]byte(nil), res.Body()...)
}

// runParallelGET measures GET path from benchClients concurrent clients and reports
// requests per second.
func runParallelGET(b *testing.B, client *fasthttp.HostClient, path, tok string, want int) {
	b.Helper()
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((benchClients + procs - 1) / procs)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(res)
		req.SetRequestURI("http://vmplane.bench" + path)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		for pb.Next() {
			if err := client.Do(req, res); err != nil {
				b.Error(err)
				return
			}
			if res.StatusCode() != want {
				b.Errorf("GET %s: got status %d (body %s); want %d", path, res.StatusCode(), res.Body(), want)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkEdgeMe is one authenticated GET /api/auth/me through the whole edge: request
// id, the limiter's decision (an actor round trip), routing, JWT verification, the
// users actor round trip, JSON encoding and metrics. Compare with BenchmarkEdgeBaseline.
func BenchmarkEdgeMe(b *testing.B) {
	e := startBenchEdge(b)
	if status, raw := e.do(b, "GET", "/api/auth/me", e.token, nil); status != fasthttp.StatusOK {
		b.Fatalf("got status %d (body %s); want 200", status, raw)
	}
	b.Run("inmemory", func(b *testing.B) {
		runParallelGET(b, e.client, "/api/auth/me", e.token, fasthttp.StatusOK)
	})
}

// BenchmarkEdgeHealth is GET /api/health through the whole edge: the limiter, then a
// store read and a hypervisor ping, without a token.
func BenchmarkEdgeHealth(b *testing.B) {
	e := startBenchEdge(b)
	b.Run("inmemory", func(b *testing.B) {
		runParallelGET(b, e.client, "/api/health", "", fasthttp.StatusOK)
	})
}

// BenchmarkEdgeBaseline is a bare fasthttp handler over the same in-memory listener
// and client, answering the very bytes GET /api/auth/me answers: what is left of
// BenchmarkEdgeMe's time once the edge and the actors are taken out.
func BenchmarkEdgeBaseline(b *testing.B) {
	e := startBenchEdge(b)
	status, me := e.do(b, "GET", "/api/auth/me", e.token, nil)
	if status != fasthttp.StatusOK {
		b.Fatalf("got status %d (body %s); want 200", status, me)
	}
	srv := &fasthttp.Server{
		Name:                 "vmplane",
		NoDefaultContentType: true,
		Handler: func(rc *fasthttp.RequestCtx) {
			rc.SetContentType("application/json")
			rc.SetBody(me)
		},
	}
	ln := fasthttputil.NewInmemoryListener()
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Shutdown() })
	client := inmemoryClient(ln)
	b.Run("inmemory", func(b *testing.B) {
		runParallelGET(b, client, "/api/auth/me", e.token, fasthttp.StatusOK)
	})
}
