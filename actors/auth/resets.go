package auth

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A forgotten password (the links' records and their sender are package signin's):
// the link's token sets a new password once, and ends every session of the user.

// ResetMail mails user the token of a password reset link that works until expires.
// app builds it from the SMTP settings and the server's public URL.
type ResetMail func(ctx context.Context, user User, token string, expires time.Time) error

// ErrResetsOff is the error of a reset asked of a server that sends no mail.
var ErrResetsOff = apierr.New(apierr.ErrForbidden, "this server resets no passwords by mail: its operator has set up no SMTP server; ask an operator to set a new password")

// resetPassword sets the password of a reset link (its token's key Key, made under
// generation Gen) and ends every session of the user.
type resetPassword struct {
	Hash string
	Gen  uint64
	Key  []byte
}

// resetAccount is the account the reset link of email is mailed to: none for an
// address with no account, or a disabled one.
func (u *Users) resetAccount(ctx context.Context, email string, mail ResetMail) (signin.Account, bool) {
	log := u.sys.log
	id, err := u.sys.store.Get(ctx, persistence.Key("user-email", email))
	if errors.Is(err, persistence.ErrNotFound) {
		log.Info("password reset asked for an address with no account", zap.String("email", email))
		return signin.Account{}, false
	}
	var cred credentials
	if err == nil {
		cred, err = kit.Ask[credentials](ctx, u.kind, string(id), &getCredentials{})
	}
	if err != nil {
		log.Warn("password reset: the user could not be read; no mail sent", zap.String("email", email), zap.Error(err))
		return signin.Account{}, false
	}
	if cred.User.Disabled {
		log.Info("password reset asked for a disabled user; no mail sent", zap.String("user_id", cred.User.ID))
		return signin.Account{}, false
	}
	return signin.Account{UserID: cred.User.ID, Gen: cred.Gen, Mail: func(ctx context.Context, token string, expires time.Time) error {
		return mail(ctx, cred.User, token, expires)
	}}, true
}

// RequestPasswordReset asks for a reset link to be mailed to the account of email, if
// there is one. It returns at once, before the address is looked up, so neither its
// answer nor its time tells whether the address has an account: the link is made and
// mailed in the background (a crash before that sends none; the user asks again).
func (u *Users) RequestPasswordReset(email string) error {
	if u.resets == nil {
		return ErrResetsOff
	}
	u.resets.Ask(NormalizeEmail(email))
	return nil
}

// ResetPassword sets newPassword as the password of the user of a reset link's token,
// once: the link ends, and so does every session of the user (and every other link).
// A token that is unknown, used, expired, or that a later change of the user ended is
// a 400 naming the token.
func (u *Users) ResetPassword(ctx context.Context, token, newPassword string) error {
	if len(newPassword) < MinPasswordLen || len(newPassword) > MaxPasswordLen {
		return apierr.Invalid(apierr.Field("new_password", "must be %d..%d characters", MinPasswordLen, MaxPasswordLen))
	}
	rec, key, err := u.signins.LoadReset(ctx, token)
	if err != nil {
		return err
	}
	h, err := u.hasher.generate(ctx, newPassword, u.opts.BcryptCost)
	if err != nil {
		return err
	}
	_, err = kit.Ask[revoked](ctx, u.kind, rec.UserID, &resetPassword{Hash: string(h), Gen: rec.Gen, Key: key})
	if errors.Is(err, apierr.ErrNotFound) {
		return signin.ErrInvalidResetToken // the user was deleted
	}
	if err == nil && u.opts.PasswordChanged != nil {
		u.opts.PasswordChanged(rec.UserID)
	}
	return err
}

func (e *userEntity) resetPassword(ctx *kit.Ctx, m *resetPassword) {
	if e.rec.Disabled || e.rec.TokenGen != m.Gen {
		ctx.Fail(signin.ErrInvalidResetToken)
		return
	}
	next := *e.rec
	next.PasswordHash = m.Hash
	next.TokenGen++
	b := new(persistence.Batch).Del(m.Key)
	ended, err := e.revokeInto(b, "")
	if err == nil {
		err = e.commitUser(b, next, ended)
	}
	if err != nil {
		ctx.Fail(err)
		return
	}
	ctx.Respond(revoked{})
}
