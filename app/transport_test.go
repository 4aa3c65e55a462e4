package app

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/internal/testwait"
)

// rawExchange writes raw on a new connection to addr and reads one answer.
func rawExchange(t *testing.T, addr, raw string) (*response, error) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Only keeps a server that never answers from hanging the test.
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(conn, raw); err != nil {
		return nil, err
	}
	return readAnswer(conn)
}

// readAnswer reads one HTTP answer off conn.
func readAnswer(conn net.Conn) (*response, error) {
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &response{Status: res.StatusCode, Header: res.Header, Body: body}, nil
}

// 17.9: every error answer, whoever produces it (fasthttp's parser, the router, a
// handler), is problem JSON with a code.
func TestEveryErrorIsProblemJSON(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	long := strings.Repeat("a", 5000)
	cases := []struct {
		name, raw string
		status    int
		code      string
	}{
		{"content length not a number", "GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400, "invalid_request"},
		{"negative content length", "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400, "invalid_request"},
		{"two content lengths", "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef", 400, "invalid_request"},
		{"space in the request target", "GET /api/he alth HTTP/1.1\r\nHost: x\r\n\r\n", 400, "invalid_request"},
		{"no method", "GARBAGE\r\n\r\n", 400, "invalid_request"},
		{"binary request line", "\x00\x01\x02\r\n\r\n", 400, "invalid_request"},
		{"no Host", "GET /api/health HTTP/1.1\r\n\r\n", 400, "invalid_request"},
		{"malformed absolute URL", "GET http://[::1 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "invalid_request"},
		{"broken chunks", "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "invalid_request"},
		{"unknown transfer coding", "GET /api/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400, "invalid_request"},
		{"header too big", "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Pad: " + long + "\r\n\r\n", 431, "header_too_large"},
		{"request target too long", "GET /api/" + long + " HTTP/1.1\r\nHost: x\r\n\r\n", 431, "header_too_large"},
		{"body too big", fmt.Sprintf("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n{", 2<<20), 413, "payload_too_large"},
		{"body too big, announced with Expect", fmt.Sprintf("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", 4<<20), 413, "payload_too_large"},
		{"chunked body too big", "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n" + strings.Repeat("a", 2<<20) + "\r\n0\r\n\r\n", 413, "payload_too_large"},
		{"unknown route", "GET /api/nope HTTP/1.1\r\nHost: x\r\n\r\n", 404, "not_found"},
		{"undecodable path", "GET /api/%zz HTTP/1.1\r\nHost: x\r\n\r\n", 404, "not_found"},
		{"wrong method", "DELETE /api/health HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"},
		// The router would redirect these to Host with the query; they are not routes.
		{"trailing slash", "GET /api/health/?x=1 HTTP/1.1\r\nHost: evil.example\r\n\r\n", 404, "not_found"},
		{"other case", "GET /API/HEALTH HTTP/1.1\r\nHost: evil.example\r\n\r\n", 404, "not_found"},
		{"dot segments", "GET /api/x/../../api/health/ HTTP/1.1\r\nHost: evil.example\r\n\r\n", 404, "not_found"},
		{"console websocket without a ticket", "GET /api/virt/vms/x/console/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
			"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", 401, "unauthorized"},
		{"console websocket with a bad key", "GET /api/virt/vms/x/console/ws?ticket=t HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
			"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n", 400, "invalid_request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := rawExchange(t, s.app.Addr(), c.raw)
			if err != nil {
				t.Fatalf("got %v; want an answer", err)
			}
			expect(t, r, c.status, c.code)
			if loc := r.Header.Get("Location"); loc != "" {
				t.Fatalf("got Location %q; want none", loc)
			}
		})
	}
}

// 16.13: a body over the limit sent whole, without waiting for 100-continue, gets its
// 413 every time, not a connection reset under the answer.
func TestOversizedBodyAlwaysGets413(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	body := strings.Repeat("a", 4<<20)
	for i := range 20 {
		conn, err := net.Dial("tcp", s.app.Addr())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
		wrote := make(chan error, 1)
		go func() {
			_, err := fmt.Fprintf(conn, "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			wrote <- err
		}()
		r, err := readAnswer(conn)
		if err != nil {
			t.Fatalf("try %d: got %v; want a 413 answer", i, err)
		}
		expect(t, r, 413, "payload_too_large")
		if werr := <-wrote; werr != nil {
			t.Fatalf("try %d: sending the body: %v; want it taken in (and dropped)", i, werr)
		}
		// The server ends the connection cleanly once it has taken the body in.
		if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Fatalf("try %d: got %v after the answer; want the connection closed cleanly (EOF)", i, err)
		}
		conn.Close()
	}
}

// 17.8: a client that sends its headers a byte at a time is cut off after the header
// timeout, while other clients are served.
func TestSlowHeadersAreCutOff(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.HeaderTimeout = 500 * time.Millisecond })
	const slow = 20
	var wg sync.WaitGroup
	results := make(chan error, slow)
	stop := make(chan struct{})
	started := make(chan struct{}, slow)
	for range slow {
		wg.Go(func() {
			conn, err := net.Dial("tcp", s.app.Addr())
			if err != nil {
				results <- err
				return
			}
			defer conn.Close()
			// The header would take 100 s at this pace; the test gives up after 20 s.
			_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
			read := make(chan error, 1)
			go func() {
				r, err := readAnswer(conn)
				if err == nil && (r.Status != 408 || r.Header.Get("Content-Type") != "application/problem+json") {
					err = fmt.Errorf("got %d %s; want 408 problem JSON", r.Status, r.Body)
				}
				if err != nil && !isEndOfConn(err) {
					read <- err
					return
				}
				read <- nil
			}()
			head := "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("a", 1000)
			started <- struct{}{}
			for i := range len(head) {
				if _, err := conn.Write([]byte{head[i]}); err != nil {
					break // cut off
				}
				select {
				case err := <-read:
					results <- err
					return
				case <-stop:
					results <- errors.New("still connected when the test ended")
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
			results <- <-read
		})
	}
	for range slow {
		<-started
	}
	// Meanwhile a normal client is served.
	expect(t, doWith(t, clientFrom("127.0.0.7"), s.base, req{method: "GET", path: "/api/health"}), 200, "")
	for range slow {
		if err := <-results; err != nil {
			close(stop)
			t.Fatalf("slow client: %v; want it cut off after the header timeout", err)
		}
	}
	wg.Wait()
}

// isEndOfConn reports the ways a connection the server closed shows to a reader.
func isEndOfConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(err.Error(), "connection reset")
}

// 17.8: kept-alive connections that send nothing are closed after the idle timeout, and
// connections that never send a request after the header timeout; event streams and
// console websockets, which are quiet for long stretches, are not cut.
func TestIdleConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	s, tok := synced(t, func(c *Config) {
		c.HeaderTimeout = 300 * time.Millisecond
		c.IdleTimeout = 300 * time.Millisecond
	})
	m := byStatus(t, s.machines(tok), machines.StatusRunning)
	closed := func(name string, conn net.Conn) {
		t.Helper()
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		br := bufio.NewReader(conn)
		for {
			_, err := br.ReadByte()
			if err == nil {
				continue // a 408 answer to the unused connection
			}
			if !isEndOfConn(err) {
				t.Fatalf("%s: got %v; want the server to close the connection", name, err)
			}
			return
		}
	}
	// idle opens a kept-alive connection that goes quiet after one request, and one
	// that never sends a request.
	idle := func() (used, unused net.Conn) {
		t.Helper()
		used, err := net.Dial("tcp", s.app.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { used.Close() })
		fmt.Fprintf(used, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
		if r, err := readAnswer(used); err != nil || r.Status != 200 || r.Header.Get("Connection") == "close" {
			t.Fatalf("got %v, %v; want 200 on a kept-alive connection", r, err)
		}
		unused, err = net.Dial("tcp", s.app.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unused.Close() })
		return used, unused
	}
	used, unused := idle()

	// An event stream and a console, opened before the timeouts pass.
	st := s.subscribe(tok, 0)
	ws := s.dialConsole(tok, m.ID)

	closed("kept-alive connection", used)
	closed("unused connection", unused)
	// Two more, opened after the stream and the console: once they are closed, both
	// timeouts have passed for the stream and the console too, which still work.
	used, unused = idle()
	closed("later kept-alive connection", used)
	closed("later unused connection", unused)
	task := s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: tok})
	st.until(t, taskDone(task.ID))
	if err := ws.WriteMessage(websocket.TextMessage, []byte("hostname\n")); err != nil {
		t.Fatalf("console: %v", err)
	}
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var got strings.Builder
	for !strings.Contains(got.String(), m.Name) {
		_, data, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("console: got %v (read %q); want it still open", err, got.String())
		}
		got.Write(data)
	}
}

