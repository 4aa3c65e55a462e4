package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/webhooks"
	"github.com/vmplane/vmplane/internal/testwait"
)

// hookReceiver is a webhook receiver on loopback: it answers the statuses in fail
// to its first requests, then 200, and keeps what it got.
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	fail   []int
	header []http.Header
	body   [][]byte
}

func newHookReceiver(t *testing.T, fail ...int) *hookReceiver {
	t.Helper()
	r := &hookReceiver{fail: fail}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.header, r.body = append(r.header, req.Header.Clone()), append(r.body, b)
		if len(r.fail) > 0 {
			w.WriteHeader(r.fail[0])
			r.fail = r.fail[1:]
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *hookReceiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.body)
}

// got returns the i-th request's event, after checking its signature as a receiver
// does: HMAC-SHA256 of "<t>.<body>" with the secret, compared in constant time.
func (r *hookReceiver) got(t *testing.T, i int, secret string) events.Event {
	t.Helper()
	r.mu.Lock()
	h, body := r.header[i], r.body[i]
	r.mu.Unlock()
	var ts, v1 string
	for _, part := range strings.Split(h.Get("Vmplane-Signature"), ",") {
		if k, v, ok := strings.Cut(part, "="); ok && k == "t" {
			ts = v
		} else if ok && k == "v1" {
			v1 = v
		}
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(body)))
	want := m.Sum(nil)
	sig, err := hex.DecodeString(v1)
	if ts == "" || err != nil || !hmac.Equal(sig, want) {
		t.Fatalf("request %d: signature %q does not verify", i, h.Get("Vmplane-Signature"))
	}
	var ev events.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatalf("request %d: %s is no event: %v", i, body, err)
	}
	if h.Get("Vmplane-Event-Id") == "" || h.Get("Vmplane-Event-Id") != jsonNumber(ev.ID) {
		t.Fatalf("request %d: Vmplane-Event-Id %q; want the event's id %d", i, h.Get("Vmplane-Event-Id"), ev.ID)
	}
	return ev
}

func jsonNumber(n uint64) string { b, _ := json.Marshal(n); return string(b) }

// createHook creates a webhook and returns it with its secret.
func (s *testServer) createHook(tok string, body map[string]any) webhooks.NewWebhook {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/resources/webhooks", token: tok, body: body})
	expect(s.t, r, 201, "")
	var h webhooks.NewWebhook
	r.decode(s.t, &h)
	return h
}

// deliveries lists a webhook's deliveries.
func (s *testServer) deliveries(tok, hook string) []webhooks.Delivery {
	s.t.Helper()
	return listOf[webhooks.Delivery](s, tok, "/api/resources/webhooks/"+hook+"/deliveries?limit=500")
}

func (s *testServer) suspendTenant(admin, tenant string) {
	s.t.Helper()
	expect(s.t, s.do(req{method: "POST", path: "/api/resources/tenants/" + tenant + "/suspend", token: admin,
		body: map[string]any{"reason": "unpaid", "action": "none"}}), 200, "")
}

func (s *testServer) unsuspendTenant(admin, tenant string) {
	s.t.Helper()
	expect(s.t, s.do(req{method: "POST", path: "/api/resources/tenants/" + tenant + "/unsuspend", token: admin, body: map[string]any{}}), 200, "")
}

