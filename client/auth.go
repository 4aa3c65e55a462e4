package client

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// auth is the login a client shares between its goroutines.
type auth struct {
	static          string // WithToken (then under mu: a password change replaces it)
	email, password string // WithCredentials (password under mu)
	// totp gives the codes of the user's second factor (WithTOTP).
	totp func(ctx context.Context) (string, error)
	// link is a login link's token (WithLoginLink), until the first sign-in spends it
	// (under mu).
	link     string
	fromLink bool
	// oidc is the callback URL of an OpenID Connect sign-in (WithOIDCCallback) and
	// oidcSecret its secret, until the first sign-in completes it (under mu).
	oidc       *url.URL
	oidcSecret string
	fromOIDC   bool

	sem chan struct{} // held by the one goroutine renewing the token

	mu       sync.Mutex
	access   string
	refresh  string
	renewAt  time.Time // renew from here on, ahead of expiry
	expireAt time.Time
	user     *User
}

func (a *auth) canRenew() bool { return a.email != "" || a.fromLink || a.fromOIDC }

func (a *auth) current() (tok string, renewAt, expireAt time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.access, a.renewAt, a.expireAt
}

// token returns the bearer token to send. stale is a token the server has just refused
// with 401: a different one is wanted then. Only one goroutine renews at a time; the
// others wait for it and use its result.
func (c *core) token(ctx context.Context, stale string) (string, error) {
	a := &c.auth
	if !a.canRenew() {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.static, nil
	}
	if tok, renewAt, _ := a.current(); tok != "" && tok != stale && time.Now().Before(renewAt) {
		return tok, nil
	}
	select {
	case a.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-a.sem }()
	// Another goroutine may have renewed it while this one waited.
	tok, renewAt, expireAt := a.current()
	if tok != "" && tok != stale && time.Now().Before(renewAt) {
		return tok, nil
	}
	if err := c.renew(ctx); err != nil {
		// A renewal ahead of time that failed (the network, say) leaves the token
		// in use while it lasts.
		if tok != "" && tok != stale && time.Now().Before(expireAt) && !errors.Is(err, ErrInvalidCredentials) {
			return tok, nil
		}
		return "", err
	}
	tok, _, _ = a.current()
	return tok, nil
}

// tokenReply is the answer of login and refresh.
type tokenReply struct {
	Token        string `json:"token"`
	TokenType    string `json:"token_type"` // Bearer
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	User         *User  `json:"user"`
	// TOTPEnrolmentRequired: the login may only enrol a second factor first.
	TOTPEnrolmentRequired bool `json:"totp_enrolment_required,omitempty"`
}

// loginRequest is the body of POST /api/auth/login.
type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// refreshRequest is the body of POST /api/auth/refresh and /api/auth/logout.
type refreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}

// renew gets a new token pair: by refresh token when there is one, by logging in again
// when there is none or it is refused (spent, expired, or its session ended).
func (c *core) renew(ctx context.Context) error {
	a := &c.auth
	a.mu.Lock()
	refresh, password := a.refresh, a.password
	a.mu.Unlock()
	var tr tokenReply
	if refresh != "" {
		_, err := c.do(ctx, request{method: http.MethodPost, path: "/api/auth/refresh", public: true,
			body: refreshRequest{RefreshToken: refresh}, out: &tr})
		if err == nil {
			a.store(tr)
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
	}
	tr = tokenReply{}
	if a.fromLink {
		return c.redeemLink(ctx)
	}
	if a.fromOIDC {
		return c.completeOIDC(ctx)
	}
	_, err := c.do(ctx, request{method: http.MethodPost, path: "/api/auth/login", public: true,
		body: loginRequest{Email: a.email, Password: password}, out: &tr})
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

// loginLinkRequest is the body of POST /api/auth/login-link.
type loginLinkRequest struct {
	Token string `json:"token"`
}

// errLinkSpent is the error of a client made WithLoginLink whose login ended, and
// errSignInSpent of one made WithOIDCCallback.
var (
	errLinkSpent = &Error{Status: http.StatusUnauthorized, Code: ErrUnauthorized.Code,
		Detail: "the login of the login link has ended, and a link signs in once: ask for a new link"}
	errSignInSpent = &Error{Status: http.StatusUnauthorized, Code: ErrUnauthorized.Code,
		Detail: "the login of the OpenID Connect sign-in has ended, and a sign-in completes once: sign in again"}
)

// redeemLink signs in with the client's login link, once.
func (c *core) redeemLink(ctx context.Context) error {
	a := &c.auth
	a.mu.Lock()
	link := a.link
	a.link = ""
	a.mu.Unlock()
	if link == "" {
		return errLinkSpent
	}
	var tr tokenReply
	if _, err := c.do(ctx, request{method: http.MethodPost, path: "/api/auth/login-link", public: true,
		body: loginLinkRequest{Token: link}, out: &tr}); err != nil {
		return err
	}
	a.store(tr)
	return nil
}

// totpLogin is the body of POST /api/auth/login/totp.
type totpLogin struct {
	Challenge string `json:"challenge"`
	Code      string `json:"code"`
}

// loginTOTP completes a login that answered totp_required with a code from code.
func (c *core) loginTOTP(ctx context.Context, challenge string, code func(context.Context) (string, error)) (tokenReply, error) {
	var tr tokenReply
	otp, err := code(ctx)
	if err != nil {
		return tr, err
	}
	_, err = c.do(ctx, request{method: http.MethodPost, path: "/api/auth/login/totp", public: true,
		body: totpLogin{Challenge: challenge, Code: otp}, out: &tr})
	return tr, err
}

func (a *auth) store(tr tokenReply) {
	now := time.Now()
	life := time.Duration(tr.ExpiresIn) * time.Second
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access, a.refresh = tr.Token, tr.RefreshToken
	// Renew when a fifth of the lifetime is left: early enough for a slow network,
	// late enough not to refresh often (3 minutes before the default 15 expire).
	a.renewAt = now.Add(life * 4 / 5)
	a.expireAt = now.Add(life)
	if tr.User != nil {
		a.user = tr.User
	}
}

// Login logs in with the client's credentials now (instead of on first use) and returns
// the user. It fails without WithCredentials, WithLoginLink or WithOIDCCallback.
func (c *Client) Login(ctx context.Context) (*User, error) {
	if !c.c.auth.canRenew() {
		return nil, errors.New("vmplane client: Login needs WithCredentials, WithLoginLink or WithOIDCCallback")
	}
	if _, err := c.c.token(ctx, ""); err != nil {
		return nil, err
	}
	a := &c.c.auth
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.user, nil
}

// passwordChange is the body of POST /api/auth/password.
type passwordChange struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password"`
}

// ChangePassword changes the password of the client's user. Every other session of
// the user ends; the client's own goes on, with the new access token the server
// answers (every token issued before the change ends), and a client made
// WithCredentials signs in with the new password from then on. A wrong current
// password is an *Error with code invalid_request naming current_password.
func (c *Client) ChangePassword(ctx context.Context, current, next string) error {
	var tr tokenReply
	if _, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/auth/password",
		body: passwordChange{CurrentPassword: current, NewPassword: next}, out: &tr}); err != nil {
		return err
	}
	a := &c.c.auth
	if !a.canRenew() {
		a.mu.Lock()
		a.static = tr.Token
		a.mu.Unlock()
		return nil
	}
	a.store(tr)
	a.mu.Lock()
	if a.email != "" {
		a.password = next
	}
	a.mu.Unlock()
	return nil
}

