// Package token issues and verifies vmplane's access tokens: HS256 JWTs carrying the
// user id, role, tenant and expiry. The algorithm is pinned: a token with any other
// "alg" (none included) is refused before its signature is looked at.
package token

import (
	"errors"
	"sync"
	"time"

	"github.com/cristalhq/jwt/v4"

	"github.com/vmplane/vmplane/apierr"
)

// Issuer is the "iss" of every token, and the audience they are checked against.
const Issuer = "vmplane"

// MinKeyBytes is the shortest signing key accepted: HS256 wants at least 256 bits.
const MinKeyBytes = 32

// Claims are what an access token asserts.
type Claims struct {
	jwt.RegisteredClaims
	Role     string  `json:"role"`
	TenantID *string `json:"tenant_id"`
	Email    string  `json:"email,omitempty"`
}

// UserID is the token's subject.
func (c *Claims) UserID() string { return c.Subject }

// Keeper signs and verifies access tokens with one key.
type Keeper struct {
	signer   *jwt.HSAlg
	verifier *jwt.HSAlg
	ttl      time.Duration
	now      func() time.Time

	// verified remembers the claims of tokens that passed Verify, by their exact bytes,
	// so that a client's next requests skip decoding the JWT's JSON (most of Verify's
	// cost). A hit is as good as a verification: the bytes are the ones whose signature
	// was checked, and the expiry is checked again on every hit.
	mu       sync.RWMutex
	verified map[string]*Claims
}

// maxVerified bounds the verified-token cache; when full it starts again empty. An
// access token lives minutes, so this is many times the clients active at once.
const maxVerified = 16384

// New returns a Keeper for key, issuing tokens that live for ttl.
func New(key []byte, ttl time.Duration) (*Keeper, error) {
	if len(key) < MinKeyBytes {
		return nil, errors.New("token: the signing key must be at least 32 bytes")
	}
	s, err := jwt.NewSignerHS(jwt.HS256, key)
	if err != nil {
		return nil, err
	}
	v, err := jwt.NewVerifierHS(jwt.HS256, key)
	if err != nil {
		return nil, err
	}
	return &Keeper{signer: s, verifier: v, ttl: ttl, now: time.Now, verified: map[string]*Claims{}}, nil
}

// TTL is the lifetime of the tokens this Keeper issues.
func (k *Keeper) TTL() time.Duration { return k.ttl }

// Issue signs a token for a user.
func (k *Keeper) Issue(userID, email, role string, tenantID *string) (string, error) {
	now := k.now()
	c := Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    Issuer,
			Audience:  jwt.Audience{Issuer},
			Subject:   userID,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(k.ttl)),
		},
		Role: role, TenantID: tenantID, Email: email,
	}
	t, err := jwt.NewBuilder(k.signer).Build(c)
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

var errUnauthorized = apierr.New(apierr.ErrUnauthorized, "the access token is missing, malformed, forged or expired")

// Verify checks a token's algorithm, signature, issuer, audience and expiry, and
// returns its claims, which callers share and must not modify. Every failure is the
// same 401: which check failed is not told.
func (k *Keeper) Verify(raw []byte) (*Claims, error) {
	k.mu.RLock()
	c, ok := k.verified[string(raw)]
	k.mu.RUnlock()
	if ok {
		if now := k.now(); c.IsValidExpiresAt(now) && c.IsValidNotBefore(now) {
			return c, nil
		}
		return nil, errUnauthorized
	}
	c, err := k.verify(raw)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	if len(k.verified) >= maxVerified {
		clear(k.verified)
	}
	k.verified[string(raw)] = c
	k.mu.Unlock()
	return c, nil
}

// verify is Verify without the cache.
func (k *Keeper) verify(raw []byte) (*Claims, error) {
	t, err := jwt.Parse(raw, k.verifier)
	if err != nil {
		return nil, errUnauthorized
	}
	var c Claims
	if err := t.DecodeClaims(&c); err != nil {
		return nil, errUnauthorized
	}
	now := k.now()
	if c.ExpiresAt == nil || !c.IsValidExpiresAt(now) || !c.IsValidNotBefore(now) ||
		c.Issuer != Issuer || !c.IsForAudience(Issuer) || c.Subject == "" {
		return nil, errUnauthorized
	}
	return &c, nil
}