// TestWebhooksOverHTTP: webhooks through the API. A tenant's webhook gets its own
// tenant's events only and is 404 to another tenant; an operator's gets every
// tenant's; the secret is shown at creation only; a receiver that fails the first
// attempt gets the event again after the backoff (a fake clock, advanced), every
// attempt signed; the delivery log shows the attempts; a redelivery sends the same
// event again.
func TestWebhooksOverHTTP(t *testing.T) {
	t.Parallel()
	clock := clockwork.NewFakeClockAt(time.Now())
	s, admin := synced(t, func(c *Config) { c.WebhookClock = clock })
	a, b := s.tenant(admin, "Hookalpha", nil), s.tenant(admin, "Hookbeta", nil)
	ra, rb, rop := newHookReceiver(t, 500), newHookReceiver(t), newHookReceiver(t)

	ha := s.createHook(a.Token, map[string]any{"url": ra.URL + "/a", "events": []string{events.EventTenantSuspended}})
	if !strings.HasPrefix(ha.Secret, webhooks.SecretPrefix) || ha.TenantID == nil || *ha.TenantID != a.ID || !ha.Enabled {
		t.Fatalf("A's webhook %+v; want a generated secret, A's, enabled", ha)
	}
	if r := s.do(req{method: "GET", path: "/api/resources/webhooks/" + ha.ID, token: a.Token}); r.Status != 200 || strings.Contains(string(r.Body), ha.Secret) {
		t.Fatalf("GET of A's webhook: %d %s; want 200 without the secret", r.Status, r.Body)
	}
	hb := s.createHook(b.Token, map[string]any{"url": rb.URL, "events": []string{"*"}, "secret": "beta's own secret, long enough"})
	hop := s.createHook(admin, map[string]any{"url": rop.URL, "events": []string{events.EventTenantSuspended}})
	if hop.TenantID != nil {
		t.Fatalf("the operator's webhook is for tenant %s; want every tenant", *hop.TenantID)
	}
	for _, r := range []req{
		{method: "GET", path: "/api/resources/webhooks/" + ha.ID},
		{method: "PATCH", path: "/api/resources/webhooks/" + ha.ID, body: map[string]any{"enabled": false}},
		{method: "DELETE", path: "/api/resources/webhooks/" + ha.ID},
		{method: "GET", path: "/api/resources/webhooks/" + ha.ID + "/deliveries"},
		{method: "GET", path: "/api/resources/webhooks/" + hop.ID},
	} {
		r.token = b.Token
		expect(t, s.do(r), 404, "not_found")
	}
	expect(t, s.do(req{method: "POST", path: "/api/resources/webhooks", token: b.Token,
		body: map[string]any{"url": rb.URL, "events": []string{"*"}, "tenant_id": a.ID}}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/resources/webhooks", token: b.Token,
		body: map[string]any{"url": rb.URL, "events": []string{"machine.exploded"}}}), 400, "invalid_request")

	s.suspendTenant(admin, a.ID)
	s.suspendTenant(admin, b.ID)
	testwait.Eventually(t, "A's first attempt, B's and the operator's deliveries", func() bool {
		return ra.count() == 1 && rb.count() >= 1 && rop.count() == 2
	})
	ds := s.deliveries(a.Token, ha.ID)
	if len(ds) != 1 || ds[0].Status != webhooks.DeliveryPending || len(ds[0].Attempts) != 1 || *ds[0].Attempts[0].StatusCode != 500 {
		t.Fatalf("A's deliveries %+v; want one pending, its attempt answered 500", ds)
	}
	clock.Advance(30 * time.Second)
	testwait.Eventually(t, "A's second attempt", func() bool { return ra.count() == 2 })
	testwait.Eventually(t, "A's delivery delivered", func() bool {
		ds = s.deliveries(a.Token, ha.ID)
		return ds[0].Status == webhooks.DeliveryDelivered && len(ds[0].Attempts) == 2
	})
	for i := range 2 {
		ev := ra.got(t, i, ha.Secret)
		if ev.Type != events.EventTenantSuspended || ev.TenantID == nil || *ev.TenantID != a.ID || ev.ID != ds[0].EventID {
			t.Fatalf("A's receiver got %+v; want A's suspension", ev)
		}
	}
	for i := range rb.count() {
		if ev := rb.got(t, i, "beta's own secret, long enough"); ev.TenantID == nil || *ev.TenantID != b.ID {
			t.Fatalf("B's receiver got an event of tenant %v; want only B's", ev.TenantID)
		}
	}
	seen := map[string]bool{}
	for i := range 2 {
		seen[*rop.got(t, i, hop.Secret).TenantID] = true
	}
	if !seen[a.ID] || !seen[b.ID] {
		t.Fatalf("the operator's receiver got the suspensions of %v; want A's and B's", seen)
	}

	// A suspended tenant's users write nothing, a redelivery included.
	expect(t, s.do(req{method: "POST", path: "/api/resources/webhooks/" + ha.ID + "/deliveries/" + ds[0].ID + "/redeliver", token: a.Token}), 403, "tenant_suspended")
	s.unsuspendTenant(admin, a.ID)
	s.unsuspendTenant(admin, b.ID)
	r := s.do(req{method: "POST", path: "/api/resources/webhooks/" + ha.ID + "/deliveries/" + ds[0].ID + "/redeliver", token: a.Token})
	expect(t, r, 200, "")
	testwait.Eventually(t, "the redelivery", func() bool { return ra.count() == 3 })
	if ev := ra.got(t, 2, ha.Secret); ev.ID != ds[0].EventID {
		t.Fatalf("redelivered event %d; want %d", ev.ID, ds[0].EventID)
	}
	expect(t, s.do(req{method: "POST", path: "/api/resources/webhooks/" + ha.ID + "/deliveries/" + ds[0].ID + "/redeliver", token: b.Token}), 404, "not_found")
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/webhooks/" + hb.ID, token: b.Token, body: map[string]any{"enabled": false}}), 200, "")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/webhooks/" + hb.ID, token: b.Token}), 204, "")
	expect(t, s.do(req{method: "GET", path: "/api/resources/webhooks/" + hb.ID, token: b.Token}), 404, "not_found")
}