// 17.8: one address gets at most --max-conns-per-addr connections; the next is
// answered 429 and closed, other addresses are not affected, and a closed connection
// frees its place.
func TestConnectionCapPerAddress(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.MaxConnsPerAddr = 3 })
	from := func(ip string) net.Conn {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		conn, err := d.Dial("tcp", s.app.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	health := func(conn net.Conn) (*response, error) {
		_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(conn, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
		return readAnswer(conn)
	}
	var open []net.Conn
	for range 3 {
		conn := from("127.0.0.11")
		if r, err := health(conn); err != nil || r.Status != 200 {
			t.Fatalf("got %v, %v; want 200 within the cap", r, err)
		}
		open = append(open, conn)
	}
	over := from("127.0.0.11")
	r, err := health(over)
	if err != nil {
		t.Fatalf("got %v; want a 429 answer over the cap", err)
	}
	expect(t, r, 429, "too_many_connections")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("got no Retry-After on the 429")
	}
	if _, err := over.Read(make([]byte, 1)); !isEndOfConn(err) {
		t.Fatalf("got %v; want the refused connection closed", err)
	}
	m := doWith(t, clientFrom("127.0.0.13"), s.base, req{method: "GET", path: "/metrics"})
	if !strings.Contains(string(m.Body), `vmplane_ratelimit_refused_total{bucket="connections"} 1`) {
		t.Fatal("got no refused connection counted in /metrics")
	}
	// Another address is its own client.
	if r, err := health(from("127.0.0.12")); err != nil || r.Status != 200 {
		t.Fatalf("got %v, %v from another address; want 200", r, err)
	}
	// Closing one frees its place (once the server has seen the close).
	open[0].Close()
	testwait.Until(t, func() error {
		r, err := health(from("127.0.0.11"))
		if err == nil && r.Status == 200 {
			return nil
		}
		return fmt.Errorf("got %v, %v; want a closed connection's place given back", r, err)
	})
}

// 17.5: the addresses of one IPv6 /64 are one client for the rate limits; another /64
// is another client; IPv4-mapped IPv6 is the IPv4 client. The addresses come through a
// trusted proxy's X-Forwarded-For, since loopback has only one IPv6 address.
func TestIPv6ClientsAreKeyedByPrefix(t *testing.T) {
	t.Parallel()
	const burst = 4
	s := startServer(t, func(c *Config) {
		c.RateGlobal, c.RateGlobalBurst = 0.001, burst
		c.TrustedProxies = "127.0.0.1/32"
	})
	from := func(addr string) int {
		t.Helper()
		return s.do(req{method: "GET", path: "/api/health", header: map[string]string{"X-Forwarded-For": addr}}).Status
	}
	passed := 0
	for i := range 16 {
		// Addresses spread over the interface id, as a host picking at random would.
		if from(fmt.Sprintf("2001:db8:1:2:%x:%x::%x", i*4099, i*257, i+1)) == 200 {
			passed++
		}
	}
	if passed != burst {
		t.Fatalf("16 addresses of one /64: %d requests passed; want the one burst of %d", passed, burst)
	}
	if got := from("2001:db8:1:3::1"); got != 200 {
		t.Fatalf("another /64: got %d; want 200", got)
	}
	for i := range burst {
		if got := from("::ffff:192.0.2.7"); got != 200 {
			t.Fatalf("IPv4-mapped request %d: got %d; want 200", i, got)
		}
	}
	if got := from("192.0.2.7"); got != 429 {
		t.Fatalf("the same address as IPv4: got %d; want 429, the mapped address's bucket", got)
	}
}

func TestIPv6PrefixSetting(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) {
		c.RateGlobal, c.RateGlobalBurst = 0.001, 1
		c.TrustedProxies = "127.0.0.1/32"
		c.RateIPv6Prefix = 48
	})
	from := func(addr string) int {
		return s.do(req{method: "GET", path: "/api/health", header: map[string]string{"X-Forwarded-For": addr}}).Status
	}
	if a, b := from("2001:db8:1:2::1"), from("2001:db8:1:ffff::1"); a != 200 || b != 429 {
		t.Fatalf("two /64s of one /48: got %d, %d; want 200, 429", a, b)
	}
	if got := from("2001:db8:2::1"); got != 200 {
		t.Fatalf("another /48: got %d; want 200", got)
	}
}

