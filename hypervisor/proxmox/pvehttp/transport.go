// Package pvehttp is the HTTP layer of the Proxmox driver, under go-proxmox's client:
// a per-request timeout, retries of idempotent reads with backoff, answers read whole,
// and Proxmox's error answers kept with their message (StatusError), where go-proxmox
// would keep only the status line. The driver maps these errors to its own.
package pvehttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Retry policy of idempotent reads. Writes are never retried: a POST that timed out
// may still have started a task on Proxmox, and running it twice is worse than
// reporting the failure.
const (
	// ReadAttempts is how often a read is sent at most.
	ReadAttempts    = 3
	retryBackoff    = 200 * time.Millisecond
	retryMaxBackoff = 2 * time.Second
	// maxResponseBytes caps a buffered answer; a year of node rrddata is ~0.5 MB.
	maxResponseBytes = 32 << 20
)

// Transport is the http.RoundTripper under go-proxmox's client. It gives every request
// its own timeout, retries idempotent reads on network errors, timeouts and 5xx with
// exponential backoff and jitter, reads every answer whole (so the per-request timeout
// covers the body and connections go back to the pool), and turns non-2xx answers into
// *StatusError with Proxmox's message, which go-proxmox would otherwise reduce to the
// bare status line (and, for 401/403, to one opaque error).
type Transport struct {
	base     http.RoundTripper
	prefix   string // the API base path, left out of logs and errors
	timeout  time.Duration
	attempts int
	// Backoff is the first retry's wait, doubling up to MaxBackoff (tests shorten
	// them).
	Backoff    time.Duration
	MaxBackoff time.Duration
	log        *zap.Logger
	scrub      func(context.Context, string) string
}

// New returns a Transport over base for the API under prefix (left out of logs and
// errors), each attempt bounded by timeout; scrub removes secrets from what it logs and
// from the errors it returns.
func New(base http.RoundTripper, prefix string, timeout time.Duration, log *zap.Logger, scrub func(context.Context, string) string) *Transport {
	return &Transport{base: base, prefix: prefix, timeout: timeout, attempts: ReadAttempts, Backoff: retryBackoff,
		MaxBackoff: retryMaxBackoff, log: log, scrub: scrub}
}

// noRetryKey marks a context whose reads must not be retried (Ping: a health check
// should report what it sees, quickly).
type noRetryKey struct{}

// WithoutRetry marks ctx so that reads made with it are sent once.
func WithoutRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetryKey{}, true)
}

// noTimeoutKey marks a context whose requests have no timeout of their own: an
// upload, whose time grows with the file it sends, is bounded by its caller alone.
type noTimeoutKey struct{}

// WithoutTimeout marks ctx so that a request made with it is bounded only by ctx, not
// by the Transport's per-request timeout.
func WithoutTimeout(ctx context.Context) context.Context {
	return context.WithValue(ctx, noTimeoutKey{}, true)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the pool.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// RoundTrip sends req, retrying it when it is an idempotent read.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	attempts := 1
	if (req.Method == http.MethodGet || req.Method == http.MethodHead) && ctx.Value(noRetryKey{}) == nil {
		attempts = t.attempts
	}
	for attempt := 1; ; attempt++ {
		start := time.Now()
		resp, err := t.once(req)
		fields := []zap.Field{zap.String("method", req.Method), zap.String("path", t.path(req)),
			zap.Int("attempt", attempt), zap.Duration("took", time.Since(start))}
		if err == nil {
			t.log.Debug("proxmox request", append(fields, zap.Int("status", resp.StatusCode))...)
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		fields = append(fields, zap.String("error", t.scrub(ctx, err.Error())))
		if attempt >= attempts || !retryable(err) {
			t.log.Debug("proxmox request failed", fields...)
			return nil, err
		}
		wait := t.backoffFor(attempt)
		t.log.Warn("proxmox read failed, retrying", append(fields, zap.Duration("backoff", wait))...)
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		}
	}
}

// path is the request's path below the API base, without the query: logs and errors
// name the call, not its parameters.
func (t *Transport) path(req *http.Request) string {
	if p, ok := strings.CutPrefix(req.URL.Path, t.prefix); ok && p != "" {
		return p
	}
	return req.URL.Path
}

