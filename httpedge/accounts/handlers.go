package accounts

import (
	"errors"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/limiter"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/token"
)

// MaxCredentialLen bounds the password of a login and a refresh token: longer than
// any that can be right, short enough to cost nothing to refuse.
const MaxCredentialLen = 1024

// LoginRequest is the body of POST /api/auth/login.
type LoginRequest struct {
	Email    string `json:"email" openapi:"required,limit=login.email"`
	Password string `json:"password" openapi:"required,limit=login.credential"`
}

// TokenReply answers a login or a refresh.
type TokenReply struct {
	Token        string     `json:"token"`
	RefreshToken string     `json:"refresh_token"`
	TokenType    string     `json:"token_type"`
	ExpiresIn    int        `json:"expires_in"`
	User         *auth.User `json:"user,omitempty"`
	// TOTPEnrolmentRequired: the login may only enrol the second factor its user must
	// have (POST /api/auth/totp, then /confirm): every other route answers 403
	// totp_enrolment_required until it has.
	TOTPEnrolmentRequired bool `json:"totp_enrolment_required,omitempty"`
}

// RefreshRequest is the body of POST /api/auth/refresh and /api/auth/logout.
type RefreshRequest struct {
	RefreshToken string `json:"refresh_token" openapi:"required,limit=login.credential"`
}

func (h *handlers) login(c *api.Call) (_ any, err error) {
	var req LoginRequest
	defer func() {
		// One line per failed login, for the operator: who tried, from where, why.
		// Never the password.
		if err != nil && !errors.Is(err, apierr.ErrTOTPRequired) {
			h.log.Info("login failed", zap.String("email", req.Email), zap.String("client", c.ClientAddr()),
				zap.String("reason", apierr.From(err).Code), zap.String("request_id", c.RequestID))
		}
	}()
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	// One spelling of the e-mail from here on: every spelling that reaches the
	// account ("VICTIM@...", " victim@...\t") counts against its one budget.
	email := auth.NormalizeEmail(req.Email)
	if e := kit.AuditOf(c.Context()); e != nil && len(email) <= auth.MaxEmailLen {
		// The audit log says whose login failed: the user named, as the e-mail (the
		// user's write names its id when the login succeeds).
		e.TargetKind, e.TargetID = "users", email
	}
	if email == "" || req.Password == "" || len(email) > auth.MaxEmailLen || len(req.Password) > MaxCredentialLen {
		return nil, apierr.New(apierr.ErrInvalidCredentials, "invalid e-mail or password")
	}
	var sess auth.Session
	var challenge error
	if err := h.passwordCheck(c, email, func() error {
		sess, err = h.svc.Users.Login(c.Context(), email, req.Password, h.loginClient(c))
		if errors.Is(err, apierr.ErrTOTPRequired) {
			// The password was right: a success for the limits, which the code's
			// check runs under again.
			challenge = err
			return nil
		}
		return err
	}); err != nil {
		return nil, err
	}
	if challenge != nil {
		return nil, challenge
	}
	return h.tokenReply(sess, true)
}

// passwordCheck runs check, which checks a password of the account of email, under the
// login limits. Failed checks are limited per e-mail and client address, and per
// e-mail over every address: a botnet cannot spread a guessing run over many
// addresses, and the owner, from an address that has not failed, is delayed but not
// locked out (Limiter.LoginAttempt). Only failures count: the attempt holds a
// reservation while the password is checked, which a success gives back. Any end of
// check but a success counts as a failure, also an error after the check (a 503 for a
// right password must not be a free guess).
func (h *handlers) passwordCheck(c *api.Call, email string, check func() error) error {
	d, err := h.svc.Limiter.LoginAttempt(c.Context(), email, c.ClientAddr())
	if err != nil {
		return err
	}
	if !d.Allowed {
		return h.loginRefused(c, d)
	}
	outcome := limiter.LoginAbandoned
	defer func() { h.svc.Limiter.LoginDone(d.Ticket, outcome) }()
	if d.Delay > 0 {
		t := time.NewTimer(d.Delay)
		select {
		case <-t.C:
		case <-c.Context().Done():
			t.Stop()
			return apierr.From(c.Context().Err())
		}
	}
	outcome = limiter.LoginFailed
	if err := check(); err != nil {
		return err
	}
	outcome = limiter.LoginSucceeded
	return nil
}

// loginClient is where a login comes from, as its session records it.
func (h *handlers) loginClient(c *api.Call) auth.Client {
	return auth.Client{Addr: c.ClientIP().String(), Agent: string(c.RequestCtx().Request.Header.UserAgent())}
}

