package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// target is the server under load.
type target struct {
	base string // scheme://host[:port], no trailing slash
	addr string // host:port to dial
	tls  bool
}

func newTarget(raw string) (target, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		return target{}, fmt.Errorf("--url %q: %w", raw, err)
	}
	t := target{base: u.Scheme + "://" + u.Host, tls: u.Scheme == "https", addr: u.Host}
	if u.Port() == "" {
		port := "80"
		if t.tls {
			port = "443"
		}
		t.addr = net.JoinHostPort(u.Hostname(), port)
	}
	return t, nil
}

// parseTargets reads --url: one base URL, or several separated by commas (the members
// of one cluster, each given its share of the connections). Each must be an http:// or
// https:// URL with a host; the first problem is the error, on one line.
func parseTargets(list string) ([]target, error) {
	var out []target
	for _, raw := range strings.Split(list, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			return nil, fmt.Errorf("--url %q: an empty URL in the list", list)
		}
		u, err := url.Parse(raw)
		switch {
		case !strings.Contains(raw, "://"): // 127.0.0.1:8080 has no scheme, whatever url.Parse makes of it
			return nil, fmt.Errorf("--url %q: want an http:// or https:// URL", raw)
		case err != nil:
			return nil, fmt.Errorf("--url %q: %w", raw, errors.Unwrap(err))
		case u.Scheme != "http" && u.Scheme != "https":
			return nil, fmt.Errorf("--url %q: want an http:// or https:// URL", raw)
		case u.Host == "":
			return nil, fmt.Errorf("--url %q: no host", raw)
		}
		t, err := newTarget(raw)
		if err != nil {
			return nil, err
		}
		for _, prev := range out {
			if prev.addr == t.addr && prev.tls == t.tls { // http://a and http://a:80 too
				return nil, fmt.Errorf("--url: %s given twice", t.base)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// joinBases is how a report names targets: their base URLs, separated by commas as
// --url takes them.
func joinBases(ts []target) string {
	bases := make([]string, len(ts))
	for i, t := range ts {
		bases[i] = t.base
	}
	return strings.Join(bases, ",")
}

// url is the absolute URL of a path on the target.
func (t target) url(path string) string { return t.base + path }

// hostClient is a client of the target with at most maxConns connections. It never
// retries: a load generator that retries hides the errors it is there to count.
func (t target) hostClient(maxConns int, timeout time.Duration) *fasthttp.HostClient {
	return &fasthttp.HostClient{
		Addr:                          t.addr,
		IsTLS:                         t.tls,
		Name:                          "vmplane-bench",
		MaxConns:                      maxConns,
		MaxConnWaitTimeout:            timeout,
		MaxIdemponentCallAttempts:     1,
		RetryIfErr:                    func(*fasthttp.Request, int, error) (bool, bool) { return false, false },
		ReadTimeout:                   timeout,
		WriteTimeout:                  timeout,
		ReadBufferSize:                16 << 10,
		WriteBufferSize:               16 << 10,
		MaxResponseBodySize:           64 << 20,
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
	}
}

// errClass names a transport error the way a report groups them.
func errClass(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, fasthttp.ErrDialTimeout),
		errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, fasthttp.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed):
		return "connection closed"
	case errors.Is(err, fasthttp.ErrNoFreeConns):
		return "no free connections"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "no local ports left"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "cannot resolve " + dns.Name
	}
	return err.Error()
}

// problemCode is the "code" of a problem JSON body, or nil.
func problemCode(body []byte) []byte {
	const key = `"code":"`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return nil
	}
	rest := body[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || j > 64 {
		return nil
	}
	return rest[:j]
}

// httpError is an answer the setup or cleanup did not expect.
type httpError struct {
	Method, Path string
	Status       int
	Code, Detail string
	RetryAfter   time.Duration
}

func (e *httpError) Error() string {
	s := fmt.Sprintf("%s %s answered %d", e.Method, e.Path, e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// unreachableError is a target that cannot be reached at all.
type unreachableError struct {
	Base   string
	Reason string
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("cannot reach %s: %s", e.Base, e.Reason)
}

// api is the plain client of the setup and cleanup phases: JSON in, JSON out, and
// patient with 429s, which a setup that creates many records meets on a server with
// its default limits.
type api struct {
	t       target
	hc      *fasthttp.HostClient
	timeout time.Duration
}

func newAPI(t target, timeout time.Duration) *api {
	return &api{t: t, hc: t.hostClient(64, timeout), timeout: timeout}
}

// call sends one request and decodes a 2xx answer into out (when non-nil). A 429 is
// retried after its Retry-After while ctx allows; any other status outside want is an
// *httpError, a transport failure an *unreachableError.
func (a *api) call(ctx context.Context, method, path, token string, in, out any, want ...int) (int, error) {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return 0, err
		}
	}
	for attempt := 0; attempt < 1000; attempt++ {
		status, raw, retry, err := a.once(method, path, token, body)
		if err != nil {
			return 0, err
		}
		if status == fasthttp.StatusTooManyRequests && !slices.Contains(want, status) {
			wait := min(max(retry, 100*time.Millisecond), 5*time.Second)
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
				return status, responseError(method, path, status, raw, retry)
			}
			select {
			case <-ctx.Done():
				return status, responseError(method, path, status, raw, retry)
			case <-time.After(wait):
			}
			continue
		}
		ok := status >= 200 && status < 300 && len(want) == 0
		for _, w := range want {
			ok = ok || status == w
		}
		if !ok {
			return status, responseError(method, path, status, raw, retry)
		}
		if out != nil && len(raw) > 0 {
			if err := json.Unmarshal(raw, out); err != nil {
				return status, fmt.Errorf("%s %s: cannot decode the answer: %w", method, path, err)
			}
		}
		return status, nil
	}
	return 0, fmt.Errorf("%s %s: still rate limited after 1000 attempts", method, path)
}

func (a *api) once(method, path, token string, body []byte) (status int, raw []byte, retry time.Duration, err error) {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(method)
	req.SetRequestURI(a.t.url(path))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBodyRaw(body)
	}
	if err := a.hc.DoTimeout(req, resp, a.timeout); err != nil {
		return 0, nil, 0, &unreachableError{Base: a.t.base, Reason: errClass(err)}
	}
	if s, err := strconv.Atoi(string(resp.Header.Peek("Retry-After"))); err == nil {
		retry = time.Duration(s) * time.Second
	}
	return resp.StatusCode(), append([]byte(nil), resp.Body()...), retry, nil
}

func responseError(method, path string, status int, raw []byte, retry time.Duration) error {
	e := &httpError{Method: method, Path: path, Status: status, RetryAfter: retry}
	var p struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(raw, &p) == nil {
		e.Code, e.Detail = p.Code, p.Detail
	}
	return e
}

// routeMissing turns a 404 or 405 from a route a scenario needs into the message that
// says so; other errors are wrapped with the scenario's name.
func routeMissing(scenario, method, route string, err error) error {
	var he *httpError
	if errors.As(err, &he) && (he.Status == fasthttp.StatusNotFound || he.Status == fasthttp.StatusMethodNotAllowed) {
		return fmt.Errorf("scenario %s needs %s %s, which answered %d — is the server too old?", scenario, method, route, he.Status)
	}
	var ue *unreachableError
	if errors.As(err, &ue) {
		return err
	}
	return fmt.Errorf("scenario %s: %w", scenario, err)
}
