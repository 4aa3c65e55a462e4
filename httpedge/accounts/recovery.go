package accounts

import (
	_ "embed"
	"errors"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
)

// A forgotten password, and the second factor: the routes of a user who cannot sign in
// with a password alone.

// ResetPagePath is the page a mailed reset link opens.
const ResetPagePath = "/reset-password"

//go:embed page/reset-password.html
var resetPage []byte

// PasswordResetRequest is the body of POST /api/auth/password-reset.
type PasswordResetRequest struct {
	Email string `json:"email" openapi:"required,limit=login.email"`
}

// PasswordResetConfirm is the body of POST /api/auth/password-reset/confirm.
type PasswordResetConfirm struct {
	Token       string `json:"token" openapi:"required,limit=login.credential"`
	NewPassword string `json:"new_password" openapi:"required,limit=user.password"`
}

// TOTPCode is the body of the routes that take a code of the second factor.
type TOTPCode struct {
	// Code is a current code of the authenticator app, or a recovery code.
	Code string `json:"code" openapi:"required,limit=totp.code"`
}

// TOTPLogin is the body of POST /api/auth/login/totp.
type TOTPLogin struct {
	Challenge string `json:"challenge" openapi:"required,limit=login.credential"`
	// Code is a current code of the authenticator app, or a recovery code.
	Code string `json:"code" openapi:"required,limit=totp.code"`
}

// recoveryRoutes are the routes of a forgotten password and of the second factor.
func (h *handlers) recoveryRoutes() []api.Route {
	return []api.Route{
		{Method: "POST", Path: "/api/auth/password-reset", Access: api.Public, Handler: h.requestReset, Tag: "auth",
			Summary: "Ask for a password reset link by mail", Body: PasswordResetRequest{}, Status: fasthttp.StatusAccepted,
			Errors: []int{fasthttp.StatusForbidden},
			Description: "Answers 202 at once, alike whether the address has an account or not; the account's owner is then mailed a link that sets a new password once, within 30 minutes. " +
				"Each request spends the login limits of the e-mail and the client address, as a failed login does (429 past them). A server with no SMTP server set up answers 403 forbidden, for every address."},
		{Method: "POST", Path: "/api/auth/password-reset/confirm", Access: api.Public, Handler: h.confirmReset, Tag: "auth",
			Summary: "Set a new password with the token of a mailed reset link", Body: PasswordResetConfirm{}, Status: fasthttp.StatusNoContent,
			Description: "Sets new_password for the link's user, spends the link, and ends every session of the user (and every other link). A token that is unknown, used, expired, or of a user changed since is 400 naming token."},
		{Method: "GET", Path: ResetPagePath, Access: api.Public, Handler: h.resetPage, Tag: "auth",
			Summary: "The page a mailed reset link opens", Reply: api.RawBody{ContentType: "text/html"},
			Query:       map[string]string{"token": "the link's token, which the page's script sends with the new password"},
			Description: "An HTML page that asks for the new password and sends it, with the link's token, to POST /api/auth/password-reset/confirm."},
		{Method: "POST", Path: "/api/auth/login/totp", Access: api.Public, Handler: h.loginTOTP, Tag: "auth",
			Summary: "Complete a login with a code of the second factor", Body: TOTPLogin{}, Reply: TokenReply{}, Errors: []int{fasthttp.StatusUnauthorized},
			Description: "A login whose password is right, of a user with a second factor, answers 401 totp_required with a challenge; this completes it with a current code of the authenticator app, or a recovery code (used up). " +
				"Each code works once. A wrong code is 400 naming code and counts against the user's login limits as a failed login does; an unknown, used or expired challenge (5 minutes) is 401 unauthorized."},
		{Method: "POST", Path: "/api/auth/totp", Access: api.Authenticated, Handler: h.enrolTOTP, Tag: "auth",
			Summary: "Start turning on a second factor: its secret and otpauth:// URI", Reply: signin.TOTPEnrolment{}, Status: fasthttp.StatusCreated,
			Description: "Answers the secret, shown this once, and the otpauth:// URI authenticator apps read from a QR code. Logins ask for codes once a first code confirms it (POST /api/auth/totp/confirm); an unconfirmed enrolment is replaced by the next. While a second factor is on, 409 conflict.",
			Exempt:      "the answer is a secret, which an idempotency record must not keep; enrolling again replaces an unconfirmed enrolment"},
		{Method: "POST", Path: "/api/auth/totp/confirm", Access: api.Authenticated, Handler: h.confirmTOTP, Tag: "auth",
			Summary: "Turn the second factor on with a first code; answers ten recovery codes, once", Body: TOTPCode{}, Reply: signin.RecoveryCodeList{},
			Description: "A wrong code is 400 naming code; no enrolment waiting is 409 conflict. The recovery codes are shown this once: each signs in once instead of a code.",
			Exempt:      "the answer holds recovery codes, which an idempotency record must not keep; a retry after it applied answers 409 (the second factor is on)"},
		{Method: "POST", Path: "/api/auth/totp/disable", Access: api.Authenticated, Handler: h.disableTOTP, Tag: "auth",
			Summary: "Turn the second factor off with a code or a recovery code", Body: TOTPCode{}, Status: fasthttp.StatusNoContent,
			Description: "A wrong code is 400 naming code; a user without a second factor gets 409 conflict.",
			Exempt:      "turning it off again changes nothing: a retry after it applied answers 409 (no second factor)"},
		{Method: "DELETE", Path: "/api/resources/users/{id}/totp", Access: api.AdminOnly, Handler: h.resetTOTP, Tag: "resources",
			Summary: "Turn a user's second factor off (operators), ending every session of the user", Status: fasthttp.StatusNoContent,
			Description: "For a user who lost the authenticator and the recovery codes. A user without a second factor (nor an enrolment) is 409 conflict."},
	}
}

