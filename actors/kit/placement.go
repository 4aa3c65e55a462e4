package kit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
)

// In a cluster every entity is active on exactly one member. Which one is the
// Placement's to say (the cluster package claims entities in etcd, under the member's
// lease); kit asks it before each request and either delivers the request here or
// forwards it to the owner, so a domain package never learns whether it runs on one
// member or several. Without a Placement (a single node) everything is local and
// nothing here runs.

// Member is one running vmplane process of a cluster.
type Member struct {
	// Name is the member's stable node name.
	Name string `json:"name"`
	// Addr is the host:port other members reach it on.
	Addr string `json:"addr"`
}

// Forwarded is one request on its way to the member that owns its entity.
type Forwarded struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Msg  Wired  `json:"msg"`
	// Tell is set for a message that expects no answer.
	Tell bool `json:"tell,omitempty"`
	// Audit is the audit entry of the request, if any (Ctx.Audit).
	Audit *AuditEntry `json:"audit,omitempty"`
}

// ErrNotDelivered is what a Placement's Forward wraps when the request certainly did
// not reach the owner's entity (the member refused the connection, or answered that it
// does not own the entity): kit then looks the owner up again and retries. Any other
// error means the outcome is unknown, and is returned to the caller as it is.
var ErrNotDelivered = errors.New("kit: request not delivered")

// Placement decides where each entity is active and carries requests there.
type Placement interface {
	// Place returns the member where kind/id is active, claiming the entity for this
	// member when no member holds it; local reports whether that is this member. It
	// fails with apierr.ErrUnavailable when ownership cannot be known (the shared store
	// is unreachable).
	Place(ctx context.Context, kind, id string) (m Member, local bool, err error)
	// Moved tells the placement that a request to m for kind/id was not delivered: the
	// next Place must look again rather than trust what it remembered.
	Moved(kind, id string, m Member)
	// Forward carries req to m and returns m's answer.
	Forward(ctx context.Context, m Member, req Forwarded) (Wired, error)
	// Local reports, without asking anyone, whether this member holds kind/id.
	Local(kind, id string) bool
	// Release gives up this member's hold on kind/id; the runtime calls it once the
	// entity stopped because its record does not exist.
	Release(kind, id string)
}

// WithPlacement makes the runtime a cluster member: requests for entities active on
// other members are forwarded to them.
func WithPlacement(p Placement) Option { return func(rt *Runtime) { rt.placement = p } }

// retryPause is how long a request whose owner could not be reached waits before it
// looks the owner up again: a dead member's claims last until its lease expires.
const retryPause = 100 * time.Millisecond

// request delivers msg to the entity id of k wherever it is active and returns the
// raw answer (a reply value or an *apierr.Error).
func (k *Kind) request(ctx context.Context, id string, msg any) (any, error) {
	p := k.rt.placement
	var w Wired
	encoded := false
	// A request goes after what was told to the entity before it, as it would on one
	// member, where both go through the same mailbox.
	if !k.rt.tells.waitDrained(ctx, k.name+"/"+id) {
		return nil, ctxError(ctx)
	}
	for {
		m, local, err := p.Place(ctx, k.name, id)
		if err != nil {
			return nil, err
		}
		if local {
			return askLocal(ctx, k.rt, k.pid, &Envelope{ID: id, Msg: msg, Audit: AuditOf(ctx)})
		}
		if !encoded {
			if w, err = Encode(msg); err != nil {
				k.rt.Log.Error("message cannot cross members", zap.String("kind", k.name), zap.Error(err))
				return nil, apierr.New(apierr.ErrInternal, "internal error")
			}
			encoded = true
		}
		ans, err := p.Forward(ctx, m, Forwarded{Kind: k.name, ID: id, Msg: w, Audit: AuditOf(ctx)})
		if errors.Is(err, ErrNotDelivered) {
			p.Moved(k.name, id, m)
			if !pause(ctx, k.rt.Clock, retryPause) {
				// Say why it was never delivered (the owner unreachable, or running
				// another version of vmplane that cannot read the message).
				k.rt.Log.Warn("request not delivered before its deadline", zap.String("kind", k.name), zap.String("id", id),
					zap.String("member", m.Name), zap.Error(err))
				return nil, ctxError(ctx)
			}
			continue
		}
		if err != nil {
			return nil, apierr.From(err)
		}
		v, err := Decode(ans)
		if err != nil {
			k.rt.Log.Error("answer from another member unreadable", zap.String("kind", k.name), zap.String("member", m.Name), zap.Error(err))
			return nil, apierr.New(apierr.ErrInternal, "internal error")
		}
		if ans.AuditCarried {
			AuditOf(ctx).markCarried()
		}
		return v, nil
	}
}

