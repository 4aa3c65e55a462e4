package auth

import (
	"context"
	"errors"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Single sign-on through OpenID Connect providers (the protocol is package sso's, the
// sign-ins' states package signin's): the identity the provider vouches for signs in
// the user of its e-mail, created on its first sign-in where the provider's claims
// place it.

// MethodOIDC is the method of a session opened by an OpenID Connect sign-in.
const MethodOIDC = "oidc"

// StartOIDC keeps s under a new random state, bound to a new random secret, and
// answers both (signin.StartOIDC).
func (u *Users) StartOIDC(ctx context.Context, s signin.OIDCSignIn) (signin.OIDCStarted, error) {
	return u.signins.StartOIDC(ctx, s)
}

// TakeOIDC takes the sign-in kept under state for provider, once, if secret is the
// one its start answered (signin.TakeOIDC).
func (u *Users) TakeOIDC(ctx context.Context, provider, state, secret string) (signin.OIDCSignIn, error) {
	return u.signins.TakeOIDC(ctx, provider, state, secret)
}

// LoginExternal signs in the user of l's e-mail, creating it when l allows and places
// it, and opens a session (method oidc). The provider stands for the password; the
// second factor stays the user's: a user with one gets the 401 totp_required
// challenge a right password gets, and a user who must have one and has none a
// restricted session (totprequired.go). A disabled user is refused.
func (u *Users) LoginExternal(ctx context.Context, l signin.ExternalLogin, from Client) (Session, error) {
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
	if usr.Disabled {
		return Session{}, apierr.New(apierr.ErrForbidden, "the user %s is disabled", email)
	}
	if err := l.Admits(email, usr.Role == RoleAdmin, usr.TenantID); err != nil {
		return Session{}, err
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
func (u *Users) createExternal(ctx context.Context, email string, l signin.ExternalLogin) (credentials, error) {
	if err := l.Creates(email); err != nil {
		return credentials{}, err
	}
	nu := NewUser{Email: email, Name: clip(l.Name, MaxUserNameLen), Role: RoleAdmin, Password: RandomToken(32)}
	if !l.Operator {
		nu.Role = RoleUser
		nu.TenantID = &l.TenantID
		if err := u.sys.tenantExists(ctx, l.TenantID); errors.Is(err, apierr.ErrNotFound) {
			return credentials{}, l.NoTenant(email)
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
