package httpedge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/audit"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/token"
)

// Every request that may change something (any method but GET and HEAD) is described
// by an entry of the audit log before it runs: the route, the request id, the client
// and, once its token is checked, the caller. The entry goes in the request's context,
// and the room that makes the change adds it to the batch of the change (kit.Audit). A
// refusal is recorded on its own, since nothing else was written. Every room carries
// the entry of the changes it makes; the edge still records, right after the answer
// and only when no entry of its id is there yet (audit.Log.Record), an entry that no
// batch carried, for what has no batch of its own to carry it:
//   - a change made on another member of an earlier release (the entity was active
//     there): its answer does not say that the entry was carried (kit.Wired's
//     AuditCarried, which this release's members set), and the write finds it there
//     and adds nothing;
//   - a request that changed nothing (a retry answered from its Idempotency-Key, an
//     alert acknowledged already): the request is recorded though nothing was written;
//   - a password-reset request: its link is made and mailed later, in the background,
//     and only for an address with an account, which the log must not tell apart;
//   - the sync (POST /api/virt/sync): many batches, each machine's own, not one
//     change; its entry is written once it ended.

// auditEntry describes the request rt serves, or is nil for a read (and for a server
// without an audit log). Two GETs are recorded as writes: a console's ticket, which
// opens the machine's console, a use of the machine as much as a power action; and an
// OpenID Connect sign-in's callback, which is a login (a session opened, perhaps a
// user created, or a failure with its reason).
func (s *Server) auditEntry(rc *fasthttp.RequestCtx, id string, rt *api.Route, ar *auditRoute) *kit.AuditEntry {
	read := rt.Method == fasthttp.MethodGet || rt.Method == fasthttp.MethodHead
	if s.svc.Audit == nil || read && !strings.HasSuffix(rt.Path, "/console") && rt.Path != oidcCallbackPath {
		return nil
	}
	now := time.Now().UTC()
	e := &kit.AuditEntry{ID: audit.NewID(now), Time: now, Action: ar.action,
		RequestID: id, Client: s.clientIP(rc).String()}
	e.TargetKind, e.TargetID = auditTarget(rc, ar.segs)
	return e.Track()
}

// auditRoute is what every audit entry of a route repeats, made once with its handler
// (serveRoute) rather than on each request: its action, and its path's segments.
type auditRoute struct {
	action string   // "POST /api/client/firewall/rules"
	segs   []string // the path's segments after /api/
}

func newAuditRoute(rt *api.Route) *auditRoute {
	return &auditRoute{action: rt.Method + " " + rt.Path, segs: strings.Split(strings.TrimPrefix(rt.Path, "/api/"), "/")}
}

// oidcCallbackPath is the route of an OpenID Connect sign-in's callback.
const oidcCallbackPath = "/api/auth/oidc/{provider}/callback"

// auditTarget is what a route acts on: the record its path names (the collection before
// its first parameter, and that parameter's value; /api/resources/{kind}/{id} names its
// kind), or, for a route that names none (a create), the collection alone. segs are
// the route path's segments (auditRoute).
func auditTarget(rc *fasthttp.RequestCtx, segs []string) (kind, id string) {
	for i, seg := range segs {
		name, ok := strings.CutPrefix(seg, "{")
		if !ok {
			continue
		}
		v, _ := rc.UserValue(strings.TrimSuffix(name, "}")).(string)
		if name == "kind}" {
			kind = v
			continue
		}
		if kind == "" && i > 0 {
			kind = segs[i-1]
		}
		return kind, v
	}
	if kind == "" {
		kind = segs[len(segs)-1]
	}
	return kind, ""
}

// auditActor names the caller of e: the user, or the API key and the user it acts for;
// and the tenant the request concerns until its room says: a tenant user's own, or
// the one an operator names (?tenant_id=). Only a caller whose token was checked
// names one, so that nobody else puts entries in a tenant's log.
func auditActor(rc *fasthttp.RequestCtx, e *kit.AuditEntry, p *token.Claims) {
	if e == nil {
		return
	}
	e.Actor, e.ActorKind, e.UserID = p.Subject, "user", p.Subject
	if p.KeyID != "" {
		e.Actor, e.ActorKind = p.KeyID, "api_key"
	}
	switch {
	case p.Role != auth.RoleAdmin && p.TenantID != nil:
		e.TenantID = *p.TenantID
	case p.Role == auth.RoleAdmin:
		e.TenantID = string(rc.QueryArgs().Peek("tenant_id"))
	}
}

// auditRefusal records the refusal of e's request: a 4xx, which changed nothing. A
// server error is not recorded: the change it may have made carried its entry. The
// entry may have gone into a batch that the store then refused (a name taken
// meanwhile: 409): Record writes the refusal unless that batch did land.
func (s *Server) auditRefusal(ctx context.Context, e *kit.AuditEntry, err error) {
	ae := apierr.From(err)
	if e == nil || ae.Status >= 500 {
		return
	}
	c := *e
	c.Result, c.Reason = ae.Code, ae.Detail
	s.record(ctx, &c)
}

// auditDone records the change e's request made, unless its room carried the entry
// into the change's batch; res is the answer, which names a record just created.
func (s *Server) auditDone(ctx context.Context, e *kit.AuditEntry, res any) {
	if e == nil || e.Carried() {
		return
	}
	c := *e
	// On a single node this names a write path whose room does not carry the entry
	// (in a cluster, also one that carried it on a member of an earlier release).
	s.log.Debug("audit entry recorded after its change", zap.String("request_id", c.RequestID), zap.String("action", c.Action))
	if c.TargetID == "" {
		c.TargetID = createdID(res)
	}
	s.record(ctx, &c)
}