// PasswordChange is the body of POST /api/auth/password.
type PasswordChange struct {
	CurrentPassword string `json:"current_password" openapi:"required,limit=login.credential"`
	NewPassword     string `json:"new_password" openapi:"required,limit=user.password"`
}

// changePassword sets the caller's own password: the current one is checked under
// the login limits (a stolen access token must not make guessing it cheap), and every
// other session of the user ends; the caller's stays, with a new access token.
func (h *handlers) changePassword(c *api.Call) (any, error) {
	var req PasswordChange
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	var sess auth.Session
	err := h.passwordCheck(c, c.Principal.Email, func() (err error) {
		sess, err = h.svc.Users.ChangePassword(c.Context(), c.Principal.UserID(), c.Principal.SessionID, req.CurrentPassword, req.NewPassword)
		return err
	})
	if err != nil {
		return nil, err
	}
	return h.tokenReply(sess, true)
}

// listSessions lists the caller's own sessions.
func (h *handlers) listSessions(c *api.Call) (any, error) {
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	items, next, err := h.svc.Users.Sessions(c.Context(), c.Principal.UserID(), c.Principal.SessionID, cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}

// endSession ends one of the caller's own sessions (its own too: that is a logout).
func (h *handlers) endSession(c *api.Call) (any, error) {
	if err := h.svc.Users.EndSession(c.Context(), c.Principal.UserID(), c.Param("id")); err != nil {
		return nil, err
	}
	return api.NoContent, nil
}

// loginRefused is the 429 of a login the limits refused. Its detail says which limit
// and why, and its RateLimit headers are that limit's, in place of those of the
// per-address request limits set before the handler ran.
func (h *handlers) loginRefused(c *api.Call, d limiter.LoginDecision) error {
	var e *apierr.Error
	switch d.Refusal {
	case limiter.RefusedAddrFailures:
		e = apierr.New(apierr.ErrRateLimited, "too many failed logins for this e-mail from this address; retry in %d s", d.RetryAfterS)
	case limiter.RefusedQueueFull:
		e = apierr.New(apierr.ErrRateLimited, "too many failed logins for this e-mail, and too many logins waiting their turn for it; retry in %d s", d.RetryAfterS)
	case limiter.RefusedBusy:
		e = apierr.New(apierr.ErrRateLimited, "too many logins for this e-mail at once: those being checked hold its login budget; retry in %d s", d.RetryAfterS)
	default:
		e = apierr.New(apierr.ErrRateLimited, "too many failed logins for this e-mail; retry in %d s", d.RetryAfterS)
	}
	e.RetryAfterS = d.RetryAfterS
	hdr := &c.RequestCtx().Response.Header
	hdr.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
	hdr.Set("RateLimit-Remaining", strconv.Itoa(max(d.Remaining, 0)))
	hdr.Set("RateLimit-Reset", strconv.Itoa(d.ResetS))
	h.limited(d.Bucket)
	return e
}

func (h *handlers) refresh(c *api.Call) (any, error) {
	var req RefreshRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	sess, err := h.svc.Users.Refresh(c.Context(), req.RefreshToken)
	if err != nil {
		return nil, err
	}
	return h.tokenReply(sess, false)
}

// tokenReply issues the access token of a login: it names the login (sid) and the
// user's token generation (gen), which authenticate checks on every request.
func (h *handlers) tokenReply(sess auth.Session, withUser bool) (any, error) {
	u := sess.User
	tok, err := h.tokens.Issue(token.Claims{Subject: u.ID, Email: u.Email, Role: u.Role, TenantID: u.TenantID,
		SessionID: sess.ID, Gen: sess.Gen})
	if err != nil {
		return nil, err
	}
	r := TokenReply{Token: tok, RefreshToken: sess.RefreshToken, TokenType: "Bearer", ExpiresIn: int(h.tokens.TTL().Seconds()),
		TOTPEnrolmentRequired: sess.Restricted}
	if withUser {
		r.User = &u
	}
	return r, nil
}

func (h *handlers) me(c *api.Call) (any, error) {
	return h.svc.Users.Get(c.Context(), c.Principal.UserID())
}

func (h *handlers) logout(c *api.Call) (any, error) {
	var req RefreshRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	if err := h.svc.Users.Logout(c.Context(), c.Principal.UserID(), req.RefreshToken); err != nil {
		return nil, err
	}
	return api.NoContent, nil
}
