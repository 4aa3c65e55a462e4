package remotes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vmplane/vmplane/client"
)

// renewAhead is how long before its expiry a stored access token is renewed: a
// command then never starts with a token that dies on its way.
const renewAhead = 60 * time.Second

// ErrLoginEnded matches the error of a command whose stored login can no longer be
// renewed (its refresh token expired or was revoked), or that has none.
var ErrLoginEnded = errors.New("login ended")

// loginEndedError says which login ended and what to do.
type loginEndedError struct{ msg string }

func (e *loginEndedError) Error() string        { return e.msg }
func (e *loginEndedError) Is(target error) bool { return target == ErrLoginEnded }

func loginEnded(format string, a ...any) error {
	return &loginEndedError{fmt.Sprintf(format, a...)}
}

// tokenReply is the answer of POST /api/auth/login and /api/auth/refresh.
type tokenReply struct {
	Token        string `json:"token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	// MustEnrolTOTP: the login may only enrol a second factor first.
	MustEnrolTOTP bool `json:"totp_enrolment_required"`
	User          *struct {
		Email string `json:"email"`
		Role  string `json:"role"`
	} `json:"user"`
}

// UserAgent is the User-Agent of the CLI's requests: a user's session list shows it
// for the sessions the CLI opened.
const UserAgent = "vmplane-cli"

// postJSON sends one JSON POST and decodes a 2xx answer into out; an error answer
// becomes a *client.Error, like the client's own. A 429 (never applied, so safe to
// retry for a refresh too) is retried as the Go client does: after its Retry-After,
// at most 5 times, none over 30 s, while ctx lasts.
func postJSON(ctx context.Context, hc *http.Client, url, bearer string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", UserAgent)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		res, err := hc.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
		res.Body.Close()
		if err != nil {
			return err
		}
		wait, werr := strconv.Atoi(res.Header.Get("Retry-After"))
		if res.StatusCode == http.StatusTooManyRequests && attempt < 5 && werr == nil && wait >= 0 && wait <= 30 {
			select {
			case <-time.After(time.Duration(wait) * time.Second):
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if res.StatusCode >= 300 {
			return problemError(res, data)
		}
		if out != nil && len(data) > 0 {
			return json.Unmarshal(data, out)
		}
		return nil
	}
}

// problemError is the *client.Error of an error answer of the auth routes.
func problemError(res *http.Response, body []byte) *client.Error {
	var p struct {
		Code      string              `json:"code"`
		Detail    string              `json:"detail"`
		Errors    []client.FieldError `json:"errors"`
		RequestID string              `json:"request_id"`
		Challenge string              `json:"challenge"`
	}
	e := &client.Error{Status: res.StatusCode, RequestID: res.Header.Get("X-Request-Id")}
	if json.Unmarshal(body, &p) == nil && p.Code != "" {
		e.Code, e.Detail, e.Fields, e.Challenge = p.Code, p.Detail, p.Errors, p.Challenge
		return e
	}
	e.Code = fmt.Sprintf("http_%d", res.StatusCode)
	e.Detail = http.StatusText(res.StatusCode)
	return e
}

// Login logs in at base and returns the credentials to keep. When the user has a
// second factor, code is asked for a code of it (or a recovery code), which completes
// the login; without code such a login fails with the server's totp_required.
func Login(ctx context.Context, hc *http.Client, base, email, password string, code func() (string, error)) (*Credentials, error) {
	var tr tokenReply
	err := postJSON(ctx, hc, base+"/api/auth/login", "", map[string]string{"email": email, "password": password}, &tr)
	var e *client.Error
	if errors.As(err, &e) && errors.Is(e, client.ErrTOTPRequired) && code != nil {
		var otp string
		if otp, err = code(); err != nil {
			return nil, err
		}
		err = postJSON(ctx, hc, base+"/api/auth/login/totp", "", map[string]string{"challenge": e.Challenge, "code": otp}, &tr)
	}
	if err != nil {
		return nil, err
	}
	c := credentialsOf(tr, time.Now())
	c.Email = email
	return c, nil
}

// LoginWithLink signs in at base with the token of a login link, once.
func LoginWithLink(ctx context.Context, hc *http.Client, base, token string) (*Credentials, error) {
	var tr tokenReply
	if err := postJSON(ctx, hc, base+"/api/auth/login-link", "", map[string]string{"token": token}, &tr); err != nil {
		return nil, err
	}
	return credentialsOf(tr, time.Now()), nil
}

// OIDCStart starts a sign-in with an OpenID Connect provider at base and answers the
// provider's address, for a browser to open, and the sign-in's secret, which
// LoginWithOIDC sends back (client.OIDCStart).
func OIDCStart(ctx context.Context, hc *http.Client, base, provider string) (client.OIDCStarted, error) {
	c, err := client.New(base, client.WithHTTPClient(hc), client.WithUserAgent(UserAgent))
	if err != nil {
		return client.OIDCStarted{}, err
	}
	return c.OIDCStart(ctx, provider, "/")
}

// oidcCookie is the cookie the server sets to a sign-in's secret at its start, and
// takes it back in at the callback.
const oidcCookie = "vmplane_oidc_secret"

// LoginWithOIDC completes a sign-in OIDCStart began, with callback: the address the
// provider sent the browser back to (base's /api/auth/oidc/{provider}/callback with
// the provider's code and state), and the sign-in's secret, once. A user with a
// second factor is asked code.
func LoginWithOIDC(ctx context.Context, hc *http.Client, base, callback, secret string, code func() (string, error)) (*Credentials, error) {
	u, err := url.Parse(strings.TrimSpace(callback))
	if err != nil || !strings.HasPrefix(u.Path, "/api/auth/oidc/") || !strings.HasSuffix(u.Path, "/callback") || u.Query().Get("state") == "" {
		return nil, fmt.Errorf("%q is not the address of a sign-in's callback (it ends in /callback?code=...&state=...)", callback)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+u.Path+"?"+u.RawQuery, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.AddCookie(&http.Cookie{Name: oidcCookie, Value: secret})
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	var tr tokenReply
	if res.StatusCode >= 300 {
		e := problemError(res, data)
		if !errors.Is(e, client.ErrTOTPRequired) || code == nil {
			return nil, e
		}
		otp, err := code()
		if err != nil {
			return nil, err
		}
		if err := postJSON(ctx, hc, base+"/api/auth/login/totp", "", map[string]string{"challenge": e.Challenge, "code": otp}, &tr); err != nil {
			return nil, err
		}
	} else if err := json.Unmarshal(data, &tr); err != nil {
		return nil, err
	}
	return credentialsOf(tr, time.Now()), nil
}

func credentialsOf(tr tokenReply, now time.Time) *Credentials {
	c := &Credentials{Token: tr.Token, RefreshToken: tr.RefreshToken, ExpiresAt: now.Add(time.Duration(tr.ExpiresIn) * time.Second),
		MustEnrolTOTP: tr.MustEnrolTOTP}
	if tr.User != nil {
		c.Email, c.Role = tr.User.Email, tr.User.Role
	}
	return c
}

// Session is the stored login of one remote, used by an HTTP transport that puts its
// access token on every request and renews it (persisting the rotated refresh token)
// when it is about to expire or the server refuses it.
type Session struct {
	store  Store
	remote string
	base   string
	next   http.RoundTripper // the transport requests go on through

	mu    sync.Mutex
	creds Credentials
	ended error // why the login can no longer be renewed, once that is known
}

// NewSession is the session of remote (at base) whose stored login is creds, in store;
// its requests go on through next.
func NewSession(store Store, remote, base string, next http.RoundTripper, creds Credentials) *Session {
	return &Session{store: store, remote: remote, base: base, next: next, creds: creds}
}

// RoundTrip sends req with the session's bearer token; a 401 unauthorized makes it
// renew the token once and send req again.
func (s *Session) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := s.token(req.Context(), "")
	if errors.Is(err, ErrLoginEnded) {
		// Sent without a token, the request gets its 401 at once (a transport error
		// would be retried), and the command explains it with s.ended.
		return s.send(req, "")
	}
	if err != nil {
		return nil, err
	}
	res, err := s.send(req, tok)
	if err != nil || res.StatusCode != http.StatusUnauthorized {
		return res, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return res, nil // the body is spent and cannot be sent again
	}
	fresh, rerr := s.token(req.Context(), tok)
	if rerr != nil || fresh == tok {
		return res, nil // the answer stands: the caller sees the 401
	}
	io.Copy(io.Discard, res.Body) //nolint:errcheck // only to reuse the connection
	res.Body.Close()
	return s.send(req, fresh)
}

func (s *Session) send(req *http.Request, tok string) (*http.Response, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	if tok != "" {
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return s.next.RoundTrip(r)
}

// token returns the access token to send: the stored one while it is fresh and is not
// stale (a token the server has just refused), or a renewed one.
func (s *Session) token(ctx context.Context, stale string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.creds.Token != "" && s.creds.Token != stale && time.Until(s.creds.ExpiresAt) > renewAhead {
		return s.creds.Token, nil
	}
	spent := "" // the refresh token the server refused, if it did
	err := s.store.UpdateCredentials(s.remote, func(cur Credentials, ok bool) (*Credentials, error) {
		if !ok {
			return nil, loginEnded("not logged in to %s: run 'vmplane login %s'", s.remote, s.remote)
		}
		// Another vmplane process may have renewed it meanwhile: take its pair.
		if cur.Token != stale && cur.Token != s.creds.Token && time.Until(cur.ExpiresAt) > renewAhead {
			s.creds = cur
			return &cur, nil
		}
		var tr tokenReply
		hc := &http.Client{Transport: s.next, Timeout: 30 * time.Second}
		err := postJSON(ctx, hc, s.base+"/api/auth/refresh", "", map[string]string{"refresh_token": cur.RefreshToken}, &tr)
		var ae *client.Error
		if errors.As(err, &ae) && ae.Status == http.StatusUnauthorized {
			// The refresh token expired, was revoked (logout, password change) or spent:
			// the login is over, and kept no more.
			spent = cur.RefreshToken
			return nil, loginEnded("the login to %s has ended (%s): run 'vmplane login %s'", s.remote, ae.Code, s.remote)
		}
		if err != nil {
			return nil, err
		}
		next := credentialsOf(tr, time.Now())
		next.Email, next.Role = cur.Email, cur.Role
		s.creds = *next
		return next, nil
	})
	if err != nil {
		if spent != "" {
			// A login that cannot be renewed is kept no more (unless a new one replaced
			// it meanwhile).
			_ = s.store.UpdateCredentials(s.remote, func(cur Credentials, ok bool) (*Credentials, error) {
				if ok && cur.RefreshToken != spent {
					return &cur, nil
				}
				return nil, nil
			})
		}
		if errors.Is(err, ErrLoginEnded) {
			s.ended = err
		}
		return "", err
	}
	return s.creds.Token, nil
}

// Ended is why the login ended, when it did.
func (s *Session) Ended() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// Logout ends the session's login on the server and forgets it.
func (s *Session) Logout(ctx context.Context) error {
	// Renew first if the token is about to expire: a renewal on the way of the logout
	// request would spend the refresh token its body names, and the server takes a
	// spent one presented again for theft.
	_, _ = s.token(ctx, "")
	s.mu.Lock()
	refresh := s.creds.RefreshToken
	s.mu.Unlock()
	hc := &http.Client{Transport: s, Timeout: 30 * time.Second}
	err := postJSON(ctx, hc, s.base+"/api/auth/logout", "", map[string]string{"refresh_token": refresh}, nil)
	if errors.Is(err, ErrLoginEnded) || errors.Is(err, client.ErrUnauthorized) || errors.Is(err, client.ErrInvalidRefreshToken) {
		err = nil // over already
	}
	if rerr := s.store.UpdateCredentials(s.remote, func(Credentials, bool) (*Credentials, error) { return nil, nil }); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// TrimBase is a remote's URL without its trailing slash.
func TrimBase(u string) string { return strings.TrimRight(u, "/") }
