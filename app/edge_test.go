package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRequestErrors(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tok := s.adminToken()
	cases := []struct {
		name   string
		r      req
		status int
		code   string
	}{
		{"malformed JSON", req{method: "POST", path: "/api/auth/login", body: `{"email":`}, 400, "invalid_json"},
		{"not an object", req{method: "POST", path: "/api/auth/refresh", body: `[1,2]`}, 400, "invalid_request"},
		{"two values", req{method: "POST", path: "/api/auth/refresh", body: `{"refresh_token":"a"} {}`}, 400, "invalid_json"},
		{"empty body", req{method: "POST", path: "/api/auth/login", body: ``}, 400, "invalid_json"},
		{"unknown field", req{method: "POST", path: "/api/auth/login", body: `{"email":"a@b","password":"x","admin":true}`}, 400, "invalid_request"},
		{"wrong type", req{method: "POST", path: "/api/auth/login", body: `{"email":5,"password":"x"}`}, 400, "invalid_request"},
		{"unknown route", req{method: "GET", path: "/api/nope"}, 404, "not_found"},
		{"unknown route with token", req{method: "GET", path: "/api/nope", token: tok}, 404, "not_found"},
		{"wrong method", req{method: "DELETE", path: "/api/auth/login"}, 405, "method_not_allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expect(t, s.do(c.r), c.status, c.code)
		})
	}
	t.Run("body over 1 MiB", func(t *testing.T) {
		// fasthttp refuses on Content-Length before reading the body and closes the
		// connection, so the answer is read off a raw connection that sent only headers.
		conn, err := net.Dial("tcp", s.app.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /api/auth/login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", 1<<20+1)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		expect(t, &response{Status: res.StatusCode, Header: res.Header, Body: body}, 413, "payload_too_large")
	})
	t.Run("body of exactly 1 MiB is read", func(t *testing.T) {
		body := `{"email":"a@example.test","password":"wrong password"}`
		body += strings.Repeat(" ", 1<<20-len(body))
		expect(t, s.do(req{method: "POST", path: "/api/auth/login", body: body}), 401, "invalid_credentials")
	})
	r := s.do(req{method: "PUT", path: "/api/health"})
	expect(t, r, 405, "method_not_allowed")
	if allow := r.Header.Get("Allow"); !strings.Contains(allow, "GET") {
		t.Fatalf("got Allow %q; want it to list GET", allow)
	}
	r = s.do(req{method: "POST", path: "/api/auth/login", body: `{"email":"a@b","password":"x","admin":true}`})
	var p problemBody
	r.decode(t, &p)
	if len(p.Errors) != 1 || p.Errors[0].Field != "admin" {
		t.Fatalf("got errors %+v; want one naming the field admin", p.Errors)
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	r := s.do(req{method: "GET", path: "/api/health", header: map[string]string{"X-Request-Id": "my-trace-42"}})
	if got := r.Header.Get("X-Request-Id"); got != "my-trace-42" {
		t.Fatalf("got X-Request-Id %q; want the one sent", got)
	}
	a := s.do(req{method: "GET", path: "/api/health"}).Header.Get("X-Request-Id")
	b := s.do(req{method: "GET", path: "/api/health"}).Header.Get("X-Request-Id")
	if a == "" || a == b {
		t.Fatalf("got ids %q and %q; want distinct generated ids", a, b)
	}
	// An id with control characters or of absurd length is replaced, not echoed.
	r = s.do(req{method: "GET", path: "/api/health", header: map[string]string{"X-Request-Id": strings.Repeat("x", 200)}})
	if got := r.Header.Get("X-Request-Id"); len(got) > 128 || got == "" {
		t.Fatalf("got X-Request-Id of %d bytes; want a generated one", len(got))
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	r := s.do(req{method: "GET", path: "/api/health"})
	expect(t, r, 200, "")
	var h struct {
		Status  string            `json:"status"`
		Version string            `json:"version"`
		UptimeS *int64            `json:"uptime_s"`
		Checks  map[string]string `json:"checks"`
	}
	r.decode(t, &h)
	if h.Status != "ok" || h.Version == "" || h.UptimeS == nil || h.Checks["storage"] != "ok" || h.Checks["hypervisor"] != "ok" {
		t.Fatalf("got %+v; want ok with version, uptime and both checks ok", h)
	}
	s.sim.SetAvailable(false)
	r = s.do(req{method: "GET", path: "/api/health"})
	if r.Status != 503 {
		t.Fatalf("got status %d; want 503", r.Status)
	}
	r.decode(t, &h)
	if h.Status != "degraded" || h.Checks["hypervisor"] != "unavailable" || h.Checks["storage"] != "ok" {
		t.Fatalf("got %+v; want degraded with the hypervisor unavailable", h)
	}
	s.sim.SetAvailable(true)
	expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.login(testAdminEmail, testAdminPassword)
	// A route's counters are found again, not made again, for the same method and
	// status; a method HTTP does not name is counted as OTHER, whatever it is, so
	// that clients cannot make series without end.
	s.do(req{method: "GET", path: "/api/nope"})
	s.do(req{method: "GET", path: "/api/nope"})
	s.do(req{method: "BREW", path: "/api/nope"})
	s.do(req{method: "GET", path: "/api/virt/vms/nope"})
	r := s.do(req{method: "GET", path: "/metrics"})
	expect(t, r, 200, "")
	if bytes.Contains(r.Body, []byte(`method="BREW"`)) {
		t.Errorf("/metrics has a series of the method BREW; want it counted as OTHER")
	}
	for _, want := range []string{
		`vmplane_http_requests_total{method="POST",route="/api/auth/login",status="200"} 1`,
		`vmplane_http_requests_total{method="GET",route="unmatched",status="404"} 2`,
		`vmplane_http_requests_total{method="OTHER",route="unmatched",status="404"} 1`,
		`vmplane_http_requests_total{method="GET",route="/api/virt/vms/{id}",status="401"} 1`,
		`vmplane_http_request_duration_seconds_bucket{route="/api/auth/login"`,
		`vmplane_store_commits_total`,
		`vmplane_store_groups_total`,
		"\nvmplane_store_compaction_score 0\n", // a new store has nothing to compact
		`vmplane_actors_live{kind="users"} 1`,
		`vmplane_ratelimit_refused_total`,
		`vmplane_usage_counter_retries_total 0`,
	} {
		if !bytes.Contains(r.Body, []byte(want)) {
			t.Errorf("got no %q in /metrics", want)
		}
	}
}

func TestMetricsCountsRefusals(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.RateGlobal, c.RateGlobalBurst = 0.01, 2 })
	s.do(req{method: "GET", path: "/api/health"})
	s.do(req{method: "GET", path: "/api/health"})
	expect(t, s.do(req{method: "GET", path: "/api/health"}), 429, "rate_limited")
	r := doWith(t, clientFrom("127.0.0.5"), s.base, req{method: "GET", path: "/metrics"})
	if !bytes.Contains(r.Body, []byte(`vmplane_ratelimit_refused_total{bucket="global"} 1`)) {
		t.Fatalf("got no global refusal counted in %s", r.Body)
	}
}

