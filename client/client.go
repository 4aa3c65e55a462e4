package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Client speaks to a vmplane server (or to the members of a cluster). It is safe for
// concurrent use by many goroutines: they share one connection pool and one login.
type Client struct {
	c *core
	// tenant is sent as ?tenant_id= on the /api/client routes (ForTenant).
	tenant string
}

// core is what the copies ForTenant makes share: transport, members and login.
type core struct {
	bases    []string
	cur      atomic.Int32 // index into bases of the member spoken to now
	hc       *http.Client
	maxConns int
	retries  int
	maxWait  time.Duration
	agent    string // User-Agent
	auth     auth
	tasks    taskWatch // the event stream WaitTask listens to
	// pause waits between tries; tests replace it (export_test.go) to see the waits
	// without spending them.
	pause func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*core) error

// DefaultUserAgent is the User-Agent a client sends unless WithUserAgent names another:
// a user's session list shows it for the sessions a client opened.
const DefaultUserAgent = "vmplane-go-client"

// WithUserAgent makes the client send agent as its User-Agent (a program built on the
// client names itself, e.g. "acme-billing/2.1").
func WithUserAgent(agent string) Option {
	return func(c *core) error { c.agent = agent; return nil }
}

// WithToken makes the client send tok as its bearer token. Without credentials it is
// not renewed: when it expires, calls answer ErrUnauthorized.
func WithToken(tok string) Option {
	return func(c *core) error { c.auth.static = tok; return nil }
}

// WithCredentials makes the client log in with email and password on first use, renew
// its token before it expires (by refresh token, or by logging in again when that
// fails) and once more when the server answers 401.
func WithCredentials(email, password string) Option {
	return func(c *core) error {
		if email == "" || password == "" {
			return errors.New("vmplane client: WithCredentials needs an e-mail and a password")
		}
		c.auth.email, c.auth.password = email, password
		return nil
	}
}

// WithLoginLink makes the client sign in, on first use, with the token of a login
// link (CreateLoginLink, or the token= of the link's URL), and renew its token by
// refresh token for as long as that login lasts. A link signs in once: when the login
// ends, requests fail with ErrUnauthorized.
func WithLoginLink(token string) Option {
	return func(c *core) error {
		if token == "" {
			return errors.New("vmplane client: WithLoginLink needs a token")
		}
		c.auth.link, c.auth.fromLink = token, true
		return nil
	}
}

// WithTOTP gives a client made WithCredentials the codes of its user's second factor:
// when a login answers totp_required, code is asked for a current code (or a recovery
// code), which completes the login. Without it such a login fails with
// ErrTOTPRequired.
func WithTOTP(code func(ctx context.Context) (string, error)) Option {
	return func(c *core) error {
		if code == nil {
			return errors.New("vmplane client: WithTOTP needs a function")
		}
		c.auth.totp = code
		return nil
	}
}

// WithHTTPClient makes the client send its requests through hc (its Transport and
// Timeout are used as they are; WithMaxConns then has no effect).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *core) error {
		if hc == nil {
			return errors.New("vmplane client: WithHTTPClient(nil)")
		}
		c.hc = hc
		return nil
	}
}

// WithMaxConns sets the size of the HTTP/1.1 keep-alive pool per member (default 64):
// the most idle connections kept open for reuse. Size it to the number of goroutines
// that call the client at once.
func WithMaxConns(n int) Option {
	return func(c *core) error {
		if n < 1 {
			return fmt.Errorf("vmplane client: WithMaxConns(%d): must be at least 1", n)
		}
		c.maxConns = n
		return nil
	}
}

// WithRetryBudget sets how often one call is retried after a network error, a 503, a
// 429 or a 409 with Retry-After for its own key (default 5), and the longest wait between two tries (0: the default, 30s; a
// Retry-After asking for longer ends the retries, with the 429 or 503 as the error).
// 0 retries turns retrying off.
//
// A POST is retried with the same Idempotency-Key, so the server applies it once. A
// PATCH or DELETE retried after a dropped connection may find the first try done: a
// repeated DELETE can answer ErrNotFound or ErrOperationInProgress.
func WithRetryBudget(retries int, maxWait time.Duration) Option {
	return func(c *core) error {
		if retries < 0 || maxWait < 0 {
			return errors.New("vmplane client: WithRetryBudget: negative budget")
		}
		c.retries = retries
		if maxWait > 0 {
			c.maxWait = maxWait
		}
		return nil
	}
}

