package auth

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// IdempotencyTTL is how long an answer is kept for retries with the same key.
const IdempotencyTTL = 24 * time.Hour

// Answer is a stored answer to a request made with an Idempotency-Key.
type Answer struct {
	RequestHash string    `json:"request_hash"`
	Status      int       `json:"status"`
	ContentType string    `json:"content_type"`
	Location    string    `json:"location,omitempty"`
	Body        []byte    `json:"body"`
	CreatedAt   time.Time `json:"created_at"`
}

const answerVersion = 1

func answerKey(user, key string) []byte { return persistence.Key("idem", user, key) }

// Idempotency remembers the answers to requests made with an Idempotency-Key, per
// user, so that a retry gets the first answer and changes nothing. One actor per user
// serialises the check and the claim of a key: two concurrent requests with one key
// cannot both run.
type Idempotency struct {
	sys  *system
	kind *kit.Kind
}

type (
	claimKey struct{ Key, RequestHash string }
	// claimed is the answer to a claim: Replay holds the stored answer, or is nil when
	// the caller now owns the key and must run the request.
	claimed     struct{ Replay *Answer }
	completeKey struct {
		Key    string
		Answer *Answer
		// Keep leaves the durable claim unanswered: the request may have taken
		// effect, so a retry is refused rather than run again.
		Keep bool
	}
)

func startIdempotency(s *system) *Idempotency {
	i := &Idempotency{sys: s}
	i.kind = s.rt.StartKind("idempotency", 5*time.Minute, func(id string) kit.Entity {
		return &idemEntity{sys: s, user: id, inflight: map[string]string{}}
	}, nil)
	return i
}

// Claim returns the stored answer for the user's key, or nil when the request should
// run (the key is then held, durably, until Complete). The same key with another
// request is 422 idempotency_key_reused; while the first request runs, 409 conflict;
// and when the first request was cut short by a restart (claimed, never answered),
// 409 conflict too: it may have taken effect, so it never runs twice.
func (i *Idempotency) Claim(ctx context.Context, user, key, requestHash string) (*Answer, error) {
	r, err := kit.Ask[claimed](ctx, i.kind, user, &claimKey{Key: key, RequestHash: requestHash})
	return r.Replay, err
}

// Complete settles a claimed key: it stores the answer (durably, before the caller
// sends it); a nil answer releases the key, so that a retry runs again; keep leaves the
// claim unanswered for a request that may have taken effect without an answer worth
// keeping (a 500, a 504, a panic), so that a retry answers 409 instead of running it
// twice.
func (i *Idempotency) Complete(ctx context.Context, user, key string, a *Answer, keep bool) error {
	_, err := kit.Ask[kit.Done](ctx, i.kind, user, &completeKey{Key: key, Answer: a, Keep: keep})
	return err
}

type idemEntity struct {
	sys      *system
	user     string
	inflight map[string]string // key → request hash
}

func (e *idemEntity) Load() error { return nil }

func (e *idemEntity) Busy() bool { return len(e.inflight) > 0 }

func (e *idemEntity) Handle(ctx actor.Context, msg any) {
	switch m := msg.(type) {
	case *claimKey:
		if h, ok := e.inflight[m.Key]; ok {
			if h != m.RequestHash {
				kit.RespondErr(ctx, apierr.New(apierr.ErrIdempotencyKeyReused, "this Idempotency-Key was used with another request"))
				return
			}
			kit.RespondErr(ctx, apierr.New(apierr.ErrConflict, "a request with this Idempotency-Key is still in progress"))
			return
		}
		val, err := e.sys.store.Get(answerKey(e.user, m.Key))
		if errors.Is(err, persistence.ErrNotFound) {
			// The claim is durable before the request runs: a process killed while
			// it runs leaves the claim without an answer, and the retry after the
			// restart is refused instead of applying the request a second time.
			pending, err := persistence.Encode(answerVersion, &Answer{RequestHash: m.RequestHash, CreatedAt: time.Now().UTC()})
			if err == nil {
				err = e.sys.rt.Commit(new(persistence.Batch).PutTTL(answerKey(e.user, m.Key), pending, IdempotencyTTL))
			}
			if err != nil {
				kit.RespondErr(ctx, err)
				return
			}
			e.inflight[m.Key] = m.RequestHash
			ctx.Respond(claimed{})
			return
		}
		var a Answer
		if err == nil {
			_, err = persistence.Decode(val, &a)
		}
		if err != nil {
			kit.RespondErr(ctx, err)
			return
		}
		if a.RequestHash != m.RequestHash {
			kit.RespondErr(ctx, apierr.New(apierr.ErrIdempotencyKeyReused, "this Idempotency-Key was used with another request"))
			return
		}
		if a.Status == 0 {
			// Claimed, never answered, and not running: the server stopped while the
			// first request ran, or it ended in a 500 or a 504. Whether it took effect
			// is unknown, so it does not run again; the client looks at the outcome and
			// uses a new key if it must.
			kit.RespondErr(ctx, apierr.New(apierr.ErrConflict, "the first request with this Idempotency-Key ended without an answer "+
				"(the server restarted, or it failed with a 500 or 504): it may or may not have taken effect, so it is not run again; "+
				"check its outcome, then retry with a new key if needed"))
			return
		}
		ctx.Respond(claimed{Replay: &a})
	case *completeKey:
		delete(e.inflight, m.Key)
		if m.Keep {
			ctx.Respond(kit.Done{})
			return
		}
		// The answer replaces the claim; without one (a 429 or 5xx, which changed
		// nothing) the claim goes, so that a retry runs again.
		b := new(persistence.Batch).Del(answerKey(e.user, m.Key))
		if m.Answer != nil {
			val, err := persistence.Encode(answerVersion, m.Answer)
			if err != nil {
				kit.RespondErr(ctx, err)
				return
			}
			b = new(persistence.Batch).PutTTL(answerKey(e.user, m.Key), val, IdempotencyTTL)
		}
		if err := e.sys.rt.Commit(b); err != nil {
			kit.RespondErr(ctx, err)
			return
		}
		ctx.Respond(kit.Done{})
	default:
		kit.RespondErr(ctx, apierr.New(apierr.ErrInternal, "unexpected message"))
	}
}

// The runtime finds these behaviours by interface: the compiler checks them, since a
// misnamed method would silently turn them off.
var (
	_ kit.Busy = (*idemEntity)(nil)
)
