package cli_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vmplane/vmplane/client"
	"github.com/vmplane/vmplane/internal/testwait"
)

// schedule is a line of `schedule list -o json`: a power or backup schedule.
type schedule struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	MachineID string `json:"machine_id"`
	Cron      string `json:"cron"`
	Enabled   bool   `json:"enabled"`
	Action    string `json:"action"`
	Retention int64  `json:"retention"`
	Mode      string `json:"mode"`
}

// TestOperations is an operator's second session, past the basics of TestFlow:
// schedules of both kinds and the backups they take, health checks and the alerts
// they raise, the monitoring views, and the machine operations of the hypervisor
// (update with null, migrate, reinstall, usage), against a real server.
func TestOperations(t *testing.T) {
	w := newWorld(t)
	w.login()
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Acme")
	var m client.Machine
	w.okJSON(&m, "machine", "create", "--tenant", ten.ID, "--name", "db-1", "--template", "tpl-debian-12", "--wait")

	// Schedules: the kind follows from --action or --retention; list shows both kinds.
	var ps, bs schedule
	w.okJSON(&ps, "schedule", "create", "--machine", m.ID, "--action", "stop", "--cron", "0 22 * * 1-5", "--timezone", "Europe/Berlin")
	if ps.Kind != "power" || ps.Action != "stop" || ps.MachineID != m.ID || !ps.Enabled {
		t.Fatalf("schedule create --action: got %+v; want an enabled power schedule of the machine", ps)
	}
	w.okJSON(&bs, "schedule", "create", "--kind", "backup", "--machine", m.ID, "--cron", "@weekly", "--retention", "3", "--enabled=false")
	if bs.Kind != "backup" || bs.Retention != 3 || bs.Mode != client.BackupSnapshot || bs.Enabled {
		t.Fatalf("schedule create --kind backup: got %+v; want a disabled snapshot schedule keeping 3", bs)
	}
	golden(t, "schedule_list", w.ok("schedule", "list", "--machine", m.ID))
	golden(t, "schedule_show", w.ok("schedule", "show", ps.ID))
	var scheds []schedule
	w.okJSON(&scheds, "schedule", "list", "--kind", "backup", "--tenant", ten.ID)
	if len(scheds) != 1 || scheds[0].ID != bs.ID {
		t.Fatalf("schedule list --kind backup: got %+v; want the backup schedule", scheds)
	}
	// update finds the kind by the id.
	w.okJSON(&bs, "schedule", "update", bs.ID, "--retention", "5", "--mode", "stop", "--enabled")
	if bs.Retention != 5 || bs.Mode != "stop" || !bs.Enabled || bs.Cron != "@weekly" {
		t.Fatalf("schedule update: got %+v; want retention 5, mode stop, enabled, cron kept", bs)
	}
	w.okJSON(&ps, "schedule", "update", ps.ID, "--action", "shutdown")
	if ps.Action != "shutdown" || ps.Cron != "0 22 * * 1-5" {
		t.Fatalf("schedule update --action: got %+v", ps)
	}
	w.fails(2, "--action is a power schedule's", "schedule", "update", bs.ID, "--action", "start")
	w.fails(1, "invalid_request", "schedule", "create", "--machine", m.ID, "--action", "stop", "--cron", "not a cron")
	w.ok("schedule", "delete", ps.ID)
	w.fails(1, "not_found", "schedule", "show", ps.ID)

	// Backups: a per-second schedule takes some; they are listed, shown and deleted.
	w.okJSON(&bs, "schedule", "update", bs.ID, "--cron", "* * * * * *", "--retention", "2", "--mode", "snapshot")
	var backups []client.Backup
	testwait.Eventually(t, "a backup", func() bool {
		w.okJSON(&backups, "backup", "list", "--machine", m.ID)
		return len(backups) > 0
	})
	w.ok("schedule", "delete", bs.ID, "--kind", "backup")
	bk := backups[0]
	if bk.MachineID != m.ID || bk.ScheduleID == nil || *bk.ScheduleID != bs.ID || bk.SizeBytes <= 0 {
		t.Fatalf("backup list: got %+v; want a backup of the machine by the schedule", bk)
	}
	if out := w.ok("backup", "list", "--tenant", ten.ID); !strings.Contains(out, bk.ID) || !strings.Contains(out, "SCHEDULE") {
		t.Fatalf("backup list table: %q; want the backup", out)
	}
	if out := w.ok("backup", "show", bk.ID); !strings.Contains(out, "Backup:") || !strings.Contains(out, bk.BackupID) {
		t.Fatalf("backup show: %q", out)
	}
	w.ok("backup", "delete", bk.ID)
	w.fails(1, "not_found", "backup", "show", bk.ID)

	// A tenant's user manages its own machine's schedules, and meets the operators'
	// views as forbidden.
	if r := w.run("a long enough password\n", "user", "create", "--tenant", ten.ID, "--email", "ops@acme.test", "--name", "Ops", "--password-stdin"); r.code != 0 {
		t.Fatalf("user create: exit %d: %s", r.code, r.err)
	}
	w.ok("remote", "add", "acme", w.base)
	if r := w.run("a long enough password\n", "login", "acme", "--email", "ops@acme.test", "--password-stdin"); r.code != 0 {
		t.Fatalf("login acme: exit %d: %s", r.code, r.err)
	}
	w.okJSON(&ps, "schedule", "create", "--remote", "acme", "--machine", m.ID, "--action", "start", "--cron", "@daily")
	w.okJSON(&scheds, "schedule", "list", "--remote", "acme")
	if len(scheds) != 1 || scheds[0].ID != ps.ID || ps.Kind != "power" {
		t.Fatalf("the tenant's user lists schedules %+v; want its power schedule %s", scheds, ps.ID)
	}
	w.ok("schedule", "delete", ps.ID, "--remote", "acme")
	w.fails(1, "forbidden", "monitoring", "overview", "--remote", "acme")
	if out := w.ok("machine", "usage", m.ID, "--remote", "acme", "--last", "2"); !strings.Contains(out, "CPU") {
		t.Fatalf("the tenant's user reads its machine's graph: %q", out)
	}

	// Health checks: one against a local HTTP server that can be made to fail.
	var failing atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		if failing.Load() {
			rw.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer target.Close()
	var hc client.HealthCheck
	w.okJSON(&hc, "health-check", "create", "--tenant", ten.ID, "--name", "web", "--type", "http", "--target", target.URL+"/health",
		"--interval", "1", "--timeout-ms", "500", "--failure-threshold", "1", "--machine", m.ID, "--enabled=false")
	if hc.Enabled || hc.MachineID == nil || *hc.MachineID != m.ID || hc.TenantID == nil || *hc.TenantID != ten.ID {
		t.Fatalf("health-check create: got %+v; want a disabled check of the tenant's machine", hc)
	}
	golden(t, "health_check_show", w.ok("health-check", "show", hc.ID))
	// --clear-machine sends machine_id null.
	w.okJSON(&hc, "health-check", "update", hc.ID, "--clear-machine", "--enabled")
	if hc.MachineID != nil || !hc.Enabled || hc.Name != "web" {
		t.Fatalf("health-check update --clear-machine: got %+v; want no machine, enabled, name kept", hc)
	}
	testwait.Eventually(t, "the check to pass", func() bool {
		w.okJSON(&hc, "health-check", "show", hc.ID)
		return hc.Last.Status == client.CheckPassing
	})
	var probes []client.ProbeResult
	w.okJSON(&probes, "health-check", "results", hc.ID)
	if len(probes) == 0 || !probes[0].OK || probes[0].StatusCode == nil || *probes[0].StatusCode != 200 {
		t.Fatalf("health-check results: got %+v; want passed probes", probes)
	}
	if out := w.ok("health-check", "list", "--tenant", ten.ID); !strings.Contains(out, hc.ID) || !strings.Contains(out, "passing") {
		t.Fatalf("health-check list: %q", out)
	}

	// Failing: an alert fires, is found by its filters and acknowledged.
	failing.Store(true)
	var alerts []client.Alert
	testwait.Eventually(t, "the alert", func() bool {
		w.okJSON(&alerts, "alert", "list", "--kind", "health_check", "--status", "firing", "--since", "10m")
		return len(alerts) > 0
	})
	al := alerts[0]
	if al.TargetID != hc.ID || al.TenantID == nil || *al.TenantID != ten.ID {
		t.Fatalf("alert list: got %+v; want the check's alert", al)
	}
	if out := w.ok("alert", "list", "--status", "firing"); !strings.Contains(out, al.ID) || !strings.Contains(out, "health_check") {
		t.Fatalf("alert list table: %q", out)
	}
	w.okJSON(&al, "alert", "ack", al.ID)
	if al.Status != client.AlertAcknowledged || al.AcknowledgedAt == nil {
		t.Fatalf("alert ack: got %+v", al)
	}
	if out := w.ok("alert", "show", al.ID); !strings.Contains(out, "acknowledged") {
		t.Fatalf("alert show: %q", out)
	}
	w.okJSON(&alerts, "alert", "list", "--status", "firing", "--kind", "health_check")
	for _, a := range alerts {
		if a.ID == al.ID {
			t.Fatalf("alert list --status firing: the acknowledged alert %s is still there", al.ID)
		}
	}
	w.fails(2, "--since", "alert", "list", "--since", "yesterday")
	w.ok("health-check", "delete", hc.ID)
	testwait.Eventually(t, "the alert to resolve", func() bool {
		w.okJSON(&al, "alert", "show", al.ID)
		return al.Status == client.AlertResolved
	})
	w.fails(1, "invalid_state", "alert", "ack", al.ID)

	// Monitoring, the operators' views.
	var ov client.MonitoringOverview
	w.okJSON(&ov, "monitoring", "overview")
	if ov.Nodes.Total == 0 || ov.Machines.Total == 0 || ov.Capacity.CPU.TotalCores == 0 {
		t.Fatalf("monitoring overview: got %+v", ov)
	}
	if out := w.ok("monitoring", "overview"); !strings.Contains(out, "Nodes:") || !strings.Contains(out, "online") {
		t.Fatalf("monitoring overview table: %q", out)
	}
	var faulty []client.FaultyDeployment
	w.okJSON(&faulty, "monitoring", "faulty")
	w.ok("monitoring", "faulty")
	var fc client.ClusterForecast
	w.okJSON(&fc, "monitoring", "forecast", "--horizon", "30")
	if fc.HorizonDays != 30 || len(fc.Resources) != 3 {
		t.Fatalf("monitoring forecast: got %+v; want 30 days and three resources", fc)
	}
	if out := w.ok("monitoring", "forecast"); !strings.Contains(out, "cpu") || !strings.Contains(out, "memory") {
		t.Fatalf("monitoring forecast table: %q", out)
	}
	var tr client.Trends
	w.okJSON(&tr, "monitoring", "trends", "--tenant", ten.ID, "--days", "7")
	if tr.Days != 7 {
		t.Fatalf("monitoring trends: got %+v; want 7 days", tr)
	}
	w.fails(2, "--horizon", "monitoring", "forecast", "--horizon", "1000")

	// The machine's usage graph: the newest points only, as a table.
	var g client.UsageGraph
	w.okJSON(&g, "machine", "usage", m.ID, "--timeframe", "hour")
	if g.Timeframe != "hour" || len(g.Points) == 0 {
		t.Fatalf("machine usage: got %+v", g)
	}
	out := w.ok("machine", "usage", m.ID, "--timeframe", "hour", "--last", "3")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("machine usage --last 3: %q; want a header and 3 points", out)
	}

	// Migrate to another node, reinstall from another template.
	target2 := "pve1"
	if m.Node == target2 {
		target2 = "pve2"
	}
	var task client.Task
	r := w.run("", "machine", "migrate", m.ID, "--node", target2, "--wait", "-o", "json")
	if r.code != 0 || jsonInto(r.out, &task) != nil || task.Status != client.TaskSucceeded || !strings.Contains(r.err, "succeeded after") {
		t.Fatalf("machine migrate --wait: exit %d, %q, %q", r.code, r.out, r.err)
	}
	w.okJSON(&m, "machine", "show", m.ID)
	if m.Node != target2 {
		t.Fatalf("after migrate: node %s; want %s", m.Node, target2)
	}
	r = w.run("a new root password\n", "machine", "reinstall", m.ID, "--template", "tpl-ubuntu-24.04", "--password-stdin", "--wait", "-o", "json")
	if r.code != 0 || jsonInto(r.out, &task) != nil || task.Status != client.TaskSucceeded {
		t.Fatalf("machine reinstall --wait: exit %d, %q, %q", r.code, r.out, r.err)
	}

	// update: a rename is a task; a move is done at once; --clear-tenant sends null.
	w.okJSON(&task, "machine", "update", m.ID, "--name", "db-main", "--wait")
	if task.Status != client.TaskSucceeded {
		t.Fatalf("machine update --name --wait: got %+v", task)
	}
	var other client.Tenant
	w.okJSON(&other, "tenant", "create", "Globex")
	w.okJSON(&m, "machine", "update", m.ID, "--move-to", other.ID)
	if m.TenantID == nil || *m.TenantID != other.ID || m.Name != "db-main" {
		t.Fatalf("machine update --move-to: got %+v; want db-main of Globex", m)
	}
	w.okJSON(&m, "machine", "update", m.ID, "--clear-tenant")
	if m.TenantID != nil {
		t.Fatalf("machine update --clear-tenant: got tenant %v; want none", *m.TenantID)
	}
	w.fails(2, "one or the other", "machine", "update", m.ID, "--move-to", other.ID, "--clear-tenant")
	w.okJSON(&task, "machine", "delete", m.ID, "--yes", "--wait")
}