type passwordResetRequest struct {
	Email string `json:"email"`
}

type passwordResetConfirm struct {
	Token       string `json:"token"`
	NewPassword string `json:"new_password"`
}

// RequestPasswordReset asks the server to mail a password reset link to the account
// of email. It needs no login, and answers the same whether the address has an
// account or not; a server set up to send no mail answers an *Error with code
// forbidden.
func (c *Client) RequestPasswordReset(ctx context.Context, email string) error {
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/auth/password-reset", public: true,
		body: passwordResetRequest{Email: email}})
	return err
}

// ConfirmPasswordReset sets a new password with the token of a mailed reset link. It
// needs no login; every session of the user ends. A token that is unknown, used or
// expired is an *Error with code invalid_request naming token.
func (c *Client) ConfirmPasswordReset(ctx context.Context, token, newPassword string) error {
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/auth/password-reset/confirm", public: true,
		body: passwordResetConfirm{Token: token, NewPassword: newPassword}})
	return err
}

type totpCode struct {
	Code string `json:"code"`
}

type recoveryCodes struct {
	Codes []string `json:"recovery_codes"`
}

// EnrolTOTP starts turning on a second factor for the client's user: the answer's
// secret (or URI, as a QR code) goes into an authenticator app, whose first code
// ConfirmTOTP takes. An enrolment not yet confirmed is replaced; a second factor that
// is on already is a 409 conflict.
func (c *Client) EnrolTOTP(ctx context.Context) (*TOTPEnrolment, error) {
	var out TOTPEnrolment
	if _, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/auth/totp", out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// ConfirmTOTP turns the second factor on with a first code of the authenticator app,
// and returns the ten recovery codes, shown this once: each signs in once instead of
// a code.
func (c *Client) ConfirmTOTP(ctx context.Context, code string) ([]string, error) {
	var out recoveryCodes
	if _, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/auth/totp/confirm", body: totpCode{Code: code}, out: &out}); err != nil {
		return nil, err
	}
	return out.Codes, nil
}

// DisableTOTP turns the client's user's second factor off, proven by a current code
// or a recovery code.
func (c *Client) DisableTOTP(ctx context.Context, code string) error {
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/auth/totp/disable", body: totpCode{Code: code}})
	return err
}

// SessionsPage reads one page of the user's sessions, newest first.
func (c *Client) SessionsPage(ctx context.Context, opt ListOptions) (Page[Session], error) {
	return getPage[Session](ctx, c, "/api/auth/sessions", opt.values())
}

// Sessions yields every session of the client's user, newest first.
func (c *Client) Sessions(ctx context.Context, opt ListOptions) iter.Seq2[Session, error] {
	return all(ctx, opt, c.SessionsPage)
}

// EndSession ends one of the user's sessions: its tokens stop working at once. Ending
// the client's own is a logout, after which the client signs in again on its next call
// (WithCredentials) or fails.
func (c *Client) EndSession(ctx context.Context, id string) error {
	_, err := c.c.do(ctx, request{method: http.MethodDelete, path: "/api/auth/sessions/" + esc(id)})
	return err
}

// Logout ends the client's login on the server (its access and refresh tokens). A
// later call logs in again. Without a login of its own (WithToken, or none yet) it
// does nothing.
func (c *Client) Logout(ctx context.Context) error {
	a := &c.c.auth
	a.mu.Lock()
	refresh := a.refresh
	a.mu.Unlock()
	if refresh == "" {
		return nil
	}
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/auth/logout", body: refreshRequest{RefreshToken: refresh}})
	a.mu.Lock()
	a.access, a.refresh, a.renewAt, a.expireAt = "", "", time.Time{}, time.Time{}
	a.mu.Unlock()
	return err
}
