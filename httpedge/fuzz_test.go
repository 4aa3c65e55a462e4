package httpedge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/httpedge/api"
)

// Credentials of the fuzzed server's first admin.
const (
	fuzzAdminEmail    = "admin@example.test"
	fuzzAdminPassword = "correct horse battery staple"
	fuzzJWTKey        = "0123456789abcdef0123456789abcdef-fuzz-key"
)

// fuzzServer is one real vmplane server per fuzz process, spoken to over loopback TCP
// with raw bytes. TCP rather than the in-memory listener: the fuzzed framing may leave a
// request unfinished (a Content-Length longer than the body, an open chunked body), and
// only a half-close (CloseWrite) tells the server that no more bytes will come without
// also discarding its answer.
type fuzzServer struct {
	app   *app.App
	addr  string
	token string // a valid admin access token
	logs  *observer.ObservedLogs
}

func startFuzzServer(f *testing.F) *fuzzServer {
	f.Helper()
	cfg := app.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = f.TempDir()
	cfg.AdminEmail = fuzzAdminEmail
	cfg.AdminPassword = fuzzAdminPassword
	cfg.JWTKey = fuzzJWTKey
	cfg.BcryptCost = 4
	cfg.RateGlobal, cfg.RateGlobalBurst = 0, 0
	cfg.RateAuth, cfg.RateAuthBurst = 0, 0
	cfg.RateLogin, cfg.RateLoginBurst = 0, 0
	cfg.SimOpDelay = time.Millisecond
	cfg.StoreCacheMB = 8
	// Errors (5xx, recovered panics) are kept so that a failing input shows their cause.
	core, logs := observer.New(zapcore.ErrorLevel)
	a, err := app.Start(cfg, zap.New(core), nil)
	if err != nil {
		f.Fatalf("start: %v", err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Shutdown(ctx); err != nil {
			f.Errorf("shutdown: %v", err)
		}
	})
	s := &fuzzServer{app: a, addr: a.Addr(), logs: logs}
	s.token = s.login(f)
	return s
}

func (s *fuzzServer) login(f *testing.F) string {
	f.Helper()
	body := fmt.Sprintf(`{"email":%q,"password":%q}`, fuzzAdminEmail, fuzzAdminPassword)
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Post("http://"+s.addr+"/api/auth/login", "application/json", strings.NewReader(body))
	if err != nil {
		f.Fatal(err)
	}
	defer res.Body.Close()
	var p struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&p); err != nil || res.StatusCode != 200 || p.Token == "" {
		f.Fatalf("login: got status %d, token %q, error %v; want 200 and a token", res.StatusCode, p.Token, err)
	}
	return p.Token
}

// fuzzInput is one fuzzed request, in the order of the f.Fuzz arguments.
type fuzzInput struct {
	method, path, hname, hvalue string
	body                        []byte
	admin                       bool
}

// noCRLF removes what would break the HTTP/1.1 framing of a request line or header
// line; everything else (spaces, NUL, non-UTF-8, percent signs) is sent as fuzzed.
func noCRLF(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", "", "\n", "").Replace(s)
}

// raw builds the bytes of the request. The edge's own framing headers (Content-Length,
// Content-Type) step aside when the fuzzed header names one of them, so that fuzzed
// lengths and chunked bodies reach the server as they are.
func (in fuzzInput) raw(token string) (req []byte, method string) {
	method, path := noCRLF(in.method), noCRLF(in.path)
	hname, hvalue := noCRLF(in.hname), noCRLF(in.hvalue)
	var b bytes.Buffer
	b.WriteString(method + " " + path + " HTTP/1.1\r\nHost: fuzz.test\r\n")
	if in.admin {
		b.WriteString("Authorization: Bearer " + token + "\r\n")
	}
	framing := false
	if hname != "" || hvalue != "" {
		b.WriteString(hname + ": " + hvalue + "\r\n")
		switch strings.ToLower(strings.TrimSpace(hname)) {
		case "content-length", "transfer-encoding":
			framing = true
		}
	}
	if !framing {
		b.WriteString("Content-Length: " + strconv.Itoa(len(in.body)) + "\r\n")
	}
	if len(in.body) > 0 && !strings.EqualFold(strings.TrimSpace(hname), "content-type") {
		b.WriteString("Content-Type: application/json\r\n")
	}
	b.WriteString("\r\n")
	b.Write(in.body)
	return b.Bytes(), method
}

