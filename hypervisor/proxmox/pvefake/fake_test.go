package pvefake

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// client talks to the fake with plain net/http, form-encoded like curl or pvesh.
type client struct {
	t    *testing.T
	s    *Server
	hc   *http.Client
	auth func(*http.Request)
}

func newClient(t *testing.T, s *Server) *client {
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	t.Cleanup(hc.CloseIdleConnections)
	return &client{t: t, s: s, hc: hc, auth: func(r *http.Request) {
		r.Header.Set("Authorization", "PVEAPIToken="+s.TokenID()+"="+s.TokenSecret())
	}}
}

// do sends a request and returns the status, the data and the message.
func (c *client) do(method, path string, form url.Values) (int, json.RawMessage, string) {
	c.t.Helper()
	var body io.Reader
	u := c.s.URL() + path
	if method == "GET" || method == "DELETE" {
		if len(form) > 0 {
			u += "?" + form.Encode()
		}
	} else if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	c.auth(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data    json.RawMessage `json:"data"`
		Message string          `json:"message"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		c.t.Fatalf("%s %s: decoding: %v", method, path, err)
	}
	return resp.StatusCode, out.Data, strings.TrimSpace(out.Message)
}

// wait polls a task to its end and returns its exitstatus.
func (c *client) wait(node string, data json.RawMessage) string {
	c.t.Helper()
	var upid string
	if err := json.Unmarshal(data, &upid); err != nil {
		c.t.Fatalf("not a UPID: %s", data)
	}
	for range 10 {
		_, d, _ := c.do("GET", "/nodes/"+node+"/tasks/"+url.PathEscape(upid)+"/status", nil)
		var st struct{ Status, Exitstatus string }
		json.Unmarshal(d, &st)
		if st.Status == "stopped" {
			return st.Exitstatus
		}
	}
	c.t.Fatalf("task %s never stopped", upid)
	return ""
}

func TestAuth(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	c := newClient(t, s)
	if code, _, _ := c.do("GET", "/version", nil); code != 200 {
		t.Errorf("token: got %d; want 200", code)
	}
	c.auth = func(r *http.Request) { r.Header.Set("Authorization", "PVEAPIToken="+s.TokenID()+"=wrong") }
	if code, _, msg := c.do("GET", "/version", nil); code != 401 {
		t.Errorf("wrong secret: got %d %q; want 401", code, msg)
	}
	c.auth = func(*http.Request) {}
	code, data, _ := c.do("POST", "/access/ticket", url.Values{"username": {DefaultConsoleUser}, "password": {DefaultConsolePassword}})
	if code != 200 {
		t.Fatalf("login: got %d", code)
	}
	var tk struct {
		Ticket string
		CSRF   string `json:"CSRFPreventionToken"`
	}
	json.Unmarshal(data, &tk)
	c.auth = func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "PVEAuthCookie", Value: tk.Ticket}) }
	if code, _, msg := c.do("GET", "/cluster/resources", nil); code != 403 || !strings.Contains(msg, "Permission check failed") {
		t.Errorf("console user reading resources: got %d %q; want 403", code, msg)
	}
	if code, _, _ := c.do("POST", "/nodes/pve1/qemu/9000/termproxy", url.Values{}); code != 401 {
		t.Errorf("write without CSRF token: got %d; want 401", code)
	}
	if code, _, _ := c.do("POST", "/access/ticket", url.Values{"username": {DefaultConsoleUser}, "password": {"nope"}}); code != 401 {
		t.Errorf("wrong password: got %d; want 401", code)
	}
}

func TestTasksAndUPIDs(t *testing.T) {
	s := New(Config{TaskPolls: 3})
	defer s.Close()
	c := newClient(t, s)
	id, _ := s.AddVM(VMSpec{})
	code, data, _ := c.do("POST", "/nodes/pve1/qemu/100/status/start", url.Values{})
	if code != 200 || !regexp.MustCompile(`^"UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:qmstart:100:vmplane@pve!driver:"$`).Match(data) {
		t.Fatalf("start: got %d %s; want a UPID", code, data)
	}
	if _, st, _, _ := s.VM(id); st != "stopped" {
		t.Errorf("before the task is polled: got %s; want stopped", st)
	}
	if exit := c.wait("pve1", data); exit != "OK" {
		t.Errorf("exitstatus: got %q", exit)
	}
	if _, st, _, _ := s.VM(id); st != "running" {
		t.Errorf("after the task: got %s; want running", st)
	}
	if code, _, msg := c.do("POST", "/nodes/pve1/qemu/100/status/start", url.Values{}); code != 500 || msg != "VM 100 already running" {
		t.Errorf("start twice: got %d %q", code, msg)
	}
	if code, _, msg := c.do("GET", "/nodes/pve2/qemu/100/config", nil); code != 500 || !strings.Contains(msg, "does not exist") {
		t.Errorf("config on the wrong node: got %d %q", code, msg)
	}
	s.SetNodeOnline("pve2", false)
	if code, _, _ := c.do("GET", "/nodes/pve2/rrddata", url.Values{"timeframe": {"hour"}}); code != 595 {
		t.Errorf("offline node: got %d; want 595", code)
	}
	if code, _, _ := c.do("GET", "/nodes/pve1/nothing", nil); code != 501 {
		t.Errorf("unknown path: got %d; want 501", code)
	}
	code, data, _ = c.do("GET", "/cluster/nextid", nil)
	if code != 200 || string(data) != `"101"` {
		t.Errorf("nextid: got %d %s; want \"101\" (a string, as Proxmox sends it)", code, data)
	}
}

func TestFirewallPositions(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	c := newClient(t, s)
	s.AddVM(VMSpec{})
	for _, dport := range []string{"1", "2", "3"} {
		if code, _, msg := c.do("POST", "/nodes/pve1/qemu/100/firewall/rules", url.Values{"type": {"in"}, "action": {"ACCEPT"}, "proto": {"tcp"}, "dport": {dport}, "pos": {"5"}}); code != 200 {
			t.Fatalf("create: %d %s", code, msg)
		}
	}
	order := func() string {
		var out []string
		for _, r := range s.FirewallRules(100) {
			out = append(out, r["dport"]+"/"+r["enable"])
		}
		return strings.Join(out, " ")
	}
	// New rules go to the top, pos ignored, enable defaulting to 0: as Proxmox does.
	if got := order(); got != "3/0 2/0 1/0" {
		t.Errorf("after three creates: got %s; want 3/0 2/0 1/0", got)
	}
	c.do("PUT", "/nodes/pve1/qemu/100/firewall/rules/0", url.Values{"moveto": {"3"}})
	if got := order(); got != "2/0 1/0 3/0" {
		t.Errorf("after moveto: got %s; want 2/0 1/0 3/0", got)
	}
	_, data, _ := c.do("GET", "/nodes/pve1/qemu/100/firewall/rules", nil)
	var rules []struct {
		Pos    int
		Digest string
	}
	json.Unmarshal(data, &rules)
	c.do("DELETE", "/nodes/pve1/qemu/100/firewall/rules/1", url.Values{"digest": {rules[0].Digest}})
	if got := order(); got != "2/0 3/0" {
		t.Errorf("after delete: got %s; want 2/0 3/0", got)
	}
	if code, _, _ := c.do("DELETE", "/nodes/pve1/qemu/100/firewall/rules/0", url.Values{"digest": {rules[0].Digest}}); code != 500 {
		t.Errorf("delete with a stale digest: got %d; want 500", code)
	}
}

func TestRRDShapes(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	c := newClient(t, s)
	s.AddVM(VMSpec{Status: "running"})
	for tf, want := range map[string]int{"hour": 60, "day": 1440, "week": 336, "month": 1440, "year": 1440} {
		_, data, _ := c.do("GET", "/nodes/pve1/qemu/100/rrddata", url.Values{"timeframe": {tf}, "cf": {"AVERAGE"}})
		var pts []map[string]any
		json.Unmarshal(data, &pts)
		if len(pts) != want {
			t.Errorf("%s: got %d points; want %d", tf, len(pts), want)
		}
		if len(pts[7]) != 1 {
			t.Errorf("%s: bucket 7 is %v; want an empty bucket with only time", tf, pts[7])
		}
	}
}
