package accounts

import (
	_ "embed"
	"net/url"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/httpedge/api"
)

// Login links: the "log in to the panel" button of a billing system, which asks for a
// link for its customer's user and sends the customer's browser to it.

// LoginLinkPagePath is the page a login link opens.
const LoginLinkPagePath = "/login-link"

//go:embed page/login-link.html
var loginLinkPage []byte

// LoginLinkReply is the answer of POST /api/resources/users/{id}/login-links.
type LoginLinkReply struct {
	// URL opens the link in a browser: the server's public URL, its login-link page and
	// the token; null when the server has no public URL set (then a client joins
	// /login-link?token=... to the origin it uses).
	URL *string `json:"url"`
	// Token signs the user in once, through POST /api/auth/login-link.
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// LoginLinkRequest is the body of POST /api/auth/login-link.
type LoginLinkRequest struct {
	Token string `json:"token" openapi:"required,limit=login.credential"`
}

func (h *handlers) loginLinkRoutes() []api.Route {
	return []api.Route{
		{Method: "POST", Path: "/api/resources/users/{id}/login-links", Access: api.AdminOnly, Handler: h.createLoginLink, Tag: "resources",
			KeyScope: auth.ScopeBilling,
			Summary:  "Make a single-use login link for a tenant user (a billing panel's \"log in to the panel\")", Reply: LoginLinkReply{}, Status: fasthttp.StatusCreated,
			Description: "Answers a link that signs the user in once, within 60 seconds, without the password or the second factor: the caller (an operator, or a billing system with a billing-scoped key) vouches for the customer. " +
				"Only tenant users get links: an operator is 403 forbidden, a disabled user 409 conflict. A change of the user (password, role, tenant, disable) ends its links. " +
				"The session it opens says so (method login_link in GET /api/auth/sessions).",
			Exempt: "the answer holds a secret, which an idempotency record must not keep; an unused link ends by itself within a minute, so ask for another"},
		{Method: "POST", Path: "/api/auth/login-link", Access: api.Public, Handler: h.redeemLoginLink, Tag: "auth",
			Summary: "Sign in with a login link's token", Body: LoginLinkRequest{}, Reply: TokenReply{}, Errors: []int{fasthttp.StatusUnauthorized},
			Description: "Spends the link and answers a token pair and the user, as a login does. An unknown, used or expired link, or one of a user changed since it was made, is 401 unauthorized. " +
				"Each use counts against the login limits of the link's user and the client address (429 past them)."},
		{Method: "GET", Path: LoginLinkPagePath, Access: api.Public, Handler: h.loginLinkPage, Tag: "auth",
			Summary: "The page a login link opens", Reply: api.RawBody{ContentType: "text/html"},
			Query:       map[string]string{"token": "the link's token, which the page's script spends"},
			Description: "An HTML page whose script spends the link (POST /api/auth/login-link), keeps the session in the browser tab and opens the web console."},
	}
}

func (h *handlers) createLoginLink(c *api.Call) (any, error) {
	l, err := h.svc.Users.CreateLoginLink(c.Context(), c.Param("id"))
	if err != nil {
		return nil, err
	}
	r := LoginLinkReply{Token: l.Token, ExpiresAt: l.ExpiresAt}
	if h.publicURL != "" {
		u := strings.TrimSuffix(h.publicURL, "/") + LoginLinkPagePath + "?token=" + url.QueryEscape(l.Token)
		r.URL = &u
	}
	return api.Created(r), nil
}

func (h *handlers) redeemLoginLink(c *api.Call) (any, error) {
	var req LoginLinkRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	email, err := h.svc.Users.LoginLinkEmail(c.Context(), req.Token)
	if err != nil {
		return nil, err
	}
	var sess auth.Session
	if err := h.passwordCheck(c, email, func() (err error) {
		sess, err = h.svc.Users.RedeemLoginLink(c.Context(), req.Token, h.loginClient(c))
		return err
	}); err != nil {
		return nil, err
	}
	return h.tokenReply(sess, true)
}

func (h *handlers) loginLinkPage(c *api.Call) (any, error) {
	h.page(c, loginLinkPage)
	return nil, nil
}
