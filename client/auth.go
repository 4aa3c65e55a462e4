package client

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"sync"
	"time"
)

// auth is the login a client shares between its goroutines.
type auth struct {
	static          string // WithToken (then under mu: a password change replaces it)
	email, password string // WithCredentials (password under mu)

	sem chan struct{} // held by the one goroutine renewing the token

	mu       sync.Mutex
	access   string
	refresh  string
	renewAt  time.Time // renew from here on, ahead of expiry
	expireAt time.Time
	user     *User
}

func (a *auth) canRenew() bool { return a.email != "" }

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
	if _, err := c.do(ctx, request{method: http.MethodPost, path: "/api/auth/login", public: true,
		body: loginRequest{Email: a.email, Password: password}, out: &tr}); err != nil {
		return err
	}
	a.store(tr)
	return nil
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
// the user. It fails without WithCredentials.
func (c *Client) Login(ctx context.Context) (*User, error) {
	if !c.c.auth.canRenew() {
		return nil, errors.New("vmplane client: Login needs WithCredentials")
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
	a.password = next
	a.mu.Unlock()
	return nil
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
