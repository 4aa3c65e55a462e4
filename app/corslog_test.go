package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/internal/testwait"
)

// CORS for the configured origins only: a preflight answered 204 with what the API
// takes, an allowed origin's request answered with its origin and the headers a page
// may read, another origin's with no CORS header.
func TestCORS(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.CORSOrigins = "https://panel.example.test, http://localhost:3000" })
	pre := s.do(req{method: "OPTIONS", path: "/api/client/machines", header: map[string]string{
		"Origin": "https://panel.example.test", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"}})
	if pre.Status != 204 || pre.Header.Get("Access-Control-Allow-Origin") != "https://panel.example.test" ||
		!strings.Contains(pre.Header.Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "PATCH") {
		t.Fatalf("preflight: %d %v", pre.Status, pre.Header)
	}
	tok := s.adminToken()
	r := s.do(req{method: "GET", path: "/api/auth/me", token: tok, header: map[string]string{"Origin": "http://localhost:3000"}})
	expect(t, r, 200, "")
	if r.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" || !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "Location") ||
		r.Header.Get("Vary") != "Origin" {
		t.Fatalf("allowed origin: %v", r.Header)
	}
	r = s.do(req{method: "GET", path: "/api/auth/me", token: tok, header: map[string]string{"Origin": "https://evil.example.test"}})
	expect(t, r, 200, "")
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("another origin got %q", r.Header.Get("Access-Control-Allow-Origin"))
	}
	plain := startServer(t)
	r = plain.do(req{method: "GET", path: "/api/health", header: map[string]string{"Origin": "https://panel.example.test"}})
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("CORS answered with no origins configured")
	}
	if _, err := Load(nil, envOfMap(map[string]string{"VMPLANE_CORS_ORIGINS": "https://panel.example.test/app"})); err == nil {
		t.Fatal("an origin with a path was taken")
	}
}

// The access log: a line per request in the combined format, without the query (a
// reset token, a console ticket), with the request id; a client's quotes escaped.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "access.log")
	s := startServer(t, func(c *Config) { c.AccessLog = file })
	s.do(req{method: "GET", path: "/reset-password?token=secret-token"})
	r := s.do(req{method: "GET", path: "/api/health", header: map[string]string{"User-Agent": `sneaky" 200 "x`}})
	var lines []string
	testwait.Eventually(t, "two lines in the access log", func() bool {
		b, _ := os.ReadFile(file)
		lines = strings.Split(strings.TrimSpace(string(b)), "\n")
		return len(lines) >= 2
	})
	if !strings.HasPrefix(lines[0], "127.0.0.1 - - [") || !strings.Contains(lines[0], `"GET /reset-password HTTP/1.1" 200 `) || strings.Contains(lines[0], "secret-token") {
		t.Fatalf("first line: %q", lines[0])
	}
	if !strings.Contains(lines[1], `"GET /api/health HTTP/1.1" 200`) || !strings.Contains(lines[1], `"sneaky\" 200 \"x"`) ||
		!strings.Contains(lines[1], r.Header.Get("X-Request-Id")) {
		t.Fatalf("second line: %q", lines[1])
	}
}