// exchange sends one raw request, half-closes, and reads every answer until the server
// closes the connection. method is the first request's, whose answer has no body when
// it is HEAD.
func (s *fuzzServer) exchange(req []byte, method string) ([]*answer, error) {
	conn, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// Each input is finished in well under a second; the deadline only turns a server
	// that hangs on a request into a failure instead of a stuck fuzzer.
	_ = conn.SetDeadline(time.Now().Add(8 * time.Second))
	if _, err := conn.Write(req); err != nil && !errors.Is(err, net.ErrClosed) && !isReset(err) {
		return nil, fmt.Errorf("write: %w", err)
	}
	_ = conn.(*net.TCPConn).CloseWrite()
	br := bufio.NewReader(conn)
	var out []*answer
	for {
		if _, err := br.Peek(1); err != nil {
			if errors.Is(err, io.EOF) || isReset(err) {
				return out, nil // answered everything (or nothing) and closed: fine
			}
			return out, fmt.Errorf("read: %w", err)
		}
		var sent *http.Request
		if len(out) == 0 {
			sent = &http.Request{Method: method}
		}
		res, err := http.ReadResponse(br, sent)
		if err != nil {
			if len(out) > 0 {
				// A later answer may be to a pipelined HEAD, whose missing body
				// http.ReadResponse cannot know about; the first answer was checked.
				return out, nil
			}
			return out, fmt.Errorf("the server answered something that is not HTTP: %w", err)
		}
		if isStream(res) {
			// An event stream has no end to wait for (and what follows is not HTTP).
			out = append(out, &answer{status: res.StatusCode, header: res.Header})
			return out, nil
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil && len(out) > 0 {
			return out, nil
		}
		out = append(out, &answer{status: res.StatusCode, header: res.Header, body: body, bodyErr: err})
		if res.StatusCode == http.StatusSwitchingProtocols {
			return out, nil // what follows is not HTTP any more
		}
	}
}

// isStream reports a server-sent event stream, which lasts until the client goes away.
func isStream(res *http.Response) bool {
	return strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream")
}

// isReset reports a connection the server closed before reading all we sent, which a
// server may do after answering a request it refuses (413) or cannot parse (400).
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// answer is one HTTP response read whole.
type answer struct {
	status  int
	header  http.Header
	body    []byte
	bodyErr error
}

// fuzzProblem is the RFC 9457 body of every error answer.
type fuzzProblem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Code      string `json:"code"`
	RequestID string `json:"request_id"`
}

// check returns what is wrong with an answer to a request of the given method and path.
func check(a *answer, method, path string, first bool) error {
	if a.status >= 500 {
		if a.status == 503 && method == "GET" && (path == "/api/health" || strings.HasPrefix(path, "/api/health?")) {
			return nil // degraded health is an answer, not a failure
		}
		return fmt.Errorf("got status %d; want no 5xx (body %s)", a.status, a.body)
	}
	if a.status < 400 {
		return nil
	}
	if ct := a.header.Get("Content-Type"); ct != "application/problem+json" {
		return fmt.Errorf("got status %d with Content-Type %q; want application/problem+json (body %q)", a.status, ct, a.body)
	}
	if first && method == "HEAD" {
		return nil // no body to check
	}
	if a.bodyErr != nil {
		return fmt.Errorf("got status %d with an unreadable body: %v", a.status, a.bodyErr)
	}
	var p fuzzProblem
	if err := json.Unmarshal(a.body, &p); err != nil {
		return fmt.Errorf("got status %d with body %q; want problem JSON: %v", a.status, a.body, err)
	}
	if p.Code == "" || p.RequestID == "" || p.Status != a.status || p.Type != "about:blank" || p.Title == "" {
		return fmt.Errorf("got problem %s for status %d; want type about:blank, a title, the status, a code and a request_id", a.body, a.status)
	}
	if got := a.header.Get("X-Request-Id"); got != p.RequestID {
		return fmt.Errorf("got X-Request-Id %q and request_id %q; want them equal", got, p.RequestID)
	}
	return nil
}

