package auth

import (
	"context"
	"errors"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// IdempotencyTTL is how long an answer is kept for retries with the same key.
const IdempotencyTTL = 24 * time.Hour

// Answer is a stored answer to a request made with an Idempotency-Key, or, while
// Status is 0, the claim of a request that runs (or ran and was never answered).
type Answer struct {
	RequestHash string    `json:"request_hash"`
	Status      int       `json:"status"`
	ContentType string    `json:"content_type"`
	Location    string    `json:"location,omitempty"`
	Body        []byte    `json:"body"`
	CreatedAt   time.Time `json:"created_at"`

	// The claim's fields, while there is no answer.

	// Owner names the process that runs the request (kit.Runtime.Owner): a member and
	// its lease, or one run of a single node.
	Owner string `json:"owner,omitempty"`
	// Keeper names the process that wrote the claim, whose entity holds it as in
	// flight: in a cluster, not always the owner. Had it died before the owner heard
	// that the claim was its own, the owner would never settle it.
	Keeper string `json:"keeper,omitempty"`
	// Token tells one claim of the key from another: a retry that takes the key over
	// writes a new one, and the first request's settlement no longer applies.
	Token string `json:"token,omitempty"`
	// Stamped says the request's one write carries this claim (kit.Stamp): until a
	// reply is recorded here, it did not apply.
	Stamped bool `json:"stamped,omitempty"`
	// Ended says the request ended without an answer worth keeping (a 500, a 504, a
	// panic): nobody waits for it any more.
	Ended bool `json:"ended,omitempty"`
	// Reply is what the stamped write recorded, in its own transaction, when it applied.
	Reply *kit.Wired `json:"reply,omitempty"`
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

// Claimed is the answer to a claim.
type Claimed struct {
	// Replay is the stored answer: the caller sends it and runs nothing.
	Replay *Answer
	// Token names the caller's claim when it must run the request; Complete takes it.
	Token string
	// Stamp, for a stamped request, is what its one write carries (kit.WithStamp).
	Stamp *kit.Stamp
}

type (
	claimKey struct {
		Key, RequestHash string
		// Owner is the process that will run the request (kit.Runtime.Owner).
		Owner string
		// Stamped: the request's one write carries the claim (kit.Stamp).
		Stamped bool
	}
	completeKey struct {
		Key, Token string
		Answer     *Answer
		// Keep leaves the durable claim unanswered: the request may have taken
		// effect, so a retry is refused rather than run again (unless the request was
		// stamped, which tells).
		Keep bool
	}
)

func startIdempotency(s *system) *Idempotency {
	i := &Idempotency{sys: s}
	i.kind = s.rt.StartKind("idempotency", 5*time.Minute, func(id string) kit.Entity {
		return &idemEntity{sys: s, user: id, inflight: map[string]inflightClaim{}}
	}, nil)
	return i
}

// Claim returns the stored answer for the user's key, or a claim when the request
// should run (the key is then held, durably, until Complete). The same key with
// another request is 422 idempotency_key_reused; while the first request runs, 409
// conflict. A claim left without an answer (its process died, or the request ended
// in a 500 or a 504) is taken over when the request is stamped (its one write carries
// the claim, so it applied only if it recorded its reply) and it no longer runs: its
// owner or its keeper is gone, or it ended; the retry then runs it, or answers with
// the recorded reply. An unstamped one answers 409 conflict: the request may have
// taken effect, so it never runs twice.
func (i *Idempotency) Claim(ctx context.Context, user, key, requestHash string, stamped bool) (Claimed, error) {
	return kit.Ask[Claimed](ctx, i.kind, user, &claimKey{Key: key, RequestHash: requestHash, Owner: i.sys.rt.Owner(), Stamped: stamped})
}

// Complete settles the claim token of a key: it stores the answer (durably, before
// the caller sends it); a nil answer releases the key, so that a retry runs again;
// keep leaves the claim unanswered for a request that may have taken effect without
// an answer worth keeping (a 500, a 504, a panic), so that a retry does not run it
// twice. A claim a retry took over is not settled: that is a 409 conflict.
func (i *Idempotency) Complete(ctx context.Context, user, key, token string, a *Answer, keep bool) error {
	_, err := kit.Ask[kit.Done](ctx, i.kind, user, &completeKey{Key: key, Token: token, Answer: a, Keep: keep})
	return err
}

type idemEntity struct {
	sys      *system
	user     string
	inflight map[string]inflightClaim // by key
}

// inflightClaim is a claim whose request runs.
type inflightClaim struct {
	hash string
	// owner is the process that runs it: in a cluster, maybe another member.
	owner string
	// val is the claim as written; a stamped request's write changes it.
	val     []byte
	stamped bool
}

func (e *idemEntity) Load() error { return nil }

func (e *idemEntity) Busy() bool { return len(e.inflight) > 0 }

var (
	errKeyReused  = apierr.New(apierr.ErrIdempotencyKeyReused, "this Idempotency-Key was used with another request")
	errInProgress = func() *apierr.Error {
		e := apierr.New(apierr.ErrConflict, "a request with this Idempotency-Key is still in progress")
		// Its retry is answered once the first ends, or its process is gone.
		e.RetryAfterS = 1
		return e
	}()
	errNoAnswer = apierr.New(apierr.ErrConflict, "the first request with this Idempotency-Key ended without an answer "+
		"(the server restarted, or it failed with a 500 or 504): it may or may not have taken effect, so it is not run again; "+
		"check its outcome, then retry with a new key if needed")
	errTakenOver = apierr.New(apierr.ErrConflict, "a retry with this Idempotency-Key took the request over; its answer is the retry's")
)

func (e *idemEntity) Handle(ctx *kit.Ctx, msg any) {
	switch m := msg.(type) {
	case *claimKey:
		if c, ok := e.inflight[m.Key]; ok {
			if c.hash != m.RequestHash {
				ctx.Fail(errKeyReused)
				return
			}
			gone, err := e.ownerGone(c.owner)
			if err != nil {
				ctx.Fail(err)
				return
			}
			if !gone {
				ctx.Fail(errInProgress)
				return
			}
			// The member that runs it died: it never completes, and the stored claim
			// says what its retry gets.
			delete(e.inflight, m.Key)
		}
		rctx, cancel := e.sys.rt.Work()
		val, err := e.sys.store.Get(rctx, answerKey(e.user, m.Key))
		cancel()
		if errors.Is(err, persistence.ErrNotFound) {
			// The claim is durable before the request runs: a process killed while
			// it runs leaves the claim without an answer, and the retry after the
			// restart knows the key was used.
			e.claim(ctx, m, nil, nil)
			return
		}
		var a Answer
		if err == nil {
			_, err = persistence.Decode(val, &a)
		}
		if err != nil {
			ctx.Fail(err)
			return
		}
		if a.RequestHash != m.RequestHash {
			ctx.Fail(errKeyReused)
			return
		}
		if a.Status != 0 {
			ctx.Respond(Claimed{Replay: &a})
			return
		}
		// Claimed, never answered, and not running here.
		if !a.Stamped {
			// The server stopped while the first request ran, or it ended in a 500
			// or a 504, and its writes do not say whether it applied: it does not run
			// again; the client looks at the outcome and uses a new key if it must.
			ctx.Fail(errNoAnswer)
			return
		}
		if !a.Ended {
			running, err := e.mayRun(&a)
			if err != nil {
				ctx.Fail(err)
				return
			}
			if running {
				ctx.Fail(errInProgress)
				return
			}
		}
		// The request's one write carries its claim. Either it applied, and recorded
		// its reply here in the same transaction, or it did not, and once this claim
		// replaces the first it never can (its condition fails); an owner whose lease
		// is gone could not commit it anyway. So the retry runs it, or, when the
		// reply is recorded, answers with it.
		e.claim(ctx, m, val, a.Reply)
	case *completeKey:
		c, ok := e.inflight[m.Key]
		delete(e.inflight, m.Key)
		e.complete(ctx, m, c, ok)
	default:
		ctx.Fail(apierr.New(apierr.ErrInternal, "unexpected message"))
	}
}

// mayRun reports whether the request of a claim that is not in flight here may still
// run: its owner lives (in a cluster, the edge that claimed it need not be the member
// this entity is on), and so does the keeper that holds it in flight. A keeper that
// died leaves a claim whose owner may never have learnt it was its own, and so never
// settles it; should the owner still run it, the retry's claim makes its write fail.
// A claim this process keeps and does not hold in flight was settled, or its
// settlement was lost.
func (e *idemEntity) mayRun(a *Answer) (bool, error) {
	if a.Keeper == e.sys.rt.Owner() {
		return false, nil
	}
	for _, who := range []string{a.Owner, a.Keeper} {
		gone, err := e.ownerGone(who)
		if err != nil || gone {
			return false, err
		}
	}
	return true, nil
}

// ownerGone reports whether the process that claimed a key is gone: never this one.
func (e *idemEntity) ownerGone(owner string) (bool, error) {
	if owner == e.sys.rt.Owner() {
		return false, nil
	}
	return e.sys.rt.OwnerGone(context.Background(), owner)
}

// claim writes the claim of m's key for m's owner, replacing prev (nil: the key is
// unused), and answers the caller that it runs the request. reply, carried over from
// the claim it replaces, is the first request's recorded reply.
func (e *idemEntity) claim(ctx *kit.Ctx, m *claimKey, prev []byte, reply *kit.Wired) {
	key := answerKey(e.user, m.Key)
	c := &Answer{RequestHash: m.RequestHash, CreatedAt: time.Now().UTC(), Owner: m.Owner, Keeper: e.sys.rt.Owner(),
		Token: persistence.NewID(), Stamped: m.Stamped, Reply: reply}
	val, err := persistence.Encode(answerVersion, c)
	if err != nil {
		ctx.Fail(err)
		return
	}
	b := new(persistence.Batch).PutTTL(key, val, IdempotencyTTL)
	if prev == nil {
		b.Require(persistence.IfAbsent(key))
	} else {
		b.Require(persistence.IfValue(key, prev))
	}
	if err := e.sys.rt.Commit(b); err != nil {
		if persistence.IsConditionFailed(err) {
			// The first request's write landed meanwhile, or another retry won.
			err = errInProgress
		}
		ctx.Fail(err)
		return
	}
	e.inflight[m.Key] = inflightClaim{hash: m.RequestHash, owner: m.Owner, val: val, stamped: m.Stamped}
	r := Claimed{Token: c.Token}
	if m.Stamped {
		r.Stamp = &kit.Stamp{Key: key, Claim: val, TTL: IdempotencyTTL, Reply: reply}
	}
	ctx.Respond(r)
}

// complete settles a claim, if it is still m's: the answer replaces it; without one
// (a 429 or 503, which changed nothing) it goes, so that a retry runs again; kept, it
// stays, marked ended for a retry to take over when the request was stamped. The
// claim is read again unless it is known here unchanged (held is the claim as this
// entity wrote it, when ok): a stamped request's write changes it.
func (e *idemEntity) complete(ctx *kit.Ctx, m *completeKey, held inflightClaim, ok bool) {
	key := answerKey(e.user, m.Key)
	var (
		val []byte
		err error
		c   Answer
	)
	if ok && !held.stamped {
		val = held.val
	} else {
		rctx, cancel := e.sys.rt.Work()
		val, err = e.sys.store.Get(rctx, key)
		cancel()
	}
	if err == nil {
		_, err = persistence.Decode(val, &c)
	}
	if errors.Is(err, persistence.ErrNotFound) || err == nil && (c.Status != 0 || c.Token != m.Token) {
		ctx.Fail(errTakenOver)
		return
	}
	if err != nil {
		ctx.Fail(err)
		return
	}
	b := new(persistence.Batch).Require(persistence.IfValue(key, val))
	switch {
	case m.Answer != nil:
		val, err := persistence.Encode(answerVersion, m.Answer)
		if err != nil {
			ctx.Fail(err)
			return
		}
		b.PutTTL(key, val, IdempotencyTTL)
	case !c.Stamped && m.Keep:
		ctx.Respond(kit.Done{})
		return
	case m.Keep || c.Reply != nil:
		// Its write recorded a reply, so it applied whatever the status said: a
		// retry answers with it rather than running it again.
		c.Ended = true
		val, err := persistence.Encode(answerVersion, &c)
		if err != nil {
			ctx.Fail(err)
			return
		}
		b.PutTTL(key, val, IdempotencyTTL)
	default:
		b.Del(key)
	}
	if err := e.sys.rt.Commit(b); err != nil {
		if persistence.IsConditionFailed(err) {
			err = errTakenOver
		}
		ctx.Fail(err)
		return
	}
	ctx.Respond(kit.Done{})
}

// The runtime finds these behaviours by interface: the compiler checks them, since a
// misnamed method would silently turn them off.
var (
	_ kit.Busy = (*idemEntity)(nil)
)
