// Package token issues and verifies vmplane's access tokens: HS256 JWTs carrying the
// user id, role, tenant, the login (session) they belong to, the user's token
// generation and the expiry.
//
// Verification follows RFC 8725 (JWT best current practices): the header is pinned
// to exactly {"alg":"HS256","typ":"JWT"} (a token with any other algorithm, none
// included, or any other header member is refused), and every claim must have its JSON type: a NumericDate is a JSON number, not a
// string that looks like one. "exp" is required; "nbf" and "iat" are checked when
// present, with a small leeway for clocks.
package token

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/cristalhq/jwt/v4"

	"github.com/vmplane/vmplane/apierr"
)

// Issuer is the "iss" of every token, and the audience they are checked against.
const Issuer = "vmplane"

// Type is the "typ" header of every token.
const Type = "JWT"

// MinKeyBytes is the shortest signing key accepted: HS256 wants at least 256 bits.
const MinKeyBytes = 32

// Leeway is how far in the future a token's "nbf" and "iat" may lie: the clocks of
// the servers of one cluster drift a little. None is given on "exp".
const Leeway = 5 * time.Second

// Claims are what an access token asserts.
type Claims struct {
	// Subject ("sub") is the user id.
	Subject  string
	Role     string
	TenantID *string
	Email    string
	// SessionID ("sid") is the login the token was issued for: its refresh-token
	// family. Logging out of it ends the token.
	SessionID string
	// Gen ("gen") is the user's token generation when the token was issued; a change
	// of password, role, tenant or state bumps it, which ends every earlier token.
	Gen uint64
	// IssuedAt ("iat"), NotBefore ("nbf") and ExpiresAt ("exp"); zero when absent
	// (exp never is in a verified token).
	IssuedAt, NotBefore, ExpiresAt time.Time
	// KeyID, for a request made with an API key (never in a JWT), names the key, and
	// Scopes are what it may do; the other claims are then its user's as they are now.
	KeyID  string
	Scopes []string
}

// UserID is the token's subject.
func (c *Claims) UserID() string { return c.Subject }

// validAt reports whether the token's time window holds now.
func (c *Claims) validAt(now time.Time) bool {
	return now.Before(c.ExpiresAt) &&
		(c.NotBefore.IsZero() || !c.NotBefore.After(now.Add(Leeway))) &&
		(c.IssuedAt.IsZero() || !c.IssuedAt.After(now.Add(Leeway)))
}