// FuzzRequest sends arbitrary requests (method, path, one header, body, with or without
// a valid admin token) to a real server: none may be answered with a 5xx or crash it,
// and every error answer must be problem JSON carrying a code and the request id.
//
// The server is started once per fuzz process and keeps its state between inputs (the
// synced inventory, machines that inputs reboot or resize), as a long-running server
// does. The server's error log lines are printed with a failure, since the reproducer
// alone may not show a cause that an earlier input set up.
func FuzzRequest(f *testing.F) {
	s := startFuzzServer(f)
	for _, in := range seeds(s, s.knownIDs(f)) {
		f.Add(in.method, in.path, in.hname, in.hvalue, in.body, in.admin)
	}
	f.Fuzz(func(t *testing.T, method, path, hname, hvalue string, body []byte, admin bool) {
		in := fuzzInput{method, path, hname, hvalue, body, admin}
		req, m := in.raw(s.token)
		s.logs.TakeAll()
		answers, err := s.exchange(req, m)
		if err != nil {
			t.Fatalf("request %q: %v%s", truncate(req, 2048), err, serverErrors(s))
		}
		for i, a := range answers {
			if err := check(a, m, noCRLF(path), i == 0); err != nil {
				t.Fatalf("request %q, answer %d: %v%s", truncate(req, 2048), i, err, serverErrors(s))
			}
		}
	})
}

func serverErrors(s *fuzzServer) string {
	var b strings.Builder
	for _, e := range s.logs.TakeAll() {
		fmt.Fprintf(&b, "\nserver logged: %s %v", e.Message, e.ContextMap())
	}
	return b.String()
}

func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append(b[:n:n], "..."...)
}

var pathParam = regexp.MustCompile(`\{[^}]*\}`)

