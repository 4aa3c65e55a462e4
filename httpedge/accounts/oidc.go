package accounts

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"strings"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/sso"
)

// Single sign-on through OpenID Connect: the start sends the browser to the provider
// with a state, a nonce and a PKCE challenge whose secrets the store keeps; the
// provider sends it back to the callback with a code, which the callback exchanges
// and whose ID token it checks, and the user of the verified e-mail is signed in. The
// tokens reach the browser in the callback's page (never in a URL, where logs and
// Referer headers would keep them), or a program as JSON when it asks for JSON.

//go:embed page/oidc-callback.html
var oidcPage []byte

// oidcPageData marks where the callback's page carries its data.
var oidcPageData = []byte("{{VMPLANE_SIGN_IN}}")

// maxRedirectTo bounds redirect_to.
const maxRedirectTo = 2048

// oidcCookie binds a sign-in to the browser (or program) that started it: the start
// sets it to the sign-in's secret, which travels in no URL, and the callback completes
// the sign-in only with it (signin.TakeOIDC). A link to a callback made by someone
// else (a login CSRF, which would sign the victim's tab in as the attacker) finds no
// cookie, and a callback URL that leaked (a log, a history) is no use without it.
const oidcCookie = "vmplane_oidc_secret"

// OIDCProviders is the answer of GET /api/auth/oidc/providers.
type OIDCProviders struct {
	Providers []OIDCProvider `json:"providers"`
}

// OIDCProvider is a provider as a login page lists it.
type OIDCProvider struct {
	// ID names the provider in /api/auth/oidc/{provider}/start.
	ID string `json:"id"`
	// Name is what the page shows ("Sign in with ...").
	Name string `json:"name"`
}

// oidcSignIn is what the callback's page gets: the session (a login's answer), or
// the challenge of a user with a second factor, and where to go next.
type oidcSignIn struct {
	Session    *TokenReply `json:"session,omitempty"`
	Challenge  string      `json:"challenge,omitempty"`
	Detail     string      `json:"detail,omitempty"`
	RedirectTo string      `json:"redirect_to,omitempty"`
}

func (h *handlers) oidcRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/api/auth/oidc/providers", Access: api.Public, Handler: h.oidcProviders, Tag: "auth",
			Summary: "The OpenID Connect providers users may sign in with", Reply: OIDCProviders{},
			Description: "Each provider's id (for /api/auth/oidc/{provider}/start) and the name a login page shows. Empty when none is configured (--oidc-providers-file)."},
		{Method: "GET", Path: "/api/auth/oidc/{provider}/start", Access: api.Public, Handler: h.oidcStart, Tag: "auth",
			Summary: "Start a sign-in with an OpenID Connect provider: a redirect to it", Status: fasthttp.StatusFound,
			Query:  map[string]string{"redirect_to": "where the browser goes once signed in: a path of this server (default /)"},
			Errors: []int{fasthttp.StatusNotFound},
			Description: "Answers 302 to the provider's authorization endpoint (authorization code flow with PKCE, S256), with a state and a nonce; the state, the nonce and the code verifier are kept by the server for 10 minutes, for one callback, on any member. " +
				"It sets the cookie vmplane_oidc_secret (HttpOnly, SameSite=Lax, for the callback's path) to a random secret, of which the server keeps only the SHA-256: the callback completes the sign-in only for whoever sends it back. " +
				"An unknown provider is 404; redirect_to that is not a path of this server is 400; a provider that cannot be reached is 503."},
		{Method: "GET", Path: "/api/auth/oidc/{provider}/callback", Access: api.Public, Handler: h.oidcCallback, Tag: "auth",
			Summary: "Where the provider sends the browser back: completes the sign-in", Reply: TokenReply{}, OtherQuery: true,
			Query: map[string]string{"code": "the provider's authorization code", "state": "the state the start sent",
				"error": "the provider's error, when it signed nobody in", "error_description": "the provider's words on it"},
			Headers: map[string]string{"Accept": "application/json for the JSON answer (a program); otherwise the answer is the sign-in page (text/html), which keeps the session in the browser tab and goes on to redirect_to"},
			Errors:  []int{fasthttp.StatusUnauthorized, fasthttp.StatusNotFound},
			Description: "Takes the sign-in of state (once: a replay, an unknown or expired state, or another provider's is 400 oidc_state_invalid), if the request carries the cookie vmplane_oidc_secret its start set (a browser sends it by itself, a program sends it back; without it, or with another, 400 oidc_state_invalid, and the sign-in is not spent: its starter can still complete it), exchanges the code with the verifier, and checks the ID token: issuer, audience (the client id), expiry, nonce; a refused code, a token that fails a check, or no verified e-mail is 401 oidc_login_failed. " +
				"The user of the e-mail signs in; one that does not exist is created where the provider's tenant claim maps it (a tenant, or the operators), if the provider creates users; an identity mapped nowhere, or placed elsewhere than its user is, is 403 oidc_not_mapped; a disabled user is 403. " +
				"The session says method oidc. A user with a second factor is answered 401 totp_required with a challenge (POST /api/auth/login/totp completes it); one who must have a factor and has none gets a restricted session, as with a password. " +
				"Asked for JSON, the answer is a login's token pair and user; otherwise it is an HTML page (no-store, no Referer) whose script keeps the session in the browser tab (or asks for the code) and goes on to redirect_to. The answer ends the cookie. Parameters other providers add are ignored."},
	}
}

