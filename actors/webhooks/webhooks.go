package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Webhook is a webhook as the API shows it: never its secret.
type Webhook struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	// Events are the event types sent ("*": every type).
	Events []string `json:"events"`
	// TenantID, when set, limits the webhook to that tenant's events; null (an
	// operator's webhook): every event.
	TenantID *string `json:"tenant_id"`
	Enabled  bool    `json:"enabled"`
	// DisabledReason says why vmplane disabled the webhook (repeated failures); null
	// while it is enabled or when a user disabled it.
	DisabledReason *string `json:"disabled_reason"`
	// FailedInRow counts the events in a row whose every attempt failed (reset by a
	// delivery that succeeds); at Options.DisableAfter the webhook is disabled.
	FailedInRow int       `json:"failed_in_row"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// NewWebhook is a webhook as its creation answers it: with its secret, this once.
type NewWebhook struct {
	Webhook
	Secret string `json:"secret"`
}

// record is a webhook as stored under webhook/<id>.
type record struct {
	Webhook
	Secret string `json:"secret"`
}

const webhookVersion = 1

// Bounds of a webhook's fields.
const (
	MaxURLLen = 2048
	// MaxEvents bounds the event types one webhook names.
	MaxEvents = 32
	// MinSecretLen and MaxSecretLen bound a secret given on create or change.
	MinSecretLen, MaxSecretLen = 16, 200
	// SecretPrefix starts every secret vmplane generates.
	SecretPrefix = "whsec_"
)

// AllEvents is every event type, in a webhook's events.
const AllEvents = "*"

// WebhookSpec is the body of POST /api/resources/webhooks.
type WebhookSpec struct {
	URL    string   `json:"url" openapi:"required,limit=webhook.url" doc:"http:// or https:// URL the events are POSTed to; loopback, link-local and private addresses are refused (at creation and when connecting) unless VMPLANE_WEBHOOK_ALLOW_CIDRS allows them"`
	Events []string `json:"events" openapi:"required,limit=webhook.events,items.enum=machine.updated|machine.deleted|machine.terminated|machine.traffic_exceeded|task.updated|alert.updated|tenant.suspended|tenant.unsuspended|*" doc:"event types to send, or * for all"`
	Secret *string  `json:"secret,omitempty" openapi:"limit=webhook.secret" doc:"the HMAC-SHA256 key of the Vmplane-Signature header; omitted: vmplane generates one, shown in this answer only"`
	// TenantID is set by the edge: a tenant user's own tenant, or the one an operator names.
	TenantID *string `json:"tenant_id,omitempty" openapi:"limit=id" doc:"the tenant whose events the webhook gets; omitted by an operator: every event"`
	Enabled  *bool   `json:"enabled,omitempty" doc:"default true"`
}

// WebhookChange is the body of PATCH /api/resources/webhooks/{id}: what it omits keeps
// its value. Enabling a webhook vmplane disabled clears its failures in a row.
type WebhookChange struct {
	URL     *string  `json:"url,omitempty" openapi:"limit=webhook.url"`
	Events  []string `json:"events,omitempty" openapi:"limit=webhook.events,items.enum=machine.updated|machine.deleted|machine.terminated|machine.traffic_exceeded|task.updated|alert.updated|tenant.suspended|tenant.unsuspended|*"`
	Secret  *string  `json:"secret,omitempty" openapi:"limit=webhook.secret" doc:"a new secret (never shown again)"`
	Enabled *bool    `json:"enabled,omitempty"`
}

// Options tune the webhooks; zero fields take the defaults.
type Options struct {
	// AllowCIDRs are the addresses a webhook may reach although they are loopback,
	// link-local, private or unspecified (VMPLANE_WEBHOOK_ALLOW_CIDRS).
	AllowCIDRs []netip.Prefix
	// RetryFor is how long a delivery is retried (default a day).
	RetryFor time.Duration
	// DisableAfter is how many events in a row must fail every attempt before the
	// webhook is disabled (default 10).
	DisableAfter int
	// Interval is how often the deliverer looks for deliveries due (default 5 s); a
	// new delivery wakes it at once on the member that leads it.
	Interval time.Duration
	// Timeout bounds one attempt, connection included (default 10 s).
	Timeout time.Duration
	// Keep is how long a delivered or failed delivery stays in the log (default 30
	// days).
	Keep time.Duration
	// Clock, when set, replaces the runtime's clock for the deliveries (tests).
	Clock kit.Clock
}

// Defaults of Options.
const (
	DefaultRetryFor     = 24 * time.Hour
	DefaultDisableAfter = 10
	DefaultInterval     = 5 * time.Second
	DefaultTimeout      = 10 * time.Second
	DefaultKeep         = 30 * 24 * time.Hour
	// pruneEvery is how often the leader of the deliveries prunes the logs.
	pruneEvery = time.Hour
	// firstRetry and maxRetry bound the backoff between attempts.
	firstRetry = 30 * time.Second
	maxRetry   = time.Hour
)

// Deps are what the webhooks need from outside their package.
type Deps struct {
	Runtime *kit.Runtime
	Events  *events.Events
	Alerts  *alerts.Alerts
	// TenantExists checks the tenant a webhook is for.
	TenantExists func(ctx context.Context, id string) error
	Options      Options
}

// Webhooks is the service of the webhooks. A webhook is written seldom, so it has no
// entity: each write is one conditional batch (the record as it was read).
type Webhooks struct {
	rt           *kit.Runtime
	store        persistence.Store
	log          *zap.Logger
	events       *events.Events
	alerts       *alerts.Alerts
	tenantExists func(ctx context.Context, id string) error
	opts         Options
	clock        kit.Clock
	targets      Targets
	sender       *sender

	// cache holds the webhooks for the fan-out, dropped by the store's watch of their
	// keys (in a cluster, another member's change arrives a moment after its write).
	cacheMu sync.Mutex
	cache   []record
	cached  bool
	gen     uint64 // counts the watch's drops

	kick chan struct{}
	// pruned is when the deliverer last pruned the logs (its goroutine's alone).
	pruned time.Time
	stop   context.CancelFunc
	wg     sync.WaitGroup
}

// Start returns the webhooks' service and starts its event watcher and its deliverer.
func Start(d Deps) *Webhooks {
	o := d.Options
	if o.RetryFor <= 0 {
		o.RetryFor = DefaultRetryFor
	}
	if o.DisableAfter <= 0 {
		o.DisableAfter = DefaultDisableAfter
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Keep <= 0 {
		o.Keep = DefaultKeep
	}
	clock := o.Clock
	if clock == nil {
		clock = d.Runtime.Clock
	}
	w := &Webhooks{rt: d.Runtime, store: d.Runtime.Store, log: d.Runtime.Log.Named("webhooks"), events: d.Events, alerts: d.Alerts,
		tenantExists: d.TenantExists, opts: o, clock: clock, targets: Targets{Allow: o.AllowCIDRs}, kick: make(chan struct{}, 1)}
	w.sender = newSender(w.targets, o.Timeout)
	w.store.Watch(persistence.Prefix("webhook"), func([]byte) {
		w.cacheMu.Lock()
		w.cached, w.cache = false, nil
		w.gen++
		w.cacheMu.Unlock()
	})
	ctx, cancel := context.WithCancel(context.Background())
	w.stop = cancel
	w.wg.Add(2)
	go w.watch(ctx)
	// The ticker is made here, not in the goroutine: a fake clock advanced right after
	// Start must find it.
	go w.deliverLoop(ctx, w.clock.NewTicker(o.Interval))
	return w
}

// Stop ends the watcher and the deliverer (an attempt in flight is cancelled; its
// delivery is attempted again once its claim lapses).
func (w *Webhooks) Stop() {
	w.stop()
	w.wg.Wait()
	w.sender.close()
}

// Get returns one webhook; with a tenant scope, another tenant's is not found.
func (w *Webhooks) Get(ctx context.Context, id string, scope *string) (Webhook, error) {
	r, _, err := w.load(ctx, id, scope)
	if err != nil {
		return Webhook{}, err
	}
	return r.Webhook, nil
}

func errNotFound(id string) error { return apierr.NotFound("webhook", id) }

// load returns a webhook's record and its stored value, which a write requires unchanged.
func (w *Webhooks) load(ctx context.Context, id string, scope *string) (*record, []byte, error) {
	if id == "" || len(id) > 64 || strings.Contains(id, "/") {
		return nil, nil, errNotFound(id)
	}
	raw, err := w.store.Get(ctx, webhookKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return nil, nil, errNotFound(id)
	}
	if err != nil {
		return nil, nil, err
	}
	var r record
	if _, err := persistence.Decode(raw, &r); err != nil {
		return nil, nil, err
	}
	if scope != nil && (r.TenantID == nil || *r.TenantID != *scope) {
		return nil, nil, errNotFound(id)
	}
	return &r, raw, nil
}

// List returns webhooks in creation order: a tenant's own with a scope, else all.
func (w *Webhooks) List(ctx context.Context, scope *string, cursor string, limit int) ([]Webhook, string, error) {
	return kit.ScanPage(ctx, w.store, persistence.Prefix("webhook"), cursor, limit, func(r *record) (Webhook, bool) {
		return r.Webhook, scope == nil || (r.TenantID != nil && *r.TenantID == *scope)
	})
}

// TenantHasWebhooks says whether a tenant has webhooks, which keep it from being
// deleted (tenants.Deps' HasWebhooks).
func (w *Webhooks) TenantHasWebhooks(ctx context.Context, tenant string) (bool, error) {
	all, err := w.webhooksNow(ctx)
	if err != nil {
		return false, err
	}
	for i := range all {
		if all[i].TenantID != nil && *all[i].TenantID == tenant {
			return true, nil
		}
	}
	return false, nil
}

// Create records a new webhook, for s.TenantID's events (nil: every event). A
// request made with an Idempotency-Key (ctx carries its stamp) records its answer in
// the same write.
func (w *Webhooks) Create(ctx context.Context, s WebhookSpec) (NewWebhook, error) {
	st := kit.StampOf(ctx)
	if a, ok, err := kit.Recorded[NewWebhook](st); ok {
		return a, err
	}
	now := w.clock.Now().UTC()
	r := record{Webhook: Webhook{ID: persistence.NewID(), URL: s.URL, Events: normalEvents(s.Events), TenantID: s.TenantID, Enabled: true,
		CreatedAt: now, UpdatedAt: now}}
	if s.Enabled != nil {
		r.Enabled = *s.Enabled
	}
	if s.Secret != nil {
		r.Secret = *s.Secret
	} else {
		r.Secret = newSecret()
	}
	if f := w.validate(&r, s.Events == nil); len(f) > 0 {
		return NewWebhook{}, apierr.Invalid(f...)
	}
	if r.TenantID != nil {
		if err := w.tenantExists(ctx, *r.TenantID); err != nil {
			return NewWebhook{}, apierr.Invalid(apierr.Field("tenant_id", "no tenant %s", *r.TenantID))
		}
	}
	val, err := persistence.Encode(webhookVersion, &r)
	if err != nil {
		return NewWebhook{}, err
	}
	out := NewWebhook(r)
	b := new(persistence.Batch).Require(persistence.IfAbsent(webhookKey(r.ID))).Put(webhookKey(r.ID), val)
	if err := st.Carry(b, out); err != nil {
		return NewWebhook{}, err
	}
	if err := w.store.Commit(ctx, b); err != nil {
		return NewWebhook{}, err
	}
	return out, nil
}

// Update changes a webhook: what c omits keeps its value.
func (w *Webhooks) Update(ctx context.Context, id string, c WebhookChange, scope *string) (Webhook, error) {
	r, raw, err := w.load(ctx, id, scope)
	if err != nil {
		return Webhook{}, err
	}
	if c.URL != nil {
		r.URL = *c.URL
	}
	if c.Events != nil {
		r.Events = normalEvents(c.Events)
	}
	if c.Secret != nil {
		r.Secret = *c.Secret
	}
	reenabled := false
	if c.Enabled != nil {
		reenabled = *c.Enabled && !r.Enabled
		r.Enabled = *c.Enabled
		r.DisabledReason = nil
		if reenabled {
			r.FailedInRow = 0
		}
	}
	if f := w.validate(r, false); len(f) > 0 {
		return Webhook{}, apierr.Invalid(f...)
	}
	r.UpdatedAt = w.clock.Now().UTC()
	if err := w.save(ctx, r, raw); err != nil {
		return Webhook{}, err
	}
	if reenabled {
		w.alerts.Clear(alerts.AlertWebhookDisabled, r.ID)
	}
	return r.Webhook, nil
}

// save writes r, requiring the stored value still raw.
func (w *Webhooks) save(ctx context.Context, r *record, raw []byte) error {
	val, err := persistence.Encode(webhookVersion, r)
	if err != nil {
		return err
	}
	err = w.store.Commit(ctx, new(persistence.Batch).Require(persistence.IfValue(webhookKey(r.ID), raw)).Put(webhookKey(r.ID), val))
	if persistence.IsConditionFailed(err) {
		return apierr.New(apierr.ErrConflict, "webhook %s changed while it was written; try again", r.ID)
	}
	return err
}

// Delete deletes a webhook and its delivery log; deliveries still due are dropped
// by the deliverer when it finds the webhook gone.
func (w *Webhooks) Delete(ctx context.Context, id string, scope *string) error {
	_, raw, err := w.load(ctx, id, scope)
	if err != nil {
		return err
	}
	err = w.store.Commit(ctx, new(persistence.Batch).Require(persistence.IfValue(webhookKey(id), raw)).Del(webhookKey(id)))
	if persistence.IsConditionFailed(err) {
		return apierr.New(apierr.ErrConflict, "webhook %s changed while it was deleted; try again", id)
	} else if err != nil {
		return err
	}
	w.alerts.Clear(alerts.AlertWebhookDisabled, id)
	// The log goes in batches of its own: a crash midway leaves records of a webhook
	// that no longer exists, which nothing lists.
	for {
		var keys [][]byte
		err := w.store.Scan(ctx, persistence.Prefix("webhook-delivery", id), nil, 500, func(k, _ []byte) error {
			keys = append(keys, slices.Clone(k))
			return nil
		})
		if err != nil || len(keys) == 0 {
			return err
		}
		b := new(persistence.Batch)
		for _, k := range keys {
			b.Del(k)
		}
		if err := w.store.Commit(ctx, b); err != nil {
			return err
		}
	}
}

// normalEvents is events sorted, without repeats; never nil.
func normalEvents(ev []string) []string {
	out := slices.Clone(ev)
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// validate checks a webhook's fields for every caller.
func (w *Webhooks) validate(r *record, noEvents bool) []apierr.FieldError {
	var f []apierr.FieldError
	if msg := w.targets.CheckURL(r.URL); msg != "" {
		f = append(f, apierr.Field("url", "%s", msg))
	}
	switch {
	case noEvents || len(r.Events) == 0:
		f = append(f, apierr.Field("events", "name at least one event type, or * for all"))
	case len(r.Events) > MaxEvents:
		f = append(f, apierr.Field("events", "name at most %d event types", MaxEvents))
	}
	for _, e := range r.Events {
		if e != AllEvents && !slices.Contains(events.Types, e) {
			f = append(f, apierr.Field("events", "unknown event type %q: want * or one of %s", e, strings.Join(events.Types, ", ")))
		}
	}
	if n := len(r.Secret); n < MinSecretLen || n > MaxSecretLen {
		f = append(f, apierr.Field("secret", "must be %d..%d characters", MinSecretLen, MaxSecretLen))
	}
	return f
}

// wants reports whether the webhook is sent ev.
func (r *record) wants(ev events.Event) bool {
	if !r.Enabled || (!slices.Contains(r.Events, AllEvents) && !slices.Contains(r.Events, ev.Type)) {
		return false
	}
	return r.TenantID == nil || (ev.TenantID != nil && *ev.TenantID == *r.TenantID)
}

// newSecret is a new webhook secret: 256 random bits.
func newSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("webhooks: reading random bytes: " + err.Error())
	}
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// webhooksNow returns every webhook, from the cache when the store's watch has not
// dropped it since it was read.
func (w *Webhooks) webhooksNow(ctx context.Context) ([]record, error) {
	w.cacheMu.Lock()
	if w.cached {
		c := w.cache
		w.cacheMu.Unlock()
		return c, nil
	}
	gen := w.gen
	w.cacheMu.Unlock()
	var out []record
	err := w.store.Scan(ctx, persistence.Prefix("webhook"), nil, 0, func(_, v []byte) error {
		var r record
		if _, err := persistence.Decode(v, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.cacheMu.Lock()
	defer w.cacheMu.Unlock()
	if w.gen == gen {
		// No write landed while the scan ran: what it read is current.
		w.cache, w.cached = out, true
	}
	return out, nil
}

// validURL is the shape check of a webhook's URL: "" when it is fine.
func validURL(s string) string {
	if len(s) > MaxURLLen {
		return fmt.Sprintf("must be at most %d characters", MaxURLLen)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" || u.User != nil {
		return "must be an http:// or https:// URL with a host (and no user or password)"
	}
	return ""
}
