package signin

import (
	"context"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// LoginLinkTTL is how long a login link works.
const LoginLinkTTL = 60 * time.Second

// LoginLink is a login link as its maker gets it: the token, once.
type LoginLink struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Link is a login link as stored under loginlink/<SHA-256 of its token> (TTL
// LoginLinkTTL): never the token itself.
type Link struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
	// Gen is the user's token generation when the link was made: a change of the user
	// since (a new password, role, tenant, a disable) ends the link.
	Gen       uint64    `json:"gen"`
	ExpiresAt time.Time `json:"expires_at"`
}

var links = kind{prefix: "loginlink", version: 1, ttl: LoginLinkTTL}

// ErrBadLink answers a login link that is unknown, used or expired, or whose user
// changed since.
var ErrBadLink = apierr.New(apierr.ErrUnauthorized, "the login link is unknown, used or expired: ask for a new one")

// PutLink adds to b a new login link for l's user (its ExpiresAt set here), and
// answers the link.
func PutLink(b *persistence.Batch, l Link) (LoginLink, error) {
	l.ExpiresAt = time.Now().UTC().Add(LoginLinkTTL)
	token, err := put(links, b, &l)
	if err != nil {
		return LoginLink{}, err
	}
	return LoginLink{Token: token, ExpiresAt: l.ExpiresAt}, nil
}

// LoadLink reads the live link of token, and its key, or ErrBadLink.
func (r Records) LoadLink(ctx context.Context, token string) (*Link, []byte, error) {
	rec, key, err := load[Link](ctx, r, links, token)
	if err != nil {
		return nil, nil, err
	}
	// A TTL on etcd may outlive its time by a little (leases are shared per second).
	if rec == nil || time.Now().After(rec.ExpiresAt) {
		return nil, nil, ErrBadLink
	}
	return rec, key, nil
}