// pause waits d on clock, or less when ctx ends first (false).
func pause(ctx context.Context, clock Clock, d time.Duration) bool {
	t := clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.Chan():
		return true
	case <-ctx.Done():
		return false
	}
}

// ctxError is the answer to a request whose context ended before it did.
func ctxError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return apierr.New(apierr.ErrTimeout, "the request did not finish in time")
	}
	return apierr.New(apierr.ErrUnavailable, "the request was cancelled")
}

// Deliver hands a request forwarded by another member to the local entity and returns
// its answer. It fails with ErrNotDelivered when the entity is not active here (it
// moved, or this member no longer holds it), so the sender looks again.
func (rt *Runtime) Deliver(ctx context.Context, req Forwarded) (Wired, error) {
	k := rt.kind(req.Kind)
	if k == nil || rt.placement == nil {
		return Wired{}, ErrNotDelivered
	}
	msg, err := Decode(req.Msg)
	if errors.Is(err, ErrUnknownMessage) {
		// The sender runs another version of vmplane: the request is not delivered
		// rather than dropped, and the sender retries until a member that reads it
		// (this one, upgraded, or the entity's next owner) takes it.
		return Wired{}, fmt.Errorf("%w: %w", ErrNotDelivered, err)
	}
	if err != nil {
		return Wired{}, apierr.New(apierr.ErrInvalidRequest, "%s", err)
	}
	if _, local, err := rt.placement.Place(ctx, req.Kind, req.ID); err != nil {
		return Wired{}, err
	} else if !local {
		return Wired{}, ErrNotDelivered
	}
	if req.Tell {
		rt.actors.Root.Send(k.pid, &Envelope{ID: req.ID, Msg: msg})
		return Wired{}, nil
	}
	// Tracked, so that the answer can tell the sender whether the entity's write
	// carried the entry.
	ans, err := askLocal(ctx, rt, k.pid, &Envelope{ID: req.ID, Msg: msg, Audit: req.Audit.Track()})
	if err != nil {
		ans = apierr.From(err)
	}
	w, err := Encode(ans)
	if err != nil {
		rt.Log.Error("answer cannot cross members", zap.String("kind", req.Kind), zap.Error(err))
		return Encode(apierr.New(apierr.ErrInternal, "internal error"))
	}
	w.AuditCarried = req.Audit.Carried()
	return w, nil
}

// kind returns the kind named name, or nil.
func (rt *Runtime) kind(name string) *Kind {
	rt.kindsMu.RLock()
	defer rt.kindsMu.RUnlock()
	for _, k := range rt.kinds {
		if k.name == name {
			return k
		}
	}
	return nil
}

// tells keeps told messages for entities on other members in order: each entity's
// messages are forwarded one after another by one goroutine, started while it has any.
type tells struct {
	mu     sync.Mutex
	queues map[string][]any // kind/id → messages not yet forwarded
	// drained is closed and replaced whenever a queue empties, waking waitDrained.
	drained chan struct{}
	// stop ends the forwarding of what is still queued when the runtime shuts down.
	stop     chan struct{}
	stopOnce sync.Once
}

