package app

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/internal/testwait"
)

// createCheck posts a check and expects 201.
func (s *testServer) createCheck(tok, path string, body map[string]any) monitoring.HealthCheck {
	s.t.Helper()
	r := s.do(req{method: "POST", path: path, token: tok, body: body})
	expect(s.t, r, 201, "")
	var hc monitoring.HealthCheck
	r.decode(s.t, &hc)
	return hc
}

func (s *testServer) check(tok, id string) monitoring.HealthCheck {
	s.t.Helper()
	r := s.do(req{method: "GET", path: "/api/monitoring/health-checks/" + id, token: tok})
	expect(s.t, r, 200, "")
	var hc monitoring.HealthCheck
	r.decode(s.t, &hc)
	return hc
}

// alertsOf lists alert events at path (with its query) and keeps those on target.
func (s *testServer) alertsOf(tok, path, target string) []alerts.Alert {
	s.t.Helper()
	var out []alerts.Alert
	for _, a := range listOf[alerts.Alert](s, tok, path) {
		if target == "" || a.TargetID == target {
			out = append(out, a)
		}
	}
	return out
}

// switchable is an HTTP target that answers 200 or 503.
type switchable struct {
	healthy atomic.Bool
	hits    atomic.Int64
}

func (sw *switchable) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	sw.hits.Add(1)
	if !sw.healthy.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

func TestHealthCheckFailingEpisodeRaisesOneAlert(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	target := &switchable{}
	target.healthy.Store(true)
	srv := httptest.NewServer(target)
	defer srv.Close()
	hc := s.createCheck(admin, "/api/monitoring/health-checks", map[string]any{
		"name": "web", "type": "http", "target": srv.URL + "/health", "interval_s": 1, "timeout_ms": 500, "failure_threshold": 2})
	if hc.Last.Status != monitoring.CheckUnknown || hc.FailureThreshold != 2 || !hc.Enabled {
		t.Fatalf("got %+v; want a new enabled check, unknown", hc)
	}
	testwait.Eventually(t, "the check to pass", func() bool { return s.check(admin, hc.ID).Last.Status == monitoring.CheckPassing })

	target.healthy.Store(false)
	testwait.Eventually(t, "the check to fail", func() bool { return s.check(admin, hc.ID).Last.Status == monitoring.CheckFailing })
	byCheck := "/api/monitoring/alerts/events?kind=health_check&limit=500"
	testwait.Eventually(t, "the alert", func() bool { return len(s.alertsOf(admin, byCheck+"&status=firing", hc.ID)) == 1 })
	// More failing probes update nothing into a second event.
	failures := s.check(admin, hc.ID).Last.ConsecutiveFailures
	testwait.Eventually(t, "more failed probes", func() bool { return s.check(admin, hc.ID).Last.ConsecutiveFailures >= failures+2 })
	events := s.alertsOf(admin, byCheck, hc.ID)
	if len(events) != 1 || events[0].Status != alerts.AlertFiring || events[0].Severity != alerts.SeverityCritical ||
		events[0].TargetType != "health_check" {
		t.Fatalf("got %+v; want exactly one firing critical event for the episode", events)
	}

	target.healthy.Store(true)
	testwait.Eventually(t, "the check to pass again", func() bool { return s.check(admin, hc.ID).Last.Status == monitoring.CheckPassing })
	testwait.Eventually(t, "the alert to resolve", func() bool {
		ev := s.alertsOf(admin, byCheck, hc.ID)
		return len(ev) == 1 && ev[0].Status == alerts.AlertResolved && ev[0].ResolvedAt != nil
	})
	got := s.check(admin, hc.ID)
	if len(got.Results) < 3 || len(got.Results) > monitoring.CheckResultsKept || got.Last.ConsecutiveFailures != 0 || got.Last.CheckedAt == nil {
		t.Fatalf("got %+v; want recent results kept and the failures reset", got)
	}
	// The list carries the latest result, the overview counts the check.
	r := s.do(req{method: "GET", path: "/api/monitoring/health-checks", token: admin})
	expect(t, r, 200, "")
	if !strings.Contains(string(r.Body), `"status":"passing"`) {
		t.Fatalf("got list %s; want the check's latest result", r.Body)
	}
	r = s.do(req{method: "GET", path: "/api/monitoring/overview", token: admin})
	expect(t, r, 200, "")
	var o monitoring.MonitoringOverview
	r.decode(t, &o)
	if o.HealthChecks.Total != 1 || o.HealthChecks.Passing != 1 || o.Nodes.Total != 0 {
		t.Fatalf("got overview %+v; want one passing check (and no nodes before a sync)", o)
	}
}

