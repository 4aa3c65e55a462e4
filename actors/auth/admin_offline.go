package auth

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Work on the store of a stopped server (`vmplane admin reset-password`), and the first
// admin's generated password, which is kept until the server has shown it.

// initialPasswordKey holds the first admin's generated password from its creation until
// the server is serving and has logged it: a first start that fails after creating the
// admin shows it at the next start instead of losing it. It is deleted once logged.
var initialPasswordKey = persistence.Key("meta", "admin-initial-password")

type initialPassword struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	// Creator names the start that generated it (Users.passwordCreator): in a cluster
	// only that member shows it, so one password is logged once.
	Creator string `json:"creator,omitempty"`
}

// InitialAdminPassword returns the first admin's generated password if it has not
// been shown yet (ok false otherwise). Call ForgetInitialAdminPassword once it is.
//
// On a store shared with other members it is shown only by the member whose start
// created it (u.passwordCreator): the others, started at the same time, must not log
// it too. (A cluster's first start that fails before serving thus keeps it unshown in
// the store; the operator sets a password with 'vmplane admin reset-password' instead.)
func (u *Users) InitialAdminPassword(ctx context.Context) (email, password string, ok bool, err error) {
	store := u.sys.store
	raw, err := store.Get(ctx, initialPasswordKey)
	if errors.Is(err, persistence.ErrNotFound) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	var p initialPassword
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", "", false, err
	}
	if store.Shared() {
		if u.passwordCreator == "" || u.passwordCreator != p.Creator {
			return "", "", false, nil
		}
	}
	return p.Email, p.Password, true, nil
}

// FirstAdminID is the id of the admin the first start created ("" before that).
func FirstAdminID(ctx context.Context, store persistence.Store) (string, error) {
	id, err := store.Get(ctx, persistence.Key("meta", "admin"))
	if errors.Is(err, persistence.ErrNotFound) {
		return "", nil
	}
	return string(id), err
}

// ForgetInitialAdminPassword deletes the generated password once it has been shown.
func (u *Users) ForgetInitialAdminPassword(ctx context.Context) error {
	return u.sys.store.Commit(ctx, new(persistence.Batch).Del(initialPasswordKey))
}

// AdminExists reports whether the first admin was created at an earlier start.
func AdminExists(ctx context.Context, store persistence.Store) (bool, error) {
	_, err := store.Get(ctx, persistence.Key("meta", "admin"))
	if errors.Is(err, persistence.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// ResetPassword sets the password of the user with this e-mail directly in the store
// of a stopped server, and revokes every login of the user, as a password change
// through the API does. The server must not run: the caller holds the data directory.
func ResetPassword(ctx context.Context, store persistence.Store, email, password string, cost int) (User, error) {
	if len(password) < MinPasswordLen || len(password) > MaxPasswordLen {
		return User{}, apierr.Invalid(errPasswordField())
	}
	email = NormalizeEmail(email)
	id, err := store.Get(ctx, persistence.Key("user-email", email))
	if errors.Is(err, persistence.ErrNotFound) {
		return User{}, apierr.New(apierr.ErrNotFound, "no user with e-mail %s", email)
	} else if err != nil {
		return User{}, err
	}
	rec, err := persistence.Load[userRecord](ctx, store, persistence.Key("user", string(id)))
	if err != nil {
		return User{}, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return User{}, err
	}
	rec.PasswordHash = string(hash)
	// As a password change through the API: the next generation ends every access
	// token issued before, whatever login it names.
	rec.TokenGen++
	b := new(persistence.Batch)
	prefix := persistence.Prefix("refresh", string(id))
	var fams []family
	err = store.Scan(ctx, prefix, nil, 0, func(_, v []byte) error {
		var f family
		if _, err := persistence.Decode(v, &f); err != nil {
			return err
		}
		fams = append(fams, f)
		return nil
	})
	if err != nil {
		return User{}, err
	}
	for _, f := range fams {
		if f.Revoked || time.Now().After(f.ExpiresAt) {
			continue
		}
		f.Revoked = true
		val, err := persistence.Encode(familyVersion, &f)
		if err != nil {
			return User{}, err
		}
		b.Put(persistence.Key("refresh", string(id), f.ID), val)
	}
	val, err := persistence.Encode(userRecordVersion, rec)
	if err != nil {
		return User{}, err
	}
	if err := store.Commit(ctx, b.Put(persistence.Key("user", string(id)), val)); err != nil {
		return User{}, err
	}
	return rec.User, nil
}
