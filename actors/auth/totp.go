package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

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

// TOTP parameters, those every authenticator app assumes.
const (
	totpPeriod = 30
	totpDigits = otp.DigitsSix
	// totpSkew is how many steps before and after now a code may be of: the clocks
	// of a phone and a server drift apart.
	totpSkew = 1
	// RecoveryCodes is how many recovery codes a confirmation gives.
	RecoveryCodes = 10
	// ChallengeTTL is how long a login's challenge waits for its code.
	ChallengeTTL = 5 * time.Minute
	// MaxCodeLen bounds a code or recovery code in a request.
	MaxCodeLen = 32
)

// Ways a session was opened, beyond a password alone (SessionInfo.Method).
const (
	// MethodTOTP: a password and a code of the second factor.
	MethodTOTP = "totp"
	// MethodRecoveryCode: a password and one of the recovery codes.
	MethodRecoveryCode = "recovery_code"
)

// totpState is a user's second factor as its record keeps it.
type totpState struct {
	// Secret is the shared secret, base32 as authenticator apps take it.
	Secret string `json:"secret"`
	// Confirmed: a first code proved the user's app holds the secret; only then do
	// logins ask for codes.
	Confirmed bool `json:"confirmed"`
	// LastStep is the time step of the last code used: codes are single-use.
	LastStep int64 `json:"last_step,omitempty"`
	// Recovery holds the SHA-256 of each recovery code not yet used (the codes have
	// about 79 random bits: a fast hash is enough, and a slow one would let a guess
	// cost the server a bcrypt each).
	Recovery  []string  `json:"recovery,omitempty"`
	EnabledAt time.Time `json:"enabled_at,omitzero"`
}

// TOTPEnrolment is the answer to an enrolment: the secret, once.
type TOTPEnrolment struct {
	Secret string `json:"secret"`
	// URI is the otpauth:// URI that authenticator apps read from a QR code.
	URI string `json:"uri"`
}

// RecoveryCodeList is the answer to a confirmation: the recovery codes, once.
type RecoveryCodeList struct {
	Codes []string `json:"recovery_codes"`
}

// challengeRecord is a login waiting for its code, under totp-challenge/<SHA-256 of
// the challenge> (TTL ChallengeTTL).
type challengeRecord struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
	// Gen is the user's token generation when the password was checked: a change
	// since (a new password, a reset of the second factor) ends the challenge.
	Gen  uint64 `json:"gen"`
	From Client `json:"from"`
}

const challengeVersion = 1

func challengeKey(challenge string) []byte { return tokenKey("totp-challenge", challenge) }

var (
	errBadCode         = apierr.Invalid(apierr.Field("code", "is not a current code of the second factor, nor an unused recovery code"))
	errBadChallenge    = apierr.New(apierr.ErrUnauthorized, "the challenge is unknown, used or expired: log in again")
	errNoTOTP          = apierr.New(apierr.ErrConflict, "the user has no second factor")
	errTOTPOn          = apierr.New(apierr.ErrConflict, "the second factor is on already: turn it off first")
	errTOTPUnconfirmed = apierr.New(apierr.ErrConflict, "no enrolment waits for its first code: enrol first")
)

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
func (u *Users) EnrolTOTP(ctx context.Context, userID, issuer string) (TOTPEnrolment, error) {
	usr, err := u.Get(ctx, userID)
	if err != nil {
		return TOTPEnrolment{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: usr.Email, Period: totpPeriod, Digits: totpDigits, SecretSize: 20})
	if err != nil {
		return TOTPEnrolment{}, err
	}
	if _, err := kit.Ask[totpDone](ctx, u.kind, userID, &enrolTOTP{Secret: key.Secret()}); err != nil {
		return TOTPEnrolment{}, err
	}
	return TOTPEnrolment{Secret: key.Secret(), URI: key.URL()}, nil
}

// ConfirmTOTP confirms the user's enrolment with a first code and answers the ten
// recovery codes, shown this once. From then on every login asks for a code.
//
// sessionID is the confirming login's: if it was restricted to enrolling a second
// factor its user must have, the first code lifts that. Other such logins of the user
// stay restricted: they never gave a code, so they must sign in again.
func (u *Users) ConfirmTOTP(ctx context.Context, userID, sessionID, code string) (RecoveryCodeList, error) {
	codes := make([]string, RecoveryCodes)
	hashes := make([]string, RecoveryCodes)
	for i := range codes {
		codes[i] = recoveryCode()
		hashes[i] = hashCode(codes[i])
	}
	if _, err := kit.Ask[totpDone](ctx, u.kind, userID, &confirmTOTP{Code: code, Now: time.Now(), Recovery: hashes, Session: sessionID}); err != nil {
		return RecoveryCodeList{}, err
	}
	return RecoveryCodeList{Codes: codes}, nil
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
	c := RandomToken(32)
	rec := challengeRecord{UserID: cred.User.ID, Email: cred.User.Email, Gen: cred.Gen, From: from}
	val, err := persistence.Encode(challengeVersion, &rec)
	if err != nil {
		return err
	}
	if err := u.sys.store.Commit(ctx, new(persistence.Batch).PutTTL(challengeKey(c), val, ChallengeTTL)); err != nil {
		return err
	}
	return &apierr.Error{Status: apierr.ErrTOTPRequired.Status, Code: apierr.ErrTOTPRequired.Code, Challenge: c,
		Detail: "the password is right; complete the login with a code of the second factor (or a recovery code) and this challenge within 5 minutes"}
}

