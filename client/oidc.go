package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
)

// Single sign-on through OpenID Connect. A browser signs in by opening the server's
// start URL (OIDCStartURL): the provider's login, then the server's callback, whose
// page keeps the session in the browser tab. A program that drives the provider's
// login itself (an embedded browser, a test) asks OIDCStart for the provider's URL
// and the sign-in's secret, follows the URL to the point where the provider sends it
// back to the server's callback, and completes the sign-in with that URL and the
// secret (WithOIDCCallback): the client gets the login's tokens and renews them as a
// login link's client does.

// oidcCookie is the cookie in which the server hands a sign-in's starter its secret,
// and the callback takes it back.
const oidcCookie = "vmplane_oidc_secret"

// OIDCStarted is a sign-in OIDCStart began.
type OIDCStarted struct {
	// URL is the provider's authorization URL, where the login at the provider
	// begins.
	URL string
	// Secret binds the sign-in to its starter: the callback completes it only with
	// it (WithOIDCCallback sends it). It never travels in a URL: keep it to yourself.
	Secret string
}

// oidcProviders is the answer of GET /api/auth/oidc/providers.
type oidcProviders struct {
	Providers []OIDCProvider `json:"providers"`
}

// OIDCProviders lists the providers the server signs users in with (none configured:
// an empty list). It needs no login.
func (c *Client) OIDCProviders(ctx context.Context) ([]OIDCProvider, error) {
	var out oidcProviders
	if _, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/auth/oidc/providers", public: true, out: &out}); err != nil {
		return nil, err
	}
	return out.Providers, nil
}

// OIDCStartURL is the URL a browser opens to sign in with provider, on the member the
// client speaks to; once signed in the browser goes on to redirectTo, a path of the
// server ("" for /).
func (c *Client) OIDCStartURL(provider, redirectTo string) string {
	u := c.c.bases[int(c.c.cur.Load())%len(c.c.bases)] + "/api/auth/oidc/" + url.PathEscape(provider) + "/start"
	if redirectTo != "" {
		u += "?redirect_to=" + url.QueryEscape(redirectTo)
	}
	return u
}

// OIDCStart starts a sign-in with provider and answers the provider's authorization
// URL and the sign-in's secret, for a program that walks the provider's login
// itself. ErrNotFound: no such provider.
func (c *Client) OIDCStart(ctx context.Context, provider, redirectTo string) (OIDCStarted, error) {
	r := request{method: http.MethodGet, path: "/api/auth/oidc/" + esc(provider) + "/start", public: true, redirect: true}
	if redirectTo != "" {
		r.query = url.Values{"redirect_to": {redirectTo}}
	}
	h, err := c.c.do(ctx, r)
	if err != nil {
		return OIDCStarted{}, err
	}
	out := OIDCStarted{URL: h.Get("Location")}
	for _, ck := range (&http.Response{Header: h}).Cookies() {
		if ck.Name == oidcCookie {
			out.Secret = ck.Value
		}
	}
	if out.URL == "" || out.Secret == "" {
		return OIDCStarted{}, errors.New("vmplane client: the sign-in's start answered no provider URL or no secret")
	}
	return out, nil
}

// callbackPath is the path of a provider's callback.
var callbackPath = regexp.MustCompile(`^/api/auth/oidc/[^/]+/callback$`)

// WithOIDCCallback makes the client sign in, on first use, by completing an OpenID
// Connect sign-in: callbackURL is the URL the provider sent the browser back to (the
// server's /api/auth/oidc/{provider}/callback with the provider's code and state),
// and secret the sign-in's (OIDCStarted.Secret), without which the server refuses
// the callback (ErrOIDCStateInvalid). The client renews its token by refresh token
// for as long as that login lasts; a sign-in completes once, so when the login ends
// requests fail with ErrUnauthorized. A user with a second factor needs WithTOTP too.
func WithOIDCCallback(callbackURL, secret string) Option {
	return func(c *core) error {
		u, err := url.Parse(callbackURL)
		if err != nil || !callbackPath.MatchString(u.Path) || u.Query().Get("state") == "" {
			return errors.New("vmplane client: WithOIDCCallback needs the URL of the server's /api/auth/oidc/{provider}/callback with its state")
		}
		c.auth.oidc, c.auth.oidcSecret, c.auth.fromOIDC = u, secret, true
		return nil
	}
}

// completeOIDC signs in with the client's OpenID Connect callback, once.
func (c *core) completeOIDC(ctx context.Context) error {
	a := &c.auth
	a.mu.Lock()
	cb, secret := a.oidc, a.oidcSecret
	a.oidc, a.oidcSecret = nil, ""
	a.mu.Unlock()
	if cb == nil {
		return errSignInSpent
	}
	var tr tokenReply
	ck := (&http.Cookie{Name: oidcCookie, Value: secret}).String()
	_, err := c.do(ctx, request{method: http.MethodGet, path: cb.Path, query: cb.Query(), public: true, out: &tr,
		header: http.Header{"Cookie": {ck}}})
	var e *Error
	if errors.As(err, &e) && e.Code == ErrTOTPRequired.Code && a.totp != nil {
		tr, err = c.loginTOTP(ctx, e.Challenge, a.totp)
	}
	if err != nil {
		return err
	}
	a.store(tr)
	return nil
}
