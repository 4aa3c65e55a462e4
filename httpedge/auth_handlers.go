package httpedge

import (
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/apierr"
)

// LoginRequest is the body of POST /api/auth/login.
type LoginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// TokenReply answers a login or a refresh.
type TokenReply struct {
	Token        string       `json:"token"`
	RefreshToken string       `json:"refresh_token"`
	TokenType    string       `json:"token_type"`
	ExpiresIn    int          `json:"expires_in"`
	User         *actors.User `json:"user,omitempty"`
}

// RefreshRequest is the body of POST /api/auth/refresh and /api/auth/logout.
type RefreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}

func (s *Server) login(c *Call) (_ any, err error) {
	var req LoginRequest
	defer func() {
		// One line per failed login, for the operator: who tried, from where, why.
		// Never the password.
		if err != nil {
			s.log.Info("login failed", zap.String("email", req.Email), zap.String("client", c.ClientAddr()),
				zap.String("reason", apierr.From(err).Code), zap.String("request_id", c.RequestID))
		}
	}()
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	if req.Email == "" || req.Password == "" || len(req.Email) > 254 || len(req.Password) > 1024 {
		return nil, apierr.New(apierr.ErrInvalidCredentials, "invalid e-mail or password")
	}
	// Attempts per e-mail are limited whatever address they come from, so a botnet
	// cannot spread a password guessing run over many addresses.
	d, err := s.sys.Limiter.Take(c.Context(), "email:"+req.Email, actors.BucketLogin)
	if err != nil {
		return nil, err
	}
	if !d.Allowed {
		e := apierr.New(apierr.ErrRateLimited, "too many login attempts for this e-mail; retry in %d s", d.RetryAfterS)
		e.RetryAfterS = d.RetryAfterS
		s.metrics.limited(d.Bucket)
		return nil, e
	}
	user, refresh, err := s.sys.Users.Login(c.Context(), req.Email, req.Password)
	if err != nil {
		return nil, err
	}
	return s.tokenReply(user, refresh, true)
}

func (s *Server) refresh(c *Call) (any, error) {
	var req RefreshRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	user, refresh, err := s.sys.Users.Refresh(c.Context(), req.RefreshToken)
	if err != nil {
		return nil, err
	}
	return s.tokenReply(user, refresh, false)
}

func (s *Server) tokenReply(user actors.User, refresh string, withUser bool) (any, error) {
	tok, err := s.tokens.Issue(user.ID, user.Email, user.Role, user.TenantID)
	if err != nil {
		return nil, err
	}
	r := TokenReply{Token: tok, RefreshToken: refresh, TokenType: "Bearer", ExpiresIn: int(s.tokens.TTL().Seconds())}
	if withUser {
		r.User = &user
	}
	return r, nil
}

func (s *Server) me(c *Call) (any, error) {
	return s.sys.Users.Get(c.Context(), c.Principal.UserID())
}

func (s *Server) logout(c *Call) (any, error) {
	var req RefreshRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	if err := s.sys.Users.Logout(c.Context(), c.Principal.UserID(), req.RefreshToken); err != nil {
		return nil, err
	}
	return NoContent, nil
}