// ChallengeEmail is the e-mail of the user a challenge belongs to, whose login limits
// the code's check runs under; an unknown challenge is a 401.
func (u *Users) ChallengeEmail(ctx context.Context, challenge string) (string, error) {
	if len(challenge) != 43 {
		return "", errBadChallenge
	}
	rec, err := kit.LoadOptional[challengeRecord](ctx, u.sys.store, challengeKey(challenge))
	if err != nil {
		return "", err
	}
	if rec == nil {
		return "", errBadChallenge
	}
	return rec.Email, nil
}

// LoginTOTP completes a login that answered totp_required: the challenge and a code
// of the user's second factor (or one of its recovery codes, used up) open the
// session. The challenge is used up either way by a success; a wrong code leaves it
// to be tried again until it expires, under the login limits.
func (u *Users) LoginTOTP(ctx context.Context, challenge, code string) (Session, error) {
	if len(challenge) != 43 {
		return Session{}, errBadChallenge
	}
	key := challengeKey(challenge)
	rec, err := kit.LoadOptional[challengeRecord](ctx, u.sys.store, key)
	if err != nil {
		return Session{}, err
	}
	if rec == nil {
		return Session{}, errBadChallenge
	}
	sess, err := kit.Ask[Session](ctx, u.kind, rec.UserID, &totpLogin{Key: key, Gen: rec.Gen, Code: code, Now: time.Now(), From: rec.From, TTL: u.opts.RefreshTTL})
	if errors.Is(err, apierr.ErrNotFound) {
		return Session{}, errBadChallenge
	}
	return sess, err
}

func (e *userEntity) handleTOTP(ctx *kit.Ctx, msg any) {
	next := *e.rec
	var cur totpState
	if e.rec.TOTP != nil {
		cur = *e.rec.TOTP
	}
	b := new(persistence.Batch)
	var ended []*family
	var freed *family // the confirming login, restricted no more
	switch m := msg.(type) {
	case *enrolTOTP:
		if cur.Confirmed {
			ctx.Fail(errTOTPOn)
			return
		}
		next.TOTP = &totpState{Secret: m.Secret}
	case *confirmTOTP:
		if e.rec.TOTP == nil || cur.Confirmed {
			ctx.Fail(errTOTPUnconfirmed)
			return
		}
		step, ok := checkTOTP(&cur, m.Code, m.Now)
		if !ok {
			ctx.Fail(errBadCode)
			return
		}
		cur.Confirmed, cur.LastStep, cur.Recovery, cur.EnabledAt = true, step, m.Recovery, m.Now.UTC()
		next.TOTP = &cur
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
		if e.rec.TOTP == nil || (!cur.Confirmed && !m.Force) {
			ctx.Fail(errNoTOTP)
			return
		}
		if !m.Force && !useCode(&cur, m.Code, m.Now) {
			ctx.Fail(errBadCode)
			return
		}
		next.TOTP = nil
		if m.Force {
			// Someone lost the factor: whoever holds a session may not be the user.
			next.TokenGen++
			var err error
			if ended, err = e.revokeInto(b, ""); err != nil {
				ctx.Fail(err)
				return
			}
		}
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
		ctx.Fail(errBadChallenge)
		return
	}
	cur := *e.rec.TOTP
	cur.Recovery = append([]string(nil), cur.Recovery...)
	recovered := len(cur.Recovery)
	if !useCode(&cur, m.Code, m.Now) {
		ctx.Fail(errBadCode)
		return
	}
	method := MethodTOTP
	if len(cur.Recovery) < recovered {
		method = MethodRecoveryCode
	}
	next := *e.rec
	next.TOTP = &cur
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

// useCode checks code as a current TOTP code or an unused recovery code of st, and
// records its use in st.
func useCode(st *totpState, code string, now time.Time) bool {
	if step, ok := checkTOTP(st, code, now); ok {
		st.LastStep = step
		return true
	}
	h := hashCode(normalizeRecovery(code))
	for i, r := range st.Recovery {
		if subtle.ConstantTimeCompare([]byte(r), []byte(h)) == 1 {
			st.Recovery = append(st.Recovery[:i:i], st.Recovery[i+1:]...)
			return true
		}
	}
	return false
}

// checkTOTP finds the time step within the skew whose code code is, later than the
// last step used.
func checkTOTP(st *totpState, code string, now time.Time) (int64, bool) {
	code = strings.TrimSpace(code)
	if len(code) != totpDigits.Length() {
		return 0, false
	}
	opts := totp.ValidateOpts{Period: totpPeriod, Digits: totpDigits, Algorithm: otp.AlgorithmSHA1}
	for d := -totpSkew; d <= totpSkew; d++ {
		at := now.Add(time.Duration(d) * totpPeriod * time.Second)
		step := at.Unix() / totpPeriod
		if step <= st.LastStep {
			continue
		}
		want, err := totp.GenerateCodeCustom(st.Secret, at, opts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, true
		}
	}
	return 0, false
}

// recoveryCode is a new recovery code: 16 characters (about 79 bits) of a lower-case
// alphabet without look-alikes, as xxxx-xxxx-xxxx-xxxx.
func recoveryCode() string {
	const alphabet = "abcdefghjkmnpqrstuvwxyz23456789" // 31 letters and digits
	raw := randomBytes(16)
	var b strings.Builder
	for i, c := range raw {
		if i > 0 && i%4 == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return b.String()
}

// normalizeRecovery is the spelling of a recovery code that is hashed: dashes and
// spaces dropped, lower case.
func normalizeRecovery(code string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(code)))
}

func hashCode(code string) string {
	sum := sha256.Sum256([]byte(normalizeRecovery(code)))
	return hex.EncodeToString(sum[:])
}
