package auth

import (
	"context"
	"errors"
	"time"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A second factor: time-based one-time passwords (RFC 6238: SHA-1, six digits, 30 s
// steps, the codes of authenticator apps). A user enrols (a secret, shown once as
// itself and as an otpauth:// URI), confirms with a first code, and is given ten
// recovery codes. From then on a login whose password is right answers
// totp_required with a challenge, which a code (or a recovery code) turns into a
// session. A code is good once: the user record keeps the last time step used, and
// a code of that step or an earlier one is refused, also within the step's 30 s.

// Messages of a user entity about its second factor.
type (
	enrolTOTP struct{ Secret string }
	// confirmTOTP confirms an enrolment with a first code, checked at Now; Recovery
	// are the hashes of the recovery codes the confirmation gives.
	confirmTOTP struct {
		Code     string
		Now      time.Time
		Recovery []string
		// Session is the login that confirms: restricted to enrolling (its user must
		// have a second factor), it is restricted no more.
		Session string
	}
	// disableTOTP turns the second factor off: with a code (the user), or without
	// (an operator's reset, Force).
	disableTOTP struct {
		Code  string
		Now   time.Time
		Force bool
	}
	// totpLogin opens a session for the challenge under Key, made at generation Gen,
	// with a code checked at Now.
	totpLogin struct {
		Key  []byte
		Gen  uint64
		Code string
		Now  time.Time
		From Client
		TTL  time.Duration
	}
	totpDone struct{}
)

// EnrolTOTP starts the enrolment of a second factor for the user: a new secret, which
// a first code confirms (ConfirmTOTP). An unconfirmed enrolment is replaced by the
// next; a confirmed one must be turned off first (409).
func (u *Users) EnrolTOTP(ctx context.Context, userID, issuer string) (signin.TOTPEnrolment, error) {
	usr, err := u.Get(ctx, userID)
	if err != nil {
		return signin.TOTPEnrolment{}, err
	}
	enr, err := signin.Enrol(issuer, usr.Email)
	if err != nil {
		return signin.TOTPEnrolment{}, err
	}
	if _, err := kit.Ask[totpDone](ctx, u.kind, userID, &enrolTOTP{Secret: enr.Secret}); err != nil {
		return signin.TOTPEnrolment{}, err
	}
	return enr, nil
}

// ConfirmTOTP confirms the user's enrolment with a first code and answers the ten
// recovery codes, shown this once. From then on every login asks for a code.
//
// sessionID is the confirming login's: if it was restricted to enrolling a second
// factor its user must have, the first code lifts that. Other such logins of the user
// stay restricted: they never gave a code, so they must sign in again.
func (u *Users) ConfirmTOTP(ctx context.Context, userID, sessionID, code string) (signin.RecoveryCodeList, error) {
	codes, hashes := signin.NewRecoveryCodes()
	if _, err := kit.Ask[totpDone](ctx, u.kind, userID, &confirmTOTP{Code: code, Now: time.Now(), Recovery: hashes, Session: sessionID}); err != nil {
		return signin.RecoveryCodeList{}, err
	}
	return codes, nil
}

// DisableTOTP turns the user's second factor off, proven by a current code or a
// recovery code.
func (u *Users) DisableTOTP(ctx context.Context, userID, code string) error {
	usr, err := u.Get(ctx, userID)
	if err != nil {
		return err
	}
	if required, err := u.totpRequired(ctx, usr); err != nil {
		return err
	} else if required {
		return errTOTPKept
	}
	_, err = kit.Ask[totpDone](ctx, u.kind, userID, &disableTOTP{Code: code, Now: time.Now()})
	return err
}

// ResetTOTP turns a user's second factor off without a code: an operator's help for a
// user who lost the phone and the recovery codes. Every session of the user ends.
func (u *Users) ResetTOTP(ctx context.Context, userID string) error {
	_, err := kit.Ask[totpDone](ctx, u.kind, userID, &disableTOTP{Force: true})
	return err
}

// challenge stores a challenge for a login whose password was right and answers it
// as the login's error.
func (u *Users) challenge(ctx context.Context, cred credentials, from Client) error {
	return u.signins.PutChallenge(ctx, signin.Challenge{UserID: cred.User.ID, Email: cred.User.Email, Gen: cred.Gen, From: from})
}

// ChallengeEmail is the e-mail of the user a challenge belongs to, whose login limits
// the code's check runs under; an unknown challenge is a 401.
func (u *Users) ChallengeEmail(ctx context.Context, challenge string) (string, error) {
	rec, _, err := u.signins.LoadChallenge(ctx, challenge)
	if err != nil {
		return "", err
	}
	return rec.Email, nil
}

// LoginTOTP completes a login that answered totp_required: the challenge and a code
// of the user's second factor (or one of its recovery codes, used up) open the
// session. The challenge is used up either way by a success; a wrong code leaves it
// to be tried again until it expires, under the login limits.
func (u *Users) LoginTOTP(ctx context.Context, challenge, code string) (Session, error) {
	rec, key, err := u.signins.LoadChallenge(ctx, challenge)
	if err != nil {
		return Session{}, err
	}
	sess, err := kit.Ask[Session](ctx, u.kind, rec.UserID, &totpLogin{Key: key, Gen: rec.Gen, Code: code, Now: time.Now(), From: rec.From, TTL: u.opts.RefreshTTL})
	if errors.Is(err, apierr.ErrNotFound) {
		return Session{}, signin.ErrBadChallenge
	}
	return sess, err
}

func (e *userEntity) handleTOTP(ctx *kit.Ctx, msg any) {
	next := *e.rec
	b := new(persistence.Batch)
	var ended []*family
	var freed *family // the confirming login, restricted no more
	var err error
	switch m := msg.(type) {
	case *enrolTOTP:
		next.TOTP, err = signin.Enrolled(e.rec.TOTP, m.Secret)
	case *confirmTOTP:
		if next.TOTP, err = signin.Confirmed(e.rec.TOTP, m.Code, m.Now, m.Recovery); err != nil {
			break
		}
		if f := e.families[m.Session]; f != nil && f.Restricted && !f.Revoked {
			free := *f
			free.Restricted = false
			val, err := persistence.Encode(familyVersion, &free)
			if err != nil {
				ctx.Fail(err)
				return
			}
			b.Put(persistence.Key("refresh", e.id, f.ID), val)
			freed = &free
		}
	case *disableTOTP:
		if err = signin.MayTurnOff(e.rec.TOTP, m.Code, m.Now, m.Force); err != nil {
			break
		}
		next.TOTP = nil
		if m.Force {
			// Someone lost the factor: whoever holds a session may not be the user.
			next.TokenGen++
			ended, err = e.revokeInto(b, "")
		}
	}
	if err != nil {
		ctx.Fail(err)
		return
	}
	if err := e.commitUser(b, next, ended); err != nil {
		ctx.Fail(err)
		return
	}
	if freed != nil {
		e.families[freed.ID] = freed
		e.publish()
	}
	ctx.Respond(totpDone{})
}

func (e *userEntity) totpLogin(ctx *kit.Ctx, m *totpLogin) {
	if e.rec.Disabled || e.rec.TokenGen != m.Gen || e.rec.TOTP == nil || !e.rec.TOTP.Confirmed {
		ctx.Fail(signin.ErrBadChallenge)
		return
	}
	cur, method, err := signin.LogIn(*e.rec.TOTP, m.Code, m.Now)
	if err != nil {
		ctx.Fail(err)
		return
	}
	next := *e.rec
	next.TOTP = cur
	val, err := persistence.Encode(userRecordVersion, next)
	if err != nil {
		ctx.Fail(err)
		return
	}
	// The code's use, the challenge's end and the new session are one write.
	b := new(persistence.Batch).Put(persistence.Key("user", e.id), val).Del(m.Key)
	f, err := e.openInto(b, m.TTL, m.From, method, false)
	if err != nil {
		ctx.Fail(err)
		return
	}
	e.rec = &next
	ctx.Respond(e.session(f))
}