// WithBaseURLs adds further members of a cluster: a call that cannot reach the member
// in use (a connection error) goes to the next one, which stays in use after.
func WithBaseURLs(urls ...string) Option {
	return func(c *core) error {
		for _, u := range urls {
			b, err := parseBase(u)
			if err != nil {
				return err
			}
			c.bases = append(c.bases, b)
		}
		return nil
	}
}

func parseBase(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("vmplane client: base URL %q: want http(s)://host[:port]", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// New returns a client of the server at baseURL (http://host:port). Give it a token
// (WithToken) or credentials (WithCredentials) for every route but the public ones.
func New(baseURL string, opts ...Option) (*Client, error) {
	b, err := parseBase(baseURL)
	if err != nil {
		return nil, err
	}
	c := &core{bases: []string{b}, maxConns: 64, retries: 5, maxWait: 30 * time.Second, agent: DefaultUserAgent}
	c.auth.sem = make(chan struct{}, 1)
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	if c.hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// Plain HTTP/1.1 with keep-alive: the server speaks HTTP/1.1, and reusing
		// connections is what makes a busy client fast.
		t.ForceAttemptHTTP2 = false
		t.MaxIdleConnsPerHost = c.maxConns
		t.MaxIdleConns = c.maxConns * len(c.bases)
		t.IdleConnTimeout = 90 * time.Second
		c.hc = &http.Client{Transport: t}
	}
	return &Client{c: c}, nil
}

// ForTenant returns a client that acts for the tenant id on the client-area routes
// (/api/client/...: machines, firewall rules, overview), as an operator must say. It
// shares the connection pool and the login of c. A tenant's own user needs no such call.
func (c *Client) ForTenant(id string) *Client { return &Client{c: c.c, tenant: id} }

// HTTPClient is the *http.Client requests go through.
func (c *Client) HTTPClient() *http.Client { return c.c.hc }

type idemKey struct{}

// WithIdempotencyKey makes the POST sent with ctx carry key as its Idempotency-Key
// instead of a new random one: give the same key to retry a request across restarts of
// your own program without applying it twice.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idemKey{}, key)
}

// NewIdempotencyKey returns a random key (128 bits from crypto/rand, hex).
func NewIdempotencyKey() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather)
	return hex.EncodeToString(b[:])
}

// request is one API call.
type request struct {
	method, path string
	query        url.Values
	body         any  // JSON-encoded when not nil
	public       bool // sent without a token
	out          any  // decoded from a 2xx body when not nil
	header       http.Header
	// redirect: a 302 is the answer (its Location in the header returned), not
	// followed.
	redirect bool
}

