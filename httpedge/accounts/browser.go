package accounts

import (
	"net/url"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
)

// The routes of the web console's sign-in. A page keeps its access token in memory
// only, where a script injected into it could at worst use it until it expires; the
// refresh token, which lives as long as the login, is a cookie no script can read
// (HttpOnly), sent back only to these routes (its Path) and only by pages of this site
// (SameSite=Strict). Since the browser sends a cookie by itself, every route here also
// wants a header no page of another origin can send without a CORS preflight, which
// they never get, and an Origin of this server: two checks a forged request fails.

// BrowserPath is where the console's sign-in routes live, and the Path of the cookie.
const BrowserPath = "/api/auth/browser"

// RefreshCookie is the name of the cookie that holds a console's refresh token.
const RefreshCookie = "vmplane_refresh"

// CSRFHeader is the header every browser route wants (any non-empty value): a
// cross-origin page cannot set it without a preflight.
const CSRFHeader = "X-Vmplane-CSRF"

// BrowserTokenReply answers a browser login or refresh: the access token, which the
// page keeps in memory; the refresh token is in the Set-Cookie header only.
type BrowserTokenReply struct {
	Token     string `json:"token"`
	TokenType string `json:"token_type"`
	ExpiresIn int    `json:"expires_in"`
	// User is the signed-in user.
	User *auth.User `json:"user,omitempty"`
	// TOTPEnrolmentRequired: as on POST /api/auth/login.
	TOTPEnrolmentRequired bool `json:"totp_enrolment_required,omitempty"`
}

var browserHeaders = map[string]string{
	CSRFHeader: "required, any value: a page of another origin cannot send it",
	"Origin":   "required: this server's origin (the browser sets it)",
}

const cookieNote = "The refresh token is set as the cookie " + RefreshCookie + " (HttpOnly, SameSite=Strict, Secure over TLS or when the public URL is https, Path " + BrowserPath + "), never in the body. " +
	"Every browser route wants the " + CSRFHeader + " header and an Origin of this server (403 forbidden otherwise)."

// browserRoutes are the web console's sign-in routes.
func (h *handlers) browserRoutes() []api.Route {
	return []api.Route{
		{Method: "POST", Path: BrowserPath + "/login", Access: api.Public, Handler: h.browserLogin, Tag: "auth",
			Summary: "Log in from the web console: the access token in the body, the refresh token in a cookie", Body: LoginRequest{}, Reply: BrowserTokenReply{},
			Errors: []int{fasthttp.StatusUnauthorized, fasthttp.StatusForbidden}, Headers: browserHeaders,
			Description: "POST /api/auth/login for a browser, under the same limits and answers (401 totp_required with a challenge for a user with a second factor, completed by POST " + BrowserPath + "/login/totp). " + cookieNote},
		{Method: "POST", Path: BrowserPath + "/login/totp", Access: api.Public, Handler: h.browserLoginTOTP, Tag: "auth",
			Summary: "Complete a web console's login with a code of the second factor", Body: TOTPLogin{}, Reply: BrowserTokenReply{},
			Errors: []int{fasthttp.StatusUnauthorized, fasthttp.StatusForbidden}, Headers: browserHeaders,
			Description: "POST /api/auth/login/totp for a browser. " + cookieNote},
		{Method: "POST", Path: BrowserPath + "/refresh", Access: api.Public, Handler: h.browserRefresh, Tag: "auth",
			Summary: "A new access token for the web console, from its refresh cookie", Reply: BrowserTokenReply{},
			Errors: []int{fasthttp.StatusUnauthorized, fasthttp.StatusForbidden}, Headers: browserHeaders,
			Description: "Spends the refresh token of the cookie, sets the next one in its place and answers a new access token with the user (a page opened again signs in from here). " +
				"No cookie, or an unknown, spent or expired token, is 401 invalid_refresh_token and clears the cookie; reusing a spent one ends the whole login. " + cookieNote},
		{Method: "POST", Path: BrowserPath + "/logout", Access: api.Authenticated, Handler: h.browserLogout, Tag: "auth",
			Summary: "End the web console's login and clear its cookie", Status: fasthttp.StatusNoContent,
			Errors: []int{fasthttp.StatusForbidden}, Headers: browserHeaders,
			Description: "Ends the login of the access token (its refresh and access tokens) and clears the cookie. " + cookieNote,
			Exempt:      "a logout creates nothing: once it applied, its retry's access token is revoked (401), and the page signs in again"},
	}
}