// 17.10: the console ticket's URL never carries the request's Host (or X-Forwarded-*):
// without a public URL it is a path, with one it is built from it.
func TestConsoleURLIgnoresHost(t *testing.T) {
	t.Parallel()
	for _, public := range []string{"", "https://panel.example.com/"} {
		t.Run("public URL "+public, func(t *testing.T) {
			s, tok := synced(t, func(c *Config) {
				c.PublicURL = public
				c.TrustedProxies = "127.0.0.1/32"
			})
			m := byStatus(t, s.machines(tok), machines.StatusRunning)
			for _, id := range []string{m.ID, fmt.Sprint(m.VMID)} {
				r, err := rawExchange(t, s.app.Addr(), "GET /api/virt/vms/"+id+"/console HTTP/1.1\r\nHost: evil.example\r\n"+
					"X-Forwarded-Host: evil2.example\r\nX-Forwarded-Proto: https\r\nForwarded: host=evil3.example\r\n"+
					"Authorization: Bearer "+tok+"\r\nConnection: close\r\n\r\n")
				if err != nil {
					t.Fatal(err)
				}
				expect(t, r, 200, "")
				var c struct{ URL, Path, Ticket string }
				r.decode(t, &c)
				wantPath := "/api/virt/vms/" + m.ID + "/console/ws?ticket=" + c.Ticket
				wantURL := wantPath
				if public != "" {
					wantURL = "wss://panel.example.com" + wantPath
				}
				if c.Ticket == "" || c.Path != wantPath || c.URL != wantURL || strings.Contains(string(r.Body), "evil") {
					t.Fatalf("got %s; want path %q and url %q, and no trace of the request's hosts", r.Body, wantPath, wantURL)
				}
			}
		})
	}
}

