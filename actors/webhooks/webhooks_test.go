package webhooks

import (
	"context"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// TestMain fails the tests if they leave a goroutine running.
func TestMain(m *testing.M) { kittest.Main(m) }

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// testSystem is the webhooks over a bus and the alerts, on a runtime of their own,
// with a fake clock.
type testSystem struct {
	store    persistence.Store
	rt       *kit.Runtime
	ev       *events.Events
	alerts   *alerts.Alerts
	Webhooks *Webhooks
	clock    *clockwork.FakeClock
	stopped  bool
}

func newTestSystem(t *testing.T, dir string, clock *clockwork.FakeClock, o Options) *testSystem {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rt := kit.New(store, nil, kit.EntityOptions{}, kit.WithClock(clock))
	ev := events.New()
	al := alerts.Start(alerts.Deps{Runtime: rt, Events: ev})
	s := &testSystem{store: store, rt: rt, ev: ev, alerts: al, clock: clock}
	s.Webhooks = Start(Deps{Runtime: rt, Events: ev, Alerts: al, Options: o,
		TenantExists: func(_ context.Context, id string) error {
			if id == "gone" {
				return apierr.NotFound("tenant", id)
			}
			return nil
		}})
	t.Cleanup(s.stop)
	return s
}

func (s *testSystem) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	s.Webhooks.Stop()
	s.rt.Shutdown()
	s.ev.Close()
	s.store.Close()
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// receiver is a webhook receiver on loopback that answers fail (a status) to its
// first attempts, then 204, and keeps what it got.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []*http.Request
	body [][]byte
	fail []int
}

func newReceiver(t *testing.T, fail ...int) *receiver {
	r := &receiver{fail: fail}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.got = append(r.got, req)
		r.body = append(r.body, b)
		if len(r.fail) > 0 {
			w.WriteHeader(r.fail[0])
			r.fail = r.fail[1:]
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

func (r *receiver) request(i int) (*http.Request, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[i], r.body[i]
}

// verify is what a receiver does with the signature header: recompute and compare.
func verify(t *testing.T, secret string, req *http.Request, body []byte) {
	t.Helper()
	var ts, v1 string
	for _, part := range strings.Split(req.Header.Get(SignatureHeader), ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		t.Fatalf("signature %q has no time", req.Header.Get(SignatureHeader))
	}
	sig, err := hex.DecodeString(v1)
	if err != nil || !hmac.Equal(sig, mac(secret, ts, body)) {
		t.Fatalf("signature %q does not verify", req.Header.Get(SignatureHeader))
	}
}

func ptr[T any](v T) *T { return &v }

// deliveriesOf waits for the webhook's delivery of event (by type) to have n attempts.
func waitAttempts(t *testing.T, s *testSystem, hook string, n int) Delivery {
	t.Helper()
	var d Delivery
	testwait.Eventually(t, strconv.Itoa(n)+" attempts recorded", func() bool {
		ds, _, err := s.Webhooks.Deliveries(context.Background(), hook, nil, "", 0)
		if err != nil || len(ds) == 0 {
			return false
		}
		d = ds[len(ds)-1]
		return len(d.Attempts) >= n
	})
	return d
}

// TestDeliveryRetriedAndSigned: a receiver that fails the first two attempts gets the
// event again after the backoff (the fake clock advanced, no sleeps), then accepts
// it; every attempt carries the event id and a signature the receiver verifies; the
// delivery log shows each attempt.
func TestDeliveryRetriedAndSigned(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := newTestSystem(t, t.TempDir(), clock, Options{AllowCIDRs: loopback})
	ctx := ctxFor(t)
	rc := newReceiver(t, 500, 503)
	tenant := "t1"
	h, err := s.Webhooks.Create(ctx, WebhookSpec{URL: rc.URL + "/hook", Events: []string{events.EventMachine}, TenantID: &tenant})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h.Secret, SecretPrefix) || !h.Enabled {
		t.Fatalf("created %+v; want a generated secret, enabled", h)
	}
	s.ev.Publish(events.EventTask, &tenant, map[string]string{"id": "not sent: another type"})
	s.ev.Publish(events.EventMachine, &tenant, map[string]string{"id": "m1"})

	d := waitAttempts(t, s, h.ID, 1)
	if d.Status != DeliveryPending || d.Attempts[0].StatusCode == nil || *d.Attempts[0].StatusCode != 500 {
		t.Fatalf("after the first attempt: %+v; want pending, 500", d)
	}
	clock.Advance(backoff(1))
	waitAttempts(t, s, h.ID, 2)
	clock.Advance(backoff(2))
	d = waitAttempts(t, s, h.ID, 3)
	if d.Status != DeliveryDelivered || d.NextAttemptAt != nil {
		t.Fatalf("after the third attempt: %+v; want delivered", d)
	}
	if rc.count() != 3 {
		t.Fatalf("receiver got %d requests; want 3", rc.count())
	}
	for i := range 3 {
		req, body := rc.request(i)
		verify(t, h.Secret, req, body)
		var ev events.Event
		if err := json.Unmarshal(body, &ev); err != nil || ev.Type != events.EventMachine || req.Header.Get(EventIDHeader) != strconv.FormatUint(ev.ID, 10) {
			t.Fatalf("request %d: %s, event id header %q; want the machine event with its id", i, body, req.Header.Get(EventIDHeader))
		}
	}
	// Redelivery sends the same event again.
	if _, err := s.Webhooks.Redeliver(ctx, h.ID, d.ID, nil); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the redelivery", func() bool { return rc.count() == 4 })
	req, body := rc.request(3)
	verify(t, h.Secret, req, body)
	if req.Header.Get(EventIDHeader) != strconv.FormatUint(d.EventID, 10) {
		t.Fatalf("redelivery's event id %q; want %d", req.Header.Get(EventIDHeader), d.EventID)
	}
	other := "t2"
	if _, err := s.Webhooks.Redeliver(ctx, h.ID, d.ID, &other); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("another tenant's redelivery: %v; want not found", err)
	}
	if _, err := s.Webhooks.Redeliver(ctx, h.ID, "nope", nil); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("unknown delivery: %v; want not found", err)
	}
}