// A check whose target never answers holds up neither other checks nor itself: its
// probes time out one after another and never overlap.
func TestHangingTargetStallsNothing(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	var now, most, hits atomic.Int64
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		n := now.Add(1)
		defer now.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hanging.Close()
	defer close(release)
	healthy := &switchable{}
	healthy.healthy.Store(true)
	ok := httptest.NewServer(healthy)
	defer ok.Close()

	stuck := s.createCheck(admin, "/api/monitoring/health-checks", map[string]any{
		"name": "stuck", "type": "http", "target": hanging.URL, "interval_s": 1, "timeout_ms": 400, "failure_threshold": 2})
	fine := s.createCheck(admin, "/api/monitoring/health-checks", map[string]any{
		"name": "fine", "type": "http", "target": ok.URL, "interval_s": 1, "timeout_ms": 400})
	testwait.Eventually(t, "the healthy check to keep passing", func() bool {
		c := s.check(admin, fine.ID)
		return c.Last.Status == monitoring.CheckPassing && len(c.Results) >= 3
	})
	testwait.Eventually(t, "the hanging check to fail", func() bool {
		c := s.check(admin, stuck.ID)
		return c.Last.Status == monitoring.CheckFailing && c.Last.Error != nil && strings.Contains(*c.Last.Error, "no answer within")
	})
	if m := most.Load(); m != 1 {
		t.Fatalf("got %d probes of one check in the target at once; want 1", m)
	}
	if h := hits.Load(); h < 2 {
		t.Fatalf("got %d probes of the hanging target; want one per interval", h)
	}
}

func TestNodeOfflineAndFailedTaskAlerts(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	open := "/api/monitoring/alerts/events?status=firing"

	if err := s.sim.SetNodeStatus("pve2", hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	s.sync(admin)
	testwait.Eventually(t, "node_offline on pve2", func() bool { return len(s.alertsOf(admin, open+"&kind=node_offline", "pve2")) == 1 })
	a := s.alertsOf(admin, open+"&kind=node_offline", "pve2")[0]
	if a.Severity != alerts.SeverityCritical || a.TargetType != "node" || a.TenantID != nil {
		t.Fatalf("got %+v; want a critical operator alert on the node", a)
	}
	s.sync(admin) // still offline: the same event, no second one
	r := s.do(req{method: "GET", path: "/api/monitoring/overview", token: admin})
	expect(t, r, 200, "")
	var o monitoring.MonitoringOverview
	r.decode(t, &o)
	if o.Nodes != (monitoring.OverviewNodes{Total: 3, Online: 2, Offline: 1}) || o.Alerts.Firing < 1 || o.Alerts.Critical < 1 ||
		o.Machines.Total != 4 || o.Capacity.CPU.TotalCores == 0 || o.Capacity.Memory.TotalMB == 0 || o.Capacity.Disk.TotalGB == 0 {
		t.Fatalf("got overview %+v; want 3 nodes (1 offline), the alert, 4 machines and the online nodes' capacity", o)
	}
	if err := s.sim.SetNodeStatus("pve2", hypervisor.NodeOnline); err != nil {
		t.Fatal(err)
	}
	s.sync(admin)
	testwait.Eventually(t, "node_offline to resolve", func() bool {
		ev := s.alertsOf(admin, "/api/monitoring/alerts/events?kind=node_offline", "pve2")
		return len(ev) == 1 && ev[0].Status == alerts.AlertResolved
	})

	m := byStatus(t, s.machines(admin), machines.StatusRunning)
	s.sim.FailNext(m.VMID, "reboot", errors.New("guest did not come back"))
	task := s.waitTask(admin, s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: admin}).ID)
	if task.Status != tasks.TaskFailed {
		t.Fatalf("got task %+v; want failed", task)
	}
	testwait.Eventually(t, "task_failed on the machine", func() bool { return len(s.alertsOf(admin, open+"&kind=task_failed", m.ID)) == 1 })
	a = s.alertsOf(admin, open+"&kind=task_failed", m.ID)[0]
	if a.Severity != alerts.SeverityWarning || !strings.Contains(a.Message, "guest did not come back") {
		t.Fatalf("got %+v; want a warning naming the task's error", a)
	}
	s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: admin})
	testwait.Eventually(t, "task_failed to resolve", func() bool {
		ev := s.alertsOf(admin, "/api/monitoring/alerts/events?kind=task_failed", m.ID)
		return len(ev) == 1 && ev[0].Status == alerts.AlertResolved
	})

	for _, q := range []string{"status=open", "severity=fatal", "since=yesterday", "kind=disk_full"} {
		expect(t, s.do(req{method: "GET", path: "/api/monitoring/alerts/events?" + q, token: admin}), 400, "invalid_request")
	}
	since := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if ev := s.alertsOf(admin, "/api/monitoring/alerts/events?since="+since, ""); len(ev) != 0 {
		t.Fatalf("got %d events changed in the future; want 0", len(ev))
	}
}