// X-Forwarded-For names the client only when a trusted proxy sends it: another peer
// cannot pose as many clients by writing it.
func TestForwardedForOnlyFromTrustedProxies(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) {
		c.RateGlobal, c.RateGlobalBurst = 0.001, 2
		c.TrustedProxies = "127.0.0.1/32"
	})
	untrusted := clientFrom("127.0.0.21")
	var got []int
	for i := range 3 {
		r := doWith(t, untrusted, s.base, req{method: "GET", path: "/api/health",
			header: map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.100.%d", i+1)}})
		got = append(got, r.Status)
	}
	if got[0] != 200 || got[1] != 200 || got[2] != 429 {
		t.Fatalf("got %v from an untrusted peer naming three clients; want 200, 200, 429 (one client)", got)
	}
}

// A body within the limit announced with Expect: 100-continue is asked for and read.
func TestExpectContinueWithinTheLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	conn, err := net.Dial("tcp", s.app.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	body := fmt.Sprintf(`{"email":%q,"password":%q}`, testAdminEmail, testAdminPassword)
	fmt.Fprintf(conn, "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(body))
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != 100 {
		t.Fatalf("got %v, %v; want 100 Continue", res, err)
	}
	io.WriteString(conn, body)
	res, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("got %d %s; want 200 for the login", res.StatusCode, b)
	}
}
