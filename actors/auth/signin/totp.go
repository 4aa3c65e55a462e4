package signin

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/vmplane/vmplane/apierr"
)

// A second factor: time-based one-time passwords (RFC 6238: SHA-1, six digits, 30 s
// steps, the codes of authenticator apps), and recovery codes for a lost phone. A code
// is good once: the factor keeps the last time step used, and a code of that step or
// an earlier one is refused, also within the step's 30 s.

// TOTP parameters, those every authenticator app assumes.
const (
	// Period is the length of a time step, in seconds.
	Period = 30
	// Digits is the length of a code.
	Digits = otp.DigitsSix
	// skew is how many steps before and after now a code may be of: the clocks of a
	// phone and a server drift apart.
	skew = 1
	// RecoveryCodes is how many recovery codes a confirmation gives.
	RecoveryCodes = 10
	// MaxCodeLen bounds a code or recovery code in a request.
	MaxCodeLen = 32
)

// Ways a session was opened with the second factor (auth's SessionInfo.Method).
const (
	// MethodTOTP: a password and a code of the second factor.
	MethodTOTP = "totp"
	// MethodRecoveryCode: a password and one of the recovery codes.
	MethodRecoveryCode = "recovery_code"
)

var (
	errBadCode         = apierr.Invalid(apierr.Field("code", "is not a current code of the second factor, nor an unused recovery code"))
	errNoTOTP          = apierr.New(apierr.ErrConflict, "the user has no second factor")
	errTOTPOn          = apierr.New(apierr.ErrConflict, "the second factor is on already: turn it off first")
	errTOTPUnconfirmed = apierr.New(apierr.ErrConflict, "no enrolment waits for its first code: enrol first")
)

// Factor is a user's second factor as its record keeps it.
type Factor struct {
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

// Enrol makes the secret of a new second factor for account, shown by issuer's name.
func Enrol(issuer, account string) (TOTPEnrolment, error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account, Period: Period, Digits: Digits, SecretSize: 20})
	if err != nil {
		return TOTPEnrolment{}, err
	}
	return TOTPEnrolment{Secret: key.Secret(), URI: key.URL()}, nil
}

// NewRecoveryCodes are the recovery codes of a confirmation, and the hashes that the
// factor keeps of them.
func NewRecoveryCodes() (RecoveryCodeList, []string) {
	codes := make([]string, RecoveryCodes)
	hashes := make([]string, RecoveryCodes)
	for i := range codes {
		codes[i] = recoveryCode()
		hashes[i] = hashCode(codes[i])
	}
	return RecoveryCodeList{Codes: codes}, hashes
}

// Enrolled is the unconfirmed enrolment of secret that replaces f (nil: none): a
// confirmed factor must be turned off first.
func Enrolled(f *Factor, secret string) (*Factor, error) {
	if f != nil && f.Confirmed {
		return nil, errTOTPOn
	}
	return &Factor{Secret: secret}, nil
}

// Confirmed is the enrolment f confirmed by a first code at now, keeping the hashes
// of its recovery codes.
func Confirmed(f *Factor, code string, now time.Time, recovery []string) (*Factor, error) {
	if f == nil || f.Confirmed {
		return nil, errTOTPUnconfirmed
	}
	next := *f
	step, ok := next.check(code, now)
	if !ok {
		return nil, errBadCode
	}
	next.Confirmed, next.LastStep, next.Recovery, next.EnabledAt = true, step, recovery, now.UTC()
	return &next, nil
}

// MayTurnOff checks that f may be turned off: proven by a code (or recovery code) at
// now, or forced (an operator's reset), which needs only an enrolment.
func MayTurnOff(f *Factor, code string, now time.Time, force bool) error {
	if f == nil || (!f.Confirmed && !force) {
		return errNoTOTP
	}
	if next := *f; !force && !next.use(code, now) {
		return errBadCode
	}
	return nil
}

// LogIn is the confirmed factor f after a login's code (or recovery code, used up)
// at now, and the method of the session it opens.
func LogIn(f Factor, code string, now time.Time) (*Factor, string, error) {
	f.Recovery = append([]string(nil), f.Recovery...)
	recovered := len(f.Recovery)
	if !f.use(code, now) {
		return nil, "", errBadCode
	}
	if len(f.Recovery) < recovered {
		return &f, MethodRecoveryCode, nil
	}
	return &f, MethodTOTP, nil
}

// use checks code as a current TOTP code or an unused recovery code of f, and records
// its use in f.
func (f *Factor) use(code string, now time.Time) bool {
	if step, ok := f.check(code, now); ok {
		f.LastStep = step
		return true
	}
	h := hashCode(normalizeRecovery(code))
	for i, r := range f.Recovery {
		if subtle.ConstantTimeCompare([]byte(r), []byte(h)) == 1 {
			f.Recovery = append(f.Recovery[:i:i], f.Recovery[i+1:]...)
			return true
		}
	}
	return false
}

// check finds the time step within the skew whose code code is, later than the last
// step used.
func (f *Factor) check(code string, now time.Time) (int64, bool) {
	code = strings.TrimSpace(code)
	if len(code) != Digits.Length() {
		return 0, false
	}
	opts := totp.ValidateOpts{Period: Period, Digits: Digits, Algorithm: otp.AlgorithmSHA1}
	for d := -skew; d <= skew; d++ {
		at := now.Add(time.Duration(d) * Period * time.Second)
		step := at.Unix() / Period
		if step <= f.LastStep {
			continue
		}
		want, err := totp.GenerateCodeCustom(f.Secret, at, opts)
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
	raw := RandomBytes(16)
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