func (h *handlers) oidcProviders(*api.Call) (any, error) {
	out := OIDCProviders{Providers: []OIDCProvider{}}
	for _, p := range h.oidc.List() {
		out.Providers = append(out.Providers, OIDCProvider{ID: p.ID, Name: p.Name})
	}
	return out, nil
}

// redirectPath checks redirect_to: a path of this server, never another origin (an
// open redirect would send a signed-in browser anywhere).
func redirectPath(v string) (string, error) {
	switch {
	case v == "":
		return "/", nil
	case len(v) > maxRedirectTo || !strings.HasPrefix(v, "/") || strings.HasPrefix(v, "//") || strings.ContainsAny(v, "\\\r\n\t"):
		return "", apierr.Invalid(apierr.Field("redirect_to", "must be a path of this server, starting with a single /, at most %d characters", maxRedirectTo))
	}
	return v, nil
}

func (h *handlers) oidcStart(c *api.Call) (any, error) {
	p, err := h.oidc.Get(c.Param("provider"))
	if err != nil {
		return nil, err
	}
	to, err := redirectPath(c.Query("redirect_to"))
	if err != nil {
		return nil, err
	}
	s := sso.Secrets{Nonce: auth.RandomToken(32), Verifier: sso.NewVerifier()}
	started, err := h.svc.Users.StartOIDC(c.Context(), signin.OIDCSignIn{Provider: p.ID(), Nonce: s.Nonce, Verifier: s.Verifier, RedirectTo: to})
	if err != nil {
		return nil, err
	}
	s.State = started.State
	u, err := p.AuthURL(c.Context(), s)
	if err != nil {
		return nil, err
	}
	ck := fasthttp.AcquireCookie()
	defer fasthttp.ReleaseCookie(ck)
	ck.SetKey(oidcCookie)
	ck.SetValue(started.Secret)
	ck.SetPath(sso.CallbackPath(p.ID()))
	ck.SetMaxAge(int(signin.OIDCStateTTL.Seconds()))
	ck.SetHTTPOnly(true)
	ck.SetSecure(p.HTTPS())
	ck.SetSameSite(fasthttp.CookieSameSiteLaxMode)
	c.RequestCtx().Response.Header.SetCookie(ck)
	return api.Reply{Status: fasthttp.StatusFound, Headers: map[string]string{"Location": u, "Cache-Control": "no-store"}}, nil
}

func (h *handlers) oidcCallback(c *api.Call) (_ any, err error) {
	var email string
	defer func() {
		// One line per failed sign-in, for the operator, as for a password's.
		if err != nil && !errors.Is(err, apierr.ErrTOTPRequired) {
			h.log.Info("login failed", zap.String("method", auth.MethodOIDC), zap.String("provider", c.Param("provider")),
				zap.String("email", email), zap.String("client", c.ClientAddr()),
				zap.String("reason", apierr.From(err).Code), zap.String("detail", apierr.From(err).Detail), zap.String("request_id", c.RequestID))
		}
	}()
	p, err := h.oidc.Get(c.Param("provider"))
	if err != nil {
		return nil, err
	}
	wantsJSON := strings.Contains(c.Header("Accept"), "application/json")
	// The sign-in completes only for whoever started it, which holds the start's
	// secret: TakeOIDC checks it before it spends anything. The cookie ends either
	// way: a callback is the last use of it.
	held := string(c.RequestCtx().Request.Header.Cookie(oidcCookie))
	ck := fasthttp.AcquireCookie()
	ck.SetKey(oidcCookie)
	ck.SetPath(sso.CallbackPath(p.ID()))
	ck.SetExpire(fasthttp.CookieExpireDelete)
	c.RequestCtx().Response.Header.SetCookie(ck)
	fasthttp.ReleaseCookie(ck)
	s, err := h.svc.Users.TakeOIDC(c.Context(), p.ID(), c.Query("state"), held)
	if err != nil {
		return nil, err
	}
	if e := c.Query("error"); e != "" {
		return nil, apierr.New(apierr.ErrOIDCLoginFailed, "the provider signed nobody in: %s %s", e, c.Query("error_description"))
	}
	if c.Query("code") == "" {
		return nil, apierr.New(apierr.ErrOIDCLoginFailed, "the provider sent no code")
	}
	id, err := p.Exchange(c.Context(), c.Query("code"), s.Verifier, s.Nonce)
	if err != nil {
		return nil, err
	}
	email = id.Email
	sess, err := h.svc.Users.LoginExternal(c.Context(), signin.ExternalLogin{Provider: p.ID(), Email: id.Email, Name: id.Name,
		Mapped: id.Mapped, Operator: id.Operator, TenantID: id.TenantID, Create: id.Create}, h.loginClient(c))
	var e *apierr.Error
	if errors.As(err, &e) && e.Challenge != "" && !wantsJSON {
		return h.oidcAnswer(c, oidcSignIn{Challenge: e.Challenge, Detail: e.Detail, RedirectTo: s.RedirectTo})
	}
	if err != nil {
		return nil, err
	}
	reply, err := h.tokenReply(sess, true)
	if err != nil || wantsJSON {
		return reply, err
	}
	r := reply.(TokenReply)
	return h.oidcAnswer(c, oidcSignIn{Session: &r, RedirectTo: s.RedirectTo})
}

// oidcAnswer is the callback's page, carrying in. encoding/json escapes <, > and &,
// so the data cannot end the script element it sits in.
func (h *handlers) oidcAnswer(c *api.Call, in oidcSignIn) (any, error) {
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	h.page(c, bytes.Replace(oidcPage, oidcPageData, data, 1))
	return nil, nil
}
