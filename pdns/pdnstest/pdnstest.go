// Package pdnstest runs a real PowerDNS Authoritative server (Debian's pdns-server
// with the gsqlite3 backend of pdns-backend-sqlite3) on loopback ports for tests: its
// own configuration directory and sqlite database in the test's temporary directory,
// its HTTP API on. A test skips when the server is not installed, unless
// VMPLANE_REQUIRE_PDNS is set (CI sets it, and installs the packages), where it fails.
package pdnstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/internal/testwait"
)

// Key is the API key of every test server.
const Key = "pdnstest-key"

// schemas are where Debian puts the gsqlite3 backend's schema.
var schemas = []string{
	"/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql",
	"/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql",
}

// Server is a running PowerDNS server.
type Server struct {
	// URL is its HTTP API's base (http://127.0.0.1:port).
	URL string
	// DNS is the host:port it answers DNS queries on (UDP and TCP).
	DNS string
	t   testing.TB
}

// need returns the server's binary, the sqlite3 client and the schema, or skips t
// (fails it when VMPLANE_REQUIRE_PDNS is set) naming what is missing.
func need(t testing.TB) (server, sqlite, schema string) {
	t.Helper()
	var missing []string
	server, err := exec.LookPath("pdns_server")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/pdns_server"); serr == nil {
			server, err = "/usr/sbin/pdns_server", nil
		}
	}
	if err != nil {
		missing = append(missing, "pdns_server (Debian: pdns-server)")
	}
	if sqlite, err = exec.LookPath("sqlite3"); err != nil {
		missing = append(missing, "sqlite3 (Debian: sqlite3)")
	}
	for _, s := range schemas {
		if _, err := os.Stat(s); err == nil {
			schema = s
			break
		}
	}
	if schema == "" {
		missing = append(missing, "the gsqlite3 schema (Debian: pdns-backend-sqlite3)")
	}
	if len(missing) > 0 {
		if os.Getenv("VMPLANE_REQUIRE_PDNS") != "" {
			t.Fatalf("VMPLANE_REQUIRE_PDNS is set but %s missing", strings.Join(missing, ", "))
		}
		t.Skipf("no PowerDNS here (%s); set VMPLANE_REQUIRE_PDNS=1 to fail instead", strings.Join(missing, ", "))
	}
	return server, sqlite, schema
}

// Start starts a server for the test, stopped at its end.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, sqlite, schema := need(t)
	var lastErr error
	for range 5 {
		s, err := start(t, bin, sqlite, schema)
		if err == nil {
			return s
		}
		lastErr = err // most likely a port taken between its pick and the start
	}
	t.Fatalf("pdnstest: %v", lastErr)
	return nil
}

func start(t testing.TB, bin, sqlite, schema string) (*Server, error) {
	dir, err := os.MkdirTemp(t.TempDir(), "pdns")
	if err != nil {
		return nil, err
	}
	db := filepath.Join(dir, "pdns.sqlite3")
	sql, err := os.ReadFile(schema)
	if err != nil {
		return nil, err
	}
	init := exec.Command(sqlite, db)
	init.Stdin = bytes.NewReader(sql)
	if out, err := init.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sqlite3 %s: %v: %s", db, err, out)
	}
	dnsPort, err := freePort(true)
	if err != nil {
		return nil, err
	}
	webPort, err := freePort(false)
	if err != nil {
		return nil, err
	}
	conf := strings.Join([]string{
		"launch=gsqlite3",
		"gsqlite3-database=" + db,
		"api=yes",
		"api-key=" + Key,
		"webserver=yes",
		"webserver-address=127.0.0.1",
		"webserver-port=" + strconv.Itoa(webPort),
		"webserver-allow-from=127.0.0.0/8",
		"local-address=127.0.0.1",
		"local-port=" + strconv.Itoa(dnsPort),
		"socket-dir=" + dir,
		"guardian=no",
		"daemon=no",
		"disable-syslog=yes",
		"security-poll-suffix=",
		"loglevel=4",
		"",
	}, "\n")
	if err := os.WriteFile(filepath.Join(dir, "pdns.conf"), []byte(conf), 0o600); err != nil {
		return nil, err
	}
	var log bytes.Buffer
	cmd := exec.Command(bin, "--config-dir="+dir)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	s := &Server{URL: "http://127.0.0.1:" + strconv.Itoa(webPort), DNS: net.JoinHostPort("127.0.0.1", strconv.Itoa(dnsPort)), t: t}
	var exitErr error
	gone := false
	ready := testwait.Poll(20*time.Second, func() bool {
		select {
		case exitErr = <-exited:
			gone = true
			return true
		default:
		}
		_, err := s.call(http.MethodGet, "", nil)
		return err == nil
	})
	switch {
	case gone:
		return nil, fmt.Errorf("pdns_server exited (%v): %s", exitErr, log.String())
	case !ready:
		stop()
		return nil, fmt.Errorf("pdns_server's API did not answer within 20s: %s", log.String())
	}
	t.Cleanup(stop)
	return s, nil
}

// freePort is a loopback port free for TCP (and, with udp, for UDP too) a moment ago.
func freePort(udp bool) (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !udp {
			return port, nil
		}
		p, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			_ = p.Close()
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free port for TCP and UDP")
}

// call makes one call of the server's API under /api/v1/servers/localhost.
func (s *Server) call(method, path string, in any) ([]byte, error) {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.URL+"/api/v1/servers/localhost"+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-API-Key", Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return raw, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return raw, nil
}

// CreateZone creates a native zone (e.g. "2.0.192.in-addr.arpa.") on the server.
func (s *Server) CreateZone(name string) {
	s.t.Helper()
	if _, err := s.call(http.MethodPost, "/zones", map[string]any{"name": name, "kind": "Native", "nameservers": []string{"ns1.example.test."}}); err != nil {
		s.t.Fatalf("pdnstest: create zone %s: %v", name, err)
	}
}

// PTR returns the contents of the PTR records of name (a reverse name with its final
// dot) in zone, as the server's API lists them; none: nil.
func (s *Server) PTR(zone, name string) []string {
	s.t.Helper()
	raw, err := s.call(http.MethodGet, "/zones/"+url.PathEscape(zone), nil)
	if err != nil {
		s.t.Fatalf("pdnstest: read zone %s: %v", zone, err)
	}
	var z struct {
		RRsets []struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			Records []struct {
				Content string `json:"content"`
			} `json:"records"`
		} `json:"rrsets"`
	}
	if err := json.Unmarshal(raw, &z); err != nil {
		s.t.Fatalf("pdnstest: zone %s: %v", zone, err)
	}
	var out []string
	for _, rr := range z.RRsets {
		if rr.Type == "PTR" && strings.EqualFold(rr.Name, name) {
			for _, r := range rr.Records {
				out = append(out, r.Content)
			}
		}
	}
	return out
}

// LookupPTR asks the server's DNS port for the names of ip, as a resolver would.
func (s *Server) LookupPTR(ip string) ([]string, error) {
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, s.DNS)
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return r.LookupAddr(ctx, ip)
}
