package monitoring

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

func TestValidateCheck(t *testing.T) {
	ok := HealthCheck{Name: "web", Type: CheckHTTP, Target: "http://10.0.0.5:8080/health", IntervalS: 30, TimeoutMS: 2000, FailureThreshold: 3}
	f := func(mutate func(*HealthCheck), field string) {
		t.Helper()
		hc := ok
		mutate(&hc)
		errs := validateCheck(&hc)
		switch {
		case field == "" && len(errs) > 0:
			t.Errorf("%+v: got %v; want valid", hc, errs)
		case field != "" && (len(errs) == 0 || errs[0].Field != field):
			t.Errorf("%+v: got %v; want an error on %s", hc, errs, field)
		}
	}
	f(func(*HealthCheck) {}, "")
	f(func(h *HealthCheck) { h.Target = "https://[2001:db8::1]/" }, "")
	f(func(h *HealthCheck) { h.Target = "http://example.com" }, "")
	f(func(h *HealthCheck) { h.Type, h.Target = CheckTCP, "10.0.0.5:22" }, "")
	f(func(h *HealthCheck) { h.Type, h.Target = CheckTCP, "[2001:db8::1]:443" }, "")
	f(func(h *HealthCheck) { h.IntervalS, h.TimeoutMS = 1, 900 }, "")
	f(func(h *HealthCheck) { h.ExpectedStatus = 204 }, "")
	f(func(h *HealthCheck) { h.Name = "" }, "name")
	f(func(h *HealthCheck) { h.Type = "icmp" }, "type")
	f(func(h *HealthCheck) { h.Target = "ftp://10.0.0.5/" }, "target")
	f(func(h *HealthCheck) { h.Target = "http:///nohost" }, "target")
	f(func(h *HealthCheck) { h.Target = "http://10.0.0.5:99999/" }, "target")
	f(func(h *HealthCheck) { h.Target = "http://bad_host!/" }, "target")
	f(func(h *HealthCheck) { h.Type, h.Target = CheckTCP, "10.0.0.5" }, "target")
	f(func(h *HealthCheck) { h.Type, h.Target = CheckTCP, "10.0.0.5:ssh" }, "target")
	f(func(h *HealthCheck) { h.Type, h.Target = CheckTCP, "10.0.0.5:0" }, "target")
	f(func(h *HealthCheck) { h.IntervalS = 0 }, "interval_s")
	f(func(h *HealthCheck) { h.IntervalS = 86401 }, "interval_s")
	f(func(h *HealthCheck) { h.TimeoutMS = 99 }, "timeout_ms")
	f(func(h *HealthCheck) { h.IntervalS, h.TimeoutMS = 2, 2000 }, "timeout_ms")
	f(func(h *HealthCheck) { h.ExpectedStatus = 99 }, "expected_status")
	f(func(h *HealthCheck) { h.Type, h.Target, h.ExpectedStatus = CheckTCP, "10.0.0.5:22", 200 }, "expected_status")
	f(func(h *HealthCheck) { h.FailureThreshold = 0 }, "failure_threshold")
}

func TestProbe(t *testing.T) {
	ctx := context.Background()
	hs := newTestSystem(t).HealthChecks
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "http://192.0.2.1/elsewhere", http.StatusFound)
		case "/teapot":
			w.WriteHeader(http.StatusTeapot)
		case "/slow":
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	open := ln.Addr().String()
	ln.Close() // now nothing listens there
	f := func(typ, target string, expected int, wantOK bool) {
		t.Helper()
		r := probe(ctx, hs.client, nil, typ, target, expected, 300*time.Millisecond)
		if r.OK != wantOK || (r.OK == (r.Error != nil)) {
			t.Errorf("%s %s (expected %d): got %+v; want ok %v", typ, target, expected, r, wantOK)
		}
	}
	f(CheckHTTP, srv.URL+"/", 0, true)
	f(CheckHTTP, srv.URL+"/", 200, true)
	f(CheckHTTP, srv.URL+"/", 204, false)
	// A redirect is an answer, not followed (a tenant's check must not reach elsewhere).
	f(CheckHTTP, srv.URL+"/moved", 0, true)
	f(CheckHTTP, srv.URL+"/teapot", 0, false)
	f(CheckHTTP, srv.URL+"/teapot", 418, true)
	f(CheckHTTP, srv.URL+"/slow", 0, false)
	f(CheckTCP, srv.Listener.Addr().String(), 0, true)
	f(CheckTCP, open, 0, false)
}

// hangingTarget answers nothing until the client gives up, and records how many
// probes it holds at once.
type hangingTarget struct {
	now, max, hits atomic.Int64
}

