package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

const (
	faultyPath   = "/api/monitoring/insights/faulty-deployments"
	forecastPath = "/api/monitoring/insights/cluster-forecast"
)

func (s *testServer) faulty(tok string) map[string]monitoring.FaultyDeployment {
	s.t.Helper()
	r := s.do(req{method: "GET", path: faultyPath, token: tok})
	expect(s.t, r, 200, "")
	var body monitoring.FaultyDeployments
	r.decode(s.t, &body)
	out := map[string]monitoring.FaultyDeployment{}
	for _, it := range body.Items {
		out[it.MachineID] = it
	}
	return out
}

// waitFaulty polls the faulty deployments until ok holds: crash records are written by
// a follower of the event bus, a moment after the sync that saw the crash.
func (s *testServer) waitFaulty(tok string, ok func(map[string]monitoring.FaultyDeployment) bool) map[string]monitoring.FaultyDeployment {
	s.t.Helper()
	var got map[string]monitoring.FaultyDeployment
	testwait.Until(s.t, func() error {
		if got = s.faulty(tok); !ok(got) {
			return fmt.Errorf("got faulty deployments %+v", got)
		}
		return nil
	})
	return got
}

func TestFaultyDeployments(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.tenant(admin, "Shaky", nil)

	// A provisioning failure: the sim picks the vmid, so fail any machine's create.
	s.sim.FailNext(0, "create", errors.New("storage local-lvm is full"))
	r := s.do(req{method: "POST", path: "/api/client/machines", token: ten.Token, body: smallMachine})
	expect(t, r, 202, "")
	var p tenants.Provisioned
	r.decode(t, &p)
	if task := s.waitTask(ten.Token, p.Task.ID); task.Status != tasks.TaskFailed {
		t.Fatalf("got provisioning task %+v; want failed", task)
	}

	ms := s.machines(admin)
	var running []machines.Machine
	for _, m := range ms {
		if m.Status == machines.StatusRunning && m.TaskID == nil {
			running = append(running, m)
		}
	}
	if len(running) < 3 {
		t.Fatalf("got %d running machines; want 3", len(running))
	}
	crashy, flaky, healthy := running[0], running[1], running[2]

	// A crash loop: stopped behind our back, seen by a sync, started again, three times.
	for i := 0; i < 3; i++ {
		if err := s.sim.CrashMachine(crashy.VMID); err != nil {
			t.Fatal(err)
		}
		if res := s.sync(admin); res.Machines.Updated != 1 {
			t.Fatalf("crash %d: got sync %+v; want the crashed machine updated", i, res)
		}
		s.run(req{method: "POST", path: "/api/virt/vms/" + crashy.ID + "/actions/start", token: admin})
	}

	// Repeated task failures.
	s.sim.FailAlways(flaky.VMID, "reboot", errors.New("qmp command 'system_reset' failed"))
	for i := 0; i < 3; i++ {
		task := s.waitTask(admin, s.startTask(req{method: "POST", path: "/api/virt/vms/" + flaky.ID + "/actions/reboot", token: admin}).ID)
		if task.Status != tasks.TaskFailed {
			t.Fatalf("reboot %d: got %+v; want failed", i, task)
		}
	}
	s.sim.ClearFailures()
	// A healthy machine does healthy things.
	s.run(req{method: "POST", path: "/api/virt/vms/" + healthy.ID + "/actions/reboot", token: admin})

	got := s.waitFaulty(admin, func(m map[string]monitoring.FaultyDeployment) bool { return m[crashy.ID].Reason != "" })
	prov, ok := got[p.Machine.ID]
	if !ok || prov.Reason != monitoring.ReasonProvisioningFailed || prov.FailedTasks != 1 || prov.LastError == nil ||
		!strings.Contains(*prov.LastError, "local-lvm is full") || prov.TenantID == nil || *prov.TenantID != ten.ID ||
		prov.Name != smallMachine["name"] || prov.Since.IsZero() {
		t.Fatalf("got %+v; want the tenant's machine with provisioning_failed, 1 failed task and the driver's error", prov)
	}
	if c := got[crashy.ID]; c.Reason != monitoring.ReasonCrashLoop || c.FailedTasks != 0 || c.Since.IsZero() || c.Since.After(time.Now()) {
		t.Fatalf("got %+v; want crash_loop since the first crash", c)
	}
	f := got[flaky.ID]
	if f.Reason != monitoring.ReasonRepeatedFailures || f.FailedTasks != 3 || f.LastError == nil || !strings.Contains(*f.LastError, "system_reset") {
		t.Fatalf("got %+v; want repeated_failures with 3 failed tasks and the reboot's error", f)
	}
	if h, listed := got[healthy.ID]; listed {
		t.Fatalf("got the healthy machine listed: %+v", h)
	}
	if len(got) != 3 {
		t.Fatalf("got %d items %+v; want 3", len(got), got)
	}

	// Operators only.
	expect(t, s.do(req{method: "GET", path: faultyPath, token: ten.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "GET", path: forecastPath, token: ten.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "GET", path: faultyPath}), 401, "unauthorized")
}