// TestTenantScoping: a tenant's webhook gets only its tenant's events, and is not
// found in another tenant's scope; an operator's webhook gets every event.
func TestTenantScoping(t *testing.T) {
	s := newTestSystem(t, t.TempDir(), clockwork.NewFakeClock(), Options{AllowCIDRs: loopback})
	ctx := ctxFor(t)
	a, b := "tenant-a", "tenant-b"
	ra, rall := newReceiver(t), newReceiver(t)
	hb, err := s.Webhooks.Create(ctx, WebhookSpec{URL: ra.URL, Events: []string{"*"}, TenantID: &b})
	if err != nil {
		t.Fatal(err)
	}
	hall, err := s.Webhooks.Create(ctx, WebhookSpec{URL: rall.URL, Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Webhooks.Get(ctx, hb.ID, &a); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("B's webhook in A's scope: %v; want not found", err)
	}
	if list, _, _ := s.Webhooks.List(ctx, &a, "", 0); len(list) != 0 {
		t.Fatalf("A lists %d webhooks; want none", len(list))
	}
	s.ev.Publish(events.EventMachine, &a, map[string]string{"id": "a's"})
	s.ev.Publish(events.EventAlert, nil, map[string]string{"id": "operators'"})
	s.ev.Publish(events.EventMachine, &b, map[string]string{"id": "b's"})
	testwait.Eventually(t, "B's event and all three", func() bool { return ra.count() == 1 && rall.count() == 3 })
	// The events were queued in order: had A's been queued for B, it would be there.
	ds, _, err := s.Webhooks.Deliveries(ctx, hb.ID, nil, "", 0)
	if err != nil || len(ds) != 1 {
		t.Fatalf("B's deliveries %+v, %v; want one", ds, err)
	}
	_, body := ra.request(0)
	if !strings.Contains(string(body), `"b's"`) {
		t.Fatalf("B got %s; want its own event", body)
	}
	if _, _, err := s.Webhooks.Deliveries(ctx, hall.ID, &b, "", 0); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("the operators' webhook's log in B's scope: %v; want not found", err)
	}
	if _, err := s.Webhooks.Create(ctx, WebhookSpec{URL: ra.URL, Events: []string{"*"}, TenantID: ptr("gone")}); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("a webhook for a tenant that does not exist: %v; want invalid", err)
	}
}