func TestOpenAPIListsEveryRoute(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	r := s.do(req{method: "GET", path: "/api/openapi.json"})
	expect(t, r, 200, "")
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	r.decode(t, &doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("got openapi %q; want 3.1.x", doc.OpenAPI)
	}
	hidden := 0
	for _, rt := range s.app.Edge().Routes() {
		_, ok := doc.Paths[rt.Path][strings.ToLower(rt.Method)]
		switch {
		case rt.Hidden && ok:
			t.Errorf("got the alias %s %s in the OpenAPI document; want only its /api/virt operation", rt.Method, rt.Path)
		case rt.Hidden:
			hidden++
		case !ok:
			t.Errorf("got no %s %s in the OpenAPI document", rt.Method, rt.Path)
		}
	}
	// The sim driver's alias routes are served (issue 16.14: but not documented).
	if hidden == 0 {
		t.Errorf("got no /api/sim alias routes; want the /api/virt routes served under the driver's name too")
	}
	expect(t, s.do(req{method: "GET", path: "/api/sim/vms", token: s.adminToken()}), 200, "")
	if !json.Valid(r.Body) {
		t.Fatal("the document is not valid JSON")
	}
}

// A client that opens a connection and never sends a request (HTTP clients keep spares)
// must not hold up a graceful shutdown; one mid-request is answered before it ends.
func TestShutdownClosesUnusedConnections(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	spare, err := net.Dial("tcp", s.app.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer spare.Close()
	idle := &http.Client{Timeout: 5 * time.Second}
	expect(t, doWith(t, idle, s.base, req{method: "GET", path: "/api/health"}), 200, "") // leaves a keep-alive connection
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := s.app.Shutdown(ctx); err != nil {
		t.Fatalf("got %v; want the shutdown to finish without waiting for unused connections", err)
	}
	s.app = nil
	if _, err := spare.Read(make([]byte, 1)); err == nil {
		t.Fatal("the unused connection is still open after shutdown")
	}
}

func TestPprofOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.PprofAddr = "127.0.0.1:0" })
	// Not through the API's address.
	expect(t, s.do(req{method: "GET", path: "/debug/pprof/"}), 404, "not_found")
	if s.app.pprof == nil {
		t.Fatal("got no pprof server; want one on its own listener")
	}
}

// TestMetricsOnTheirOwnAddress: with --metrics-addr, /metrics answers on that listener
// (and only /metrics does), while the API's listener neither serves it nor lists it in
// its OpenAPI document; without it, /metrics is a route of the API.
func TestMetricsOnTheirOwnAddress(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.MetricsAddr = "127.0.0.1:0" })
	expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")
	expect(t, s.do(req{method: "GET", path: "/metrics"}), 404, "not_found")
	doc := s.do(req{method: "GET", path: "/api/openapi.json"})
	expect(t, doc, 200, "")
	if strings.Contains(string(doc.Body), `"/metrics"`) {
		t.Error("the OpenAPI document lists /metrics, which the API's listener does not serve")
	}
	if s.app.metricsLn == nil {
		t.Fatal("no metrics listener")
	}
	base := "http://" + s.app.metricsLn.Addr().String()
	m := doWith(t, s.client, base, req{method: "GET", path: "/metrics"})
	if m.Status != 200 || !strings.Contains(string(m.Body), "vmplane_http_requests_total") {
		t.Fatalf("GET %s/metrics: %d\n%.300s", base, m.Status, m.Body)
	}
	if r := doWith(t, s.client, base, req{method: "GET", path: "/api/health"}); r.Status != 404 {
		t.Errorf("GET %s/api/health: %d; want 404: the metrics listener serves nothing else", base, r.Status)
	}

	plain := startServer(t)
	if r := plain.do(req{method: "GET", path: "/metrics"}); r.Status != 200 {
		t.Errorf("without --metrics-addr, GET /metrics: %d; want 200", r.Status)
	}
	if plain.app.metricsLn != nil {
		t.Error("a metrics listener without --metrics-addr")
	}
}