// fromThisSite refuses a request that a page of another site could have forged.
func (h *handlers) fromThisSite(c *api.Call) error {
	if c.Header(CSRFHeader) == "" {
		return apierr.New(apierr.ErrForbidden, "the web console's routes want the %s header", CSRFHeader)
	}
	origin := c.Header("Origin")
	u, err := url.Parse(origin)
	if origin == "" || err != nil || u.Host == "" {
		return apierr.New(apierr.ErrForbidden, "the web console's routes want the Origin header of this server")
	}
	host := string(c.RequestCtx().Host())
	if strings.EqualFold(u.Host, host) {
		return nil
	}
	if p, err := url.Parse(h.publicURL); err == nil && p.Host != "" && strings.EqualFold(p.Scheme+"://"+p.Host, origin) {
		return nil
	}
	return apierr.New(apierr.ErrForbidden, "origin %s is not this server's", origin)
}

// browserReply sets the refresh cookie of a token pair and answers the rest.
func (h *handlers) browserReply(c *api.Call, res any) (any, error) {
	r, ok := res.(TokenReply)
	if !ok {
		return nil, apierr.New(apierr.ErrInternal, "unexpected login answer")
	}
	h.setRefreshCookie(c, r.RefreshToken)
	return BrowserTokenReply{Token: r.Token, TokenType: r.TokenType, ExpiresIn: r.ExpiresIn, User: r.User,
		TOTPEnrolmentRequired: r.TOTPEnrolmentRequired}, nil
}

// setRefreshCookie sets the console's refresh cookie (value "" deletes it). It is a
// session cookie: the login's own lifetime bounds it on the server.
func (h *handlers) setRefreshCookie(c *api.Call, value string) {
	var ck fasthttp.Cookie
	ck.SetKey(RefreshCookie)
	ck.SetValue(value)
	ck.SetPath(BrowserPath)
	ck.SetHTTPOnly(true)
	ck.SetSameSite(fasthttp.CookieSameSiteStrictMode)
	ck.SetSecure(c.RequestCtx().IsTLS() || strings.HasPrefix(h.publicURL, "https://"))
	if value == "" {
		ck.SetExpire(fasthttp.CookieExpireDelete)
	}
	c.RequestCtx().Response.Header.SetCookie(&ck)
}

func (h *handlers) browserLogin(c *api.Call) (any, error) {
	if err := h.fromThisSite(c); err != nil {
		return nil, err
	}
	res, err := h.login(c)
	if err != nil {
		return nil, err
	}
	return h.browserReply(c, res)
}

func (h *handlers) browserLoginTOTP(c *api.Call) (any, error) {
	if err := h.fromThisSite(c); err != nil {
		return nil, err
	}
	res, err := h.loginTOTP(c)
	if err != nil {
		return nil, err
	}
	return h.browserReply(c, res)
}

func (h *handlers) browserRefresh(c *api.Call) (any, error) {
	if err := h.fromThisSite(c); err != nil {
		return nil, err
	}
	tok := string(c.RequestCtx().Request.Header.Cookie(RefreshCookie))
	if tok == "" || len(tok) > MaxCredentialLen {
		h.setRefreshCookie(c, "")
		return nil, apierr.New(apierr.ErrInvalidRefreshToken, "no refresh cookie: sign in")
	}
	sess, err := h.svc.Users.Refresh(c.Context(), tok)
	if err != nil {
		h.setRefreshCookie(c, "")
		return nil, err
	}
	res, err := h.tokenReply(sess, true)
	if err != nil {
		return nil, err
	}
	return h.browserReply(c, res)
}

func (h *handlers) browserLogout(c *api.Call) (any, error) {
	if err := h.fromThisSite(c); err != nil {
		return nil, err
	}
	if err := h.svc.Users.EndSession(c.Context(), c.Principal.UserID(), c.Principal.SessionID); err != nil {
		return nil, err
	}
	h.setRefreshCookie(c, "")
	return api.NoContent, nil
}