func TestFaultyDeploymentsFailingHealthCheck(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.tenant(admin, "Checked", nil)
	m := s.provision(ten.Token, smallMachine)
	// A check bound to the new machine that has failed three probes in a row, as the
	// health checks store it under hc/<id>.
	now := time.Now().UTC()
	rec := map[string]any{"id": "01HCFAILING", "name": "web", "type": "tcp", "target": "192.0.2.10:80",
		"interval_s": 10, "timeout_ms": 1000, "failure_threshold": 3, "machine_id": m.ID, "tenant_id": ten.ID,
		"enabled": true, "created_at": now, "updated_at": now,
		"last": map[string]any{"status": "failing", "checked_at": now, "latency_ms": 1000,
			"error": "dial tcp 192.0.2.10:80: i/o timeout", "consecutive_failures": 3}}
	val, err := persistence.Encode(1, rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.app.System().Store().Commit(context.Background(), new(persistence.Batch).Put(persistence.Key("hc", "01HCFAILING"), val)); err != nil {
		t.Fatal(err)
	}
	got := s.faulty(admin)[m.ID]
	if got.Reason != monitoring.ReasonFailingHealthChecks || got.LastError == nil || !strings.Contains(*got.LastError, "i/o timeout") ||
		!got.Since.Equal(now.Add(-20*time.Second)) {
		t.Fatalf("got %+v; want failing_health_checks since the first of 3 failed probes 10 s apart", got)
	}
}

func TestFaultyDeploymentsFailingHealthCheckProbe(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.tenant(admin, "Probed", nil)
	m := s.provision(ten.Token, smallMachine)
	// A port nobody listens on: every probe is refused at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := ln.Addr().String()
	ln.Close()
	r := s.do(req{method: "POST", path: "/api/monitoring/health-checks", token: admin, body: map[string]any{
		"name": "app port", "type": "tcp", "target": target, "interval_s": 1, "timeout_ms": 500,
		"failure_threshold": 1, "machine_id": m.ID}})
	expect(t, r, 201, "")
	got := s.waitFaulty(admin, func(f map[string]monitoring.FaultyDeployment) bool { return f[m.ID].Reason != "" })[m.ID]
	if got.Reason != monitoring.ReasonFailingHealthChecks || got.LastError == nil || !strings.Contains(*got.LastError, "app port") ||
		got.FailedTasks != 0 || got.Since.IsZero() {
		t.Fatalf("got %+v; want failing_health_checks with the check's error", got)
	}
}

func TestClusterForecastFromHistory(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.HistoryInterval = 0 }) // the test writes the history
	admin := s.adminToken()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	// 21 days up to today: cpu 10 + 2 cores a day of 100 (100 on day 45, 25 days from
	// today); memory flat; disk over capacity since yesterday.
	const gib = 1 << 30
	b := new(persistence.Batch)
	for i := 0; i <= 20; i++ {
		date := today.AddDate(0, 0, i-20).Format(time.DateOnly)
		day := monitoring.UsageDay{Date: date, Source: "sample",
			CPU:    &monitoring.ResourceDay{Avg: 10 + 2*float64(i), Max: 12 + 2*float64(i), Capacity: 100, Samples: 24},
			Memory: &monitoring.ResourceDay{Avg: 64 * gib, Max: 70 * gib, Capacity: 256 * gib, Samples: 24}}
		if i >= 19 {
			day.Disk = &monitoring.ResourceDay{Avg: float64(2000+i) * gib, Max: float64(2000+i) * gib, Capacity: 2000 * gib, Samples: 24}
		}
		val, err := monitoring.EncodeUsageDay(day)
		if err != nil {
			t.Fatal(err)
		}
		b.Put(monitoring.UsageDayKey(date), val)
	}
	if err := s.app.System().Store().Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	forecast := func(query string) map[string]monitoring.ResourceForecast {
		t.Helper()
		r := s.do(req{method: "GET", path: forecastPath + query, token: admin})
		expect(t, r, 200, "")
		var f monitoring.ClusterForecast
		r.decode(t, &f)
		want := 30
		if query != "" {
			fmt.Sscanf(query, "?horizon_days=%d", &want)
		}
		if f.HorizonDays != want || len(f.Resources) != 3 {
			t.Fatalf("got horizon %d and %d resources; want %d and cpu, memory, disk", f.HorizonDays, len(f.Resources), want)
		}
		out := map[string]monitoring.ResourceForecast{}
		for _, r := range f.Resources {
			out[r.Resource] = r
		}
		return out
	}
	day := func(n int) string { return today.AddDate(0, 0, n).Format(time.DateOnly) }
	f := forecast("")
	cpu := f["cpu"]
	if math.Abs(cpu.TrendPerDay-2) > 1e-9 || cpu.Used != 50 || cpu.Capacity != 100 || cpu.ExhaustedAt == nil || *cpu.ExhaustedAt != day(25) ||
		len(cpu.Points) != 21 || cpu.Points[0].Date != day(-20) || cpu.Points[20].Date != day(0) || cpu.Points[20].Used != 50 {
		t.Fatalf("got cpu %+v; want 2 cores a day, exhausted on %s, 21 points oldest first", cpu, day(25))
	}
	if mem := f["memory"]; math.Abs(mem.TrendPerDay) > 1e-6 || mem.ExhaustedAt != nil || mem.Used != 64*gib || mem.Capacity != 256*gib {
		t.Fatalf("got memory %+v; want flat, never exhausted", mem)
	}
	if disk := f["disk"]; disk.ExhaustedAt == nil || *disk.ExhaustedAt != day(0) || len(disk.Points) != 2 {
		t.Fatalf("got disk %+v; want exhausted today", disk)
	}
	// Beyond a shorter horizon, the cpu does not run out.
	if cpu := forecast("?horizon_days=24")["cpu"]; cpu.ExhaustedAt != nil {
		t.Fatalf("got cpu exhausted on %s within 24 days; want null", *cpu.ExhaustedAt)
	}
	if cpu := forecast("?horizon_days=25")["cpu"]; cpu.ExhaustedAt == nil || *cpu.ExhaustedAt != day(25) {
		t.Fatalf("got cpu %+v within 25 days; want %s", cpu, day(25))
	}
	for _, bad := range []string{"0", "366", "-1", "abc", "1.5", "30d"} {
		r := s.do(req{method: "GET", path: forecastPath + "?horizon_days=" + bad, token: admin})
		expect(t, r, 400, "invalid_request")
		var pb problemBody
		r.decode(t, &pb)
		if len(pb.Errors) != 1 || pb.Errors[0].Field != "horizon_days" {
			t.Fatalf("horizon_days=%s: got errors %+v; want one on horizon_days", bad, pb.Errors)
		}
	}
}