// TestRefusedTargets: without the allow setting, a loopback address is refused at
// creation, and a name that resolves to loopback is refused when connecting.
func TestRefusedTargets(t *testing.T) {
	s := newTestSystem(t, t.TempDir(), clockwork.NewFakeClock(), Options{})
	ctx := ctxFor(t)
	rc := newReceiver(t)
	for _, u := range []string{rc.URL, "http://[::1]/", "http://10.1.2.3/", "http://169.254.169.254/latest", "http://0.0.0.0/", "ftp://example.com/",
		"http:///nohost", "https://user:pw@example.com/"} {
		if _, err := s.Webhooks.Create(ctx, WebhookSpec{URL: u, Events: []string{"*"}}); !errors.Is(err, apierr.ErrInvalidRequest) {
			t.Errorf("create with %s: %v; want invalid", u, err)
		}
	}
	for _, ev := range [][]string{nil, {"machine.exploded"}} {
		if _, err := s.Webhooks.Create(ctx, WebhookSpec{URL: "https://example.com/", Events: ev}); !errors.Is(err, apierr.ErrInvalidRequest) {
			t.Errorf("create with events %v: %v; want invalid", ev, err)
		}
	}
	if _, err := s.Webhooks.Create(ctx, WebhookSpec{URL: "https://example.com/", Events: []string{"*"}, Secret: ptr("short")}); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Errorf("a short secret: %v; want invalid", err)
	}
	port := rc.URL[strings.LastIndex(rc.URL, ":")+1:]
	h, err := s.Webhooks.Create(ctx, WebhookSpec{URL: "http://localhost:" + port + "/", Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	s.ev.Publish(events.EventMachine, nil, map[string]string{"id": "m"})
	d := waitAttempts(t, s, h.ID, 1)
	if e := d.Attempts[0].Error; e == nil || !strings.Contains(*e, "loopback") || d.Attempts[0].StatusCode != nil {
		t.Fatalf("attempt to a name of loopback: %+v; want refused when connecting", d.Attempts[0])
	}
	if rc.count() != 0 {
		t.Fatalf("the receiver got %d requests; want none", rc.count())
	}
}

// TestDisabledAfterFailures: a webhook whose every attempt fails for DisableAfter
// events in a row is disabled, with an alert; enabling it again resolves the alert.
func TestDisabledAfterFailures(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := newTestSystem(t, t.TempDir(), clock, Options{AllowCIDRs: loopback, DisableAfter: 2, RetryFor: time.Minute})
	ctx := ctxFor(t)
	rc := newReceiver(t, 500, 500, 500, 500)
	h, err := s.Webhooks.Create(ctx, WebhookSpec{URL: rc.URL, Events: []string{"*"}, Secret: ptr("0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		s.ev.Publish(events.EventMachine, nil, map[string]int{"n": i})
	}
	testwait.Eventually(t, "first attempts", func() bool { return rc.count() == 2 })
	testwait.Eventually(t, "both retried in 30 s", func() bool {
		ds, _, _ := s.Webhooks.Deliveries(ctx, h.ID, nil, "", 0)
		return len(ds) == 2 && len(ds[0].Attempts) == 1 && len(ds[1].Attempts) == 1
	})
	clock.Advance(backoff(1))
	testwait.Eventually(t, "the webhook disabled", func() bool {
		w, err := s.Webhooks.Get(ctx, h.ID, nil)
		return err == nil && !w.Enabled
	})
	w, _ := s.Webhooks.Get(ctx, h.ID, nil)
	if w.DisabledReason == nil || w.FailedInRow != 2 {
		t.Fatalf("disabled webhook %+v; want a reason and 2 failed in a row", w)
	}
	ds, _, _ := s.Webhooks.Deliveries(ctx, h.ID, nil, "", 0)
	for _, d := range ds {
		if d.Status != DeliveryFailed || len(d.Attempts) != 2 {
			t.Fatalf("delivery %+v; want failed after 2 attempts (a minute of retries)", d)
		}
	}
	testwait.Eventually(t, "the alert", func() bool { return s.alerts.IsOpen(ctx, alerts.AlertWebhookDisabled, h.ID) })
	if _, err := s.Webhooks.Redeliver(ctx, h.ID, ds[0].ID, nil); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("redeliver to a disabled webhook: %v; want conflict", err)
	}
	if w, err := s.Webhooks.Update(ctx, h.ID, WebhookChange{Enabled: ptr(true)}, nil); err != nil || w.FailedInRow != 0 || w.DisabledReason != nil {
		t.Fatalf("enabled again: %+v, %v; want the failures forgotten", w, err)
	}
	testwait.Eventually(t, "the alert resolved", func() bool { return !s.alerts.IsOpen(ctx, alerts.AlertWebhookDisabled, h.ID) })
}

// TestQueuedDeliverySurvivesRestart: a delivery queued (and failed once) before the
// process stops is in the store, and the next process on the same data delivers it.
func TestQueuedDeliverySurvivesRestart(t *testing.T) {
	clock := clockwork.NewFakeClock()
	dir := t.TempDir()
	s := newTestSystem(t, dir, clock, Options{AllowCIDRs: loopback})
	ctx := ctxFor(t)
	rc := newReceiver(t, 500)
	h, err := s.Webhooks.Create(ctx, WebhookSpec{URL: rc.URL, Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	s.ev.Publish(events.EventMachine, nil, map[string]string{"id": "m"})
	waitAttempts(t, s, h.ID, 1)
	s.stop()

	s2 := newTestSystem(t, dir, clock, Options{AllowCIDRs: loopback})
	clock.Advance(backoff(1))
	d := waitAttempts(t, s2, h.ID, 2)
	if d.Status != DeliveryDelivered || rc.count() != 2 {
		t.Fatalf("after the restart: %+v, %d requests; want delivered by the second attempt", d, rc.count())
	}
	verify(t, h.Secret, func() *http.Request { r, _ := rc.request(1); return r }(), func() []byte { _, b := rc.request(1); return b }())
}

// TestDeleteDropsTheLog: deleting a webhook deletes its deliveries.
func TestDeleteDropsTheLog(t *testing.T) {
	s := newTestSystem(t, t.TempDir(), clockwork.NewFakeClock(), Options{AllowCIDRs: loopback})
	ctx := ctxFor(t)
	rc := newReceiver(t)
	h, err := s.Webhooks.Create(ctx, WebhookSpec{URL: rc.URL, Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	s.ev.Publish(events.EventMachine, nil, map[string]string{"id": "m"})
	waitAttempts(t, s, h.ID, 1)
	if err := s.Webhooks.Delete(ctx, h.ID, nil); err != nil {
		t.Fatal(err)
	}
	n := 0
	_ = s.store.Scan(ctx, persistence.Prefix("webhook-delivery"), nil, 0, func(_, _ []byte) error { n++; return nil })
	if n != 0 {
		t.Fatalf("%d delivery records left; want none", n)
	}
	if _, err := s.Webhooks.Get(ctx, h.ID, nil); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("deleted webhook: %v; want not found", err)
	}
}

// TestBackoff: 30 s doubling, at most an hour.
func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 8: time.Hour, 40: time.Hour} {
		if got := backoff(n); got != want {
			t.Errorf("backoff(%d) = %v; want %v", n, got, want)
		}
	}
}

// TestLogPruned: a delivery done longer than Keep ago leaves the log; a newer one stays.
func TestLogPruned(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := newTestSystem(t, t.TempDir(), clock, Options{AllowCIDRs: loopback, Keep: 48 * time.Hour})
	ctx := ctxFor(t)
	rc := newReceiver(t)
	h, err := s.Webhooks.Create(ctx, WebhookSpec{URL: rc.URL, Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	s.ev.Publish(events.EventMachine, nil, map[string]string{"id": "old"})
	testwait.Eventually(t, "the first delivered", func() bool {
		ds, _, _ := s.Webhooks.Deliveries(ctx, h.ID, nil, "", 0)
		return len(ds) == 1 && ds[0].Status == DeliveryDelivered
	})
	clock.Advance(47 * time.Hour)
	s.ev.Publish(events.EventMachine, nil, map[string]string{"id": "new"})
	testwait.Eventually(t, "the second delivered", func() bool {
		ds, _, _ := s.Webhooks.Deliveries(ctx, h.ID, nil, "", 0)
		return len(ds) == 2 && ds[1].Status == DeliveryDelivered
	})
	clock.Advance(2 * time.Hour) // the first is 49 h old, the second 2 h
	testwait.Eventually(t, "the first pruned", func() bool {
		ds, _, _ := s.Webhooks.Deliveries(ctx, h.ID, nil, "", 0)
		return len(ds) == 1 && strings.Contains(ds[0].EventType, "machine")
	})
	ds, _, _ := s.Webhooks.Deliveries(ctx, h.ID, nil, "", 0)
	if len(ds) != 1 || ds[0].CreatedAt.Before(clock.Now().Add(-3*time.Hour)) {
		t.Fatalf("left %+v; want the newer delivery only", ds)
	}
}

// TestEventEnumIsEveryType: the event types the document lists for a webhook's events
// (its openapi tags) are events.Types and "*", no more and no fewer, so a new event
// type is not refused by the edge while the service would take it.
func TestEventEnumIsEveryType(t *testing.T) {
	want := append(slices.Clone(events.Types), AllEvents)
	for _, typ := range []reflect.Type{reflect.TypeOf(WebhookSpec{}), reflect.TypeOf(WebhookChange{})} {
		f, _ := typ.FieldByName("Events")
		_, list, ok := strings.Cut(f.Tag.Get("openapi"), "items.enum=")
		list, _, _ = strings.Cut(list, ",")
		if got := strings.Split(list, "|"); !ok || !slices.Equal(got, want) {
			t.Errorf("%s.Events: enum %q; want %q", typ.Name(), got, want)
		}
	}
}
