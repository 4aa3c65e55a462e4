package alerts

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/vmplane/vmplane/actors/events"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Alert kinds: what condition an alert event reports.
const (
	// AlertHealthCheck: a health check is failing (target: the check).
	AlertHealthCheck = "health_check"
	// AlertNodeOffline: a hypervisor node is offline (target: the node).
	AlertNodeOffline = "node_offline"
	// AlertTaskFailed: a machine's last task failed (target: the machine).
	AlertTaskFailed = "task_failed"
	// AlertNodeUsageHigh: a node's cpu or memory stayed above the threshold (target: the node).
	AlertNodeUsageHigh = "node_usage_high"
	// AlertFirewallFailed: the hypervisor refused or could not take a machine's
	// firewall rules (target: the machine; cleared by its next successful push).
	AlertFirewallFailed = "firewall_failed"
)

// Alert severities.
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// Alert statuses. An alert is open while firing or acknowledged: acknowledging
// silences it for the overview without claiming the condition ended.
const (
	AlertFiring       = "firing"
	AlertAcknowledged = "acknowledged"
	AlertResolved     = "resolved"
)

// Alert is one alert event: an episode of a condition on a target, from the moment it
// was raised until it was resolved. A condition that persists updates its open event
// rather than adding another, so there is at most one open event per (kind, target).
type Alert struct {
	ID         string  `json:"id"`
	Kind       string  `json:"kind"`
	Severity   string  `json:"severity"`
	TargetType string  `json:"target_type"`
	TargetID   string  `json:"target_id"`
	TenantID   *string `json:"tenant_id"`
	// MachineID is the machine a health check alert concerns, when its check names one.
	MachineID      *string    `json:"machine_id,omitempty"`
	Message        string     `json:"message"`
	Status         string     `json:"status"`
	StartedAt      time.Time  `json:"started_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	AcknowledgedAt *time.Time `json:"acknowledged_at"`
	ResolvedAt     *time.Time `json:"resolved_at"`
}

// Open reports whether the alert's condition is still going on.
func (a Alert) Open() bool { return a.Status == AlertFiring || a.Status == AlertAcknowledged }

// AlertRaise is what raising an alert says: the condition (Kind on TargetID), how bad it
// is and a message for humans.
type AlertRaise struct {
	Kind       string  `json:"kind"`
	Severity   string  `json:"severity"`
	TargetType string  `json:"target_type"`
	TargetID   string  `json:"target_id"`
	TenantID   *string `json:"tenant_id"`
	MachineID  *string `json:"machine_id,omitempty"`
	Message    string  `json:"message"`
}

// AlertFilter narrows an alert list; zero fields match everything.
type AlertFilter struct {
	Status   string
	Severity string
	Kind     string
	// Since keeps the events changed (raised, updated, acknowledged or resolved) at or
	// after it: a poller that passes its last poll time sees every change since.
	Since *time.Time
}

func (f AlertFilter) match(a *Alert) bool {
	return (f.Status == "" || a.Status == f.Status) && (f.Severity == "" || a.Severity == f.Severity) &&
		(f.Kind == "" || a.Kind == f.Kind) && (f.Since == nil || !a.UpdatedAt.Before(*f.Since))
}

// ValidAlertStatus reports whether s is an alert status.
func ValidAlertStatus(s string) bool {
	return s == AlertFiring || s == AlertAcknowledged || s == AlertResolved
}

// ValidSeverity reports whether s is an alert severity.
func ValidSeverity(s string) bool {
	return s == SeverityInfo || s == SeverityWarning || s == SeverityCritical
}

// ValidAlertKind reports whether k is an alert kind.
func ValidAlertKind(k string) bool { return slices.Contains(AlertKinds, k) }

// AlertHypervisorUnavailable is raised when the hypervisor (the Proxmox API) does not
// answer (target: the driver, e.g. "proxmox"). Critical; it resolves when the
// hypervisor answers again.
const AlertHypervisorUnavailable = "hypervisor_unavailable"

// AlertWebhookDisabled is raised when vmplane disabled a webhook after repeated failed
// deliveries (target: the webhook); it resolves when the webhook is enabled again or
// deleted.
const AlertWebhookDisabled = "webhook_disabled"

// AlertTrafficExceeded is raised when a machine's traffic this month went past its
// plan's allowance (target: the machine; a warning); it resolves at the month's turn.
const AlertTrafficExceeded = "traffic_exceeded"

// AlertKinds lists every alert kind, for the API's enums and messages: a new kind is
// added here once.
var AlertKinds = []string{AlertHealthCheck, AlertNodeOffline, AlertTaskFailed, AlertNodeUsageHigh, AlertFirewallFailed,
	AlertHypervisorUnavailable, AlertWebhookDisabled, AlertTrafficExceeded}

const alertVersion = 1

// Keys of alerts (shared with the faulty-deployment rules, which read them):
//
//	alert/<id>                      the event
//	alert-open/<tenant|_>/<id>      open events, for the overviews' counts
//	alert-cond/<kind>/<target>      the open event of a condition → its id
//	alert-tenant/<tenant>/<id>      a tenant's events, for its list
func alertKey(id string) []byte { return persistence.Key("alert", id) }
func alertOpenKey(tenant *string, id string) []byte {
	return persistence.Key("alert-open", tenantOr(tenant, "_"), id)
}
func ConditionKey(kind, target string) []byte { return persistence.Key("alert-cond", kind, target) }
func alertTenantKey(tenant, id string) []byte { return persistence.Key("alert-tenant", tenant, id) }

func tenantOr(t *string, def string) string {
	if t == nil || *t == "" {
		return def
	}
	return *t
}

// Alerts owns alert events. Each condition (kind, target) is an entity of the "alerts"
// kind, so the raises and resolves of one condition are serialised (one open event per
// condition, exactly one per episode) while different conditions proceed in parallel.
type Alerts struct {
	sys  *system
	kind *kit.Kind
}

// Messages of an alert (condition) entity.
type (
	raiseAlert   struct{ R AlertRaise }
	resolveAlert struct{}
	ackAlert     struct{ ID string }
)

func startAlerts(s *system) *Alerts {
	a := &Alerts{sys: s}
	a.kind = s.rt.StartKind("alerts", 2*time.Minute, func(id string) kit.Entity {
		kind, target, _ := strings.Cut(id, ":")
		return &alertEntity{sys: s, kind: kind, target: target}
	}, nil)
	return a
}

// conditionID names the entity of a condition. Kinds hold no ':', so the first one
// separates the kind from the target.
func conditionID(kind, target string) string { return kind + ":" + target }

func validTarget(target string) bool { return target != "" && len(target) <= 128 }

// Raise opens the alert of r's condition, or updates the open one's message and
// severity. It answers the open event.
func (a *Alerts) Raise(ctx context.Context, r AlertRaise) (Alert, error) {
	if err := r.validate(); err != nil {
		return Alert{}, err
	}
	return kit.Ask[Alert](ctx, a.kind, conditionID(r.Kind, r.TargetID), &raiseAlert{R: r})
}

// Resolve ends the open alert of condition (kind, targetID), if there is one. It answers
// the resolved event, or a zero Alert when none was open.
func (a *Alerts) Resolve(ctx context.Context, kind, targetID string) (Alert, error) {
	if !ValidAlertKind(kind) || !validTarget(targetID) {
		return Alert{}, apierr.New(apierr.ErrInvalidRequest, "bad alert condition %s/%s", kind, targetID)
	}
	return kit.Ask[Alert](ctx, a.kind, conditionID(kind, targetID), &resolveAlert{})
}

// Notify is Raise without waiting, for entities that must not block their mailbox on
// another entity's write. The condition's entity logs a failure.
func (a *Alerts) Notify(r AlertRaise) {
	if a == nil || r.validate() != nil {
		return
	}
	a.kind.Send(conditionID(r.Kind, r.TargetID), &raiseAlert{R: r})
}

// Clear is Resolve without waiting.
func (a *Alerts) Clear(kind, targetID string) {
	if a == nil || !validTarget(targetID) {
		return
	}
	a.kind.Send(conditionID(kind, targetID), &resolveAlert{})
}

// NodeStatus follows a node's status from the node's own entity: offline raises the
// node_offline alert, online resolves it, and "" (the node is gone from the
// hypervisor) resolves every alert of the node.
func (a *Alerts) NodeStatus(id, status string) {
	switch status {
	case string(hypervisor.NodeOffline):
		a.Notify(AlertRaise{Kind: AlertNodeOffline, Severity: SeverityCritical, TargetType: "node", TargetID: id,
			Message: "node " + id + " is offline"})
	case "":
		a.Clear(AlertNodeUsageHigh, id)
		a.Clear(AlertNodeOffline, id)
	default:
		a.Clear(AlertNodeOffline, id)
	}
}

func (r AlertRaise) validate() error {
	var f []apierr.FieldError
	if !ValidAlertKind(r.Kind) {
		f = append(f, apierr.Field("kind", "unknown alert kind %q", r.Kind))
	}
	if !ValidSeverity(r.Severity) {
		f = append(f, apierr.Field("severity", "must be info, warning or critical"))
	}
	if !validTarget(r.TargetID) {
		f = append(f, apierr.Field("target_id", "must be 1..128 characters"))
	}
	if r.TargetType == "" {
		f = append(f, apierr.Field("target_type", "is required"))
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}

// Get returns one alert event. With a tenant scope, another tenant's (or an
// operator-only) event is not found.
func (a *Alerts) Get(ctx context.Context, id string, scope *string) (Alert, error) {
	if id == "" || len(id) > 64 || strings.Contains(id, "/") {
		return Alert{}, apierr.NotFound("alert event", id)
	}
	rec, err := Load(ctx, a.sys.store, id)
	if errors.Is(err, persistence.ErrNotFound) {
		return Alert{}, apierr.NotFound("alert event", id)
	}
	if err != nil {
		return Alert{}, err
	}
	if !kit.InScope(scope, rec.TenantID) {
		return Alert{}, apierr.NotFound("alert event", id)
	}
	return *rec, nil
}

// Acknowledge marks an open alert event acknowledged: someone is on it. It stays open
// (its condition goes on) and resolves when the condition ends. Acknowledging an
// acknowledged event changes nothing; a resolved one is 409 invalid_state.
func (a *Alerts) Acknowledge(ctx context.Context, id string, scope *string) (Alert, error) {
	rec, err := a.Get(ctx, id, scope)
	if err != nil {
		return Alert{}, err
	}
	if !rec.Open() {
		return Alert{}, apierr.New(apierr.ErrInvalidState, "alert event %s is %s", id, rec.Status)
	}
	return kit.Ask[Alert](ctx, a.kind, conditionID(rec.Kind, rec.TargetID), &ackAlert{ID: id})
}

// List returns alert events in creation order (oldest first, as every list), filtered;
// with a tenant scope only that tenant's.
func (a *Alerts) List(ctx context.Context, f AlertFilter, scope *string, cursor string, limit int) ([]Alert, string, error) {
	if scope == nil {
		return kit.ScanPage(ctx, a.sys.store, persistence.Prefix("alert"), cursor, limit, func(r *Alert) (Alert, bool) {
			return *r, f.match(r)
		})
	}
	// The page's records in one read: on a cluster, one request to etcd, not one each.
	return kit.ScanIndexMany(ctx, a.sys.store, persistence.Prefix("alert-tenant", *scope), cursor, limit, alertKey, func(_ string, v []byte) (Alert, bool, error) {
		var rec Alert
		if _, err := persistence.Decode(v, &rec); err != nil {
			return Alert{}, false, err
		}
		return rec, f.match(&rec), nil
	})
}

// OpenCount counts a tenant's open alerts.
func (a *Alerts) OpenCount(ctx context.Context, tenant string) (int, error) {
	n := 0
	err := a.sys.store.Scan(ctx, persistence.Prefix("alert-open", tenant), nil, 0, func(_, _ []byte) error { n++; return nil })
	return n, err
}

// OpenAlerts returns every open alert event.
func (a *Alerts) OpenAlerts(ctx context.Context) ([]Alert, error) {
	prefix := persistence.Prefix("alert-open")
	var ids []string
	err := a.sys.store.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
		rest := string(k[len(prefix):])
		if i := strings.LastIndexByte(rest, '/'); i >= 0 {
			ids = append(ids, rest[i+1:])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Alert, 0, len(ids))
	for _, id := range ids {
		rec, err := Load(ctx, a.sys.store, id)
		if errors.Is(err, persistence.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *rec)
	}
	return out, nil
}

// OpenTargets returns the targets of kind's open alerts, as the store has them.
func (a *Alerts) OpenTargets(ctx context.Context, kind string) (map[string]bool, error) {
	prefix := persistence.Prefix("alert-cond", kind)
	out := map[string]bool{}
	err := a.sys.store.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
		out[string(k[len(prefix):])] = true
		return nil
	})
	return out, err
}

// IsOpen reports whether kind's alert on target is open, as the store has it (in a
// cluster, another member may have raised it).
func (a *Alerts) IsOpen(ctx context.Context, kind, target string) bool {
	_, err := a.sys.store.Get(ctx, ConditionKey(kind, target))
	return err == nil
}

func Load(ctx context.Context, store persistence.Store, id string) (*Alert, error) {
	return persistence.Load[Alert](ctx, store, alertKey(id))
}

// alertEntity owns one condition: its open event, if any.
type alertEntity struct {
	sys          *system
	kind, target string
	open         *Alert
}

func (e *alertEntity) Load() error {
	e.open = nil
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	id, err := e.sys.store.Get(ctx, ConditionKey(e.kind, e.target))
	if errors.Is(err, persistence.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	rec, err := Load(ctx, e.sys.store, string(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return nil // a dangling index: the next raise replaces it
	}
	if err != nil {
		return err
	}
	if rec.Open() {
		e.open = rec
	}
	return nil
}

func (e *alertEntity) Handle(ctx *kit.Ctx, msg any) {
	var (
		a   Alert
		err error
	)
	switch m := msg.(type) {
	case *raiseAlert:
		a, err = e.raise(m.R)
	case *resolveAlert:
		a, err = e.resolve()
	case *ackAlert:
		a, err = e.ack(m.ID, ctx.Audit())
	default:
		err = apierr.New(apierr.ErrInternal, "unexpected message")
	}
	if err != nil && !ctx.Answers() {
		// Told, not asked: nobody else hears of it.
		e.sys.log.Error("alert change not recorded", zap.String("kind", e.kind), zap.String("target", e.target), zap.Error(err))
	}
	if !ctx.Answers() {
		return
	}
	if err != nil {
		ctx.Fail(err)
		return
	}
	ctx.Respond(a)
}

func (e *alertEntity) raise(r AlertRaise) (Alert, error) {
	now := time.Now().UTC()
	if e.open != nil {
		if e.open.Message == r.Message && e.open.Severity == r.Severity {
			// The condition persists as reported: nothing to write.
			return *e.open, nil
		}
		next := *e.open
		next.Message, next.Severity, next.UpdatedAt = r.Message, r.Severity, now
		return next, e.save(next, nil)
	}
	a := Alert{ID: persistence.NewID(), Kind: e.kind, Severity: r.Severity, TargetType: r.TargetType, TargetID: e.target,
		TenantID: r.TenantID, MachineID: r.MachineID, Message: r.Message, Status: AlertFiring, StartedAt: now, UpdatedAt: now}
	return a, e.save(a, nil)
}

func (e *alertEntity) resolve() (Alert, error) {
	if e.open == nil {
		return Alert{}, nil
	}
	now := time.Now().UTC()
	next := *e.open
	next.Status, next.ResolvedAt, next.UpdatedAt = AlertResolved, &now, now
	return next, e.save(next, nil)
}

// ack acknowledges the open event id; audit, the entry of the request, goes in the
// batch of the change (an event acknowledged already writes nothing: the edge records
// the request alone).
func (e *alertEntity) ack(id string, audit *kit.AuditEntry) (Alert, error) {
	if e.open == nil || e.open.ID != id {
		return Alert{}, apierr.New(apierr.ErrInvalidState, "alert event %s is resolved", id)
	}
	if e.open.Status == AlertAcknowledged {
		return *e.open, nil
	}
	now := time.Now().UTC()
	next := *e.open
	next.Status, next.AcknowledgedAt, next.UpdatedAt = AlertAcknowledged, &now, now
	return next, e.save(next, audit.On("", next.ID, kit.Deref(next.TenantID)))
}

// save writes the event with its indexes in one durable batch, then publishes it.
// audit, when set, is the entry of the request that made the change: it goes in the
// same batch.
func (e *alertEntity) save(a Alert, audit *kit.AuditEntry) error {
	val, err := persistence.Encode(alertVersion, a)
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(alertKey(a.ID), val)
	if a.TenantID != nil && *a.TenantID != "" {
		b.Put(alertTenantKey(*a.TenantID, a.ID), nil)
	}
	if a.Open() {
		b.Put(alertOpenKey(a.TenantID, a.ID), nil)
		b.Put(ConditionKey(e.kind, e.target), []byte(a.ID))
	} else {
		b.Del(alertOpenKey(a.TenantID, a.ID))
		b.Del(ConditionKey(e.kind, e.target))
	}
	if e.open != nil && e.open.ID != a.ID {
		// Not expected (one open event per condition), but never leave one dangling.
		b.Del(alertOpenKey(e.open.TenantID, e.open.ID))
	}
	if err := e.sys.rt.Audit(b, audit); err != nil {
		return err
	}
	if err := e.sys.rt.Commit(b); err != nil {
		return err
	}
	if a.Open() {
		e.open = &a
	} else {
		e.open = nil
	}
	e.sys.Events.Publish(events.EventAlert, a.TenantID, a)
	return nil
}

// Absent implements kit.Absence.
func (e *alertEntity) Absent() bool { return e.open == nil }

// The runtime finds these behaviours by interface: the compiler checks them, since a
// misnamed method would silently turn them off.
var (
	_ kit.Absence = (*alertEntity)(nil)
)