// waitDrained waits until nothing told to key is still on its way, or ctx ends (false).
func (t *tells) waitDrained(ctx context.Context, key string) bool {
	for {
		t.mu.Lock()
		_, queued := t.queues[key]
		ch := t.drained
		t.mu.Unlock()
		if !queued {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// shutdown drops every told message still queued: the runtime is stopping.
func (t *tells) shutdown() { t.stopOnce.Do(func() { close(t.stop) }) }

// direct reports whether a message told to key may go straight to the local entity:
// nothing told before it is still on its way, and local() holds.
func (t *tells) direct(key string, local func() bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, queued := t.queues[key]; queued {
		return false
	}
	return local()
}

// maxTellTime bounds how long a told message keeps trying to reach its entity.
const maxTellTime = 30 * time.Second

// tell forwards msg to the entity id of k, in order after earlier tells to it, without
// waiting.
func (k *Kind) tell(id string, msg any) {
	t := &k.rt.tells
	key := k.name + "/" + id
	t.mu.Lock()
	q, running := t.queues[key]
	t.queues[key] = append(q, msg)
	t.mu.Unlock()
	if running {
		return
	}
	go k.drainTells(key, id)
}

// drainTells forwards the queued tells of one entity until none is left.
func (k *Kind) drainTells(key, id string) {
	defer Recover(k.rt.Log, "forwarding a told message", nil)
	t := &k.rt.tells
	for {
		t.mu.Lock()
		q := t.queues[key]
		if len(q) == 0 {
			delete(t.queues, key)
			close(t.drained)
			t.drained = make(chan struct{})
			t.mu.Unlock()
			return
		}
		msg := q[0]
		t.queues[key] = q[1:]
		t.mu.Unlock()
		if err := k.tellOne(id, msg); err != nil {
			k.rt.Log.Warn("told message lost", zap.String("kind", k.name), zap.String("id", id), zap.Error(err))
		}
	}
}

// tellOne delivers one told message wherever its entity is active.
func (k *Kind) tellOne(id string, msg any) error {
	ctx, cancel := context.WithTimeout(context.Background(), maxTellTime)
	defer cancel()
	go func() {
		select {
		case <-k.rt.tells.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	p := k.rt.placement
	w, err := Encode(msg)
	if err != nil {
		return err
	}
	for {
		m, local, err := p.Place(ctx, k.name, id)
		if err == nil && local {
			k.rt.actors.Root.Send(k.pid, &Envelope{ID: id, Msg: msg})
			return nil
		}
		if err == nil {
			_, err = p.Forward(ctx, m, Forwarded{Kind: k.name, ID: id, Msg: w, Tell: true})
			if err == nil || !errors.Is(err, ErrNotDelivered) {
				// Delivered, or maybe delivered (the owner did not answer in time): a
				// second try could apply it twice.
				return err
			}
			p.Moved(k.name, id, m)
		}
		if !pause(ctx, k.rt.Clock, retryPause) {
			return err
		}
	}
}

// SingletonKind is the pseudo-kind of the cluster-wide jobs, which a placement is asked
// to place like entities (Leads).
const SingletonKind = "singleton"

// Leads reports whether this member runs the cluster-wide job named job (the periodic
// sync, the usage sampler): on a single node always; in a cluster, only the member that
// holds the job's claim, which the first member to ask takes and keeps until it leaves
// or dies (then the next one to ask takes it). A member that cannot tell (the shared
// store is unreachable) does not run the job.
func (rt *Runtime) Leads(ctx context.Context, job string) bool {
	if rt.placement == nil {
		return true
	}
	_, local, err := rt.placement.Place(ctx, SingletonKind, job)
	return err == nil && local
}

// EveryOnOne is Every for a job that must run on one member of a cluster at a time:
// each run happens only on the member that Leads job.
func (rt *Runtime) EveryOnOne(job string, interval time.Duration, first bool, fn func(ctx context.Context, now time.Time)) *Loop {
	return Every(rt.Clock, rt.Log, job, interval, first, func(ctx context.Context, now time.Time) {
		if rt.Leads(ctx, job) {
			fn(ctx, now)
		}
	})
}
