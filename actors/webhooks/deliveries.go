package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
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

// Delivery statuses.
const (
	// DeliveryPending: an attempt is due (or in flight).
	DeliveryPending = "pending"
	// DeliveryDelivered: an attempt got a 2xx answer.
	DeliveryDelivered = "delivered"
	// DeliveryFailed: every attempt within the retry time failed, or the webhook was
	// disabled before one succeeded.
	DeliveryFailed = "failed"
)

// MaxAttemptsKept bounds a delivery's log: the oldest attempts beyond it are dropped.
const MaxAttemptsKept = 50

// Attempt is one POST of a delivery.
type Attempt struct {
	At time.Time `json:"at"`
	// StatusCode is the receiver's answer; null when there was none (Error says why).
	StatusCode *int    `json:"status_code"`
	Error      *string `json:"error"`
	DurationMS int64   `json:"duration_ms"`
}

// Delivery is one event's delivery to one webhook. Its id is the event's id, so an
// event is queued once per webhook however many members see it.
type Delivery struct {
	ID        string `json:"id"`
	WebhookID string `json:"webhook_id"`
	EventID   uint64 `json:"event_id"`
	EventType string `json:"event_type"`
	Status    string `json:"status"`
	// Attempts are the POSTs made, oldest first (at most MaxAttemptsKept).
	Attempts      []Attempt  `json:"attempts"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	// RetryUntil is when a failing delivery stops being retried.
	RetryUntil time.Time `json:"retry_until"`
	// Error says why a delivery failed without an attempt (its webhook was disabled).
	Error     *string   `json:"error"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// deliveryRecord is a delivery as stored: with the body every attempt sends, the
// time its due key names, and the claim of the attempt in flight.
type deliveryRecord struct {
	Delivery
	Body json.RawMessage `json:"body"`
	// DueMS is the unix milliseconds of its webhook-due key while pending.
	DueMS int64 `json:"due_ms"`
	// Tries counts the attempts since it was (re)queued, for the backoff.
	Tries int `json:"tries"`
	// LeaseUntil, while an attempt is in flight, is when its claim lapses.
	LeaseUntil *time.Time `json:"lease_until,omitempty"`
}

const deliveryVersion = 1

// leaderJob is the cluster-wide job of the deliverer (kit.Runtime.Leads).
const leaderJob = "webhook deliveries"

// parallel bounds the attempts in flight; batch the deliveries one round takes.
const (
	parallel = 8
	batch    = 100
)

func deliveryID(eventID uint64) string { return fmt.Sprintf("%020d", eventID) }

func dueKeyMS(ms int64, webhook, delivery string) []byte {
	return persistence.Key("webhook-due", fmt.Sprintf("%015d", ms), webhook, delivery)
}

// watch follows this member's events (SubscribeLocal: each event is queued by the
// member whose entity published it) and queues their deliveries.
func (w *Webhooks) watch(ctx context.Context) {
	defer w.wg.Done()
	var last uint64
	for {
		backlog, sub, gone := w.events.SubscribeLocal(last)
		if gone {
			w.log.Warn("webhooks missed events that left the backlog", zap.Uint64("after_event", last))
		}
		for _, ev := range backlog {
			w.queue(ctx, ev)
			last = ev.ID
		}
	follow:
		for {
			select {
			case <-ctx.Done():
				sub.Close()
				return
			case ev, ok := <-sub.C:
				if !ok {
					break follow
				}
				w.queue(ctx, ev)
				last = ev.ID
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
			// Cut off (this watcher fell behind), or the bus closed: subscribe again,
			// without spinning.
		}
	}
}

// queue writes a delivery of ev for each webhook that wants it. Each is conditional
// on its absence, so that an event is queued once per webhook.
func (w *Webhooks) queue(ctx context.Context, ev events.Event) {
	defer kit.Recover(w.log, "webhook queue", nil)
	hooks, err := w.webhooksNow(ctx)
	if err != nil {
		w.log.Warn("webhooks not read; an event is not delivered", zap.Uint64("event", ev.ID), zap.Error(err))
		return
	}
	var body []byte
	now := w.clock.Now().UTC()
	for i := range hooks {
		h := &hooks[i]
		if !h.wants(ev) {
			continue
		}
		if body == nil {
			if body, err = json.Marshal(ev); err != nil {
				return
			}
		}
		id := deliveryID(ev.ID)
		rec := deliveryRecord{Delivery: Delivery{ID: id, WebhookID: h.ID, EventID: ev.ID, EventType: ev.Type, Status: DeliveryPending,
			Attempts: []Attempt{}, NextAttemptAt: &now, RetryUntil: now.Add(w.opts.RetryFor), CreatedAt: now, UpdatedAt: now},
			Body: body, DueMS: now.UnixMilli()}
		val, err := persistence.Encode(deliveryVersion, &rec)
		if err != nil {
			continue
		}
		b := new(persistence.Batch).Require(persistence.IfAbsent(deliveryKey(h.ID, id))).Put(deliveryKey(h.ID, id), val).
			Put(dueKeyMS(rec.DueMS, h.ID, id), nil)
		hook := h.ID
		w.store.Enqueue(b, func(err error) {
			switch {
			case err == nil:
				w.wake()
			case !persistence.IsConditionFailed(err): // condition failed: queued already
				w.log.Warn("webhook delivery not queued", zap.String("webhook", hook), zap.Uint64("event", ev.ID), zap.Error(err))
			}
		})
	}
}

// wake has the deliverer look for due deliveries now.
func (w *Webhooks) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// deliverLoop runs the deliverer: at start, every Interval, and when woken.
func (w *Webhooks) deliverLoop(ctx context.Context, t interface {
	Chan() <-chan time.Time
	Stop()
}) {
	defer w.wg.Done()
	defer t.Stop()
	for {
		w.deliverDue(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.Chan():
		case <-w.kick:
		}
	}
}

// due is one entry of the queue.
type due struct {
	key               []byte
	webhook, delivery string
}

// deliverDue attempts the deliveries due now, on the member that leads the job.
func (w *Webhooks) deliverDue(ctx context.Context) {
	defer kit.Recover(w.log, "webhook deliverer", nil)
	if !w.rt.Leads(ctx, leaderJob) {
		return
	}
	now := w.clock.Now()
	limit := []byte(fmt.Sprintf("%015d", now.UnixMilli()))
	prefix := persistence.Prefix("webhook-due")
	var list []due
	err := w.store.Scan(ctx, prefix, nil, batch, func(k, _ []byte) error {
		parts := strings.Split(string(k[len(prefix):]), "/")
		if len(parts) != 3 {
			return nil
		}
		if parts[0] > string(limit) {
			return kit.ErrStopScan
		}
		list = append(list, due{key: append([]byte(nil), k...), webhook: parts[1], delivery: parts[2]})
		return nil
	})
	if err != nil && !errors.Is(err, kit.ErrStopScan) {
		w.log.Warn("webhook queue not read", zap.Error(err))
		return
	}
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, d := range list {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer kit.Recover(w.log, "webhook attempt", nil)
			w.attempt(ctx, d)
		}()
	}
	wg.Wait()
	if len(list) == batch {
		w.wake() // more may be due
	}
	if now.Sub(w.pruned) >= pruneEvery {
		w.pruned = now
		w.prune(ctx, now)
	}
}

// prune deletes the deliveries done (delivered or failed) longer than Keep ago, a
// page at a time, so that the logs do not grow without end.
func (w *Webhooks) prune(ctx context.Context, now time.Time) {
	prefix := persistence.Prefix("webhook-delivery")
	cutoff := now.Add(-w.opts.Keep)
	var after []byte
	for {
		var old [][]byte
		var last []byte
		n := 0
		err := w.store.Scan(ctx, prefix, after, 500, func(k, v []byte) error {
			n++
			last = append(last[:0], k...)
			var r deliveryRecord
			if _, err := persistence.Decode(v, &r); err == nil && r.Status != DeliveryPending && r.UpdatedAt.Before(cutoff) {
				old = append(old, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			w.log.Warn("webhook deliveries not pruned", zap.Error(err))
			return
		}
		if len(old) > 0 {
			b := new(persistence.Batch)
			for _, k := range old {
				b.Del(k)
			}
			if err := w.store.Commit(ctx, b); err != nil {
				w.log.Warn("webhook deliveries not pruned", zap.Error(err))
				return
			}
		}
		if n < 500 {
			return
		}
		after = last
	}
}

// attempt makes one attempt of a due delivery: it claims the delivery (a conditional
// write, so that no other deliverer attempts it meanwhile; a claim that lapses, its
// deliverer gone, makes it due again), POSTs, and records the attempt.
func (w *Webhooks) attempt(ctx context.Context, d due) {
	drop := func(keys ...[]byte) {
		b := new(persistence.Batch)
		for _, k := range keys {
			b.Del(k)
		}
		if err := w.store.Commit(ctx, b); err != nil {
			w.log.Warn("webhook queue entry not dropped", zap.Error(err))
		}
	}
	hook, _, err := w.load(ctx, d.webhook, nil)
	if errors.Is(err, apierr.ErrNotFound) {
		drop(d.key, deliveryKey(d.webhook, d.delivery)) // the webhook was deleted
		return
	}
	if err != nil {
		return
	}
	dkey := deliveryKey(d.webhook, d.delivery)
	raw, err := w.store.Get(ctx, dkey)
	if errors.Is(err, persistence.ErrNotFound) {
		drop(d.key)
		return
	}
	if err != nil {
		return
	}
	var rec deliveryRecord
	if _, err := persistence.Decode(raw, &rec); err != nil {
		drop(d.key)
		return
	}
	if rec.Status != DeliveryPending || string(dueKeyMS(rec.DueMS, d.webhook, d.delivery)) != string(d.key) {
		drop(d.key) // a stale entry: the record moved on
		return
	}
	now := w.clock.Now().UTC()
	if !hook.Enabled {
		rec.Status, rec.NextAttemptAt, rec.UpdatedAt, rec.LeaseUntil = DeliveryFailed, nil, now, nil
		rec.Error = kit.Ptr("the webhook is disabled")
		b := new(persistence.Batch).Require(persistence.IfValue(dkey, raw)).Del(d.key)
		if w.put(b, dkey, &rec) == nil {
			_ = w.store.Commit(ctx, b)
		}
		return
	}
	// Claim: the due key moves past the attempt's end, so that a deliverer that dies
	// now leaves the delivery due again once the claim lapses.
	lease := now.Add(w.opts.Timeout + 30*time.Second)
	claimed := rec
	claimed.LeaseUntil, claimed.DueMS, claimed.UpdatedAt = &lease, lease.UnixMilli(), now
	claimedKey := dueKeyMS(claimed.DueMS, d.webhook, d.delivery)
	b := new(persistence.Batch).Require(persistence.IfValue(dkey, raw)).Del(d.key).Put(claimedKey, nil)
	claimedVal, err := persistence.Encode(deliveryVersion, &claimed)
	if err != nil {
		return
	}
	b.Put(dkey, claimedVal)
	if err := w.store.Commit(ctx, b); err != nil {
		if !persistence.IsConditionFailed(err) {
			w.log.Warn("webhook delivery not claimed", zap.Error(err))
		}
		return
	}

	header := http.Header{}
	header.Set("Content-Type", "application/json")
	header.Set("User-Agent", "vmplane-webhooks/1")
	header.Set(SignatureHeader, Sign(hook.Secret, now, rec.Body))
	header.Set(EventIDHeader, strconv.FormatUint(rec.EventID, 10))
	header.Set(EventTypeHeader, rec.EventType)
	header.Set(WebhookHeader, hook.ID)
	actx, cancel := context.WithTimeout(ctx, w.opts.Timeout)
	start := time.Now()
	code, perr := w.sender.post(actx, hook.URL, header, rec.Body)
	took := time.Since(start)
	cancel()
	if ctx.Err() != nil {
		return // stopping: the claim lapses and the next deliverer attempts it again
	}
	att := Attempt{At: now, DurationMS: took.Milliseconds()}
	ok := perr == nil && code >= 200 && code < 300
	if code != 0 {
		att.StatusCode = kit.Ptr(code)
	}
	if perr != nil {
		att.Error = kit.Ptr(perr.Error())
	} else if !ok {
		att.Error = kit.Ptr(fmt.Sprintf("answered %d", code))
	}
	next := claimed
	next.LeaseUntil, next.UpdatedAt, next.Tries = nil, w.clock.Now().UTC(), claimed.Tries+1
	next.Attempts = append(next.Attempts, att)
	if len(next.Attempts) > MaxAttemptsKept {
		next.Attempts = next.Attempts[len(next.Attempts)-MaxAttemptsKept:]
	}
	b = new(persistence.Batch).Require(persistence.IfValue(dkey, claimedVal)).Del(claimedKey)
	final := true
	switch at := now.Add(backoff(next.Tries)); {
	case ok:
		next.Status, next.NextAttemptAt = DeliveryDelivered, nil
	case at.Before(next.RetryUntil):
		next.NextAttemptAt, next.DueMS = &at, at.UnixMilli()
		b.Put(dueKeyMS(next.DueMS, d.webhook, d.delivery), nil)
		final = false
	default:
		next.Status, next.NextAttemptAt = DeliveryFailed, nil
	}
	if err := w.put(b, dkey, &next); err != nil {
		return
	}
	if err := w.store.Commit(ctx, b); err != nil {
		if !persistence.IsConditionFailed(err) {
			w.log.Warn("webhook attempt not recorded", zap.String("webhook", hook.ID), zap.Error(err))
		}
		return
	}
	if final {
		w.settled(ctx, hook.ID, ok, att)
	}
}

// put adds the write of rec under key to b.
func (w *Webhooks) put(b *persistence.Batch, key []byte, rec *deliveryRecord) error {
	val, err := persistence.Encode(deliveryVersion, rec)
	if err != nil {
		return err
	}
	b.Put(key, val)
	return nil
}

// backoff is the wait after the n-th failed attempt: 30 s, doubling, at most an hour.
func backoff(n int) time.Duration {
	d := firstRetry
	for i := 1; i < n && d < maxRetry; i++ {
		d *= 2
	}
	return min(d, maxRetry)
}

// settled counts a delivery's end in its webhook's failures in a row, and disables
// the webhook, raising an alert, when they reach DisableAfter.
func (w *Webhooks) settled(ctx context.Context, id string, ok bool, last Attempt) {
	for range 3 {
		r, raw, err := w.load(ctx, id, nil)
		if err != nil {
			return
		}
		if ok && r.FailedInRow == 0 {
			return
		}
		disable := false
		if ok {
			r.FailedInRow = 0
		} else {
			r.FailedInRow++
			disable = r.Enabled && r.FailedInRow >= w.opts.DisableAfter
		}
		why := ""
		if disable {
			why = fmt.Sprintf("every attempt to deliver %d events in a row failed", r.FailedInRow)
			if last.Error != nil {
				why += "; the last: " + *last.Error
			}
			r.Enabled, r.DisabledReason = false, &why
		}
		r.UpdatedAt = w.clock.Now().UTC()
		err = w.save(ctx, r, raw)
		if errors.Is(err, apierr.ErrConflict) {
			continue
		}
		if err == nil && disable {
			w.log.Warn("webhook disabled", zap.String("webhook", id), zap.String("why", why))
			w.alerts.Notify(alerts.AlertRaise{Kind: alerts.AlertWebhookDisabled, Severity: alerts.SeverityWarning, TargetType: "webhook",
				TargetID: id, TenantID: r.TenantID, Message: fmt.Sprintf("webhook %s (%s) was disabled: %s", id, r.URL, why)})
		}
		return
	}
}

// Deliveries returns a page of a webhook's deliveries, oldest event first.
func (w *Webhooks) Deliveries(ctx context.Context, id string, scope *string, cursor string, limit int) ([]Delivery, string, error) {
	if _, _, err := w.load(ctx, id, scope); err != nil {
		return nil, "", err
	}
	return kit.ScanPage(ctx, w.store, persistence.Prefix("webhook-delivery", id), cursor, limit, func(r *deliveryRecord) (Delivery, bool) {
		return r.Delivery, true
	})
}

// Redeliver queues a delivery again, due now, with a new day of retries: the
// receiver gets the same event (the same Vmplane-Event-Id) once more. A delivery
// being attempted this moment is a 409.
func (w *Webhooks) Redeliver(ctx context.Context, id, delivery string, scope *string) (Delivery, error) {
	hook, _, err := w.load(ctx, id, scope)
	if err != nil {
		return Delivery{}, err
	}
	notFound := apierr.NotFound("delivery", delivery)
	if delivery == "" || len(delivery) > 64 || strings.Contains(delivery, "/") {
		return Delivery{}, notFound
	}
	dkey := deliveryKey(hook.ID, delivery)
	raw, err := w.store.Get(ctx, dkey)
	if errors.Is(err, persistence.ErrNotFound) {
		return Delivery{}, notFound
	}
	if err != nil {
		return Delivery{}, err
	}
	var rec deliveryRecord
	if _, err := persistence.Decode(raw, &rec); err != nil {
		return Delivery{}, err
	}
	now := w.clock.Now().UTC()
	if rec.LeaseUntil != nil && rec.LeaseUntil.After(now) {
		return Delivery{}, apierr.New(apierr.ErrConflict, "delivery %s is being attempted now; try again when it is done", delivery)
	}
	if !hook.Enabled {
		return Delivery{}, apierr.New(apierr.ErrConflict, "webhook %s is disabled; enable it first", hook.ID)
	}
	b := new(persistence.Batch).Require(persistence.IfValue(dkey, raw))
	if rec.Status == DeliveryPending {
		b.Del(dueKeyMS(rec.DueMS, hook.ID, delivery))
	}
	rec.Status, rec.Error, rec.LeaseUntil, rec.Tries = DeliveryPending, nil, nil, 0
	rec.NextAttemptAt, rec.RetryUntil, rec.DueMS, rec.UpdatedAt = &now, now.Add(w.opts.RetryFor), now.UnixMilli(), now
	b.Put(dueKeyMS(rec.DueMS, hook.ID, delivery), nil)
	if err := w.put(b, dkey, &rec); err != nil {
		return Delivery{}, err
	}
	if err := w.store.Commit(ctx, b); persistence.IsConditionFailed(err) {
		return Delivery{}, apierr.New(apierr.ErrConflict, "delivery %s changed while it was queued again; try again", delivery)
	} else if err != nil {
		return Delivery{}, err
	}
	w.wake()
	return rec.Delivery, nil
}
