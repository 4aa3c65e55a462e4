// Package accounts holds the routes of a caller's own account, /api/auth/...: login,
// token refresh, logout, the caller's user, its password and its sessions, with the
// login limits that a password check runs under, and the sign-in through OpenID
// Connect providers.
package accounts

import (
	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/token"
	"github.com/vmplane/vmplane/sso"
)

// Options are what the account routes need of the edge beyond the services.
type Options struct {
	// Services are the actors' services; the routes call Users and Limiter.
	Services api.Services
	// Tokens issues the access tokens of a login, a refresh and a password change.
	Tokens *token.Keeper
	// Log gets one line per failed login.
	Log *zap.Logger
	// Limited counts a request refused by a rate limit, by bucket (the edge's metric).
	Limited func(bucket string)
	// Issuer names the server in authenticator apps (the otpauth:// URI's issuer).
	Issuer string
	// PublicURL is the server's external base URL, for the URL of a login link.
	PublicURL string
	// OIDC are the OpenID Connect providers users sign in with (nil: none).
	OIDC *sso.Providers
}

// handlers serve the routes from the services they call.
type handlers struct {
	svc       api.Services
	tokens    *token.Keeper
	log       *zap.Logger
	limited   func(bucket string)
	issuer    string
	publicURL string
	oidc      *sso.Providers
}

// Routes are the account routes.
func Routes(o Options) []api.Route {
	h := &handlers{svc: o.Services, tokens: o.Tokens, log: o.Log, limited: o.Limited, issuer: o.Issuer, publicURL: o.PublicURL, oidc: o.OIDC}
	if h.issuer == "" {
		h.issuer = "vmplane"
	}
	routes := []api.Route{
		{Method: "POST", Path: "/api/auth/login", Access: api.Public, Handler: h.login, Tag: "auth",
			Summary: "Log in with e-mail and password", Body: LoginRequest{}, Reply: TokenReply{}, Errors: []int{fasthttp.StatusUnauthorized},
			Description: "Answers an access token, a refresh token and the user. A missing or empty e-mail or password is 400 naming the field; a wrong e-mail or password is 401 invalid_credentials (the two are not told apart). " +
				"Only failed logins count against the login limits: per e-mail and client address (429), and per e-mail over all addresses, beyond which an address with no failures is answered after a delay. " +
				"A login being checked holds a reservation that a success gives back; one for which such reservations hold the budget failures left waits for them (at most 10 s, then 429). " +
				"A 429's detail names the limit that refused, and its Retry-After and RateLimit headers are that limit's. " +
				"For a user with a second factor a right password answers 401 totp_required with a challenge (valid 5 minutes), which POST /api/auth/login/totp completes with a code; it counts as a success for the limits."},
		{Method: "POST", Path: "/api/auth/refresh", Access: api.Public, Handler: h.refresh, Tag: "auth",
			Summary: "Rotate a refresh token for a new token pair", Body: RefreshRequest{}, Reply: TokenReply{}, Errors: []int{fasthttp.StatusUnauthorized},
			Description: "Spends the refresh token and answers a new access and refresh token. A missing refresh_token is 400; an unknown, spent or expired one is 401 invalid_refresh_token, and reusing a spent one ends the whole login."},
		{Method: "GET", Path: "/api/auth/me", Access: api.Authenticated, Handler: h.me, Tag: "auth",
			Summary: "The calling user", Reply: auth.User{}},
		{Method: "POST", Path: "/api/auth/logout", Access: api.Authenticated, Handler: h.logout, Tag: "auth",
			Summary: "End a login: its refresh tokens and its access tokens", Body: RefreshRequest{}, Status: fasthttp.StatusNoContent,
			Exempt: "a logout creates nothing: once it applied, its retry's access token is revoked (401), and a logout can always be sent again with a new key"},

		{Method: "POST", Path: "/api/auth/password", Access: api.Authenticated, Handler: h.changePassword, Tag: "auth",
			Summary: "Change the caller's own password", Body: PasswordChange{}, Reply: TokenReply{},
			Description: "Checks current_password (a wrong one is 400 naming it, and counts against the login limits of the caller's e-mail, as a failed login does: 429 past them), sets new_password, and ends every other session of the user at once. The caller's session stays: the answer is its new access token (every access token issued before the change ends) and its refresh token, which goes on working.",
			Exempt:      "the answer is a token pair, which an idempotency record must not keep; after an unknown outcome, sign in with the new password"},
		{Method: "GET", Path: "/api/auth/sessions", Access: api.Authenticated, Handler: h.listSessions, Tag: "auth",
			Summary: "The caller's sessions (logins that have not ended), newest first", Reply: api.Page[auth.SessionInfo]{}, Query: api.PageQuery,
			Description: "Each login: when it was opened and last renewed (a sign-in or a refresh), when it expires, the client address and user agent it was opened from, and how (method). The session of the asking token is marked current."},
		{Method: "DELETE", Path: "/api/auth/sessions/{id}", Access: api.Authenticated, Handler: h.endSession, Tag: "auth",
			Summary: "End one of the caller's sessions: its refresh tokens and, at once, its access tokens", Status: fasthttp.StatusNoContent,
			Description: "Ending the asking token's own session is a logout. A session that has ended already, or is another user's, is 404."},
	}
	routes = append(routes, h.recoveryRoutes()...)
	routes = append(routes, h.loginLinkRoutes()...)
	routes = append(routes, h.oidcRoutes()...)
	routes = append(routes, h.browserRoutes()...)
	return append(routes, h.keyRoutes()...)
}
