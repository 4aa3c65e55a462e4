package signin

import (
	"context"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// ChallengeTTL is how long a login's challenge waits for its code.
const ChallengeTTL = 5 * time.Minute

// Challenge is a login whose password was right, waiting for its second factor's
// code, under totp-challenge/<SHA-256 of the challenge> (TTL ChallengeTTL).
type Challenge struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
	// Gen is the user's token generation when the password was checked: a change
	// since (a new password, a reset of the second factor) ends the challenge.
	Gen  uint64 `json:"gen"`
	From Client `json:"from"`
}

var challenges = kind{prefix: "totp-challenge", version: 1, ttl: ChallengeTTL}

// ErrBadChallenge answers a challenge that is unknown, used or expired, or whose user
// changed since.
var ErrBadChallenge = apierr.New(apierr.ErrUnauthorized, "the challenge is unknown, used or expired: log in again")

// PutChallenge stores c under a new challenge and answers it as the login's error:
// the 401 totp_required that carries the challenge.
func (r Records) PutChallenge(ctx context.Context, c Challenge) error {
	b := new(persistence.Batch)
	token, err := put(challenges, b, &c)
	if err != nil {
		return err
	}
	if err := r.Store.Commit(ctx, b); err != nil {
		return err
	}
	return &apierr.Error{Status: apierr.ErrTOTPRequired.Status, Code: apierr.ErrTOTPRequired.Code, Challenge: token,
		Detail: "the password is right; complete the login with a code of the second factor (or a recovery code) and this challenge within 5 minutes"}
}

// LoadChallenge reads the login waiting under challenge, and its key; an unknown
// challenge is ErrBadChallenge.
func (r Records) LoadChallenge(ctx context.Context, challenge string) (*Challenge, []byte, error) {
	rec, key, err := load[Challenge](ctx, r, challenges, challenge)
	if err == nil && rec == nil {
		err = ErrBadChallenge
	}
	return rec, key, err
}