func TestClusterForecastBackfillsFromUsageGraphs(t *testing.T) {
	t.Parallel()
	// The default history interval: the sampler backfills from the usage graphs and
	// takes its first sample as the server starts.
	s, admin := synced(t)
	var f monitoring.ClusterForecast
	testwait.Until(t, func() error {
		r := s.do(req{method: "GET", path: forecastPath, token: admin})
		expect(t, r, 200, "")
		r.decode(t, &f)
		if len(f.Resources) == 3 && len(f.Resources[0].Points) == monitoring.ForecastHistoryDays && len(f.Resources[2].Points) > 0 {
			return nil
		}
		return fmt.Errorf("got %+v; want 90 days of cpu history and today's disk", f)
	})
	today := time.Now().UTC().Format(time.DateOnly)
	for _, r := range f.Resources {
		last := r.Points[len(r.Points)-1]
		if last.Date != today || r.Capacity <= 0 || r.Used <= 0 || r.Used != last.Used {
			t.Fatalf("%s: got used %v of %v, last point %+v; want today's usage and a capacity", r.Resource, r.Used, r.Capacity, last)
		}
	}
	// 3 simulated nodes of 32 cores.
	if f.Resources[0].Resource != "cpu" || f.Resources[0].Capacity != 96 || f.Resources[0].Unit != "cores" {
		t.Fatalf("got %+v; want cpu first, of 96 cores", f.Resources[0])
	}
}
