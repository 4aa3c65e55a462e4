package kit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A request made with an Idempotency-Key is claimed durably before it runs (package
// auth keeps the claims). When its process dies before the answer is stored, a retry
// must know whether the request applied. A request whose one write carries its claim
// (a Stamp) leaves no doubt: the write requires the claim unchanged and records its
// reply in the claim, in the same transaction, so a claim without a reply did not
// apply, and once a retry has replaced the claim, the first request's write, however
// late, cannot apply any more (its condition fails). That holds on every store and
// whatever the leases do: the fence of a dead member only adds that nothing of it
// commits after its lease is gone.

// Stamp ties the one write of a request made with an Idempotency-Key to the key's
// claim. It travels with the entity's message (it is plain JSON).
type Stamp struct {
	// Key is the claim record's key.
	Key []byte `json:"key"`
	// Claim is the claim record as written: the stamped write requires it unchanged.
	// It is a versioned record (persistence.Encode) whose JSON is an object.
	Claim []byte `json:"claim"`
	// TTL is how long the record is kept.
	TTL time.Duration `json:"ttl"`
	// Reply, on the retry of a request whose write applied but whose answer was never
	// stored, is the reply the write recorded: the retry answers with it rather than
	// asking the entity again (Recorded).
	Reply *Wired `json:"reply,omitempty"`
}

// Carry adds the stamp to b: b then requires the claim unchanged and replaces it with
// the claim and reply (the entity's answer to the request, a type registered with
// Wire), so that the write and the record of its reply land together or not at all.
// A nil stamp (a request without a key) leaves b as it is.
func (s *Stamp) Carry(b *persistence.Batch, reply any) error {
	if s == nil {
		return nil
	}
	if len(s.Claim) < 2 {
		return apierr.New(apierr.ErrInternal, "idempotency: the claim record is empty")
	}
	w, err := Encode(reply)
	if err != nil {
		return apierr.New(apierr.ErrInternal, "idempotency: the reply cannot be recorded: %v", err)
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(s.Claim[2:], &rec); err != nil {
		return apierr.New(apierr.ErrInternal, "idempotency: the claim record is not an object: %v", err)
	}
	if rec["reply"], err = json.Marshal(w); err != nil {
		return apierr.New(apierr.ErrInternal, "idempotency: the reply cannot be recorded: %v", err)
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return apierr.New(apierr.ErrInternal, "idempotency: the reply cannot be recorded: %v", err)
	}
	b.Require(persistence.IfValue(s.Key, s.Claim))
	b.PutTTL(s.Key, append(append([]byte(nil), s.Claim[:2]...), body...), s.TTL)
	return nil
}

// Recorded returns the reply a stamped write recorded, when the stamp has one: the
// caller answers with it and does not ask the entity again. ok is false when the
// request must be asked.
func Recorded[T any](s *Stamp) (v T, ok bool, err error) {
	if s == nil || s.Reply == nil {
		return v, false, nil
	}
	r, err := Decode(*s.Reply)
	if err != nil {
		return v, true, apierr.New(apierr.ErrInternal, "idempotency: the recorded reply cannot be read: %v", err)
	}
	v, err = answer[T](r, nil, nil)
	return v, true, err
}

type stampKey struct{}

// WithStamp returns ctx carrying s, for the domain call that makes the request's write.
func WithStamp(ctx context.Context, s *Stamp) context.Context {
	return context.WithValue(ctx, stampKey{}, s)
}

// StampOf is the stamp ctx carries, or nil.
func StampOf(ctx context.Context) *Stamp {
	s, _ := ctx.Value(stampKey{}).(*Stamp)
	return s
}

// Owners is implemented by a Placement that can tell whether the process that made
// a claim still lives: a cluster member, by its lease.
type Owners interface {
	// Self names this member and its lease.
	Self() string
	// Gone reports whether the member named by owner (a Self of some member) has
	// lost its lease: nothing it started can commit any more.
	Gone(ctx context.Context, owner string) (bool, error)
}

// newRunID names one run of the runtime on a single node: claims made by an earlier
// run belong to a process that is gone.
func newRunID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "run:" + hex.EncodeToString(b)
}

// Owner names the process running requests here, for the claims of their keys: the
// member and its lease in a cluster, this process's run on a single node.
func (rt *Runtime) Owner() string {
	if o, ok := rt.placement.(Owners); ok {
		return o.Self()
	}
	return rt.runID
}

// OwnerGone reports whether the process named by owner (an Owner) is gone: on a
// single node, any run but this one; in a cluster, a member whose lease etcd no
// longer has.
func (rt *Runtime) OwnerGone(ctx context.Context, owner string) (bool, error) {
	if owner == rt.Owner() {
		return false, nil
	}
	if o, ok := rt.placement.(Owners); ok {
		return o.Gone(ctx, owner)
	}
	return true, nil
}