// createdID is the id in an answer: the record's, or a task's machine's.
func createdID(res any) string {
	if r, ok := res.(api.Reply); ok {
		res = r.Body
	}
	if res == nil {
		return ""
	}
	b, err := json.Marshal(res)
	if err != nil {
		return ""
	}
	var v struct {
		ID   string `json:"id"`
		Task *struct {
			MachineID string `json:"machine_id"`
		} `json:"task"`
	}
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	if v.ID == "" && v.Task != nil {
		return v.Task.MachineID
	}
	return v.ID
}

// record writes e alone (audit.Log.Record); a failure is logged, the answer is given.
func (s *Server) record(ctx context.Context, e *kit.AuditEntry) {
	if err := s.svc.Audit.Record(context.WithoutCancel(ctx), e); err != nil {
		s.log.Error("audit entry not recorded", zap.String("request_id", e.RequestID), zap.String("action", e.Action), zap.Error(err))
	}
}

// audit logs, at info, one line per write an authenticated caller made through the
// API: who changed what (user, method, path) and how it ended (status, or the error's
// code and detail). Reads and the auth routes (which log failed logins themselves) are
// left out, so the log holds what an operator needs and no request noise.
func (s *Server) audit(rc *fasthttp.RequestCtx, requestID string, p *token.Claims, rt *api.Route, status int, err error) {
	if p == nil || rt.Method == "GET" || rt.Method == "HEAD" || rt.Tag == "auth" {
		return
	}
	msg := "change"
	if err != nil {
		msg = "change refused"
	}
	// Checked first: with the log above info (a server tuned for load), a write pays
	// nothing for the line; below, its fields are made once, at their final size.
	ce := s.log.Check(zap.InfoLevel, msg)
	if ce == nil {
		return
	}
	fields := make([]zap.Field, 0, 9)
	fields = append(fields, zap.String("user", p.Email), zap.String("role", p.Role),
		zap.Stringp("tenant_id", p.TenantID), zap.String("method", rt.Method),
		zap.String("path", string(rc.Path())), zap.String("request_id", requestID))
	if err != nil {
		e := apierr.From(err)
		ce.Write(append(fields, zap.Int("status", e.Status), zap.String("code", e.Code), zap.String("reason", e.Detail))...)
		return
	}
	ce.Write(append(fields, zap.Int("status", status))...)
}

// auditRoutes are the audit log's routes.
func (s *Server) auditRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/api/audit", Access: api.Authenticated, Handler: s.listAudit, Tag: "audit",
			Summary: "Who did what: the audit log, newest first", Reply: api.Page[audit.Entry]{},
			Query: api.WithPage(map[string]string{
				"actor":  "a user or API key id: the entries it made, or a key made for it",
				"target": "a target's id, or kind/id (machines/<id>)",
				"action": "an action as recorded: the method and path template (POST /api/client/firewall/rules)",
				"since":  "RFC 3339 time: only entries made at or after it",
				"until":  "RFC 3339 time: only entries made at or before it",
			}),
			QueryTypes: map[string]api.QueryType{"actor": {MaxLength: 64}, "target": {MaxLength: 200}, "action": {MaxLength: 200}},
			Description: "Every change made through the API (writes, power actions, logins and failed logins with the reason, a login link's use, suspensions, settings), " +
				"recorded in the same write as the change, and every refused change (a 4xx: the refusal itself), with the actor (a user, or an API key and its user), " +
				"the action, the target, the result (ok or the problem code), the request id, the client's address and the time. Reads are not recorded, except a console's ticket (the use of a machine). " +
				"An operator sees every entry; a tenant user (or an operator's API key kept to a tenant) only its tenant's, without the client's address of a change made by someone not of the tenant (an operator). " +
				"Entries older than the retention (--audit-retention) are deleted."},
	}
}

func (s *Server) listAudit(c *api.Call) (any, error) {
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	f := audit.Filter{Actor: c.Query("actor"), Target: c.Query("target"), Action: c.Query("action")}
	// The edge checked both are RFC 3339 times (the route's query types).
	if v := c.Query("since"); v != "" {
		f.Since, _ = time.Parse(time.RFC3339Nano, v)
	}
	if v := c.Query("until"); v != "" {
		f.Until, _ = time.Parse(time.RFC3339Nano, v)
	}
	scope := c.Scope()
	items, next, err := s.svc.Audit.List(c.Context(), scope, f, cursor, limit)
	if err != nil {
		return nil, err
	}
	if scope != nil {
		if err := s.hideOutsiders(c.Context(), *scope, items); err != nil {
			return nil, err
		}
	}
	return api.PageOf(items, next), nil
}

// hideOutsiders blanks, in a tenant's entries, the client address of every entry made
// by a user who is not the tenant's (an operator acting on it): where the operator's
// staff connect from is theirs, not the tenant's. The ids stay, so that the tenant
// can name the change to support. An entry with no user (a failed login) keeps its
// address: it is the tenant's to see who tried its accounts.
func (s *Server) hideOutsiders(ctx context.Context, tenant string, items []audit.Entry) error {
	inside := map[string]bool{}
	for i := range items {
		e := &items[i]
		if e.UserID == "" || e.Client == "" {
			continue
		}
		in, ok := inside[e.UserID]
		if !ok {
			u, err := s.svc.Users.Get(ctx, e.UserID)
			switch {
			case errors.Is(err, apierr.ErrNotFound):
				// A user deleted since: not known to be the tenant's.
			case err != nil:
				return err
			default:
				in = u.TenantID != nil && *u.TenantID == tenant
			}
			inside[e.UserID] = in
		}
		if !in {
			e.Client = ""
		}
	}
	return nil
}
