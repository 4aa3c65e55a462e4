package monitoring

import (
	"context"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/machines/capacity"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// putNode writes a node record as a sync would have.
func putNode(t *testing.T, s *testSystem, n capacity.Node) {
	t.Helper()
	val, err := persistence.Encode(capacity.NodeVersion, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rt.Commit(new(persistence.Batch).Put(capacity.NodeKey(n.ID), val)); err != nil {
		t.Fatal(err)
	}
}

// The evaluations' own times decide: a node busy at each of them raises
// node_usage_high once NodeUsageFor has passed since the first, not before, and a calm
// evaluation in between starts the count again.
func TestNodeUsageHighCountsFromTheFirstBusyEvaluation(t *testing.T) {
	s := newTestSystem(t, func(o *testOptions) {
		// The loop's own evaluations are an hour apart: only the ones below run.
		o.Monitoring = MonitoringOptions{NodeUsageThreshold: 0.8, NodeUsageFor: 600 * time.Millisecond, NodeUsageEvery: time.Hour}
	})
	busy := capacity.Node{ID: "pve1", Status: "online", CPUCores: 8, MemoryMB: 1024, Usage: capacity.NodeUsage{CPU: 0.95}}
	putNode(t, s, busy)
	open, since := map[string]bool{}, map[string]time.Time{}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	evaluate := func(at time.Duration, want bool) {
		t.Helper()
		if err := s.Monitoring.evaluateUsage(t0.Add(at), open, since); err != nil {
			t.Fatal(err)
		}
		if open["pve1"] != want {
			t.Fatalf("at +%s: alerted %v; want %v", at, open["pve1"], want)
		}
	}
	evaluate(0, false)
	evaluate(599*time.Millisecond, false)
	calm := busy
	calm.Usage.CPU = 0.1
	putNode(t, s, calm)
	evaluate(700*time.Millisecond, false)
	putNode(t, s, busy)
	evaluate(800*time.Millisecond, false) // busy again: counted from here
	evaluate(1399*time.Millisecond, false)
	evaluate(1400*time.Millisecond, true)
	kittest.WaitFor(t, "pve1's usage alert", func() bool { return openAlert(t, s, alerts.AlertNodeUsageHigh, "pve1") != nil })
}

func TestNodeUsageHighNeedsTheWholeDuration(t *testing.T) {
	s := newTestSystem(t, func(o *testOptions) {
		o.Monitoring = MonitoringOptions{NodeUsageThreshold: 0.8, NodeUsageFor: 600 * time.Millisecond, NodeUsageEvery: 50 * time.Millisecond}
	})
	busy := capacity.Node{ID: "pve1", Status: "online", CPUCores: 8, MemoryMB: 1024, Usage: capacity.NodeUsage{CPU: 0.95, MemBytes: 100 << 20}}
	calm := capacity.Node{ID: "pve2", Status: "online", CPUCores: 8, MemoryMB: 1024, Usage: capacity.NodeUsage{CPU: 0.10, MemBytes: 900 << 20}}
	putNode(t, s, busy)
	putNode(t, s, calm)
	kittest.WaitFor(t, "pve1's usage alert", func() bool { return openAlert(t, s, alerts.AlertNodeUsageHigh, "pve1") != nil })
	a := openAlert(t, s, alerts.AlertNodeUsageHigh, "pve1")
	if a.Severity != alerts.SeverityWarning || a.TargetType != "node" || a.TenantID != nil {
		t.Fatalf("got %+v; want an operator's warning on the node", a)
	}
	// pve2's memory (900 of 1024 MiB) is above 0.8 too.
	kittest.WaitFor(t, "pve2's memory alert", func() bool { return openAlert(t, s, alerts.AlertNodeUsageHigh, "pve2") != nil })

	busy.Usage.CPU = 0.2
	putNode(t, s, busy)
	kittest.WaitFor(t, "pve1's alert to resolve", func() bool { return openAlert(t, s, alerts.AlertNodeUsageHigh, "pve1") == nil })
	if open := openAlert(t, s, alerts.AlertNodeUsageHigh, "pve2"); open == nil {
		t.Fatal("got pve2's alert resolved; want it open while the node stays busy")
	}
}

func TestMonitoringOverview(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	putNode(t, s, capacity.Node{ID: "pve1", Status: "online", CPUCores: 8, MemoryMB: 2048, DiskGB: 100,
		Usage: capacity.NodeUsage{CPU: 0.5, MemBytes: 1024 << 20, DiskBytes: 25 << 30}})
	putNode(t, s, capacity.Node{ID: "pve2", Status: "offline", CPUCores: 8, MemoryMB: 2048, DiskGB: 100})
	for _, r := range []alerts.AlertRaise{
		{Kind: alerts.AlertNodeOffline, Severity: alerts.SeverityCritical, TargetType: "node", TargetID: "pve2", Message: "down"},
		{Kind: alerts.AlertTaskFailed, Severity: alerts.SeverityWarning, TargetType: "machine", TargetID: "M1", Message: "failed"},
		{Kind: alerts.AlertTaskFailed, Severity: alerts.SeverityWarning, TargetType: "machine", TargetID: "M2", Message: "failed"},
	} {
		if _, err := s.Alerts.Raise(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	m2, err := s.Alerts.Raise(ctx, alerts.AlertRaise{Kind: alerts.AlertTaskFailed, Severity: alerts.SeverityWarning, TargetType: "machine", TargetID: "M2", Message: "failed"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Alerts.Acknowledge(ctx, m2.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HealthChecks.Create(ctx, HealthCheckSpec{Name: "off", Type: CheckTCP, Target: "192.0.2.1:80",
		IntervalS: 60, TimeoutMS: 200, Enabled: kit.Ptr(false)}, nil); err != nil {
		t.Fatal(err)
	}
	o, err := s.Monitoring.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := MonitoringOverview{
		Nodes:        OverviewNodes{Total: 2, Online: 1, Offline: 1},
		Alerts:       OverviewAlerts{Firing: 2, Critical: 1, Acknowledged: 1},
		HealthChecks: OverviewChecks{Total: 1, Disabled: 1},
		Capacity: OverviewCapacity{CPU: OverviewCPU{TotalCores: 8, UsedCores: 4, Ratio: 0.5},
			Memory: OverviewMemory{TotalMB: 2048, UsedMB: 1024, Ratio: 0.5}, Disk: OverviewDisk{TotalGB: 100, UsedGB: 25, Ratio: 0.25}},
	}
	if o != want {
		t.Fatalf("got %+v; want %+v", o, want)
	}
}