func (h *hangingTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.hits.Add(1)
	n := h.now.Add(1)
	for {
		m := h.max.Load()
		if n <= m || h.max.CompareAndSwap(m, n) {
			break
		}
	}
	<-r.Context().Done()
	h.now.Add(-1)
}

func TestProbesOfOneCheckNeverOverlap(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	target := &hangingTarget{}
	srv := httptest.NewServer(target)
	defer srv.Close()
	hc, err := s.HealthChecks.Create(ctx, HealthCheckSpec{Name: "hangs", Type: CheckHTTP, Target: srv.URL,
		IntervalS: 60, TimeoutMS: 1500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kittest.WaitFor(t, "the first probe to reach the target", func() bool { return target.hits.Load() == 1 })
	// Due times while the probe hangs: each tick is skipped and counted.
	for i := int64(1); i <= 3; i++ {
		s.HealthChecks.arm(hc.ID, 0)
		kittest.WaitFor(t, "the skipped tick to be counted", func() bool {
			got, err := s.HealthChecks.Get(ctx, hc.ID, nil)
			return err == nil && got.SkippedProbes == i
		})
	}
	kittest.WaitFor(t, "the probe to time out", func() bool {
		got, _ := s.HealthChecks.Get(ctx, hc.ID, nil)
		return got.Last.CheckedAt != nil
	})
	if m := target.max.Load(); m != 1 {
		t.Fatalf("got %d probes at once; want 1", m)
	}
	got, _ := s.HealthChecks.Get(ctx, hc.ID, nil)
	if got.Last.Error == nil || got.Last.ConsecutiveFailures != 1 || got.Last.Status != CheckUnknown || len(got.Results) != 1 {
		t.Fatalf("got %+v; want one timed-out probe, still unknown below the threshold", got.Last)
	}
}

// A deleted check probes no more: after the delete, intervals pass on the fake clock
// while a second check, alive, shows that its timers fire and its probes land.
func TestDeletedCheckStopsProbing(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := newTestSystem(t, func(o *testOptions) { o.Clock = clock })
	ctx := context.Background()
	var hits, controlHits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	control := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { controlHits.Add(1) }))
	defer control.Close()
	hc, err := s.HealthChecks.Create(ctx, HealthCheckSpec{Name: "counted", Type: CheckHTTP, Target: srv.URL,
		IntervalS: 1, TimeoutMS: 500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.HealthChecks.Create(ctx, HealthCheckSpec{Name: "control", Type: CheckHTTP, Target: control.URL,
		IntervalS: 1, TimeoutMS: 500}, nil); err != nil {
		t.Fatal(err)
	}
	// A new check probes at once, then once an interval.
	kittest.WaitFor(t, "the first probes", func() bool { return hits.Load() == 1 && controlHits.Load() == 1 })
	advanceCheck(t, s.HealthChecks, clock, "the second probes", func() bool { return hits.Load() == 2 && controlHits.Load() == 2 })
	if err := s.HealthChecks.Delete(ctx, hc.ID, nil); err != nil {
		t.Fatal(err)
	}
	for i := int64(3); i <= 5; i++ {
		advanceCheck(t, s.HealthChecks, clock, "the control check's next probe", func() bool { return controlHits.Load() == i })
	}
	if got := hits.Load(); got != 2 {
		t.Fatalf("got %d probes after the delete; want none", got-2)
	}
	if _, err := s.HealthChecks.Get(ctx, hc.ID, nil); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("got %v; want the check gone", err)
	}
	kittest.WaitFor(t, "the deleted check's entity to go", func() bool { return s.HealthChecks.kind.Live() <= 1 })
}

// advanceCheck moves clock one check interval (1 s) on and waits for what that
// interval's probes cause. The caller has seen the previous probe's effect, and a
// check arms its next timer before it starts a probe, so the timers are armed on the
// fake clock before it moves. A probe's effect (its target hit) comes before the probe
// ends, and a tick while it runs is skipped (by design), so the clock moves only once
// no probe is in flight.
func advanceCheck(t *testing.T, h *HealthChecks, clock *clockwork.FakeClock, what string, cond func() bool) {
	t.Helper()
	kittest.WaitFor(t, "the previous probes to end", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.inflight) == 0
	})
	clock.Advance(time.Second)
	kittest.WaitFor(t, what, cond)
}