func TestNodeUsageHighAlert(t *testing.T) {
	t.Parallel()
	// Any load counts as busy, for one second.
	s, admin := synced(t, func(c *Config) { c.NodeUsageThreshold, c.NodeUsageFor = 0.000001, time.Second })
	testwait.Eventually(t, "node_usage_high on pve1", func() bool {
		return len(s.alertsOf(admin, "/api/monitoring/alerts/events?kind=node_usage_high&status=firing", "pve1")) == 1
	})
	if err := s.sim.SetNodeStatus("pve1", hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	s.sync(admin)
	testwait.Eventually(t, "node_usage_high to resolve once the node reports nothing", func() bool {
		ev := s.alertsOf(admin, "/api/monitoring/alerts/events?kind=node_usage_high", "pve1")
		return len(ev) == 1 && ev[0].Status == alerts.AlertResolved
	})
}

func TestMonitoringForTenants(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Able", nil)
	b := s.tenant(admin, "Baker", nil)
	am := s.provision(a.Token, smallMachine)
	bm := s.provision(b.Token, smallMachine)
	aIP, bIP := am.Interfaces[0].IPAddresses[0], bm.Interfaces[0].IPAddresses[0]

	for _, p := range []string{"/api/monitoring/overview", "/api/monitoring/health-checks", "/api/monitoring/alerts/events"} {
		expect(t, s.do(req{method: "GET", path: p, token: a.Token}), 403, "forbidden")
	}
	expect(t, s.do(req{method: "POST", path: "/api/monitoring/health-checks", token: a.Token, body: map[string]any{
		"name": "x", "type": "tcp", "target": aIP + ":22", "interval_s": 60, "timeout_ms": 500}}), 403, "forbidden")

	base := "/api/resources/health-checks"
	hc := s.createCheck(a.Token, base, map[string]any{"name": "ssh", "type": "tcp", "target": aIP + ":22", "interval_s": 60, "timeout_ms": 500})
	if hc.TenantID == nil || *hc.TenantID != a.ID || hc.MachineID == nil || *hc.MachineID != am.ID {
		t.Fatalf("got %+v; want tenant %s and machine %s", hc, a.ID, am.ID)
	}
	for _, target := range []string{bIP + ":22", "127.0.0.1:22", "metadata.internal:80"} {
		r := s.do(req{method: "POST", path: base, token: a.Token, body: map[string]any{
			"name": "probe", "type": "tcp", "target": target, "interval_s": 60, "timeout_ms": 500}})
		expect(t, r, 400, "invalid_request")
		var p problemBody
		r.decode(t, &p)
		if len(p.Errors) == 0 || p.Errors[0].Field != "target" {
			t.Fatalf("%s: got %s; want the error on target", target, r.Body)
		}
	}
	expect(t, s.do(req{method: "PATCH", path: base + "/" + hc.ID, token: a.Token, body: map[string]any{"target": bIP + ":22"}}), 400, "invalid_request")
	expect(t, s.do(req{method: "PATCH", path: base + "/" + hc.ID, token: a.Token, body: map[string]any{"last": nil}}), 400, "invalid_request")
	r := s.do(req{method: "PATCH", path: base + "/" + hc.ID, token: a.Token, body: map[string]any{"name": "ssh port", "interval_s": 30}})
	expect(t, r, 200, "")
	expect(t, s.do(req{method: "GET", path: base + "/" + hc.ID, token: b.Token}), 404, "not_found")
	expect(t, s.do(req{method: "DELETE", path: base + "/" + hc.ID, token: b.Token}), 404, "not_found")
	if body := string(s.do(req{method: "GET", path: base, token: b.Token}).Body); strings.Contains(body, hc.ID) {
		t.Fatalf("got tenant B's list %s; want no trace of A's check", body)
	}
	if body := string(s.do(req{method: "GET", path: base, token: a.Token}).Body); !strings.Contains(body, hc.ID) {
		t.Fatalf("got tenant A's list %s; want its check", body)
	}

	// A failed task of A's machine is A's alert: A sees and acknowledges it, B does not.
	s.sim.FailNext(am.VMID, "reboot", nil)
	s.waitTask(admin, s.startTask(req{method: "POST", path: "/api/virt/vms/" + am.ID + "/actions/reboot", token: admin}).ID)
	events := "/api/resources/alert-events"
	testwait.Eventually(t, "A's alert", func() bool { return len(s.alertsOf(a.Token, events, am.ID)) == 1 })
	alert := s.alertsOf(a.Token, events, am.ID)[0]
	if len(s.alertsOf(b.Token, events, "")) != 0 {
		t.Fatal("got alerts in tenant B's list; want none")
	}
	r = s.do(req{method: "GET", path: "/api/client/overview", token: a.Token})
	expect(t, r, 200, "")
	var ov tenants.Overview
	r.decode(t, &ov)
	if ov.AlertsOpen != 1 {
		t.Fatalf("got alerts_open %d; want 1", ov.AlertsOpen)
	}
	expect(t, s.do(req{method: "PATCH", path: events + "/" + alert.ID, token: b.Token, body: map[string]any{"status": "acknowledged"}}), 404, "not_found")
	expect(t, s.do(req{method: "PATCH", path: events + "/" + alert.ID, token: a.Token, body: map[string]any{"status": "resolved"}}), 400, "invalid_request")
	expect(t, s.do(req{method: "PATCH", path: events + "/" + alert.ID, token: a.Token, body: map[string]any{"message": "x"}}), 400, "invalid_request")
	expect(t, s.do(req{method: "DELETE", path: events + "/" + alert.ID, token: a.Token}), 405, "method_not_allowed")
	r = s.do(req{method: "PATCH", path: events + "/" + alert.ID, token: a.Token, body: map[string]any{"status": "acknowledged"}})
	expect(t, r, 200, "")
	var acked alerts.Alert
	r.decode(t, &acked)
	if acked.Status != alerts.AlertAcknowledged || acked.AcknowledgedAt == nil {
		t.Fatalf("got %+v; want acknowledged", acked)
	}
	expect(t, s.do(req{method: "DELETE", path: base + "/" + hc.ID, token: a.Token}), 204, "")
	expect(t, s.do(req{method: "GET", path: base + "/" + hc.ID, token: a.Token}), 404, "not_found")
}

func TestHealthChecksRunAfterRestart(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	target := &switchable{}
	target.healthy.Store(true)
	srv := httptest.NewServer(target)
	defer srv.Close()
	hc := s.createCheck(admin, "/api/monitoring/health-checks", map[string]any{
		"name": "durable", "type": "http", "target": srv.URL, "interval_s": 1, "timeout_ms": 500})
	testwait.Eventually(t, "the check to pass", func() bool { return s.check(admin, hc.ID).Last.Status == monitoring.CheckPassing })

	s.restart()
	admin = s.adminToken()
	restarted := time.Now()
	if got := s.check(admin, hc.ID); got.Last.Status != monitoring.CheckPassing {
		t.Fatalf("got %+v after the restart; want the stored passing status", got.Last)
	}
	hits := target.hits.Load()
	testwait.Eventually(t, "probes after the restart", func() bool {
		c := s.check(admin, hc.ID)
		return target.hits.Load() >= hits+2 && c.Last.CheckedAt != nil && c.Last.CheckedAt.After(restarted)
	})
}