// TestWebhookRefusedTargets: without VMPLANE_WEBHOOK_ALLOW_CIDRS, a loopback address
// is refused at creation, and a name that resolves to loopback when connecting: the
// receiver gets nothing.
func TestWebhookRefusedTargets(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.WebhookAllowCIDRs = "" })
	a := s.tenant(admin, "Hookrefused", nil)
	rc := newHookReceiver(t)
	port := rc.URL[strings.LastIndex(rc.URL, ":")+1:]
	for _, u := range []string{rc.URL, "http://[::1]:" + port, "http://10.0.0.1/", "http://169.254.169.254/"} {
		expect(t, s.do(req{method: "POST", path: "/api/resources/webhooks", token: admin, body: map[string]any{"url": u, "events": []string{"*"}}}), 400, "invalid_request")
	}
	h := s.createHook(admin, map[string]any{"url": "http://localhost:" + port + "/", "events": []string{events.EventTenantSuspended}})
	s.suspendTenant(admin, a.ID)
	var ds []webhooks.Delivery
	testwait.Eventually(t, "an attempt", func() bool {
		ds = s.deliveries(admin, h.ID)
		return len(ds) == 1 && len(ds[0].Attempts) == 1
	})
	if e := ds[0].Attempts[0].Error; e == nil || !strings.Contains(*e, "loopback") {
		t.Fatalf("attempt %+v; want refused when connecting", ds[0].Attempts[0])
	}
	if rc.count() != 0 {
		t.Fatalf("the receiver got %d requests; want none", rc.count())
	}
}