// backoffFor is exponential with equal jitter: a random wait in [b/2, b], so that
// many callers hit by one outage do not retry in lockstep.
func (t *Transport) backoffFor(attempt int) time.Duration {
	b := t.Backoff << (attempt - 1)
	if b > t.MaxBackoff || b <= 0 {
		b = t.MaxBackoff
	}
	half := b / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// once sends one attempt under its own timeout and buffers the answer.
func (t *Transport) once(req *http.Request) (*http.Response, error) {
	var ctx context.Context
	var cancel context.CancelFunc
	if req.Context().Value(noTimeoutKey{}) != nil {
		ctx, cancel = context.WithCancel(req.Context())
	} else {
		ctx, cancel = context.WithTimeout(req.Context(), t.timeout)
	}
	defer cancel()
	path := t.path(req)
	fail := func(err error) error {
		var ne net.Error
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
		if timedOut && req.Context().Err() == nil {
			return &TimeoutError{Method: req.Method, Path: path, After: t.timeout}
		}
		return &NetError{Method: req.Method, Path: path, Err: err}
	}
	resp, err := t.base.RoundTrip(req.Clone(ctx))
	if err != nil {
		return nil, fail(err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	resp.Body.Close()
	if err != nil {
		return nil, fail(err)
	}
	if ctx.Err() != nil && req.Context().Err() == nil && (req.Method == http.MethodGet || req.Method == http.MethodHead) {
		// The answer raced the deadline (net/http may deliver a response that arrived
		// while it was cancelling). A read is safe to call timed out and retry; a write's
		// complete answer is kept, since the write happened.
		return nil, &TimeoutError{Method: req.Method, Path: path, After: t.timeout}
	}
	if len(body) > maxResponseBytes {
		return nil, &NetError{Method: req.Method, Path: path, Err: fmt.Errorf("answer larger than %d bytes", maxResponseBytes)}
	}
	if resp.StatusCode >= 400 {
		return nil, newStatusError(req.Method, path, resp, body, func(s string) string { return t.scrub(req.Context(), s) })
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Request = req
	return resp, nil
}

// StatusError is a non-2xx answer of Proxmox. pveproxy puts the message both in the
// status line ("500 VM 100 is locked (clone)") and, in current versions, in the body's
// "message"; parameter errors come in "errors".
type StatusError struct {
	Method  string
	Path    string
	Code    int
	Message string
	Params  map[string]string
}

func newStatusError(method, path string, resp *http.Response, body []byte, scrub func(string) string) *StatusError {
	e := &StatusError{Method: method, Path: path, Code: resp.StatusCode}
	var pb struct {
		Message string          `json:"message"`
		Errors  json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(body, &pb) == nil {
		e.Message = strings.TrimSpace(pb.Message)
		var params map[string]string
		if json.Unmarshal(pb.Errors, &params) == nil && len(params) > 0 {
			e.Params = make(map[string]string, len(params))
			for k, v := range params {
				e.Params[k] = scrub(strings.TrimSpace(v))
			}
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	e.Message = scrub(e.Message)
	return e
}

// Error names the call, the status and Proxmox's message.
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Code, e.Message)
}

// semantic reports whether a 5xx is Proxmox refusing the operation (pveproxy answers
// most refusals with 500) rather than failing: those are not retried.
func (e *StatusError) semantic() bool {
	m := strings.ToLower(e.Message)
	for _, s := range []string{"does not exist", "is locked", "not running", "already running", "already exists",
		"not paused", "no such", "detected modified", "not available", "not online", "shrinking", "can't", "cannot", "unable to", "is running", "not supported"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// TimeoutError is a request that got no full answer within RequestTimeout.
type TimeoutError struct {
	Method string
	Path   string
	After  time.Duration
}

// Error names the call and the timeout.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s %s: no answer within %s", e.Method, e.Path, e.After)
}

// NetError is a request that failed below HTTP: connection, TLS, a cut-off answer.
type NetError struct {
	Method string
	Path   string
	Err    error
}

// Error names the call and the cause.
func (e *NetError) Error() string { return fmt.Sprintf("%s %s: %v", e.Method, e.Path, e.Err) }

// Unwrap is the cause.
func (e *NetError) Unwrap() error { return e.Err }

// PinError is a server certificate that does not match Config.Fingerprint.
type PinError struct {
	// Got is the fingerprint the server presented.
	Got string
}

// Error names the fingerprint the server presented.
func (e *PinError) Error() string {
	return "the server certificate's SHA-256 fingerprint " + e.Got + " does not match the configured Fingerprint"
}

// TLSFailure reports whether err is a certificate problem, which no retry fixes.
func TLSFailure(err error) bool {
	var (
		verr *tls.CertificateVerificationError
		uerr x509.UnknownAuthorityError
		herr x509.HostnameError
		ierr x509.CertificateInvalidError
		perr *PinError
		rerr tls.RecordHeaderError
	)
	return errors.As(err, &verr) || errors.As(err, &uerr) || errors.As(err, &herr) ||
		errors.As(err, &ierr) || errors.As(err, &perr) || errors.As(err, &rerr)
}

// retryable reports whether a failed read may succeed when sent again.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		switch se.Code {
		case 502, 503, 504, 595, 596:
			return true
		case 500:
			return !se.semantic()
		}
		return false
	}
	var te *TimeoutError
	if errors.As(err, &te) {
		return true
	}
	var ne *NetError
	if errors.As(err, &ne) {
		return !TLSFailure(err)
	}
	return false
}