func (h *handlers) requestReset(c *api.Call) (any, error) {
	var req PasswordResetRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	email := auth.NormalizeEmail(req.Email)
	if at := strings.LastIndexByte(email, '@'); at < 1 || at == len(email)-1 || strings.ContainsAny(email, " \t\r\n") {
		return nil, apierr.Invalid(apierr.Field("email", "is not an e-mail address"))
	}
	// The request spends the login budget of the address it names whatever it finds:
	// it is "failed" from the limits' point of view, so nobody can fill a mailbox.
	err := h.passwordCheck(c, email, func() error {
		if err := h.svc.Users.RequestPasswordReset(email); err != nil {
			return err
		}
		return errResetAsked
	})
	if !errors.Is(err, errResetAsked) {
		return nil, err
	}
	return api.Reply{Status: fasthttp.StatusAccepted}, nil
}

// errResetAsked ends a reset request's check as a failure, for the limits only.
var errResetAsked = errors.New("reset asked")

func (h *handlers) confirmReset(c *api.Call) (any, error) {
	var req PasswordResetConfirm
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	if err := h.svc.Users.ResetPassword(c.Context(), req.Token, req.NewPassword); err != nil {
		return nil, err
	}
	return api.NoContent, nil
}

func (h *handlers) resetPage(c *api.Call) (any, error) {
	h.page(c, resetPage)
	return nil, nil
}

// page answers one of the account pages: HTML that carries a token in its address.
func (h *handlers) page(c *api.Call, body []byte) {
	rc := c.RequestCtx()
	rc.SetContentType("text/html; charset=utf-8")
	// The page runs only its own script, sends its form only to this origin, and is
	// never framed; no Referer carries the token away.
	rc.Response.Header.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'")
	rc.Response.Header.Set("Referrer-Policy", "no-referrer")
	rc.Response.Header.Set("Cache-Control", "no-store")
	rc.SetBody(body)
}

func (h *handlers) loginTOTP(c *api.Call) (_ any, err error) {
	var req TOTPLogin
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	email, err := h.svc.Users.ChallengeEmail(c.Context(), req.Challenge)
	if err != nil {
		return nil, err
	}
	var sess auth.Session
	if err := h.passwordCheck(c, email, func() (err error) {
		sess, err = h.svc.Users.LoginTOTP(c.Context(), req.Challenge, req.Code)
		return err
	}); err != nil {
		return nil, err
	}
	return h.tokenReply(sess, true)
}

func (h *handlers) enrolTOTP(c *api.Call) (any, error) {
	e, err := h.svc.Users.EnrolTOTP(c.Context(), c.Principal.UserID(), h.issuer)
	if err != nil {
		return nil, err
	}
	return api.Created(e), nil
}

func (h *handlers) confirmTOTP(c *api.Call) (any, error) {
	var req TOTPCode
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	var codes signin.RecoveryCodeList
	// A code is a guess as a password is: under the same limits.
	err := h.passwordCheck(c, c.Principal.Email, func() (err error) {
		codes, err = h.svc.Users.ConfirmTOTP(c.Context(), c.Principal.UserID(), c.Principal.SessionID, req.Code)
		return err
	})
	return codes, err
}

func (h *handlers) disableTOTP(c *api.Call) (any, error) {
	var req TOTPCode
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	err := h.passwordCheck(c, c.Principal.Email, func() error {
		return h.svc.Users.DisableTOTP(c.Context(), c.Principal.UserID(), req.Code)
	})
	if err != nil {
		return nil, err
	}
	return api.NoContent, nil
}

func (h *handlers) resetTOTP(c *api.Call) (any, error) {
	if err := h.svc.Users.ResetTOTP(c.Context(), c.Param("id")); err != nil {
		return nil, err
	}
	return api.NoContent, nil
}
