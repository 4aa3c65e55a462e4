package app

import (
	"bytes"
	"compress/gzip"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestConsoleServed: the web console answers / and every path outside /api with
// index.html (its routes are client-side), its hashed assets with a year's immutable
// cache, gzipped when asked; every answer carries the CSP and the other headers; the
// API's unknown paths stay problem JSON, and /metrics is untouched.
func TestConsoleServed(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	index := s.do(req{method: "GET", path: "/"})
	if index.Status != 200 || !strings.HasPrefix(index.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s; want 200 text/html", index.Status, index.Header.Get("Content-Type"))
	}
	for k, want := range map[string]string{
		"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
	} {
		if got := index.Header.Get(k); got != want {
			t.Errorf("GET / %s: %q; want %q", k, got, want)
		}
	}
	csp := index.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "frame-ancestors 'none'", "connect-src 'self'", "script-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "eval") {
		t.Errorf("CSP %q allows inline code or eval", csp)
	}
	for _, p := range []string{"/machines", "/machines/vm-1", "/admin/nodes?x=1"} {
		r := s.do(req{method: "GET", path: p})
		if r.Status != 200 || !bytes.Equal(r.Body, index.Body) {
			t.Errorf("GET %s: %d; want 200 and index.html", p, r.Status)
		}
	}
	script := regexp.MustCompile(`src="(/assets/[^"]+\.js)"`).FindSubmatch(index.Body)
	if script == nil {
		t.Fatalf("index.html names no script: %s", index.Body)
	}
	asset := s.do(req{method: "GET", path: string(script[1]), header: map[string]string{"Accept-Encoding": "gzip"}})
	if asset.Status != 200 || asset.Header.Get("Content-Encoding") != "gzip" ||
		!strings.Contains(asset.Header.Get("Cache-Control"), "immutable") || !strings.HasPrefix(asset.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("GET %s: %d %v; want 200, gzip, immutable, text/javascript", script[1], asset.Status, asset.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(asset.Body))
	if err != nil {
		t.Fatal(err)
	}
	if js, err := io.ReadAll(zr); err != nil || len(js) == 0 {
		t.Fatalf("gunzip: %v (%d bytes)", err, len(js))
	}
	if r := s.do(req{method: "GET", path: string(script[1]), header: map[string]string{"If-None-Match": asset.Header.Get("ETag")}}); r.Status != 304 {
		t.Errorf("GET %s with its ETag: %d; want 304", script[1], r.Status)
	}
	if r := s.do(req{method: "GET", path: "/assets/gone-ABCDEFGH.js"}); r.Status != 404 {
		t.Errorf("GET of a missing asset: %d; want 404 (not index.html)", r.Status)
	}
	expect(t, s.do(req{method: "GET", path: "/api/nothing-here"}), 404, "not_found")
	expect(t, s.do(req{method: "POST", path: "/machines"}), 404, "not_found")
	if r := s.do(req{method: "GET", path: "/metrics"}); r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("GET /metrics: %d %s; want the metrics", r.Status, r.Header.Get("Content-Type"))
	}
}

// TestConsoleOff: with --ui=false, the console's paths are the API's 404.
func TestConsoleOff(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.UI = false })
	expect(t, s.do(req{method: "GET", path: "/"}), 404, "not_found")
	expect(t, s.do(req{method: "GET", path: "/machines"}), 404, "not_found")
	if r := s.do(req{method: "GET", path: "/api/health"}); r.Status != 200 {
		t.Errorf("GET /api/health: %d; want 200", r.Status)
	}
}
