package signin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Single sign-on through OpenID Connect providers (the protocol is package sso's): a
// sign-in's start keeps its secrets here, under the state it sends the provider, and
// its callback takes them back once. The records are the store's, so a callback may
// land on any member.
//
// The state travels in URLs (to the provider and back), where a log, a history or a
// shared link may leak it; so a sign-in is also bound to whoever started it by a
// second secret that never does: the start hands it to the browser (or program) as a
// cookie, the record keeps only its SHA-256, and the callback must bring it back.

// OIDCStateTTL is how long a started sign-in waits for its callback.
const OIDCStateTTL = 10 * time.Minute

// OIDCSignIn is a started sign-in, stored under oidc-state/<SHA-256 of its state>
// (TTL OIDCStateTTL) until its callback takes it.
type OIDCSignIn struct {
	Provider string `json:"provider"`
	Nonce    string `json:"nonce"`
	// Verifier is the PKCE code verifier, which only the exchange of the code sends.
	Verifier string `json:"verifier"`
	// RedirectTo is where the browser goes once signed in (a path of this server).
	RedirectTo string `json:"redirect_to,omitempty"`
	// SecretHash is the hex SHA-256 of the secret that binds the sign-in to whoever
	// started it (StartOIDC makes it); the callback must bring the secret.
	SecretHash string    `json:"secret_hash"`
	ExpiresAt  time.Time `json:"expires_at"`
}

var oidcStates = kind{prefix: "oidc-state", version: 1, ttl: OIDCStateTTL}

var errOIDCState = apierr.New(apierr.ErrOIDCStateInvalid,
	"the sign-in's state is unknown, used or expired: start the sign-in again")

var errOIDCSecret = apierr.New(apierr.ErrOIDCStateInvalid,
	"this sign-in was not started in this browser or program: the one that started it completes it, with the cookie its start set "+
		"(a program that started it is given this address), or start it again here")

// OIDCStarted is what a started sign-in hands its starter: the state, for the
// provider, and the secret that binds the callback to the starter.
type OIDCStarted struct {
	State  string
	Secret string
}

// StartOIDC keeps s under a new random state, bound to a new random secret (s's
// SecretHash is set to its SHA-256), and answers both.
func (r Records) StartOIDC(ctx context.Context, s OIDCSignIn) (OIDCStarted, error) {
	secret := RandomToken(32)
	s.SecretHash = hashSecret(secret)
	s.ExpiresAt = time.Now().UTC().Add(OIDCStateTTL)
	b := new(persistence.Batch)
	state, err := put(oidcStates, b, &s)
	if err != nil {
		return OIDCStarted{}, err
	}
	if err := r.Store.Commit(ctx, b); err != nil {
		return OIDCStarted{}, err
	}
	return OIDCStarted{State: state, Secret: secret}, nil
}

// hashSecret is the hex SHA-256 of a sign-in's secret.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// TakeOIDC takes the sign-in kept under state for provider, once: its record is
// deleted by a write that requires it unchanged, so of two callbacks with one state
// (a replay, or two members at once) one gets it and the other a 400
// oidc_state_invalid, as does an unknown or expired state or another provider's.
// secret must be the one its start answered: a callback without it, or with
// another, is refused with oidc_state_invalid before the record is touched, so
// someone who learnt the state spends nothing and the starter can still finish.
func (r Records) TakeOIDC(ctx context.Context, provider, state, secret string) (OIDCSignIn, error) {
	if len(state) != tokenLen {
		return OIDCSignIn{}, errOIDCState
	}
	key := tokenKey(oidcStates.prefix, state)
	raw, err := r.Store.Get(ctx, key)
	if errors.Is(err, persistence.ErrNotFound) {
		return OIDCSignIn{}, errOIDCState
	} else if err != nil {
		return OIDCSignIn{}, err
	}
	var s OIDCSignIn
	if _, err := persistence.Decode(raw, &s); err != nil {
		return OIDCSignIn{}, err
	}
	// A record without a hash (none is written so) matches no secret.
	if s.SecretHash == "" || subtle.ConstantTimeCompare([]byte(s.SecretHash), []byte(hashSecret(secret))) != 1 {
		return OIDCSignIn{}, errOIDCSecret
	}
	err = r.Store.Commit(ctx, new(persistence.Batch).Require(persistence.IfValue(key, raw)).Del(key))
	if persistence.IsConditionFailed(err) {
		return OIDCSignIn{}, errOIDCState
	} else if err != nil {
		return OIDCSignIn{}, err
	}
	// A TTL on etcd may outlive its time by a little (leases are shared per second).
	if time.Now().After(s.ExpiresAt) || s.Provider != provider {
		return OIDCSignIn{}, errOIDCState
	}
	return s, nil
}

// ExternalLogin is a sign-in a provider vouched for: its verified e-mail, and where
// the provider's claims place the user.
type ExternalLogin struct {
	// Provider names the provider, for the answers.
	Provider string
	Email    string
	Name     string
	// Mapped says the provider places users by a claim: then Operator or TenantID is
	// where this one goes (neither: nowhere), and a user that exists must be there.
	Mapped   bool
	Operator bool
	TenantID string
	// Create lets a user that does not exist be created where it is placed.
	Create bool
}

func notMapped(format string, args ...any) error {
	return apierr.New(apierr.ErrOIDCNotMapped, format, args...)
}

// Admits checks that the user of email, an operator (admin) or a user of tenant, is
// where l places it, if l places users.
func (l ExternalLogin) Admits(email string, admin bool, tenant *string) error {
	switch {
	case l.Mapped && l.Operator && !admin:
		return notMapped("the provider %s places %s among the operators, and vmplane's user is not one", l.Provider, email)
	case l.Mapped && l.TenantID != "" && (admin || tenant == nil || *tenant != l.TenantID):
		return notMapped("the provider %s places %s in tenant %s, and vmplane's user is not there", l.Provider, email, l.TenantID)
	case l.Mapped && !l.Operator && l.TenantID == "":
		return notMapped("the provider %s maps none of the claims of %s to a tenant or to the operators", l.Provider, email)
	}
	return nil
}

// Creates checks that l places, and may create, the user of email, which does not
// exist.
func (l ExternalLogin) Creates(email string) error {
	switch {
	case !l.Mapped:
		return notMapped("no user has the e-mail %s, and the provider %s places no new users (it has no tenant_claim)", email, l.Provider)
	case !l.Operator && l.TenantID == "":
		return notMapped("no user has the e-mail %s, and the provider %s maps none of its claims to a tenant or to the operators", email, l.Provider)
	case !l.Create:
		return notMapped("no user has the e-mail %s, and the provider %s creates no users (create_users)", email, l.Provider)
	}
	return nil
}

// NoTenant is the error of l placing the user of email in a tenant that does not
// exist.
func (l ExternalLogin) NoTenant(email string) error {
	return notMapped("the provider %s places %s in tenant %s, which does not exist", l.Provider, email, l.TenantID)
}