// call is one setup request with the admin token, over net/http.
func (s *fuzzServer) call(method, path string) (int, []byte, error) {
	req, err := http.NewRequest(method, "http://"+s.addr+path, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	if isStream(res) {
		return res.StatusCode, nil, nil
	}
	body, err := io.ReadAll(res.Body)
	return res.StatusCode, body, err
}

// knownIDs finds a real record id for every list route of the table (GET without path
// parameters answering {"items": [{"id": ...}]}), after a sync when the table has one,
// so that seeds for /things/{id}/... reach a real record instead of stopping at 404.
func (s *fuzzServer) knownIDs(f *testing.F) map[string]string {
	f.Helper()
	routes := s.app.Edge().Routes()
	for _, rt := range routes {
		if rt.Method == "POST" && strings.HasSuffix(rt.Path, "/sync") && !strings.Contains(rt.Path, "{") {
			if status, body, err := s.call("POST", rt.Path); err != nil || status >= 500 {
				f.Fatalf("POST %s: got status %d (body %s), error %v; want no 5xx", rt.Path, status, body, err)
			}
		}
	}
	ids := map[string]string{}
	for _, rt := range routes {
		if rt.Method != "GET" || strings.Contains(rt.Path, "{") || rt.Access == api.Public {
			continue
		}
		status, body, err := s.call("GET", rt.Path)
		if err != nil || status >= 500 {
			f.Fatalf("GET %s: got status %d (body %s), error %v; want no 5xx", rt.Path, status, body, err)
		}
		var list struct {
			Items []struct {
				ID json.RawMessage `json:"id"`
			} `json:"items"`
		}
		if json.Unmarshal(body, &list) == nil && len(list.Items) > 0 {
			var id string
			if json.Unmarshal(list.Items[0].ID, &id) == nil && id != "" {
				ids[rt.Path] = id
			}
		}
	}
	return ids
}

// fillParams replaces the path parameters of a route path: the first one with the id
// of a real record when the list route in front of it has one, the others (and that one
// when there is none) with plausible values.
func fillParams(path string, ids map[string]string) string {
	loc := pathParam.FindStringIndex(path)
	if loc == nil {
		return path
	}
	if id, ok := ids[strings.TrimSuffix(path[:loc[0]], "/")]; ok {
		path = path[:loc[0]] + url.PathEscape(id) + path[loc[1]:]
	}
	return pathParam.ReplaceAllStringFunc(path, func(p string) string {
		switch p {
		case "{action}":
			return "reboot"
		}
		return "01JFUZZ00000000000000000000"
	})
}

// seeds is the seed corpus: every route of the table with valid and invalid bodies,
// with and without a token, and the classic ways of breaking a request.
func seeds(s *fuzzServer, ids map[string]string) []fuzzInput {
	var in []fuzzInput
	add := func(method, path, hname, hvalue string, body string, admin bool) {
		in = append(in, fuzzInput{method, path, hname, hvalue, []byte(body), admin})
	}
	login := fmt.Sprintf(`{"email":%q,"password":%q}`, fuzzAdminEmail, fuzzAdminPassword)
	invalidBodies := []string{
		``, `{`, `}`, `[]`, `null`, `"text"`, `42`, `{}`, `{"a":1} {}`, `{"unknown":true}`,
		`{"email":5,"password":[]}`, `{"refresh_token":{"x":1}}`, `{"email":"\ud800","password":"\u0000"}`,
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000), `{"email":"` + strings.Repeat("a", 300) + `","password":"x"}`,
		"\xff\xfe{\x00}", `{"email":"a@b","password":"x","email":"c@d"}`,
	}
	// Bodies that pass validation, by the end of a route's path.
	realistic := map[string]string{
		"/migrate":   `{"target_node":"pve2","online":true}`,
		"/config":    `{"name":"fuzz-1","cpu_cores":2,"memory_mb":2048}`,
		"/network":   `{"interfaces":[{"id":"net0","bridge":"vmbr0","vlan":10,"rate_mbps":100,"firewall":true}]}`,
		"/disks":     `{"size_gb":10}`,
		"/reinstall": `{"template_id":"tpl-debian-12","password":"fuzz-password-1","ssh_keys":["ssh-ed25519 AAAA fuzz"]}`,
	}
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "get", "", "G\x00T"}

	for _, rt := range s.app.Edge().Routes() {
		path := fillParams(rt.Path, ids)
		valid := ""
		bodies := []string{"", "{", "\x00"}
		if rt.Body != nil {
			raw, _ := json.Marshal(rt.Body)
			valid, bodies = string(raw), invalidBodies
		}
		if rt.Path == "/api/auth/login" {
			valid = login
		}
		authed := rt.Access != api.Public
		for suffix, b := range realistic {
			if strings.HasSuffix(rt.Path, suffix) {
				add(rt.Method, path, "", "", b, true)
			}
		}
		add(rt.Method, path, "", "", valid, false)
		add(rt.Method, path, "", "", valid, true)
		for _, b := range bodies {
			add(rt.Method, path, "", "", b, authed)
		}
		for _, m := range methods {
			if m != rt.Method {
				add(m, path, "", "", "", true)
			}
		}
		add(rt.Method, path+"/", "", "", valid, true)
		add(rt.Method, path+"?limit=-1&cursor=%zz&timeframe=\x00&days=99999999999999999999", "", "", valid, true)
		add(rt.Method, path+"?limit=500&timeframe=year", "", "", valid, true)
		add(rt.Method, strings.ToUpper(path), "", "", valid, true)
		if strings.Contains(rt.Path, "{") {
			add(rt.Method, pathParam.ReplaceAllString(rt.Path, "01JFUZZ00000000000000000000"), "", "", valid, true)
			add(rt.Method, pathParam.ReplaceAllString(rt.Path, "..%2F..%2Fetc%2Fpasswd"), "", "", valid, true)
			add(rt.Method, pathParam.ReplaceAllString(rt.Path, "%00"), "", "", valid, true)
			add(rt.Method, pathParam.ReplaceAllString(rt.Path, "-1"), "", "", valid, true)
			add(rt.Method, pathParam.ReplaceAllString(rt.Path, "99999999999999999999"), "", "", valid, true)
			add(rt.Method, pathParam.ReplaceAllString(rt.Path, strings.Repeat("x", 3000)), "", "", valid, true)
		}
	}

	// Unknown routes, traversal, encodings, odd request targets.
	for _, p := range []string{
		"/", "", "*", "/api", "/api/", "/api/nope", "/api/auth", "/api/auth/", "/api//auth/me", "/api/auth/me/.",
		"/api/auth/../auth/me", "/../../../etc/passwd", "/api/%2e%2e/api/health", "/api/auth/me%00", "/api/health%2F",
		"/%00", "/api/\x00health", "/api/health#frag", "/api/health?%", "/api/h%65alth", "/api/auth/me;x=1",
		"http://evil.test/api/health", "//evil.test/api/health", "api/health", "/api/health\t", "/\xff\xfe",
		"/" + strings.Repeat("a", 8000), "/api/" + strings.Repeat("%41", 3000), "/metrics?name[]=x",
		"/api/openapi.json?" + strings.Repeat("a=b&", 2000),
	} {
		add("GET", p, "", "", "", false)
		add("GET", p, "", "", "", true)
		add("POST", p, "", "", login, false)
	}

	// Framing: huge and wrong lengths, chunked bodies, Expect.
	for _, h := range [][2]string{
		{"Content-Length", strconv.Itoa(1<<20 + 1)},
		{"Content-Length", "99999999999999999999999999"},
		{"Content-Length", "-1"},
		{"Content-Length", "1000"},
		{"Content-Length", "1"},
		{"Content-Length", "0x10"},
		{"Content-Length", ""},
		{"Transfer-Encoding", "chunked"},
		{"Transfer-Encoding", "gzip, chunked"},
		{"Transfer-Encoding", "identity"},
		{"Expect", "100-continue"},
		{"Connection", "close"},
		{"Content-Encoding", "gzip"},
	} {
		for _, body := range []string{
			login,
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(login), login),
			"ffffffffffffffff\r\nx\r\n0\r\n\r\n",
			"5\r\n{\"a\":\r\n",                                     // an unfinished chunked body
			"0\r\n\r\nGET /api/health HTTP/1.1\r\nHost: x\r\n\r\n", // a smuggled second request
		} {
			add("POST", "/api/auth/login", h[0], h[1], body, false)
		}
	}
	add("GET", "/api/health", "", "", "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n", false)

	// Authorization values, and a token with alg none built from the real one's claims.
	parts := strings.Split(s.token, ".")
	b64 := base64.RawURLEncoding.EncodeToString
	algNone := b64([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	for _, v := range []string{
		"", "Bearer", "Bearer ", "Bearer  ", "bearer " + s.token, "BEARER " + s.token, "Bearer " + algNone,
		"Bearer " + algNone + "x", "Bearer " + parts[0] + "." + parts[1], "Bearer " + s.token + "x",
		"Bearer a.b.c", "Bearer ...", "Bearer eyJ.eyJ.", "Bearer " + strings.Repeat("A", 6000), "Bearer \x00\x01",
		"Basic YWRtaW46cGFzcw==", "Basic", "Digest username=x", "Bearer " + s.token + " " + s.token, "\x00",
	} {
		add("GET", "/api/auth/me", "Authorization", v, "", false)
		add("POST", "/api/auth/logout", "Authorization", v, `{"refresh_token":"x"}`, false)
	}

	// Other headers the edge reads.
	for _, h := range [][2]string{
		{"X-Request-Id", "my-trace-42"}, {"X-Request-Id", strings.Repeat("x", 200)}, {"X-Request-Id", `"}\u0000`},
		{"X-Request-Id", "\x00\x7f\xff"}, {"X-Request-Id", ""},
		{"X-Forwarded-For", "1.2.3.4, ::1, garbage"}, {"X-Forwarded-For", strings.Repeat("1.1.1.1,", 500)},
		{"Content-Type", "text/plain"}, {"Content-Type", "application/json; charset=utf-16"}, {"Content-Type", "\x00"},
		{"Idempotency-Key", strings.Repeat("k", 300)}, {"Host", ""}, {"", "no-name"}, {"Bad Name", "x"},
		{"X-" + strings.Repeat("h", 9000), "x"}, {"X-Long", strings.Repeat("v", 9000)}, {"\x00", "\x00"},
	} {
		add("GET", "/api/health", h[0], h[1], "", false)
		add("POST", "/api/auth/login", h[0], h[1], login, false)
		add("GET", "/api/auth/me", h[0], h[1], "", true)
	}

	// The console websocket: its ticket is the credential, and an upgrade needs headers.
	for _, rt := range s.app.Edge().Routes() {
		if strings.HasSuffix(rt.Path, "/console/ws") {
			path := fillParams(rt.Path, ids)
			add("GET", path+"?ticket=01JFUZZ", "Upgrade", "websocket", "", false)
			add("GET", path+"?ticket=", "Connection", "Upgrade", "", false)
			add("GET", path, "Sec-WebSocket-Version", "13", "", true)
		}
	}

	// Bodies with NUL bytes and over the limit, on every method of the auth routes.
	add("POST", "/api/auth/refresh", "", "", "{\"refresh_token\":\"a\x00b\"}", false)
	add("POST", "/api/auth/login", "", "", "\x00\x00\x00\x00", false)
	add("POST", "/api/auth/login", "", "", `{"email":"`+strings.Repeat("a", 1<<20)+`"}`, false)
	add("GET", "/api/auth/me", "", "", strings.Repeat("x", 1<<20+1), true)
	return in
}