// TestWebhookDeliverySurvivesRestart: a delivery queued (and failed once) before the
// server stops is delivered by the server started again on the same data directory.
func TestWebhookDeliverySurvivesRestart(t *testing.T) {
	t.Parallel()
	clock := clockwork.NewFakeClockAt(time.Now())
	s, admin := synced(t, func(c *Config) { c.WebhookClock = clock })
	a := s.tenant(admin, "Hookrestart", nil)
	rc := newHookReceiver(t, 503)
	h := s.createHook(admin, map[string]any{"url": rc.URL, "events": []string{events.EventTenantSuspended}})
	s.suspendTenant(admin, a.ID)
	testwait.Eventually(t, "the first attempt recorded", func() bool {
		ds := s.deliveries(admin, h.ID)
		return len(ds) == 1 && len(ds[0].Attempts) == 1
	})
	s.restart()
	admin = s.adminToken()
	clock.Advance(30 * time.Second)
	testwait.Eventually(t, "delivered after the restart", func() bool {
		ds := s.deliveries(admin, h.ID)
		return len(ds) == 1 && ds[0].Status == webhooks.DeliveryDelivered
	})
	if rc.count() != 2 {
		t.Fatalf("the receiver got %d requests; want 2 (one before the restart, one after)", rc.count())
	}
	rc.got(t, 1, h.Secret)
}

// conformWebhooks walks the webhooks' routes for the conformance test: create, read,
// list, change, the delivery log, a redelivery, delete.
func conformWebhooks(t *testing.T, s *testServer, admin, tenant, tok string, ok func(req, int) *response) {
	t.Helper()
	rc := newHookReceiver(t)
	h := s.createHook(tok, map[string]any{"url": rc.URL, "events": []string{"*"}})
	ok(req{method: "GET", path: "/api/resources/webhooks", token: tok}, 200)
	ok(req{method: "GET", path: "/api/resources/webhooks/" + h.ID, token: tok}, 200)
	ok(req{method: "PATCH", path: "/api/resources/webhooks/" + h.ID, token: tok, body: map[string]any{"events": []string{events.EventTenantSuspended}}}, 200)
	s.suspendTenant(admin, tenant)
	var ds []webhooks.Delivery
	testwait.Eventually(t, "a delivery", func() bool {
		ds = s.deliveries(tok, h.ID)
		return len(ds) == 1 && ds[0].Status == webhooks.DeliveryDelivered
	})
	s.unsuspendTenant(admin, tenant)
	ok(req{method: "POST", path: "/api/resources/webhooks/" + h.ID + "/deliveries/" + ds[0].ID + "/redeliver", token: tok}, 200)
	ok(req{method: "DELETE", path: "/api/resources/webhooks/" + h.ID, token: tok}, 204)
}

// TestClusterWebhookSurvivesOriginDeath: three members on etcd. The tenant is created
// and suspended through m0, so its entity, and the event, are m0's: m0 queues the
// delivery, whose first attempt fails. m0 then stops; the next attempt (the shared
// fake clock advanced past the backoff) is made by a member still running, and the
// event is delivered once more, not once per member.
func TestClusterWebhookSurvivesOriginDeath(t *testing.T) {
	t.Parallel()
	clock := clockwork.NewFakeClockAt(time.Now())
	ms, _ := startCluster(t, 3, func(c *Config) { c.WebhookClock = clock })
	admin := ms[0].adminToken()
	a := ms[0].tenant(admin, "Hookcluster", nil)
	rc := newHookReceiver(t, 503)
	h := ms[1].createHook(admin, map[string]any{"url": rc.URL, "events": []string{events.EventTenantSuspended}})
	ms[0].suspendTenant(admin, a.ID)
	testwait.Eventually(t, "the first attempt recorded", func() bool {
		ds := ms[2].deliveries(admin, h.ID)
		return len(ds) == 1 && len(ds[0].Attempts) == 1
	})
	ms[0].stop()
	admin2 := ms[1].adminToken()
	// Advance until a live member's deliverer has run past the backoff: its ticker
	// fires on each advance, and the job's claim moves off m0 once its lease is gone.
	testwait.Eventually(t, "delivered by a live member", func() bool {
		clock.Advance(30 * time.Second)
		ds := ms[2].deliveries(admin2, h.ID)
		return len(ds) == 1 && ds[0].Status == webhooks.DeliveryDelivered
	})
	if rc.count() != 2 {
		t.Fatalf("the receiver got %d requests; want 2 (the failed one, then one delivery)", rc.count())
	}
	rc.got(t, 1, h.Secret)
}