func TestTenantCheckTargetsOnlyItsMachines(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	put := func(id, tenant, ip string) {
		t.Helper()
		b := new(persistence.Batch)
		if err := machines.Seed(b, machines.Machine{ID: id, VMID: 100, Name: id, TenantID: &tenant, Status: machines.StatusRunning,
			Interfaces: []hypervisor.Interface{{ID: "net0", IPAddresses: []string{ip}}}}); err != nil {
			t.Fatal(err)
		}
		if err := s.rt.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	put("MA", "A", "10.0.0.5")
	put("MB", "B", "10.0.0.6")
	a := "A"
	spec := func(typ, target string) HealthCheckSpec {
		return HealthCheckSpec{Name: "c", Type: typ, Target: target, IntervalS: 60, TimeoutMS: 200, Enabled: kit.Ptr(false)}
	}
	hc, err := s.HealthChecks.Create(ctx, spec(CheckTCP, "10.0.0.5:22"), &a)
	if err != nil {
		t.Fatal(err)
	}
	if hc.TenantID == nil || *hc.TenantID != "A" || hc.MachineID == nil || *hc.MachineID != "MA" {
		t.Fatalf("got tenant %v machine %v; want A and the machine owning the address", hc.TenantID, hc.MachineID)
	}
	for _, target := range []struct{ typ, target string }{
		{CheckTCP, "10.0.0.6:22"},               // another tenant's machine
		{CheckHTTP, "http://127.0.0.1/"},        // the control plane's own host
		{CheckHTTP, "http://machine.internal/"}, // a name could resolve anywhere
		{CheckHTTP, "http://[::ffff:10.0.0.6]/"},
	} {
		_, err := s.HealthChecks.Create(ctx, spec(target.typ, target.target), &a)
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Status != 400 || len(ae.Fields) == 0 || ae.Fields[0].Field != "target" {
			t.Errorf("%s: got %v; want 400 on target", target.target, err)
		}
	}
	if _, err := s.HealthChecks.Create(ctx, spec(CheckHTTP, "http://[::ffff:10.0.0.5]:8080/"), &a); err != nil {
		t.Errorf("got %v for the tenant's own address written as IPv4-mapped IPv6; want it accepted", err)
	}
	// Changing the target is checked the same way; another tenant sees no such check.
	bad := "10.0.0.6:22"
	if _, err := s.HealthChecks.Update(ctx, hc.ID, HealthCheckChange{Target: &bad}, &a); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("got %v; want 400", err)
	}
	b := "B"
	if _, err := s.HealthChecks.Update(ctx, hc.ID, HealthCheckChange{Target: &bad}, &b); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("got %v; want another tenant's check not found", err)
	}
	// Operators may target anything.
	if _, err := s.HealthChecks.Create(ctx, spec(CheckHTTP, "http://machine.internal/"), nil); err != nil {
		t.Fatalf("got %v; want an operator's check of any target accepted", err)
	}
	list, _, err := s.HealthChecks.List(ctx, &a, "", 0)
	if err != nil || len(list) != 2 {
		t.Fatalf("got %d checks of A, %v; want 2", len(list), err)
	}
}

