package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// Test credentials of the first admin.
const (
	testAdminEmail    = "admin@example.test"
	testAdminPassword = "correct horse battery staple"
	testJWTKey        = "0123456789abcdef0123456789abcdef-test-key"
)

// testServer is a real vmplane server on an ephemeral loopback port over a real Badger
// store in a temporary directory, spoken to over HTTP.
type testServer struct {
	t   *testing.T
	cfg Config
	app *App
	sim *sim.Driver
	// driver, when set, is used instead of a simulated cluster.
	driver hypervisor.Driver
	// log, when set, is the server's logger (a test that watches the log).
	log    *zap.Logger
	base   string
	client *http.Client
}

// testConfig is the configuration of test servers: fast hashing, a near-zero simulated
// operation time and limits high enough to stay out of the way unless a test sets them.
func testConfig(t *testing.T) Config {
	t.Helper()
	cfg := Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.AdminEmail = testAdminEmail
	cfg.AdminPassword = testAdminPassword
	cfg.JWTKey = testJWTKey
	cfg.BcryptCost = 4
	cfg.RateGlobal, cfg.RateGlobalBurst = 0, 0
	cfg.RateAuth, cfg.RateAuthBurst = 0, 0
	cfg.RateKeyOwner, cfg.RateKeyOwnerBurst = 0, 0
	cfg.RateLogin, cfg.RateLoginBurst = 0, 0
	cfg.RateLoginAddr, cfg.RateLoginAddrBurst = 0, 0
	cfg.SimOpDelay = time.Millisecond
	cfg.SimMachines = 4
	cfg.SyncInterval = 0 // tests sync when they mean to
	cfg.StoreCacheMB = 8
	// Tenants delete their own machines in the tests written before the setting
	// (TenantDelete); TestTenantDeleteSetting checks its default.
	cfg.TenantDelete = true
	// Tests run schedules every second: the operator's bounds on them are off.
	cfg.ScheduleMinBackupInterval, cfg.ScheduleMinPowerInterval = 0, 0
	// Webhooks deliver to receivers the tests run on loopback.
	cfg.WebhookAllowCIDRs = "127.0.0.0/8,::1"
	return cfg
}

func startServer(t *testing.T, mutate ...func(*Config)) *testServer {
	t.Helper()
	cfg := testConfig(t)
	for _, m := range mutate {
		m(&cfg)
	}
	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *testServer) start() {
	s.t.Helper()
	var driver hypervisor.Driver = s.driver
	if driver == nil {
		if s.sim == nil {
			d, err := NewDriver(s.cfg, nil)
			if err != nil {
				s.t.Fatal(err)
			}
			if sd, ok := d.(*sim.Driver); ok {
				s.sim = sd
			} else {
				s.driver = d // the configuration names another driver
			}
		}
		driver = s.driver
		if s.sim != nil {
			driver = s.sim
		}
	}
	log := s.log
	if log == nil {
		log = testLogger(s.t)
	}
	a, err := Start(s.cfg, log, driver)
	if err != nil {
		s.t.Fatalf("start: %v", err)
	}
	s.app = a
	s.base = "http://" + a.Addr()
}

func (s *testServer) stop() {
	if s.app == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.app.Shutdown(ctx); err != nil {
		s.t.Errorf("shutdown: %v", err)
	}
	s.app = nil
}

// restart stops the server gracefully and starts it again on the same data directory
// and the same simulated cluster.
func (s *testServer) restart() {
	s.t.Helper()
	s.stop()
	s.cfg.Addr = "127.0.0.1:0"
	s.start()
}

func testLogger(t *testing.T) *zap.Logger {
	if testing.Verbose() {
		return zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel))
	}
	return zap.NewNop()
}

// response is an HTTP answer read whole.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r *response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// problemBody is an RFC 9457 error body.
type problemBody struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Code      string `json:"code"`
	Detail    string `json:"detail"`
	RequestID string `json:"request_id"`
	Errors    []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
	Allowed []string `json:"allowed"`
}

// req describes one request.
type req struct {
	method, path, token string
	body                any // encoded as JSON unless []byte or string (sent as JSON), or octets
	header              map[string]string
}

// octets is a raw request body, sent as application/octet-stream (an upload).
type octets []byte

// listOf GETs a list route as tok, expects 200 and returns its items.
func listOf[T any](s *testServer, tok, path string) []T {
	s.t.Helper()
	r := s.do(req{method: "GET", path: path, token: tok})
	expect(s.t, r, 200, "")
	var p struct{ Items []T }
	r.decode(s.t, &p)
	return p.Items
}

func (s *testServer) do(r req) *response {
	s.t.Helper()
	return doWith(s.t, s.client, s.base, r)
}

func doWith(t *testing.T, client *http.Client, base string, r req) *response {
	t.Helper()
	var body io.Reader
	ctype := "application/json"
	switch b := r.body.(type) {
	case nil:
	case octets:
		body, ctype = bytes.NewReader(b), "application/octet-stream"
	case []byte:
		body = bytes.NewReader(b)
	case string:
		body = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(raw)
	}
	hr, err := http.NewRequest(r.method, base+r.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		hr.Header.Set("Content-Type", ctype)
	}
	if r.token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.token)
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	res, err := client.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// expect checks the status, and for errors that the body is problem JSON with the code.
func expect(t *testing.T, r *response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("got status %d; want %d (body %s)", r.Status, status, r.Body)
	}
	if status < 400 {
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("got Content-Type %q; want application/problem+json", ct)
	}
	var p problemBody
	r.decode(t, &p)
	if p.Code != code {
		t.Fatalf("got code %q; want %q (body %s)", p.Code, code, r.Body)
	}
	if p.Status != status || p.Type != "about:blank" || p.Title == "" {
		t.Fatalf("got problem %+v; want status %d, type about:blank and a title", p, status)
	}
	if p.RequestID == "" || p.RequestID != r.Header.Get("X-Request-Id") {
		t.Fatalf("got request_id %q and X-Request-Id %q; want the same non-empty id", p.RequestID, r.Header.Get("X-Request-Id"))
	}
}

// tokenPair is a login or refresh answer.
type tokenPair struct {
	Token        string `json:"token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	User         *struct {
		ID       string  `json:"id"`
		Email    string  `json:"email"`
		Role     string  `json:"role"`
		TenantID *string `json:"tenant_id"`
	} `json:"user"`
}

func (s *testServer) login(email, password string) tokenPair {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": email, "password": password}})
	expect(s.t, r, 200, "")
	var p tokenPair
	r.decode(s.t, &p)
	return p
}

func (s *testServer) adminToken() string {
	s.t.Helper()
	return s.login(testAdminEmail, testAdminPassword).Token
}

// clientFrom returns an HTTP client whose connections come from another loopback
// address, so the server sees a different client.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

var _ hypervisor.Driver = (*sim.Driver)(nil)

func jsonDecode(res *http.Response, v any) error {
	return json.NewDecoder(res.Body).Decode(v)
}

func hypervisorRef(m machines.Machine) hypervisor.Ref {
	return hypervisor.Ref{VMID: m.VMID, Node: m.Node}
}
