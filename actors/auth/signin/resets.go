package signin

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A forgotten password: a user asks for a reset link by e-mail address, and the link's
// token sets a new password once. The asking is answered before anything is looked up
// (the answer and its timing must not tell whether the address has an account); the
// Outbox, in the background, looks the address up, stores the link and mails it.

// PasswordResetTTL is how long a reset link works.
const PasswordResetTTL = 30 * time.Minute

// Reset is a reset link as stored under pwreset/<SHA-256 of its token>: the token
// itself is never stored, so a copy of the store resets nobody's password.
type Reset struct {
	UserID string `json:"user_id"`
	// Gen is the user's token generation when the link was made: any change of the
	// password (this link's use among them), role, tenant or state since ends the link,
	// and so every other link of the user once one is used.
	Gen       uint64    `json:"gen"`
	ExpiresAt time.Time `json:"expires_at"`
}

var resets = kind{prefix: "pwreset", version: 1, ttl: PasswordResetTTL}

// ErrInvalidResetToken answers a reset token that is unknown, used or expired, or
// that a later change of its user ended.
var ErrInvalidResetToken = apierr.Invalid(apierr.Field("token", "is unknown, used or expired: ask for a new link"))

// LoadReset reads the live reset link of token, and its key, or ErrInvalidResetToken.
func (r Records) LoadReset(ctx context.Context, token string) (*Reset, []byte, error) {
	rec, key, err := load[Reset](ctx, r, resets, token)
	if err != nil {
		return nil, nil, err
	}
	// A TTL on etcd may outlive its time by a little (leases are shared per second).
	if rec == nil || time.Now().After(rec.ExpiresAt) {
		return nil, nil, ErrInvalidResetToken
	}
	return rec, key, nil
}

// Account is the user of an address a reset link is asked for, as the Outbox needs
// it.
type Account struct {
	UserID string
	// Gen is the user's token generation now.
	Gen uint64
	// Mail mails the user the token of its link, which works until expires.
	Mail func(ctx context.Context, token string, expires time.Time) error
}

// resetQueueLen bounds the reset mails waiting to be sent. Beyond it a request is
// dropped with a warning: each is limited like a login already, so a full queue means
// the mail server is away, and the user can ask again.
const resetQueueLen = 64

// resetMailTries is how often a reset mail is tried, resetMailPause the pause after
// the first failure (doubled after each next one).
const (
	resetMailTries = 3
	resetMailPause = 2 * time.Second
)

// Outbox mails the reset links asked for, one at a time, off the request path.
type Outbox struct {
	recs Records
	log  *zap.Logger
	// find is the account of an address, or false for none to mail (it logs why).
	find  func(ctx context.Context, email string) (Account, bool)
	queue chan string
	// Pause is the wait after a failed try, doubled after each next one (tests
	// shorten it).
	Pause time.Duration
	stop  context.CancelFunc
	ctx   context.Context
	done  sync.WaitGroup
}

// StartOutbox starts the sender of the reset links, which find the accounts of
// addresses.
func StartOutbox(recs Records, log *zap.Logger, find func(ctx context.Context, email string) (Account, bool)) *Outbox {
	ctx, cancel := context.WithCancel(context.Background())
	o := &Outbox{recs: recs, log: log, find: find, queue: make(chan string, resetQueueLen), Pause: resetMailPause, ctx: ctx, stop: cancel}
	o.done.Add(1)
	go o.run()
	return o
}

// Ask queues the mail of a reset link to the account of a normalised e-mail address,
// if it has one, without waiting.
func (o *Outbox) Ask(email string) {
	select {
	case o.queue <- email:
	default:
		o.log.Warn("password reset dropped: the mails waiting to be sent fill the queue", zap.Int("queue", resetQueueLen))
	}
}

// Close stops the sender, once its current mail is done or given up.
func (o *Outbox) Close() {
	o.stop()
	o.done.Wait()
}

func (o *Outbox) run() {
	defer o.done.Done()
	for {
		select {
		case <-o.ctx.Done():
			return
		case email := <-o.queue:
			o.send(email)
		}
	}
}

// send makes and mails the link of one request: nothing for an address with no
// account, or a disabled one.
func (o *Outbox) send(email string) {
	ctx, cancel := context.WithTimeout(o.ctx, 2*time.Minute)
	defer cancel()
	acc, ok := o.find(ctx, email)
	if !ok {
		return
	}
	rec := Reset{UserID: acc.UserID, Gen: acc.Gen, ExpiresAt: time.Now().UTC().Add(PasswordResetTTL)}
	b := new(persistence.Batch)
	token, err := put(resets, b, &rec)
	if err == nil {
		err = o.recs.Store.Commit(ctx, b)
	}
	if err != nil {
		o.log.Warn("password reset: the link could not be stored; no mail sent", zap.String("user_id", acc.UserID), zap.Error(err))
		return
	}
	pause := o.Pause
	for try := 1; ; try++ {
		err = acc.Mail(ctx, token, rec.ExpiresAt)
		if err == nil {
			o.log.Info("password reset link mailed", zap.String("user_id", acc.UserID))
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
	o.log.Warn("password reset: the mail could not be sent", zap.String("user_id", acc.UserID), zap.Int("tries", resetMailTries), zap.Error(err))
}