// A tenant's check stops reaching its address once the address is no longer one of the
// tenant's machines: it may belong to someone else by then.
func TestTenantCheckLosesItsAddress(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := newTestSystem(t, func(o *testOptions) { o.Clock = clock })
	ctx := context.Background()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	tenant := "A"
	b := new(persistence.Batch)
	if err := machines.Seed(b, machines.Machine{ID: "MA", VMID: 100, Name: "a", TenantID: &tenant, Status: machines.StatusRunning,
		Interfaces: []hypervisor.Interface{{ID: "net0", IPAddresses: []string{"127.0.0.1"}}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.rt.Commit(b); err != nil {
		t.Fatal(err)
	}
	hc, err := s.HealthChecks.Create(ctx, HealthCheckSpec{Name: "own", Type: CheckHTTP, Target: srv.URL,
		IntervalS: 1, TimeoutMS: 500, FailureThreshold: 1}, &tenant)
	if err != nil {
		t.Fatal(err)
	}
	if !hc.TargetScoped {
		t.Fatalf("got %+v; want a tenant's target held to its machines", hc)
	}
	kittest.WaitFor(t, "a passing probe", func() bool {
		got, _ := s.HealthChecks.Get(ctx, hc.ID, nil)
		return got.Last.Status == CheckPassing
	})
	// The machine leaves the tenant (an operator assigns it to none): the tenant's
	// check may no longer reach its address.
	if _, err := s.Machines.Assign(ctx, "MA", nil); err != nil {
		t.Fatal(err)
	}
	advanceCheck(t, s.HealthChecks, clock, "the check to fail without probing", func() bool {
		got, _ := s.HealthChecks.Get(ctx, hc.ID, nil)
		return got.Last.Status == CheckFailing && got.Last.Error != nil && strings.Contains(*got.Last.Error, "not probed")
	})
	// Each interval the check runs and fails again without reaching the address.
	before := hits.Load()
	for range 3 {
		got, _ := s.HealthChecks.Get(ctx, hc.ID, nil)
		failures := got.Last.ConsecutiveFailures
		advanceCheck(t, s.HealthChecks, clock, "the check's next result", func() bool {
			got, _ := s.HealthChecks.Get(ctx, hc.ID, nil)
			return got.Last.ConsecutiveFailures > failures
		})
	}
	if after := hits.Load(); after != before {
		t.Fatalf("got %d probes of an address the tenant no longer has; want none", after-before)
	}
}

func TestCheckUpdateAndDisable(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	var mu sync.Mutex
	status := http.StatusInternalServerError
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.WriteHeader(status)
	}))
	defer srv.Close()
	hc, err := s.HealthChecks.Create(ctx, HealthCheckSpec{Name: "flaky", Type: CheckHTTP, Target: srv.URL,
		IntervalS: 1, TimeoutMS: 500, FailureThreshold: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kittest.WaitFor(t, "the check to fail", func() bool {
		got, _ := s.HealthChecks.Get(ctx, hc.ID, nil)
		return got.Last.Status == CheckFailing
	})
	kittest.WaitFor(t, "its alert", func() bool { return openAlert(t, s, alerts.AlertHealthCheck, hc.ID) != nil })
	// The failing status is stored at once (the faulty-deployment rules read the store).
	val, err := s.store.Get(context.Background(), hcKey(hc.ID))
	if err != nil {
		t.Fatal(err)
	}
	var stored HealthCheck
	if _, err := persistence.Decode(val, &stored); err != nil || stored.Last.Status != CheckFailing {
		t.Fatalf("got stored status %q, %v; want failing", stored.Last.Status, err)
	}
	// Disabling stops watching: unknown, and the episode ends.
	off := false
	got, err := s.HealthChecks.Update(ctx, hc.ID, HealthCheckChange{Enabled: &off}, nil)
	if err != nil || got.Enabled || got.Last.Status != CheckUnknown {
		t.Fatalf("got %+v, %v; want disabled and unknown", got, err)
	}
	kittest.WaitFor(t, "the alert to resolve", func() bool { return openAlert(t, s, alerts.AlertHealthCheck, hc.ID) == nil })
	// Re-enabled against an expected 500, it passes.
	on, want := true, 500
	if _, err := s.HealthChecks.Update(ctx, hc.ID, HealthCheckChange{Enabled: &on, ExpectedStatus: &want}, nil); err != nil {
		t.Fatal(err)
	}
	kittest.WaitFor(t, "the check to pass", func() bool {
		got, _ := s.HealthChecks.Get(ctx, hc.ID, nil)
		return got.Last.Status == CheckPassing
	})
	zero := 0
	if _, err := s.HealthChecks.Update(ctx, hc.ID, HealthCheckChange{TimeoutMS: &zero}, nil); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("got %v; want 400 for a bad timeout", err)
	}
}

// A result that changes nothing is kept in memory and written once a minute (on the
// runtime's fake clock), while reads see every one.
func TestUnchangedResultsWrittenOncePerMinute(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := newTestSystem(t, func(o *testOptions) { o.Clock = clock })
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	hc, err := s.HealthChecks.Create(ctx, HealthCheckSpec{Name: "steady", Type: CheckHTTP, Target: srv.URL,
		IntervalS: 1, TimeoutMS: 500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	results := func() int {
		got, _ := s.HealthChecks.Get(ctx, hc.ID, nil)
		return len(got.Results)
	}
	stored := func() int {
		t.Helper()
		val, err := s.store.Get(context.Background(), hcKey(hc.ID))
		if err != nil {
			t.Fatal(err)
		}
		var rec HealthCheck
		if _, err := persistence.Decode(val, &rec); err != nil {
			t.Fatal(err)
		}
		return len(rec.Results)
	}
	// The first result turns the check passing: written at once.
	kittest.WaitFor(t, "the first result", func() bool { return results() == 1 })
	if n := stored(); n != 1 {
		t.Fatalf("got %d stored results; want the passing one written at once", n)
	}
	for i := 2; i <= 4; i++ {
		advanceCheck(t, s.HealthChecks, clock, "the next result", func() bool { return results() == i })
	}
	if n := stored(); n != 1 {
		t.Fatalf("got %d stored results within the minute; want still 1", n)
	}
	// The next probe once the minute has passed writes them all.
	clock.Advance(time.Minute - 3*time.Second)
	kittest.WaitFor(t, "the results to be written", func() bool { return results() == 5 && stored() == 5 })
}