// Keeper signs and verifies access tokens with one key.
type Keeper struct {
	signer   *jwt.HSAlg
	verifier *jwt.HSAlg
	ttl      time.Duration
	now      func() time.Time

	// verified remembers the claims of tokens that passed Verify, by their exact bytes,
	// so that a client's next requests skip decoding the JWT's JSON (most of Verify's
	// cost). A hit is as good as a verification: the bytes are the ones whose signature
	// was checked, and the time window is checked again on every hit. Whether the
	// token's user and session still hold is not the token's business: the edge asks
	// the users service on every request, hit or not.
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

// wireClaims is the JSON of the claims this Keeper signs.
type wireClaims struct {
	Iss      string   `json:"iss"`
	Aud      []string `json:"aud"`
	Sub      string   `json:"sub"`
	Iat      int64    `json:"iat"`
	Exp      int64    `json:"exp"`
	Role     string   `json:"role"`
	TenantID *string  `json:"tenant_id"`
	Email    string   `json:"email,omitempty"`
	Sid      string   `json:"sid"`
	Gen      uint64   `json:"gen"`
}

// Issue signs a token asserting c's subject, role, tenant, e-mail, session and
// generation; the issuer, audience, issue time and expiry are the Keeper's.
func (k *Keeper) Issue(c Claims) (string, error) {
	now := k.now()
	t, err := jwt.NewBuilder(k.signer).Build(wireClaims{
		Iss: Issuer, Aud: []string{Issuer}, Sub: c.Subject,
		Iat: now.Unix(), Exp: now.Add(k.ttl).Unix(),
		Role: c.Role, TenantID: c.TenantID, Email: c.Email, Sid: c.SessionID, Gen: c.Gen,
	})
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

var errUnauthorized = apierr.New(apierr.ErrUnauthorized, "the access token is missing, malformed, forged or expired")

// Verify checks a token's header, signature, claim types, issuer, audience and time
// window, and returns its claims, which callers share and must not modify. Every
// failure is the same 401: which check failed is not told.
func (k *Keeper) Verify(raw []byte) (*Claims, error) {
	k.mu.RLock()
	c, ok := k.verified[string(raw)]
	k.mu.RUnlock()
	if ok {
		if c.validAt(k.now()) {
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
	if err != nil || !pinnedHeader(t.HeaderPart()) {
		return nil, errUnauthorized
	}
	c, ok := decodeClaims(t.Claims())
	if !ok || !c.validAt(k.now()) {
		return nil, errUnauthorized
	}
	return c, nil
}

// pinnedHeader reports whether a token's header is, byte for byte, the one this
// package signs: {"alg":"HS256","typ":"JWT"}. Nothing else is accepted: not another
// algorithm, not "ALG" (encoding/json, which the JWT library decodes the header with,
// matches member names case-insensitively), not a "kid", "jku" or "crit", not the same
// members twice.
func pinnedHeader(b64 []byte) bool { return string(b64) == signedHeader }

// signedHeader is the base64url of {"alg":"HS256","typ":"JWT"}, the header the JWT
// library writes for an HS256 token.
var signedHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// decodeClaims decodes a token's claims set, refusing every claim it knows of that
// has the wrong JSON type, and the tokens that lack a required one. Member names are
// matched exactly: encoding/json would decode "EXP" into an "exp" field.
func decodeClaims(raw []byte) (*Claims, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, false
	}
	var c Claims
	var ok bool
	// Registered claims (RFC 7519 section 4.1).
	if iss, isStr := jsonString(m["iss"]); !isStr || iss != Issuer {
		return nil, false
	}
	if !audienceHas(m["aud"], Issuer) {
		return nil, false
	}
	if c.Subject, ok = jsonString(m["sub"]); !ok || c.Subject == "" {
		return nil, false
	}
	if c.ExpiresAt, ok = numericDate(m["exp"]); !ok {
		return nil, false
	}
	if v, present := m["nbf"]; present {
		if c.NotBefore, ok = numericDate(v); !ok {
			return nil, false
		}
	}
	if v, present := m["iat"]; present {
		if c.IssuedAt, ok = numericDate(v); !ok {
			return nil, false
		}
	}
	if v, present := m["jti"]; present {
		if _, ok = jsonString(v); !ok {
			return nil, false
		}
	}
	// vmplane's claims.
	if c.Role, ok = jsonString(m["role"]); !ok || c.Role == "" {
		return nil, false
	}
	switch v := m["tenant_id"]; {
	case v == nil || string(v) == "null":
	default:
		t, isStr := jsonString(v)
		if !isStr || t == "" {
			return nil, false
		}
		c.TenantID = &t
	}
	if v, present := m["email"]; present {
		if c.Email, ok = jsonString(v); !ok {
			return nil, false
		}
	}
	if c.SessionID, ok = jsonString(m["sid"]); !ok || c.SessionID == "" {
		return nil, false
	}
	g := m["gen"]
	if len(g) == 0 || g[0] < '0' || g[0] > '9' {
		return nil, false
	}
	gen, err := strconv.ParseUint(string(g), 10, 64)
	if err != nil {
		return nil, false
	}
	c.Gen = gen
	if !c.IssuedAt.IsZero() && c.ExpiresAt.Before(c.IssuedAt) {
		return nil, false
	}
	return &c, true
}

// jsonString decodes v when it is a JSON string.
func jsonString(v json.RawMessage) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// audienceHas reports whether "aud", a string or an array of strings (RFC 7519
// section 4.1.3), names want. An array with anything but strings in it is refused.
func audienceHas(v json.RawMessage, want string) bool {
	if s, ok := jsonString(v); ok {
		return s == want
	}
	if len(v) == 0 || v[0] != '[' {
		return false
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return false
	}
	found := false
	for _, it := range items {
		s, ok := jsonString(it)
		if !ok {
			return false
		}
		found = found || s == want
	}
	return found
}

// numericDate decodes an RFC 7519 NumericDate: a JSON number of seconds since the
// epoch, fractions allowed; not a string, not null, nothing negative or absurd.
func numericDate(v json.RawMessage) (time.Time, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return time.Time{}, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	// 1e11 s is the year 5138: anything later is not a date a token means.
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f > 1e11 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}
