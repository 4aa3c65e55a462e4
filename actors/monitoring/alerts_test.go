package monitoring

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/internal/testwait"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// monKeys counts the keys under prefix.
func monKeys(t *testing.T, s *testSystem, prefix []byte) int {
	t.Helper()
	n := 0
	if err := s.store.Scan(context.Background(), prefix, nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAlertOneOpenEventPerCondition(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	_, sub, _ := s.Events.Subscribe(0, nil)
	defer sub.Close()
	tenant := "T1"
	r := alerts.AlertRaise{Kind: alerts.AlertTaskFailed, Severity: alerts.SeverityWarning, TargetType: "machine", TargetID: "M1", TenantID: &tenant, Message: "first"}

	a1, err := s.Alerts.Raise(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if a1.Status != alerts.AlertFiring || a1.ID == "" || a1.ResolvedAt != nil {
		t.Fatalf("got %+v; want a firing event", a1)
	}
	same, err := s.Alerts.Raise(ctx, r)
	if err != nil || same.ID != a1.ID || !same.UpdatedAt.Equal(a1.UpdatedAt) {
		t.Fatalf("got %+v, %v; want the same event unchanged", same, err)
	}
	r.Message = "second"
	a2, err := s.Alerts.Raise(ctx, r)
	if err != nil || a2.ID != a1.ID || a2.Message != "second" {
		t.Fatalf("got %+v, %v; want the open event %s with the new message", a2, err, a1.ID)
	}
	if n := monKeys(t, s, persistence.Prefix("alert-open", tenant)); n != 1 {
		t.Fatalf("got %d open keys for the tenant; want 1", n)
	}
	if v, err := s.store.Get(context.Background(), alerts.ConditionKey(alerts.AlertTaskFailed, "M1")); err != nil || string(v) != a1.ID {
		t.Fatalf("got condition index %q, %v; want %s", v, err, a1.ID)
	}

	res, err := s.Alerts.Resolve(ctx, alerts.AlertTaskFailed, "M1")
	if err != nil || res.ID != a1.ID || res.Status != alerts.AlertResolved || res.ResolvedAt == nil {
		t.Fatalf("got %+v, %v; want %s resolved", res, err, a1.ID)
	}
	if n := monKeys(t, s, persistence.Prefix("alert-open")); n != 0 {
		t.Fatalf("got %d open keys after resolving; want 0", n)
	}
	if again, err := s.Alerts.Resolve(ctx, alerts.AlertTaskFailed, "M1"); err != nil || again.ID != "" {
		t.Fatalf("got %+v, %v; want nothing to resolve", again, err)
	}
	a3, err := s.Alerts.Raise(ctx, r)
	if err != nil || a3.ID == a1.ID {
		t.Fatalf("got %+v, %v; want a new episode with a new id", a3, err)
	}

	// Every change was published: created, updated, resolved, created again.
	var got []string
	deadline := time.After(5 * time.Second)
	for len(got) < 4 {
		select {
		case ev := <-sub.C:
			if ev.Type == events.EventAlert {
				if ev.TenantID == nil || *ev.TenantID != tenant {
					t.Fatalf("got alert event for tenant %v; want %s", ev.TenantID, tenant)
				}
				got = append(got, ev.Type)
			}
		case <-deadline:
			t.Fatalf("got %d alert events; want 4", len(got))
		}
	}
}

func TestAlertAcknowledge(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	tenant, other := "T1", "T2"
	a, err := s.Alerts.Raise(ctx, alerts.AlertRaise{Kind: alerts.AlertHealthCheck, Severity: alerts.SeverityCritical, TargetType: "health_check",
		TargetID: "HC1", TenantID: &tenant, Message: "down"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Alerts.Acknowledge(ctx, a.ID, &other); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("got %v acknowledging another tenant's event; want not found", err)
	}
	ack, err := s.Alerts.Acknowledge(ctx, a.ID, &tenant)
	if err != nil || ack.Status != alerts.AlertAcknowledged || ack.AcknowledgedAt == nil {
		t.Fatalf("got %+v, %v; want acknowledged", ack, err)
	}
	if again, err := s.Alerts.Acknowledge(ctx, a.ID, nil); err != nil || again.Status != alerts.AlertAcknowledged {
		t.Fatalf("got %+v, %v; want acknowledging twice to change nothing", again, err)
	}
	// The condition persists: the event stays acknowledged while its message moves on.
	up, err := s.Alerts.Raise(ctx, alerts.AlertRaise{Kind: alerts.AlertHealthCheck, Severity: alerts.SeverityCritical, TargetType: "health_check",
		TargetID: "HC1", TenantID: &tenant, Message: "still down"})
	if err != nil || up.ID != a.ID || up.Status != alerts.AlertAcknowledged {
		t.Fatalf("got %+v, %v; want the acknowledged event updated", up, err)
	}
	if _, err := s.Alerts.Resolve(ctx, alerts.AlertHealthCheck, "HC1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Alerts.Acknowledge(ctx, a.ID, nil); !errors.Is(err, apierr.ErrInvalidState) {
		t.Fatalf("got %v acknowledging a resolved event; want invalid_state", err)
	}
}

func TestAlertListFilters(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	tenant := "T1"
	raise := func(kind, sev, target string, tenant *string) alerts.Alert {
		t.Helper()
		a, err := s.Alerts.Raise(ctx, alerts.AlertRaise{Kind: kind, Severity: sev, TargetType: "x", TargetID: target, TenantID: tenant, Message: "m"})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	n1 := raise(alerts.AlertNodeOffline, alerts.SeverityCritical, "pve1", nil)
	t1 := raise(alerts.AlertTaskFailed, alerts.SeverityWarning, "M1", &tenant)
	mid := time.Now().UTC()
	testwait.PastMilli(t, mid)
	raise(alerts.AlertTaskFailed, alerts.SeverityWarning, "M2", &tenant)
	if _, err := s.Alerts.Resolve(ctx, alerts.AlertNodeOffline, "pve1"); err != nil {
		t.Fatal(err)
	}
	ids := func(f alerts.AlertFilter, scope *string) []string {
		t.Helper()
		items, _, err := s.Alerts.List(ctx, f, scope, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range items {
			out = append(out, a.TargetID)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		f     alerts.AlertFilter
		scope *string
		want  []string
	}{
		{"all", alerts.AlertFilter{}, nil, []string{"pve1", "M1", "M2"}},
		{"firing", alerts.AlertFilter{Status: alerts.AlertFiring}, nil, []string{"M1", "M2"}},
		{"resolved", alerts.AlertFilter{Status: alerts.AlertResolved}, nil, []string{"pve1"}},
		{"critical", alerts.AlertFilter{Severity: alerts.SeverityCritical}, nil, []string{"pve1"}},
		{"kind", alerts.AlertFilter{Kind: alerts.AlertTaskFailed}, nil, []string{"M1", "M2"}},
		{"since", alerts.AlertFilter{Since: &mid}, nil, []string{"pve1", "M2"}},
		{"tenant", alerts.AlertFilter{}, &tenant, []string{"M1", "M2"}},
		{"tenant firing since", alerts.AlertFilter{Status: alerts.AlertFiring, Since: &mid}, &tenant, []string{"M2"}},
	} {
		if got := ids(c.f, c.scope); !equalStrings(got, c.want) {
			t.Errorf("%s: got %v; want %v", c.name, got, c.want)
		}
	}
	// Pages hold filtered items only and the cursor continues after the last one.
	page, next, err := s.Alerts.List(ctx, alerts.AlertFilter{Kind: alerts.AlertTaskFailed}, nil, "", 1)
	if err != nil || len(page) != 1 || page[0].ID != t1.ID || next != t1.ID {
		t.Fatalf("got %v, %q, %v; want [%s] and a cursor", page, next, err, t1.ID)
	}
	if _, err := s.Alerts.Get(ctx, n1.ID, &tenant); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("got %v reading an operator's alert as a tenant; want not found", err)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// openAlert returns the open alert of a condition, if any.
func openAlert(t *testing.T, s *testSystem, kind, target string) *alerts.Alert {
	t.Helper()
	id, err := s.store.Get(context.Background(), alerts.ConditionKey(kind, target))
	if errors.Is(err, persistence.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	a, err := alerts.Load(context.Background(), s.store, string(id))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestTaskFailedAlertFollowsTheEventBus(t *testing.T) {
	s := newTestSystem(t)
	tenant := "T1"
	fail := func(id string) {
		msg := "boom"
		s.Events.Publish(events.EventTask, &tenant, tasks.Task{ID: id, Type: "vm.reboot", TargetType: "machine", TargetID: "M1",
			TenantID: &tenant, Status: tasks.TaskFailed, Error: &msg})
	}
	fail("T-1")
	kittest.WaitFor(t, "task_failed to fire", func() bool { return openAlert(t, s, alerts.AlertTaskFailed, "M1") != nil })
	first := openAlert(t, s, alerts.AlertTaskFailed, "M1")
	if first.Severity != alerts.SeverityWarning || first.TenantID == nil || *first.TenantID != tenant || first.TargetType != "machine" {
		t.Fatalf("got %+v; want a warning on machine M1 of %s", first, tenant)
	}

	// A subscription cut off (as when the watcher falls behind) resumes from the last
	// event it saw: what is published meanwhile is not lost.
	s.Monitoring.mu.Lock()
	s.Monitoring.sub.Close()
	s.Monitoring.mu.Unlock()
	s.Events.Publish(events.EventTask, &tenant, tasks.Task{ID: "T-2", Type: "vm.start", TargetType: "machine", TargetID: "M1",
		TenantID: &tenant, Status: tasks.TaskSucceeded})
	kittest.WaitFor(t, "task_failed to resolve", func() bool { return openAlert(t, s, alerts.AlertTaskFailed, "M1") == nil })
	a, err := s.Alerts.Get(context.Background(), first.ID, nil)
	if err != nil || a.Status != alerts.AlertResolved {
		t.Fatalf("got %+v, %v; want the episode resolved", a, err)
	}
}