// do sends r, retrying what may be retried, and decodes the answer into r.out. It
// returns the answer's header (for Location and the like).
func (c *core) do(ctx context.Context, r request) (http.Header, error) {
	if strings.HasSuffix(r.path, "/") || strings.Contains(r.path, "//") {
		// An empty id (an unset variable) would name another route, or none.
		return nil, fmt.Errorf("vmplane client: %s %s: an id in the path is empty", r.method, r.path)
	}
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return nil, fmt.Errorf("vmplane client: encode %s %s: %w", r.method, r.path, err)
		}
	}
	key := ""
	if r.method == http.MethodPost {
		// One key for every try: a retry of a request that did reach the server gets
		// the first answer again instead of applying it twice.
		key, _ = ctx.Value(idemKey{}).(string)
		if key == "" {
			key = NewIdempotencyKey()
		}
	}
	reauthed := false
	tried := 0 // members tried since the last answer, for failover without waiting
	for attempt := 0; ; attempt++ {
		tok := ""
		if !r.public {
			var err error
			if tok, err = c.token(ctx, ""); err != nil {
				return nil, err
			}
		}
		idx := int(c.cur.Load()) % len(c.bases)
		req, err := http.NewRequestWithContext(ctx, r.method, c.bases[idx]+r.path, bytes.NewReader(payload))
		if err != nil {
			return nil, fmt.Errorf("vmplane client: %s %s: %w", r.method, r.path, err)
		}
		if payload == nil {
			req.Body, req.ContentLength = http.NoBody, 0
		} else {
			req.Header.Set("Content-Type", "application/json")
		}
		if len(r.query) > 0 {
			req.URL.RawQuery = r.query.Encode()
		}
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", c.agent)
		for k, v := range r.header {
			req.Header[k] = v
		}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		hc := c.hc
		if r.redirect {
			once := *c.hc
			once.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			hc = &once
		}
		res, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if attempt >= c.retries {
				return nil, fmt.Errorf("vmplane client: %s %s: %w", r.method, r.path, err)
			}
			// The member is unreachable or dropped the connection: go on with the next
			// one, at once while some member is left untried, after a pause otherwise.
			if len(c.bases) > 1 {
				c.cur.CompareAndSwap(int32(idx), int32((idx+1)%len(c.bases)))
			}
			tried++
			if tried < len(c.bases) {
				continue
			}
			tried = 0
			if err := c.sleep(ctx, backoff(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		tried = 0
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if attempt >= c.retries {
				return nil, fmt.Errorf("vmplane client: %s %s: read answer: %w", r.method, r.path, err)
			}
			if err := c.sleep(ctx, backoff(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		switch {
		case res.StatusCode < 300, r.redirect && res.StatusCode == http.StatusFound:
			if r.out != nil && len(body) > 0 {
				if err := json.Unmarshal(body, r.out); err != nil {
					return res.Header, fmt.Errorf("vmplane client: %s %s: decode answer: %w", r.method, r.path, err)
				}
			}
			return res.Header, nil
		case res.StatusCode == http.StatusUnauthorized && !r.public && !reauthed && c.auth.canRenew():
			// The token expired early or its session ended: renew it once and try again.
			reauthed = true
			if _, err := c.token(ctx, tok); err != nil {
				return nil, err
			}
			attempt-- // a renewal is not a retry
			continue
		case res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable ||
			res.StatusCode == http.StatusConflict && key != "" && res.Header.Get("Retry-After") != "":
			// A 409 with Retry-After for our key: its first try still runs (or ran on a
			// member that died, until that member's lease expires), so this one is
			// answered once it ends.
			wait := retryAfter(res.Header, attempt)
			if attempt >= c.retries || wait > c.maxWait {
				return res.Header, errorFrom(res, body)
			}
			if err := c.sleep(ctx, wait); err != nil {
				return nil, err
			}
			continue
		default:
			// Every other error, 4xx above all, is final: retrying cannot change it. A 409
			// conflict for our own key without Retry-After means a first try may have
			// taken effect (the server restarted under a logout or a sync, the routes
			// exempt from completing on retry): the caller must look before trying anew.
			return res.Header, errorFrom(res, body)
		}
	}
}

// backoff is the pause before retry attempt+1: exponential from 100ms, at most 5s,
// with jitter so that many clients do not come back at the same moment.
func backoff(attempt int) time.Duration {
	d := 100 * time.Millisecond << min(attempt, 6)
	d = min(d, 5*time.Second)
	return d/2 + mrand.N(d/2+1)
}

// retryAfter is the pause the server asks for in Retry-After (seconds or an HTTP date)
// or RateLimit-Reset (seconds), or the backoff when it names none.
func retryAfter(h http.Header, attempt int) time.Duration {
	var wait time.Duration
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		} else if t, err := http.ParseTime(v); err == nil {
			wait = max(time.Until(t), 0)
		}
	}
	if v := h.Get("RateLimit-Reset"); v != "" && wait == 0 {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
	}
	if wait == 0 {
		return backoff(attempt)
	}
	return wait
}

// sleep waits d between two tries, or until ctx ends.
func (c *core) sleep(ctx context.Context, d time.Duration) error {
	if c.pause != nil {
		return c.pause(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
