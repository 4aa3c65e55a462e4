package auth

import (
	"context"
	"errors"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Single sign-on through OpenID Connect providers (the protocol is package sso's): a
// sign-in's start keeps its secrets here, under the state it sends the provider, and
// its callback takes them back once; the identity the provider vouches for then signs
// in the user of its e-mail, created on its first sign-in where the provider's claims
// place it. The records are the store's, so a callback may land on any member.

// OIDCStateTTL is how long a started sign-in waits for its callback.
const OIDCStateTTL = 10 * time.Minute

// MethodOIDC is the method of a session opened by an OpenID Connect sign-in.
const MethodOIDC = "oidc"

// OIDCSignIn is a started sign-in, stored under oidc-state/<SHA-256 of its state>
// (TTL OIDCStateTTL) until its callback takes it.
type OIDCSignIn struct {
	Provider string `json:"provider"`
	Nonce    string `json:"nonce"`
	// Verifier is the PKCE code verifier, which only the exchange of the code sends.
	Verifier string `json:"verifier"`
	// RedirectTo is where the browser goes once signed in (a path of this server).
	RedirectTo string    `json:"redirect_to,omitempty"`
	ExpiresAt  time.Time `json:"expires_at"`
}

const oidcSignInVersion = 1

func oidcStateKey(state string) []byte { return tokenKey("oidc-state", state) }

var errOIDCState = apierr.New(apierr.ErrOIDCStateInvalid,
	"the sign-in's state is unknown, used or expired: start the sign-in again")

// StartOIDC keeps s under a new random state, which it answers.
func (u *Users) StartOIDC(ctx context.Context, s OIDCSignIn) (string, error) {
	state := RandomToken(32)
	s.ExpiresAt = time.Now().UTC().Add(OIDCStateTTL)
	val, err := persistence.Encode(oidcSignInVersion, &s)
	if err != nil {
		return "", err
	}
	if err := u.sys.store.Commit(ctx, new(persistence.Batch).PutTTL(oidcStateKey(state), val, OIDCStateTTL)); err != nil {
		return "", err
	}
	return state, nil
}

// TakeOIDC takes the sign-in kept under state for provider, once: its record is
// deleted by a write that requires it unchanged, so of two callbacks with one state
// (a replay, or two members at once) one gets it and the other a 400
// oidc_state_invalid, as does an unknown or expired state or another provider's.
func (u *Users) TakeOIDC(ctx context.Context, provider, state string) (OIDCSignIn, error) {
	if len(state) != 43 { // RandomToken(32)
		return OIDCSignIn{}, errOIDCState
	}
	key := oidcStateKey(state)
	raw, err := u.sys.store.Get(ctx, key)
	if errors.Is(err, persistence.ErrNotFound) {
		return OIDCSignIn{}, errOIDCState
	} else if err != nil {
		return OIDCSignIn{}, err
	}
	var s OIDCSignIn
	if _, err := persistence.Decode(raw, &s); err != nil {
		return OIDCSignIn{}, err
	}
	err = u.sys.store.Commit(ctx, new(persistence.Batch).Require(persistence.IfValue(key, raw)).Del(key))
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

// LoginExternal signs in the user of l's e-mail, creating it when l allows and places
// it, and opens a session (method oidc). The provider stands for the password; the
// second factor stays the user's: a user with one gets the 401 totp_required
// challenge a right password gets, and a user who must have one and has none a
// restricted session (totprequired.go). A disabled user is refused.
func (u *Users) LoginExternal(ctx context.Context, l ExternalLogin, from Client) (Session, error) {
	email := NormalizeEmail(l.Email)
	if email == "" || len(email) > MaxEmailLen {
		return Session{}, apierr.New(apierr.ErrOIDCLoginFailed, "the provider's e-mail %q is not one vmplane takes", l.Email)
	}
	cred, found, err := u.credentialsOf(ctx, email)
	if err != nil {
		return Session{}, err
	}
	if !found {
		if cred, err = u.createExternal(ctx, email, l); err != nil {
			return Session{}, err
		}
	}
	usr := cred.User
	switch {
	case usr.Disabled:
		return Session{}, apierr.New(apierr.ErrForbidden, "the user %s is disabled", email)
	case l.Mapped && l.Operator && usr.Role != RoleAdmin:
		return Session{}, notMapped("the provider %s places %s among the operators, and vmplane's user is not one", l.Provider, email)
	case l.Mapped && l.TenantID != "" && (usr.Role == RoleAdmin || usr.TenantID == nil || *usr.TenantID != l.TenantID):
		return Session{}, notMapped("the provider %s places %s in tenant %s, and vmplane's user is not there", l.Provider, email, l.TenantID)
	case l.Mapped && !l.Operator && l.TenantID == "":
		return Session{}, notMapped("the provider %s maps none of the claims of %s to a tenant or to the operators", l.Provider, email)
	}
	from.Agent = clip(from.Agent, maxAgentLen)
	if cred.TOTP {
		err := u.challenge(ctx, cred, from)
		var e *apierr.Error
		if errors.As(err, &e) && e.Challenge != "" {
			e.Detail = "the provider signed you in; complete the login with a code of the second factor (or a recovery code) and this challenge within 5 minutes"
		}
		return Session{}, err
	}
	required, err := u.totpRequired(ctx, usr)
	if err != nil {
		return Session{}, err
	}
	return kit.Ask[Session](ctx, u.kind, usr.ID, &openFamily{TTL: u.opts.RefreshTTL, Gen: cred.Gen, From: from, Restricted: required, Method: MethodOIDC})
}

// credentialsOf are the credentials of the user of a normalised e-mail, if any.
func (u *Users) credentialsOf(ctx context.Context, email string) (credentials, bool, error) {
	id, err := u.sys.store.Get(ctx, persistence.Key("user-email", email))
	if errors.Is(err, persistence.ErrNotFound) {
		return credentials{}, false, nil
	} else if err != nil {
		return credentials{}, false, err
	}
	cred, err := kit.Ask[credentials](ctx, u.kind, string(id), &getCredentials{})
	if errors.Is(err, apierr.ErrNotFound) {
		return credentials{}, false, nil // deleted since the index was read
	}
	return cred, err == nil, err
}

// createExternal creates the user of a first sign-in where l places it. It has a
// random password nobody knows: it signs in through its provider (or after a reset).
func (u *Users) createExternal(ctx context.Context, email string, l ExternalLogin) (credentials, error) {
	switch {
	case !l.Mapped:
		return credentials{}, notMapped("no user has the e-mail %s, and the provider %s places no new users (it has no tenant_claim)", email, l.Provider)
	case !l.Operator && l.TenantID == "":
		return credentials{}, notMapped("no user has the e-mail %s, and the provider %s maps none of its claims to a tenant or to the operators", email, l.Provider)
	case !l.Create:
		return credentials{}, notMapped("no user has the e-mail %s, and the provider %s creates no users (create_users)", email, l.Provider)
	}
	nu := NewUser{Email: email, Name: clip(l.Name, MaxUserNameLen), Role: RoleAdmin, Password: RandomToken(32)}
	if !l.Operator {
		nu.Role = RoleUser
		nu.TenantID = &l.TenantID
		if err := u.sys.tenantExists(ctx, l.TenantID); errors.Is(err, apierr.ErrNotFound) {
			return credentials{}, notMapped("the provider %s places %s in tenant %s, which does not exist", l.Provider, email, l.TenantID)
		} else if err != nil {
			return credentials{}, err
		}
	}
	_, err := u.CreateUser(ctx, nu)
	if err != nil && !errors.Is(err, apierr.ErrConflict) {
		return credentials{}, err
	}
	// Created, or by a sign-in at the same time (the e-mail was taken): either way
	// the user is there now.
	cred, found, err := u.credentialsOf(ctx, email)
	if err == nil && !found {
		err = apierr.New(apierr.ErrConflict, "the user %s was deleted while it signed in", email)
	}
	return cred, err
}
