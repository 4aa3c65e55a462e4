package kit

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Who did what is recorded in the batch of the change itself, so that nothing is
// recorded that did not happen and nothing happens unrecorded. The edge describes the
// request (an AuditEntry: the caller, the route, the request id and client) and puts it
// in the request's context; Ask carries it in the envelope to the entity, on this
// member or another, where Ctx.Audit hands it to the handler; the handler adds it to
// the batch it commits with Runtime.Audit. The record's key and encoding belong to the
// audit room, which hands the runtime the function that writes one (SetAuditor).

// AuditEntry is one record of the audit log: an actor, an action on a target, and its
// result. It travels with a request as plain JSON.
type AuditEntry struct {
	// ID orders the log (the audit room makes it; newest first).
	ID   string    `json:"id"`
	Time time.Time `json:"time"`
	// Actor is who acted: a user id, or an API key id (ActorKind says which).
	Actor string `json:"actor,omitempty"`
	// ActorKind is "user" or "api_key" ("" for a caller not known, a failed login).
	ActorKind string `json:"actor_kind,omitempty"`
	// UserID is the user the actor is or acts for (a key's user).
	UserID string `json:"user_id,omitempty"`
	// Action is the route: its method and path template.
	Action string `json:"action"`
	// TargetKind and TargetID name what the action is on.
	TargetKind string `json:"target_kind,omitempty"`
	TargetID   string `json:"target_id,omitempty"`
	// Result is "ok", or the problem code of a refusal.
	Result string `json:"result"`
	// Reason is a refusal's detail (why a login failed).
	Reason    string `json:"reason,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	// Client is the caller's address.
	Client string `json:"client,omitempty"`
	// TenantID is the tenant the action concerns, when one does.
	TenantID string `json:"tenant_id,omitempty"`

	// carried, shared by the copies made on this member, is set once the entry went
	// into a batch: the edge then need not record it itself.
	carried *atomic.Bool
}

// AuditResultOK is the result of an action that applied.
const AuditResultOK = "ok"

// On returns a copy of e naming its target (kind, id) and, when tenant is not empty,
// the tenant it concerns: what a handler knows once it has made the change (the id of
// a record just created). A nil e gives nil.
func (e *AuditEntry) On(kind, id, tenant string) *AuditEntry {
	if e == nil {
		return nil
	}
	c := *e
	if kind != "" {
		c.TargetKind = kind
	}
	if id != "" {
		c.TargetID = id
	}
	if tenant != "" {
		c.TenantID = tenant
	}
	return &c
}

// Deref is *p, or "" for nil: a record's optional tenant, for On.
func Deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// By returns a copy of e whose actor is the user id, when e names no actor (a login,
// whose caller is known only once the password matched). A nil e gives nil.
func (e *AuditEntry) By(user string) *AuditEntry {
	if e == nil {
		return nil
	}
	c := *e
	if c.Actor == "" {
		c.Actor, c.ActorKind, c.UserID = user, "user", user
	}
	return &c
}

// Carried reports whether e (or a copy of it made on this member) went into a batch.
func (e *AuditEntry) Carried() bool { return e != nil && e.carried != nil && e.carried.Load() }

// Track makes e report Carried once a copy of it went into a batch; the edge calls it
// on the entry it puts in a request's context.
func (e *AuditEntry) Track() *AuditEntry {
	if e != nil && e.carried == nil {
		e.carried = new(atomic.Bool)
	}
	return e
}

// markCarried makes a tracked e report Carried: a copy of it went into a batch on
// another member (the answer of a forwarded request said so).
func (e *AuditEntry) markCarried() {
	if e != nil && e.carried != nil {
		e.carried.Store(true)
	}
}

// AuditKey is the context key of a request's audit entry (WithAudit, AuditOf). It is
// exported for a context that carries the entry in a field of its own and answers
// Value(AuditKey{}) with it (the edge's request context), sparing the allocation of a
// context.WithValue on every audited request.
type AuditKey struct{}

// WithAudit returns ctx carrying e, the entry of the request's change.
func WithAudit(ctx context.Context, e *AuditEntry) context.Context {
	return context.WithValue(ctx, AuditKey{}, e)
}

// AuditOf is the entry ctx carries, or nil (a read, a job, a request made for no caller).
func AuditOf(ctx context.Context) *AuditEntry {
	e, _ := ctx.Value(AuditKey{}).(*AuditEntry)
	return e
}

// Auditor adds an entry to a batch: the audit room's encoding and key.
type Auditor func(b *persistence.Batch, e *AuditEntry) error

// SetAuditor installs the audit room's writer; without one, Audit adds nothing.
func (rt *Runtime) SetAuditor(a Auditor) { rt.auditor.Store(&a) }

// Audit adds e, with the result ok, to b, the batch of the change it records. A nil e
// (no request to record) leaves b as it is.
func (rt *Runtime) Audit(b *persistence.Batch, e *AuditEntry) error {
	a := rt.auditor.Load()
	if e == nil || a == nil {
		return nil
	}
	c := *e
	if c.Result == "" {
		c.Result = AuditResultOK
	}
	if c.Time.IsZero() {
		c.Time = rt.Clock.Now().UTC()
	}
	if err := (*a)(b, &c); err != nil {
		return apierr.New(apierr.ErrInternal, "audit: the entry cannot be recorded: %v", err)
	}
	if e.carried != nil {
		e.carried.Store(true)
	}
	return nil
}

// Audit is the entry of the request being handled, or nil: what the handler adds to
// the batch of the change it makes (Runtime.Audit).
func (c *Ctx) Audit() *AuditEntry { return c.audit }
