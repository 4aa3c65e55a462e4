package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A forgotten password: a user asks for a reset link by e-mail address, and the link's
// token sets a new password once. The asking is answered before anything is looked up
// (the answer and its timing must not tell whether the address has an account); a
// background sender looks the address up, stores the link and mails it.

// PasswordResetTTL is how long a reset link works.
const PasswordResetTTL = 30 * time.Minute

// ResetMail mails user the token of a password reset link that works until expires.
// app builds it from the SMTP settings and the server's public URL.
type ResetMail func(ctx context.Context, user User, token string, expires time.Time) error

// ErrResetsOff is the error of a reset asked of a server that sends no mail.
var ErrResetsOff = apierr.New(apierr.ErrForbidden, "this server resets no passwords by mail: its operator has set up no SMTP server; ask an operator to set a new password")

var errInvalidResetToken = apierr.Invalid(apierr.Field("token", "is unknown, used or expired: ask for a new link"))

// resetRecord is a reset link as stored under pwreset/<SHA-256 of its token>: the token
// itself is never stored, so a copy of the store resets nobody's password.
type resetRecord struct {
	UserID string `json:"user_id"`
	// Gen is the user's token generation when the link was made: any change of the
	// password (this link's use among them), role, tenant or state since ends the link,
	// and so every other link of the user once one is used.
	Gen       uint64    `json:"gen"`
	ExpiresAt time.Time `json:"expires_at"`
}

const resetRecordVersion = 1

func resetKey(token string) []byte { return tokenKey("pwreset", token) }

// tokenKey is the key of a record found by a secret token (a reset link, a login
// link, a login's challenge): <prefix>/<SHA-256 of the token>, so that the store never
// holds the token itself and a copy of it signs nobody in.
func tokenKey(prefix, token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return persistence.Key(prefix, hex.EncodeToString(sum[:]))
}

// resetPassword sets the password of a reset link (its token's key Key, made under
// generation Gen) and ends every session of the user.
type resetPassword struct {
	Hash string
	Gen  uint64
	Key  []byte
}

// resetQueueLen bounds the reset mails waiting to be sent. Beyond it a request is
// dropped with a warning: each is limited like a login already, so a full queue means
// the mail server is away, and the user can ask again.
const resetQueueLen = 64

// resetSender mails the reset links asked for, one at a time, off the request path.
type resetSender struct {
	u     *Users
	mail  ResetMail
	queue chan string
	// pause is the wait after a failed try, doubled after each next one
	// (resetMailPause; tests shorten it).
	pause time.Duration
	stop  context.CancelFunc
	ctx   context.Context
	done  sync.WaitGroup
}

func startResetSender(u *Users, mail ResetMail) *resetSender {
	ctx, cancel := context.WithCancel(context.Background())
	r := &resetSender{u: u, mail: mail, queue: make(chan string, resetQueueLen), pause: resetMailPause, ctx: ctx, stop: cancel}
	r.done.Add(1)
	go r.run()
	return r
}

func (r *resetSender) close() {
	r.stop()
	r.done.Wait()
}

func (r *resetSender) run() {
	defer r.done.Done()
	for {
		select {
		case <-r.ctx.Done():
			return
		case email := <-r.queue:
			r.send(email)
		}
	}
}

// resetMailTries is how often a reset mail is tried, resetMailPause the pause after
// the first failure (doubled after each next one).
const (
	resetMailTries = 3
	resetMailPause = 2 * time.Second
)

// send makes and mails the link of one request: nothing for an address with no
// account, or a disabled one.
func (r *resetSender) send(email string) {
	u, log := r.u, r.u.sys.log
	ctx, cancel := context.WithTimeout(r.ctx, 2*time.Minute)
	defer cancel()
	id, err := u.sys.store.Get(ctx, persistence.Key("user-email", email))
	if errors.Is(err, persistence.ErrNotFound) {
		log.Info("password reset asked for an address with no account", zap.String("email", email))
		return
	}
	var cred credentials
	if err == nil {
		cred, err = kit.Ask[credentials](ctx, u.kind, string(id), &getCredentials{})
	}
	if err != nil {
		log.Warn("password reset: the user could not be read; no mail sent", zap.String("email", email), zap.Error(err))
		return
	}
	if cred.User.Disabled {
		log.Info("password reset asked for a disabled user; no mail sent", zap.String("user_id", cred.User.ID))
		return
	}
	token := RandomToken(32)
	rec := resetRecord{UserID: cred.User.ID, Gen: cred.Gen, ExpiresAt: time.Now().UTC().Add(PasswordResetTTL)}
	val, err := persistence.Encode(resetRecordVersion, &rec)
	if err == nil {
		err = u.sys.store.Commit(ctx, new(persistence.Batch).PutTTL(resetKey(token), val, PasswordResetTTL))
	}
	if err != nil {
		log.Warn("password reset: the link could not be stored; no mail sent", zap.String("user_id", cred.User.ID), zap.Error(err))
		return
	}
	pause := r.pause
	for try := 1; ; try++ {
		err = r.mail(ctx, cred.User, token, rec.ExpiresAt)
		if err == nil {
			log.Info("password reset link mailed", zap.String("user_id", cred.User.ID))
			return
		}
		if try == resetMailTries {
			break
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		if ctx.Err() != nil {
			break
		}
		pause *= 2
	}
	log.Warn("password reset: the mail could not be sent", zap.String("user_id", cred.User.ID), zap.Int("tries", resetMailTries), zap.Error(err))
}

// RequestPasswordReset asks for a reset link to be mailed to the account of email, if
// there is one. It returns at once, before the address is looked up, so neither its
// answer nor its time tells whether the address has an account: the link is made and
// mailed in the background (a crash before that sends none; the user asks again).
func (u *Users) RequestPasswordReset(email string) error {
	if u.resets == nil {
		return ErrResetsOff
	}
	select {
	case u.resets.queue <- NormalizeEmail(email):
	default:
		u.sys.log.Warn("password reset dropped: the mails waiting to be sent fill the queue", zap.Int("queue", resetQueueLen))
	}
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
	if len(token) != 43 { // RandomToken(32)
		return errInvalidResetToken
	}
	key := resetKey(token)
	rec, err := kit.LoadOptional[resetRecord](ctx, u.sys.store, key)
	if err != nil {
		return err
	}
	// A TTL on etcd may outlive its time by a little (leases are shared per second).
	if rec == nil || time.Now().After(rec.ExpiresAt) {
		return errInvalidResetToken
	}
	h, err := u.hasher.generate(ctx, newPassword, u.opts.BcryptCost)
	if err != nil {
		return err
	}
	_, err = kit.Ask[revoked](ctx, u.kind, rec.UserID, &resetPassword{Hash: string(h), Gen: rec.Gen, Key: key})
	if errors.Is(err, apierr.ErrNotFound) {
		return errInvalidResetToken // the user was deleted
	}
	if err == nil && u.opts.PasswordChanged != nil {
		u.opts.PasswordChanged(rec.UserID)
	}
	return err
}

func (e *userEntity) resetPassword(ctx *kit.Ctx, m *resetPassword) {
	if e.rec.Disabled || e.rec.TokenGen != m.Gen {
		ctx.Fail(errInvalidResetToken)
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
