package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/client"
	"github.com/vmplane/vmplane/internal/testwait"
)

// routeLog is an http.RoundTripper that notes the method and path of every request
// the clients of a test send, so that the test can tell which routes of the API
// document no call reached.
type routeLog struct {
	mu   sync.Mutex
	seen map[string]bool // "GET /api/resources/backups/01J..."
	next http.RoundTripper
}

func (l *routeLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.seen[r.Method+" "+r.URL.Path] = true
	l.mu.Unlock()
	return l.next.RoundTrip(r)
}

// world is a server with two tenants, a user of each, an operator, and a running
// machine of tenant A.
type world struct {
	base       string
	log        *routeLog
	admin      *client.Client
	a, b       *client.Client // users of tenants A and B
	tenA, tenB *client.Tenant
	tpl        client.Template
	m          *client.Machine // tenant A's
}

func (w *world) client(t *testing.T, opts ...client.Option) *client.Client {
	return mustClient(t, w.base, append(opts, client.WithHTTPClient(&http.Client{Transport: w.log}))...)
}

func newWorld(t *testing.T, ctx context.Context) *world {
	t.Helper()
	w := &world{base: startServer(t), log: &routeLog{seen: map[string]bool{}, next: http.DefaultTransport}}
	w.admin = w.client(t, client.WithCredentials(adminEmail, adminPassword))
	if _, err := w.admin.SyncInventory(ctx); err != nil {
		t.Fatal(err)
	}
	users := map[string]**client.Client{"a": &w.a, "b": &w.b}
	for name, ten := range map[string]**client.Tenant{"a": &w.tenA, "b": &w.tenB} {
		var err error
		if *ten, err = w.admin.CreateTenant(ctx, client.TenantCreate{Name: "tenant " + name}); err != nil {
			t.Fatal(err)
		}
		email := name + "@tenant.test"
		if _, err := w.admin.CreateUser(ctx, client.UserCreate{Email: email, Name: name, Role: client.RoleUser,
			Password: "tenant user password", TenantID: (*ten).ID}); err != nil {
			t.Fatal(err)
		}
		*users[name] = w.client(t, client.WithCredentials(email, "tenant user password"))
	}
	tpls := collect(t, w.a.Templates(ctx, client.ListOptions{}))
	if len(tpls) == 0 {
		t.Fatal("no templates after a sync")
	}
	w.tpl = tpls[0]
	m, task, err := w.a.CreateMachine(ctx, client.MachineSpec{Name: "web", TemplateID: w.tpl.ID, CPUCores: 1, MemoryMB: 512, DiskGB: w.tpl.DiskGB})
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t, ctx, task)
	if w.m, err = w.a.GetMachine(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if w.m.Status != "running" {
		w.wait(t, ctx, must(w.a.MachineAction(ctx, w.m.ID, client.ActionStart)))
	}
	return w
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// wait waits for a task to succeed.
func (w *world) wait(t *testing.T, ctx context.Context, task *client.Task) *client.Task {
	t.Helper()
	done, err := w.admin.WaitTask(ctx, task.ID)
	if err != nil {
		t.Fatalf("task %s (%s): %v", task.ID, task.Type, err)
	}
	return done
}

// isNotFound fails the test unless err is a 404 not_found: what another tenant's
// records answer.
func isNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("%s: got %v; want not_found", what, err)
	}
}

// testStoreBackup takes a backup of the store as an operator: a whole one (it ends
// with the checksum trailer restore verifies, after the header line); a tenant's user
// is refused.
func testStoreBackup(t *testing.T, ctx context.Context, w *world) {
	var buf bytes.Buffer
	n, err := w.admin.Backup(ctx, &buf)
	if err != nil || n == 0 || int64(buf.Len()) != n {
		t.Fatalf("backup: got %d bytes (%d written), %v; want a whole backup", n, buf.Len(), err)
	}
	header, _, ok := bytes.Cut(buf.Bytes(), []byte("\n"))
	if !ok || !bytes.Contains(header, []byte("vmplane")) {
		t.Fatalf("backup starts %q; want its header line", header)
	}
	if _, err := w.a.Backup(ctx, io.Discard); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a tenant's user took a backup: %v; want forbidden", err)
	}
}

// TestRoutes calls every route of the API through the client against a real server,
// checks each answer and that another tenant's records are 404, and then checks that
// every operation of the server's OpenAPI document was reached by some call.
func TestRoutes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	w := newWorld(t, ctx)
	parts := []struct {
		name string
		run  func(*testing.T, context.Context, *world)
	}{
		{"schedules", testSchedules},
		{"backups", testBackups},
		{"health checks and alerts", testHealthChecksAndAlerts},
		{"monitoring", testMonitoring},
		{"machine operations", testMachineOperations},
		{"records", testRecords},
		{"null clears", testNullClears},
		{"idempotency", testIdempotency},
		{"store backup", testStoreBackup},
		{"client machine", testClientMachine},
		{"plans", testPlans},
		{"ip pools", testIPPools},
		{"locations", testLocations},
		{"usage", testUsage},
		{"media", testMedia},
		{"suspension", testSuspension},
		{"webhooks", testWebhooks},
		{"audit log", testAuditLog},
	}
	ran := 0
	for _, p := range parts {
		t.Run(p.name, func(t *testing.T) { ran++; p.run(t, ctx, w) })
	}
	if ran < len(parts) || t.Failed() {
		return // a part failed or was not run: its routes are not a finding of their own
	}
	// The older calls (tenants, users, machines, firewall, events, ...) have their own
	// tests; they are called here once so that the walk below covers the whole API.
	testCoreOnce(t, ctx, w)
	checkEveryRoute(t, ctx, w)
}

func testSchedules(t *testing.T, ctx context.Context, w *world) {
	off := false
	// Power schedules: through the machine's client-area route and the records route.
	p, err := w.a.CreateMachinePowerSchedule(ctx, w.m.ID, client.PowerScheduleSpec{Action: client.ActionStop, Cron: "0 3 * * *", Timezone: "Europe/Berlin"})
	if err != nil || p.MachineID != w.m.ID || p.TenantID != w.tenA.ID || p.Action != "stop" || p.Timezone != "Europe/Berlin" || !p.Enabled || p.NextRunAt == nil {
		t.Fatalf("create power schedule: %+v %v", p, err)
	}
	p2, err := w.admin.ForTenant(w.tenA.ID).CreatePowerSchedule(ctx, client.PowerScheduleSpec{MachineID: w.m.ID, Action: client.ActionStart, Cron: "@daily", Enabled: &off})
	if err != nil || p2.Enabled || p2.TenantID != w.tenA.ID {
		t.Fatalf("create power schedule as the operator: %+v %v", p2, err)
	}
	if got := collect(t, w.a.MachinePowerSchedules(ctx, w.m.ID, client.ListOptions{Limit: 1})); len(got) != 2 || got[0].ID != p.ID {
		t.Fatalf("the machine's power schedules, a page of one at a time: %+v", got)
	}
	if got := collect(t, w.admin.PowerSchedules(ctx, client.RecordFilter{TenantID: w.tenA.ID})); len(got) != 2 {
		t.Fatalf("the tenant's power schedules: %+v", got)
	}
	if got := collect(t, w.b.PowerSchedules(ctx, client.RecordFilter{})); len(got) != 0 {
		t.Fatalf("tenant B sees tenant A's power schedules: %+v", got)
	}
	p, err = w.a.UpdatePowerSchedule(ctx, p.ID, client.PowerScheduleChange{Cron: client.Set("30 4 * * 1-5"), Action: client.Set(client.ActionShutdown)})
	if err != nil || p.Cron != "30 4 * * 1-5" || p.Action != "shutdown" || p.Timezone != "Europe/Berlin" {
		t.Fatalf("update power schedule: %+v %v", p, err)
	}
	if got, err := w.a.GetPowerSchedule(ctx, p.ID); err != nil || got.Cron != p.Cron {
		t.Fatalf("get power schedule: %+v %v", got, err)
	}
	_, err = w.b.GetPowerSchedule(ctx, p.ID)
	isNotFound(t, "tenant B reads A's power schedule", err)
	_, err = w.b.UpdatePowerSchedule(ctx, p.ID, client.PowerScheduleChange{Enabled: client.Set(false)})
	isNotFound(t, "tenant B changes A's power schedule", err)
	isNotFound(t, "tenant B deletes A's power schedule", w.b.DeletePowerSchedule(ctx, p.ID))
	_, err = w.b.CreateMachinePowerSchedule(ctx, w.m.ID, client.PowerScheduleSpec{Action: client.ActionStop, Cron: "@daily"})
	isNotFound(t, "tenant B schedules A's machine", err)
	_, err = w.b.MachinePowerSchedulesPage(ctx, w.m.ID, client.ListOptions{})
	isNotFound(t, "tenant B lists A's machine's schedules", err)
	var e *client.Error
	if _, err := w.a.CreateMachinePowerSchedule(ctx, w.m.ID, client.PowerScheduleSpec{Action: client.ActionStop, Cron: "every day"}); !errors.As(err, &e) ||
		e.Code != "invalid_request" || len(e.Fields) == 0 || e.Fields[0].Field != "cron" {
		t.Fatalf("a schedule with a wrong cron: %v; want invalid_request naming cron", err)
	}
	for _, id := range []string{p.ID, p2.ID} {
		if err := w.a.DeletePowerSchedule(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	_, err = w.a.GetPowerSchedule(ctx, p.ID)
	isNotFound(t, "a deleted power schedule", err)

	// Backup schedules, the same way.
	bs, err := w.a.CreateMachineBackupSchedule(ctx, w.m.ID, client.BackupScheduleSpec{Cron: "0 2 * * *", Retention: 3})
	if err != nil || bs.Retention != 3 || bs.Mode != client.BackupSnapshot || bs.Timezone != "UTC" || bs.MachineID != w.m.ID {
		t.Fatalf("create backup schedule: %+v %v", bs, err)
	}
	bs2, err := w.admin.CreateBackupSchedule(ctx, client.BackupScheduleSpec{MachineID: w.m.ID, TenantID: w.tenA.ID, Cron: "@weekly", Retention: 1, Mode: client.BackupStop})
	if err != nil || bs2.Mode != "stop" || bs2.TenantID != w.tenA.ID {
		t.Fatalf("create backup schedule as the operator: %+v %v", bs2, err)
	}
	if got := collect(t, w.a.MachineBackupSchedules(ctx, w.m.ID, client.ListOptions{})); len(got) != 2 {
		t.Fatalf("the machine's backup schedules: %+v", got)
	}
	if got := collect(t, w.a.BackupSchedules(ctx, client.RecordFilter{MachineID: w.m.ID, ListOptions: client.ListOptions{Limit: 1}})); len(got) != 2 {
		t.Fatalf("backup schedules by machine: %+v", got)
	}
	bs, err = w.a.UpdateBackupSchedule(ctx, bs.ID, client.BackupScheduleChange{Retention: client.Set[int64](7), Enabled: client.Set(false)})
	if err != nil || bs.Retention != 7 || bs.Enabled || bs.Cron != "0 2 * * *" {
		t.Fatalf("update backup schedule: %+v %v", bs, err)
	}
	if got, err := w.a.GetBackupSchedule(ctx, bs.ID); err != nil || got.Retention != 7 {
		t.Fatalf("get backup schedule: %+v %v", got, err)
	}
	_, err = w.b.GetBackupSchedule(ctx, bs.ID)
	isNotFound(t, "tenant B reads A's backup schedule", err)
	_, err = w.b.UpdateBackupSchedule(ctx, bs.ID, client.BackupScheduleChange{Enabled: client.Set(true)})
	isNotFound(t, "tenant B changes A's backup schedule", err)
	isNotFound(t, "tenant B deletes A's backup schedule", w.b.DeleteBackupSchedule(ctx, bs.ID))
	_, err = w.b.CreateMachineBackupSchedule(ctx, w.m.ID, client.BackupScheduleSpec{Cron: "@daily", Retention: 1})
	isNotFound(t, "tenant B schedules backups of A's machine", err)
	for _, id := range []string{bs.ID, bs2.ID} {
		if err := w.a.DeleteBackupSchedule(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}

// testBackups lets a per-second backup schedule take backups, then reads and deletes
// one.
func testBackups(t *testing.T, ctx context.Context, w *world) {
	bs, err := w.a.CreateMachineBackupSchedule(ctx, w.m.ID, client.BackupScheduleSpec{Cron: "* * * * * *", Retention: 2})
	if err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "two backups", func() bool {
		return len(collect(t, w.a.Backups(ctx, client.RecordFilter{MachineID: w.m.ID}))) >= 2
	})
	if err := w.a.DeleteBackupSchedule(ctx, bs.ID); err != nil {
		t.Fatal(err)
	}
	// A run under way when the schedule went may still add a backup and drop the
	// oldest for the retention: the newest is the one to read.
	backups := collect(t, w.a.Backups(ctx, client.RecordFilter{MachineID: w.m.ID}))
	if len(backups) < 2 {
		t.Fatalf("got %d backups after the schedule was deleted; want its backups kept", len(backups))
	}
	bk := backups[len(backups)-1]
	if bk.MachineID != w.m.ID || bk.TenantID != w.tenA.ID || bk.VMID != w.m.VMID || bk.ScheduleID == nil || *bk.ScheduleID != bs.ID || bk.SizeBytes <= 0 {
		t.Fatalf("got backup %+v; want it tied to the machine and the schedule", bk)
	}
	if got, err := w.a.GetBackup(ctx, bk.ID); err != nil || got.BackupID != bk.BackupID {
		t.Fatalf("get backup: %+v %v", got, err)
	}
	if page, err := w.admin.BackupsPage(ctx, client.RecordFilter{TenantID: w.tenA.ID, ListOptions: client.ListOptions{Limit: 1}}); err != nil ||
		len(page.Items) != 1 || page.NextCursor == "" {
		t.Fatalf("a page of one backup: %+v %v", page, err)
	}
	if got := collect(t, w.b.Backups(ctx, client.RecordFilter{})); len(got) != 0 {
		t.Fatalf("tenant B sees A's backups: %+v", got)
	}
	_, err = w.b.GetBackup(ctx, bk.ID)
	isNotFound(t, "tenant B reads A's backup", err)
	isNotFound(t, "tenant B deletes A's backup", w.b.DeleteBackup(ctx, bk.ID))
	testRestoreAsNew(t, ctx, w, bk)
	if err := w.a.DeleteBackup(ctx, bk.ID); err != nil {
		t.Fatal(err)
	}
	_, err = w.a.GetBackup(ctx, bk.ID)
	isNotFound(t, "a deleted backup", err)
}

// testHealthChecksAndAlerts probes a loopback server: passing, then failing into an
// alert that tenant A acknowledges, then resolved when the check is deleted.
func testHealthChecksAndAlerts(t *testing.T, ctx context.Context, w *world) {
	var healthy sync.Map
	healthy.Store("ok", true)
	target := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		if ok, _ := healthy.Load("ok"); ok.(bool) {
			rw.WriteHeader(http.StatusOK)
			return
		}
		rw.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer target.Close()

	// The operator makes a check for tenant A (a tenant's user may only probe its
	// machines' addresses, which no test contacts).
	hc, err := w.admin.ForTenant(w.tenA.ID).CreateHealthCheck(ctx, client.HealthCheckSpec{Name: "web", Type: client.CheckHTTP,
		Target: target.URL + "/health", IntervalS: 1, TimeoutMS: 500, FailureThreshold: 1, MachineID: w.m.ID})
	if err != nil || hc.TenantID == nil || *hc.TenantID != w.tenA.ID || hc.MachineID == nil || *hc.MachineID != w.m.ID || hc.Last.Status != client.CheckUnknown {
		t.Fatalf("create health check: %+v %v", hc, err)
	}
	testwait.Eventually(t, "the check to pass", func() bool {
		got, err := w.a.GetHealthCheck(ctx, hc.ID)
		return err == nil && got.Last.Status == client.CheckPassing && len(got.Results) > 0 && got.Results[0].OK
	})
	if got := collect(t, w.a.HealthChecks(ctx, "", client.ListOptions{})); len(got) != 1 || got[0].ID != hc.ID {
		t.Fatalf("tenant A's health checks: %+v", got)
	}
	if got := collect(t, w.admin.HealthChecks(ctx, w.tenB.ID, client.ListOptions{})); len(got) != 0 {
		t.Fatalf("tenant B's health checks, as the operator: %+v", got)
	}
	_, err = w.b.GetHealthCheck(ctx, hc.ID)
	isNotFound(t, "tenant B reads A's health check", err)
	_, err = w.b.UpdateHealthCheck(ctx, hc.ID, client.HealthCheckChange{Enabled: client.Set(false)})
	isNotFound(t, "tenant B changes A's health check", err)
	isNotFound(t, "tenant B deletes A's health check", w.b.DeleteHealthCheck(ctx, hc.ID))

	// Null unties the check from its machine; the other fields stay.
	hc, err = w.a.UpdateHealthCheck(ctx, hc.ID, client.HealthCheckChange{MachineID: client.Null[string](), Name: client.Set("web front")})
	if err != nil || hc.MachineID != nil || hc.Name != "web front" || hc.IntervalS != 1 {
		t.Fatalf("clear the check's machine: %+v %v", hc, err)
	}

	// Failing: an alert fires for tenant A, which acknowledges it.
	since := time.Now().Add(-time.Second)
	healthy.Store("ok", false)
	var alert client.Alert
	testwait.Eventually(t, "the alert", func() bool {
		for a, err := range w.a.Alerts(ctx, client.AlertFilter{Kind: "health_check", Status: client.AlertFiring, Since: since}) {
			if err != nil {
				t.Fatal(err)
			}
			if a.TargetID == hc.ID {
				alert = a
				return true
			}
		}
		return false
	})
	if alert.TenantID == nil || *alert.TenantID != w.tenA.ID || alert.Severity == "" || alert.Message == "" {
		t.Fatalf("got alert %+v; want tenant A's, with a severity and a message", alert)
	}
	if got := collect(t, w.b.Alerts(ctx, client.AlertFilter{})); len(got) != 0 {
		t.Fatalf("tenant B sees A's alerts: %+v", got)
	}
	_, err = w.b.GetAlert(ctx, alert.ID)
	isNotFound(t, "tenant B reads A's alert", err)
	_, err = w.b.AcknowledgeAlert(ctx, alert.ID)
	isNotFound(t, "tenant B acknowledges A's alert", err)
	acked, err := w.a.AcknowledgeAlert(ctx, alert.ID)
	if err != nil || acked.Status != client.AlertAcknowledged || acked.AcknowledgedAt == nil {
		t.Fatalf("acknowledge: %+v %v", acked, err)
	}
	if got, err := w.a.GetAlert(ctx, alert.ID); err != nil || got.Status != client.AlertAcknowledged {
		t.Fatalf("get the acknowledged alert: %+v %v", got, err)
	}
	if page, err := w.admin.AlertsPage(ctx, client.AlertFilter{Status: client.AlertAcknowledged}); err != nil || len(page.Items) != 1 {
		t.Fatalf("acknowledged alerts, as the operator: %+v %v", page, err)
	}

	// Deleting the check resolves its alert; a resolved alert cannot be acknowledged.
	if err := w.a.DeleteHealthCheck(ctx, hc.ID); err != nil {
		t.Fatal(err)
	}
	_, err = w.a.GetHealthCheck(ctx, hc.ID)
	isNotFound(t, "a deleted health check", err)
	testwait.Eventually(t, "the alert to resolve", func() bool {
		got, err := w.a.GetAlert(ctx, alert.ID)
		return err == nil && got.Status == client.AlertResolved && got.ResolvedAt != nil
	})
	if _, err := w.a.AcknowledgeAlert(ctx, alert.ID); !errors.Is(err, client.ErrInvalidState) {
		t.Fatalf("acknowledge a resolved alert: %v; want invalid_state", err)
	}
}

func testMonitoring(t *testing.T, ctx context.Context, w *world) {
	ov, err := w.admin.MonitoringOverview(ctx)
	if err != nil || ov.Nodes.Total == 0 || ov.Machines.Total == 0 || ov.Capacity.CPU.TotalCores == 0 {
		t.Fatalf("monitoring overview: %+v %v", ov, err)
	}
	if _, err := w.a.MonitoringOverview(ctx); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a tenant's user reads the monitoring overview: %v; want forbidden", err)
	}
	if _, err := w.admin.FaultyDeployments(ctx); err != nil {
		t.Fatal(err)
	}
	fc, err := w.admin.ClusterForecast(ctx, 30)
	if err != nil || fc.HorizonDays != 30 || len(fc.Resources) != 3 {
		t.Fatalf("cluster forecast: %+v %v", fc, err)
	}
	if _, err := w.admin.ClusterForecast(ctx, 100000); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("a forecast beyond the horizon: %v; want invalid_request", err)
	}
	tr, err := w.a.UsageTrends(ctx, 7)
	if err != nil || tr.Days != 7 {
		t.Fatalf("usage trends: %+v %v", tr, err)
	}
	if _, err := w.admin.ForTenant(w.tenB.ID).UsageTrends(ctx, 0); err != nil {
		t.Fatalf("tenant B's usage trends, as the operator: %v", err)
	}
	g, err := w.admin.MachineUsage(ctx, w.m.ID, client.TimeframeHour)
	if err != nil || g.Timeframe != "hour" || len(g.Points) == 0 || g.ResolutionSeconds <= 0 {
		t.Fatalf("machine usage: %+v %v", g, err)
	}
	if g, err = w.admin.NodeUsage(ctx, w.m.Node, client.TimeframeDay); err != nil || len(g.Points) == 0 {
		t.Fatalf("node usage: %+v %v", g, err)
	}
	cu, err := w.admin.ClusterUsage(ctx, "")
	if err != nil || len(cu.Points) == 0 {
		t.Fatalf("cluster usage: %+v %v", cu, err)
	}
	if _, err := w.a.MachineUsage(ctx, w.m.ID, ""); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a tenant's user reads the hypervisor's usage graph: %v; want forbidden", err)
	}
}

// testMachineOperations runs the operators' machine operations on tenant A's machine
// and moves it between tenants.
func testMachineOperations(t *testing.T, ctx context.Context, w *world) {
	nodes := collect(t, w.admin.Nodes(ctx, client.ListOptions{}))
	if len(nodes) < 2 {
		t.Fatalf("got nodes %+v; want two or more to migrate between", nodes)
	}
	if n, err := w.admin.GetNode(ctx, w.m.Node); err != nil || n.ID != w.m.Node || n.CPUCores == 0 {
		t.Fatalf("get node: %+v %v", n, err)
	}
	if _, err := w.a.GetNode(ctx, w.m.Node); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a tenant's user reads a node: %v; want forbidden", err)
	}

	con, err := w.admin.ConsoleTicket(ctx, w.m.ID, "")
	if err != nil || con.Ticket == "" || !strings.Contains(con.Path, con.Ticket) || con.ExpiresAt.IsZero() {
		t.Fatalf("console ticket: %+v %v", con, err)
	}
	// The websocket answers the ticket's upgrade with 101, once: a console program
	// dials ConsoleURL with a websocket library; the handshake alone is done here.
	wsURL := w.admin.ConsoleURL(con)
	if !strings.HasPrefix(wsURL, "ws://127.0.0.1:") || !strings.HasSuffix(wsURL, con.Path) {
		t.Fatalf("console URL %q of %+v; want ws:// to the server", wsURL, con)
	}
	for i, want := range []int{http.StatusSwitchingProtocols, http.StatusUnauthorized} {
		if got := wsHandshake(t, ctx, w, wsURL); got != want {
			t.Fatalf("console handshake %d: got %d; want %d", i+1, got, want)
		}
	}

	target := nodes[0].ID
	if target == w.m.Node {
		target = nodes[1].ID
	}
	w.wait(t, ctx, must(w.admin.MigrateMachine(ctx, w.m.ID, target, nil)))
	w.wait(t, ctx, must(w.admin.ConfigureMachine(ctx, w.m.ID, client.MachineConfig{CPUCores: client.Set[int64](2)})))
	w.wait(t, ctx, must(w.admin.SetInterfaces(ctx, w.m.ID, client.InterfaceChange{ID: w.m.Interfaces[0].ID, RateMbps: client.Set[int64](100)})))
	disks := len(w.m.Disks)
	w.wait(t, ctx, must(w.admin.AddDisk(ctx, w.m.ID, client.DiskSpec{SizeGB: 5})))
	m, err := w.a.GetMachine(ctx, w.m.ID)
	if err != nil || m.Node != target || m.CPUCores != 2 || m.Interfaces[0].RateMbps != 100 || len(m.Disks) != disks+1 {
		t.Fatalf("after migrate, configure, network and disk: %+v %v", m, err)
	}
	w.wait(t, ctx, must(w.admin.ReinstallMachine(ctx, w.m.ID, client.Reinstall{TemplateID: w.tpl.ID, Password: "a new root password"})))
	w.wait(t, ctx, must(w.admin.VirtMachineAction(ctx, w.m.ID, "poweroff")))
	if _, err := w.admin.ConsoleTicket(ctx, w.m.ID, client.ConsoleSerial); !errors.Is(err, client.ErrInvalidState) {
		t.Fatalf("a console ticket of a stopped machine: %v; want invalid_state", err)
	}
	w.wait(t, ctx, must(w.admin.VirtMachineAction(ctx, w.m.ID, client.ActionStart)))
	if _, err := w.a.ReinstallMachine(ctx, w.m.ID, client.Reinstall{TemplateID: w.tpl.ID}); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a tenant's user reinstalls through /api/virt: %v; want forbidden", err)
	}

	// Rename by the tenant (a task), move between tenants by the operator (at once).
	_, task, err := w.a.UpdateMachine(ctx, w.m.ID, client.MachineChange{Name: client.Set("web-renamed")})
	if err != nil || task == nil {
		t.Fatalf("rename: %+v %v", task, err)
	}
	w.wait(t, ctx, task)
	_, _, err = w.b.UpdateMachine(ctx, w.m.ID, client.MachineChange{Name: client.Set("mine")})
	isNotFound(t, "tenant B renames A's machine", err)
	moved, task, err := w.admin.UpdateMachine(ctx, w.m.ID, client.MachineChange{TenantID: client.Set(w.tenB.ID)})
	if err != nil || task != nil || moved.TenantID == nil || *moved.TenantID != w.tenB.ID || moved.Name != "web-renamed" {
		t.Fatalf("move to tenant B: %+v %+v %v", moved, task, err)
	}
	_, err = w.a.GetMachine(ctx, w.m.ID)
	isNotFound(t, "tenant A reads its machine moved to B", err)
	if moved, _, err = w.admin.UpdateMachine(ctx, w.m.ID, client.MachineChange{TenantID: client.Null[string]()}); err != nil || moved.TenantID != nil {
		t.Fatalf("take the machine from its tenant with null: %+v %v", moved, err)
	}
	// A machine of no tenant is in no client-area list, but in the operator's list of all.
	if ms := collect(t, w.admin.AllMachines(ctx, client.MachineFilter{Name: "web-renamed"})); len(ms) != 1 || ms[0].TenantID != nil {
		t.Fatalf("the operator's list of all machines: %+v", ms)
	}
	if ms := collect(t, w.a.AllMachines(ctx, client.MachineFilter{})); len(ms) != 0 {
		t.Fatalf("tenant A lists a machine of no tenant: %+v", ms)
	}
	if moved, _, err = w.admin.UpdateMachine(ctx, w.m.ID, client.MachineChange{TenantID: client.Set(w.tenA.ID)}); err != nil || *moved.TenantID != w.tenA.ID {
		t.Fatalf("give the machine back to tenant A: %+v %v", moved, err)
	}
}

// wsHandshake sends a websocket upgrade to u (ws://) through the test's transport and
// returns the answer's status, closing the connection.
func wsHandshake(t *testing.T, ctx context.Context, w *world, u string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+strings.TrimPrefix(u, "ws://"), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	res, err := (&http.Client{Transport: w.log}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func testRecords(t *testing.T, ctx context.Context, w *world) {
	tasks := collect(t, w.a.Tasks(ctx, client.ListOptions{Limit: 2}))
	if len(tasks) == 0 {
		t.Fatal("tenant A sees no tasks")
	}
	for _, task := range tasks {
		if task.TenantID == nil || *task.TenantID != w.tenA.ID {
			t.Fatalf("tenant A sees task %+v", task)
		}
	}
	if page, err := w.b.TasksPage(ctx, client.ListOptions{}); err != nil || len(page.Items) != 0 {
		t.Fatalf("tenant B's tasks: %+v %v", page, err)
	}
	if got, err := w.a.GetTemplate(ctx, w.tpl.ID); err != nil || got.Name != w.tpl.Name {
		t.Fatalf("get template: %+v %v", got, err)
	}
	sr, err := w.admin.SyncInventory(ctx)
	if err != nil || sr.Nodes == 0 {
		t.Fatalf("sync: %+v %v", sr, err)
	}
	doc, err := w.a.OpenAPI(ctx)
	if err != nil || !json.Valid(doc) || !strings.Contains(string(doc), `"openapi"`) {
		t.Fatalf("openapi: %.80s %v", doc, err)
	}
}

// testNullClears clears nullable fields of a firewall rule with client.Null, and
// checks that fields left out keep their value.
func testNullClears(t *testing.T, ctx context.Context, w *world) {
	port, src, comment := "22", "10.0.0.0/8", "ssh from the office"
	r, err := w.a.CreateFirewallRule(ctx, client.FirewallRuleSpec{Direction: "in", Action: "accept", Protocol: "tcp",
		MachineID: &w.m.ID, Port: &port, Source: &src, Comment: &comment})
	if err != nil {
		t.Fatal(err)
	}
	r, err = w.a.PatchFirewallRule(ctx, r.ID, client.FirewallRulePatch{Port: client.Null[string](), MachineID: client.Null[string](),
		Comment: client.Null[string](), Action: client.Set("drop")})
	if err != nil || r.Port != nil || r.MachineID != nil || r.Comment != "" || r.Action != "drop" || r.Source == nil || *r.Source != src {
		t.Fatalf("clear port, machine and comment: %+v %v", r, err)
	}
	if got, err := w.a.GetFirewallRule(ctx, r.ID); err != nil || got.Port != nil || got.Source == nil {
		t.Fatalf("get rule: %+v %v", got, err)
	}
	if rules := collect(t, w.admin.AllFirewallRules(ctx, client.ListOptions{Limit: 1})); len(rules) != 1 || rules[0].ID != r.ID {
		t.Fatalf("the operator's list of all rules: %+v", rules)
	}
	if rules := collect(t, w.b.AllFirewallRules(ctx, client.ListOptions{})); len(rules) != 0 {
		t.Fatalf("tenant B lists A's rules: %+v", rules)
	}
	_, err = w.b.GetFirewallRule(ctx, r.ID)
	isNotFound(t, "tenant B reads A's rule", err)
	_, err = w.b.PatchFirewallRule(ctx, r.ID, client.FirewallRulePatch{Port: client.Null[string]()})
	isNotFound(t, "tenant B patches A's rule", err)
	// A field that cannot be null is a 400 naming it.
	var e *client.Error
	if _, err := w.a.PatchFirewallRule(ctx, r.ID, client.FirewallRulePatch{Direction: client.Null[string]()}); !errors.As(err, &e) || e.Status != 400 {
		t.Fatalf("null direction: %v; want 400", err)
	}
	if err := w.a.DeleteFirewallRule(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
}

// testIdempotency: a POST repeated with its key answers the first result and applies
// once; the key with another body is refused.
func testIdempotency(t *testing.T, ctx context.Context, w *world) {
	kctx := client.WithIdempotencyKey(ctx, client.NewIdempotencyKey())
	first, err := w.admin.CreateTenant(kctx, client.TenantCreate{Name: "once"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := w.admin.CreateTenant(kctx, client.TenantCreate{Name: "once"})
	if err != nil || again.ID != first.ID {
		t.Fatalf("the same create with the same key: %+v %v; want tenant %s again", again, err, first.ID)
	}
	n := 0
	for ten, err := range w.admin.Tenants(ctx, client.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if ten.Name == "once" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("got %d tenants named once; want 1", n)
	}
	if _, err := w.admin.CreateTenant(kctx, client.TenantCreate{Name: "other"}); !errors.Is(err, client.ErrIdempotencyKeyReused) {
		t.Fatalf("the key with another body: %v; want idempotency_key_reused", err)
	}
	if err := w.admin.DeleteTenant(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
}

// testOwnAccount lists a user's sessions, ends one, and changes the password of a
// client made WithCredentials, which goes on working, and changes it back.
func testOwnAccount(t *testing.T, ctx context.Context, w *world) {
	const email, password = "a@tenant.test", "tenant user password"
	own, other := w.client(t, client.WithCredentials(email, password)), w.client(t, client.WithCredentials(email, password))
	for _, c := range []*client.Client{own, other} {
		if _, err := c.Login(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var sessions []client.Session
	for s, err := range own.Sessions(ctx, client.ListOptions{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	if len(sessions) < 2 || !(sessions[0].Current || sessions[1].Current) || sessions[0].Method != "password" {
		t.Fatalf("got sessions %+v; want the client's own (current) and the other's", sessions)
	}
	otherID := sessions[0].ID
	if sessions[0].Current {
		otherID = sessions[1].ID
	}
	if err := own.EndSession(ctx, otherID); err != nil {
		t.Fatal(err)
	}
	if err := own.EndSession(ctx, otherID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("ending it again: %v; want not found", err)
	}
	if err := own.ChangePassword(ctx, "not the password", "a new password"); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("a wrong current password: %v; want invalid_request", err)
	}
	if err := own.ChangePassword(ctx, password, "a new password"); err != nil {
		t.Fatal(err)
	}
	if _, err := own.Me(ctx); err != nil {
		t.Fatalf("after the change: %v", err)
	}
	if err := own.ChangePassword(ctx, "a new password", password); err != nil {
		t.Fatal(err)
	}
}

// testAPIKeys makes a key, calls with it (WithToken), lists, reads and revokes it.
func testAPIKeys(t *testing.T, ctx context.Context, w *world) {
	k, err := w.admin.CreateAPIKey(ctx, client.APIKeySpec{Name: "walk", Scopes: []string{client.ScopeRead}})
	if err != nil || !strings.HasPrefix(k.Secret, "vmp_") {
		t.Fatalf("create: %+v %v", k, err)
	}
	keyed := w.client(t, client.WithToken(k.Secret))
	if got, err := keyed.GetAPIKey(ctx, k.ID); err != nil || got.ID != k.ID {
		t.Fatalf("a key reads itself: %+v %v", got, err)
	}
	if _, err := keyed.CreateTenant(ctx, client.TenantCreate{Name: "not with a read key"}); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a read key writes: %v", err)
	}
	if keys := collect(t, w.admin.APIKeys(ctx, client.ListOptions{})); len(keys) == 0 {
		t.Fatal("no keys listed")
	}
	if err := w.admin.RevokeAPIKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := keyed.GetAPIKey(ctx, k.ID); !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("a revoked key: %v", err)
	}
}

// testClientMachine walks one machine's client-area calls on a machine of its own.
func testClientMachine(t *testing.T, ctx context.Context, w *world) {
	m, task, err := w.a.CreateMachine(ctx, client.MachineSpec{Name: "mine", TemplateID: w.tpl.ID, CPUCores: 1, MemoryMB: 512, DiskGB: w.tpl.DiskGB})
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t, ctx, task)
	d, err := w.a.MachineDetails(ctx, m.ID)
	if err != nil || d.ID != m.ID || d.PowerSchedules == nil {
		t.Fatalf("details: %+v %v", d, err)
	}
	if _, err := w.b.MachineDetails(ctx, m.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("tenant B reads A's machine: %v", err)
	}
	if g, err := w.a.MachineGraph(ctx, m.ID, "day"); err != nil || len(g.Points) == 0 {
		t.Fatalf("graph: %+v %v", g, err)
	}
	if con, err := w.a.MachineConsole(ctx, m.ID, ""); err != nil || !strings.Contains(w.a.ConsoleURL(con), "/api/client/machines/"+m.ID+"/console/ws?ticket=") {
		t.Fatalf("console: %+v %v", con, err)
	}
	w.wait(t, ctx, must(w.a.Reinstall(ctx, m.ID, client.Reinstall{TemplateID: w.tpl.ID, Password: "a-root-password"})))
	if ts := collect(t, w.a.MachineTasks(ctx, m.ID, client.ListOptions{Limit: 1})); len(ts) != 2 || ts[0].Type != "vm.reinstall" {
		t.Fatalf("the machine's tasks, newest first: %+v", ts)
	}
	if d, err := w.a.MachineDetails(ctx, m.ID); err != nil || d.LastTask == nil || d.LastTask.Type != "vm.reinstall" {
		t.Fatalf("last task: %+v %v", d, err)
	}
	w.wait(t, ctx, must(w.a.BackupMachine(ctx, m.ID, client.BackupSpec{Note: "first"})))
	backups := collect(t, w.a.MachineBackups(ctx, m.ID, client.ListOptions{}))
	if len(backups) != 1 || backups[0].Note != "first" || backups[0].Origin != "on_demand" {
		t.Fatalf("backups: %+v", backups)
	}
	w.wait(t, ctx, must(w.a.RestoreMachine(ctx, m.ID, backups[0].ID, true)))
	w.wait(t, ctx, must(w.a.CreateSnapshot(ctx, m.ID, client.SnapshotSpec{Name: "clean"})))
	if snaps := collect(t, w.a.Snapshots(ctx, m.ID, client.ListOptions{})); len(snaps) != 1 || snaps[0].Name != "clean" {
		t.Fatalf("snapshots: %+v", snaps)
	}
	w.wait(t, ctx, must(w.a.RollbackSnapshot(ctx, m.ID, "clean")))
	w.wait(t, ctx, must(w.a.DeleteSnapshot(ctx, m.ID, "clean")))
	w.wait(t, ctx, must(w.a.RemoveMachine(ctx, m.ID)))
}

// testMedia adds an image to the library (one whose checksum does not match fails),
// mounts and ejects it, sets the boot order and turns rescue on and off, as the
// tenant and as the operator, and deletes the image.
func testMedia(t *testing.T, ctx context.Context, w *world) {
	body := []byte("a bootable image")
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { _, _ = rw.Write(body) }))
	defer srv.Close()
	sum := sha256.Sum256(body)
	checksum := "sha256:" + hex.EncodeToString(sum[:])
	bad := must(w.admin.AddISO(ctx, client.ISOSpec{Name: "bad", URL: srv.URL, Checksum: "sha256:" + strings.Repeat("0", 64)}))
	if _, err := w.admin.WaitTask(ctx, bad.Task.ID); err == nil {
		t.Fatal("a checksum that does not match: the fetch succeeded")
	}
	added := must(w.admin.AddISO(ctx, client.ISOSpec{Name: apptest.RescueISO, URL: srv.URL, Checksum: checksum}))
	w.wait(t, ctx, &added.Task)
	if iso, err := w.a.GetISO(ctx, added.ISO.ID); err != nil || iso.Status != "ready" {
		t.Fatalf("the image: %+v %v", iso, err)
	}
	if isos := collect(t, w.a.ISOs(ctx, client.ListOptions{})); len(isos) != 2 {
		t.Fatalf("the tenant's images: %+v", isos)
	}
	m := w.m
	w.wait(t, ctx, must(w.a.MountISO(ctx, m.ID, added.ISO.ID)))
	if d, err := w.a.MachineDetails(ctx, m.ID); err != nil || d.Media == nil || d.Media.ISOID != added.ISO.ID {
		t.Fatalf("mounted: %+v %v", d, err)
	}
	if err := w.admin.DeleteISO(ctx, added.ISO.ID); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("delete of a mounted image: %v", err)
	}
	w.wait(t, ctx, must(w.a.EjectISO(ctx, m.ID)))
	w.wait(t, ctx, must(w.a.SetBootOrder(ctx, m.ID, client.BootDisk, client.BootNet)))
	w.wait(t, ctx, must(w.a.SetRescue(ctx, m.ID, true)))
	if d, err := w.a.MachineDetails(ctx, m.ID); err != nil || !d.Rescue || d.BootOrder[0] != client.BootCDROM {
		t.Fatalf("rescue: %+v %v", d, err)
	}
	w.wait(t, ctx, must(w.a.SetRescue(ctx, m.ID, false)))
	w.wait(t, ctx, must(w.admin.VirtMountISO(ctx, m.ID, added.ISO.ID)))
	w.wait(t, ctx, must(w.admin.VirtEjectISO(ctx, m.ID)))
	w.wait(t, ctx, must(w.admin.VirtSetBootOrder(ctx, m.ID, client.BootDisk)))
	w.wait(t, ctx, must(w.admin.VirtSetRescue(ctx, m.ID, true)))
	w.wait(t, ctx, must(w.admin.VirtSetRescue(ctx, m.ID, false)))
	if err := w.admin.DeleteISO(ctx, bad.ISO.ID); err != nil {
		t.Fatal(err)
	}
	// An uploaded image: ready at the answer; a content that does not match is
	// ErrChecksumMismatch; a second upload ErrConflict.
	up := must(w.admin.AddISO(ctx, client.ISOSpec{Name: "uploaded", Upload: true, Checksum: checksum}))
	if iso, err := w.admin.UploadISO(ctx, up.ISO.ID, bytes.NewReader(body), int64(len(body))); err != nil || iso.Status != "ready" || iso.SizeBytes != int64(len(body)) {
		t.Fatalf("UploadISO: %+v %v", iso, err)
	}
	if _, err := w.admin.UploadISO(ctx, up.ISO.ID, bytes.NewReader(body), int64(len(body))); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("a second UploadISO: %v; want ErrConflict", err)
	}
	wrong := must(w.admin.AddISO(ctx, client.ISOSpec{Name: "wrong", Upload: true, Checksum: "sha256:" + strings.Repeat("0", 64)}))
	if _, err := w.admin.UploadISO(ctx, wrong.ISO.ID, bytes.NewReader(body), int64(len(body))); !errors.Is(err, client.ErrChecksumMismatch) {
		t.Fatalf("UploadISO of a content that does not match: %v; want ErrChecksumMismatch", err)
	}
	for _, id := range []string{up.ISO.ID, wrong.ISO.ID} {
		if err := w.admin.DeleteISO(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}

// testSecondFactor turns on a user's second factor, logs in with WithTOTP, turns it off
// with a recovery code, and has an operator reset it; and asks for a password reset,
// which this server (no SMTP server) refuses, and confirms one with a made-up token.
func testSecondFactor(t *testing.T, ctx context.Context, w *world) {
	const email, password = "b@tenant.test", "tenant user password"
	own := w.client(t, client.WithCredentials(email, password))
	enr, err := own.EnrolTOTP(ctx)
	if err != nil || !strings.HasPrefix(enr.URI, "otpauth://totp/") {
		t.Fatalf("enrol: %+v %v", enr, err)
	}
	code := func(at time.Time) string {
		c, err := totp.GenerateCodeCustom(enr.Secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	recovery, err := own.ConfirmTOTP(ctx, code(time.Now()))
	if err != nil || len(recovery) != 10 {
		t.Fatalf("confirm: %v %v", recovery, err)
	}
	plain := w.client(t, client.WithCredentials(email, password))
	if _, err := plain.Login(ctx); !errors.Is(err, client.ErrTOTPRequired) {
		t.Fatalf("a login without codes: %v; want totp_required", err)
	}
	asked := 0
	withCodes := w.client(t, client.WithCredentials(email, password), client.WithTOTP(func(context.Context) (string, error) {
		asked++
		return code(time.Now().Add(30 * time.Second)), nil
	}))
	if u, err := withCodes.Login(ctx); err != nil || asked != 1 || !u.TOTPEnabled {
		t.Fatalf("a login with a code: %+v %v (asked %d)", u, err, asked)
	}
	if err := own.DisableTOTP(ctx, recovery[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.admin.ResetUserTOTP(ctx, must(own.Me(ctx)).ID); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("reset of no second factor: %v; want conflict", err)
	}
	if err := plain.RequestPasswordReset(ctx, email); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a reset on a server without mail: %v; want forbidden", err)
	}
	if err := plain.ConfirmPasswordReset(ctx, strings.Repeat("x", 43), "a new password"); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("a made-up reset token: %v; want invalid_request", err)
	}
}

// testLoginLinks has an operator make a login link for a tenant user and signs in with
// it, once; the link's second use fails, and an operator gets no link.
func testLoginLinks(t *testing.T, ctx context.Context, w *world) {
	me := must(w.a.Me(ctx))
	link, err := w.admin.CreateLoginLink(ctx, me.ID)
	if err != nil || link.Token == "" || link.URL != nil || time.Until(link.ExpiresAt) <= 0 {
		t.Fatalf("link: %+v %v; want a token, no URL (no public URL set), a future expiry", link, err)
	}
	if _, err := w.admin.CreateLoginLink(ctx, must(w.admin.Me(ctx)).ID); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a link for an operator: %v; want forbidden", err)
	}
	linked := w.client(t, client.WithLoginLink(link.Token))
	if u, err := linked.Login(ctx); err != nil || u.ID != me.ID {
		t.Fatalf("sign-in with the link: %+v %v", u, err)
	}
	var method string
	for s, err := range linked.Sessions(ctx, client.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if s.Current {
			method = s.Method
		}
	}
	if method != "login_link" {
		t.Fatalf("the link's session method %q; want login_link", method)
	}
	again := w.client(t, client.WithLoginLink(link.Token))
	if _, err := again.Login(ctx); !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("the link used twice: %v; want unauthorized", err)
	}
}

// testOIDCRoutes calls the OpenID Connect routes on a server with no provider (the
// sign-in itself is TestOIDCSignIn's, against a provider).
func testOIDCRoutes(t *testing.T, ctx context.Context, w *world) {
	c := w.client(t)
	if ps, err := c.OIDCProviders(ctx); err != nil || len(ps) != 0 {
		t.Fatalf("providers %+v %v; want none", ps, err)
	}
	if _, err := c.OIDCStart(ctx, "corp", "/"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("start: %v; want not_found", err)
	}
	cb := w.base + "/api/auth/oidc/corp/callback?code=c&state=s"
	if _, err := w.client(t, client.WithOIDCCallback(cb, "secret")).Login(ctx); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("callback: %v; want not_found", err)
	}
}

// testCoreOnce calls the client's older calls once each, for the route walk.
func testCoreOnce(t *testing.T, ctx context.Context, w *world) {
	tmp := w.client(t, client.WithCredentials("a@tenant.test", "tenant user password"))
	if _, err := tmp.Me(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	testOwnAccount(t, ctx, w)
	testSecondFactor(t, ctx, w)
	testLoginLinks(t, ctx, w)
	testOIDCRoutes(t, ctx, w)
	testAPIKeys(t, ctx, w)
	ext := "crm-42"
	if _, err := w.admin.UpdateUser(ctx, must(w.a.Me(ctx)).ID, client.UserChange{ExternalID: client.Set(ext)}); err != nil {
		t.Fatal(err)
	}
	if u, err := w.admin.UserByExternalID(ctx, ext); err != nil || u.Email != "a@tenant.test" {
		t.Fatalf("by external id: %+v %v", u, err)
	}
	if _, err := w.admin.UserByExternalID(ctx, "nobody"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("an unknown external id: %v", err)
	}
	if _, err := w.admin.UpdateTenant(ctx, w.tenA.ID, client.TenantChange{ExternalID: client.Set(ext)}); err != nil {
		t.Fatal(err)
	}
	if ten, err := w.admin.TenantByExternalID(ctx, ext); err != nil || ten.ID != w.tenA.ID {
		t.Fatalf("tenant by external id: %+v %v", ten, err)
	}
	if ten, err := w.admin.UpdateTenant(ctx, w.tenA.ID, client.TenantChange{ExternalID: client.Null[string]()}); err != nil || ten.ExternalID != nil {
		t.Fatalf("external id removed: %+v %v", ten, err)
	}
	if u, err := w.admin.UpdateUser(ctx, must(w.a.Me(ctx)).ID, client.UserChange{ExternalID: client.Null[string]()}); err != nil || u.ExternalID != nil {
		t.Fatalf("user's external id removed: %+v %v", u, err)
	}
	if _, err := w.admin.Health(ctx); err != nil {
		t.Fatal(err)
	}
	if page, err := w.a.TasksPage(ctx, client.ListOptions{Limit: 1}); err != nil || len(page.Items) != 1 {
		t.Fatalf("tasks: %+v %v", page, err)
	} else if _, err := w.a.GetTask(ctx, page.Items[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.a.Overview(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.a.ResizeMachine(ctx, w.m.ID, client.Resize{MemoryMB: 1024}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.a.FirewallRulesPage(ctx, "", client.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := w.a.CreateFirewallRule(ctx, client.FirewallRuleSpec{Direction: "out", Action: "accept", Protocol: "any"})
	if err != nil {
		t.Fatal(err)
	}
	off := false
	if _, err := w.a.UpdateFirewallRule(ctx, r.ID, client.FirewallRuleSpec{Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	if err := w.a.DeleteFirewallRule(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.a.MachinesPage(ctx, client.MachineFilter{}); err != nil {
		t.Fatal(err)
	}
	ten, err := w.admin.UpdateTenant(ctx, w.tenB.ID, client.TenantChange{Name: &w.tenB.Name})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.admin.GetTenant(ctx, ten.ID); err != nil {
		t.Fatal(err)
	}
	u, err := w.admin.CreateUser(ctx, client.UserCreate{Email: "c@tenant.test", Name: "c", Role: client.RoleUser, Password: "tenant user password", TenantID: ten.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.admin.GetUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.admin.UpdateUser(ctx, u.ID, client.UserChange{Name: &u.Name}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.admin.UsersPage(ctx, "", client.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.admin.DeleteUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	ectx, cancel := context.WithCancel(ctx)
	for _, err := range w.a.Events(ectx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	cancel()
	w.wait(t, ctx, must(w.a.MachineAction(ctx, w.m.ID, client.ActionStop)))
	dt, err := w.a.DeleteMachine(ctx, w.m.ID)
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t, ctx, dt)
	e := w.client(t, client.WithCredentials("b@tenant.test", "tenant user password"))
	if _, err := e.Login(ctx); err != nil { // login; refresh is WithCredentials' own
		t.Fatal(err)
	}
}

// Operations of the API document the client reaches through another route of the
// same meaning, or that are no API calls. Each names the route the client uses.
var notCalled = map[string]string{
	"GET /metrics":                               "Prometheus scrape, not an API call",
	"GET /reset-password":                        "the page a mailed reset link opens in a browser",
	"GET /login-link":                            "the page a login link opens in a browser",
	"POST /api/auth/browser/login":               "the web console's sign-in, which keeps the refresh token in a browser's cookie",
	"POST /api/auth/browser/login/totp":          "the web console's sign-in, which keeps the refresh token in a browser's cookie",
	"POST /api/auth/browser/refresh":             "the web console's refresh, from a browser's cookie",
	"POST /api/auth/browser/logout":              "the web console's logout, which clears a browser's cookie",
	"GET /api/client/machines/{vmId}/console/ws": "a websocket, opened by a console program with the ticket of MachineConsole",
	"GET /api/virt/vms/{id}/console/ws":          "a websocket, opened by a console program with the ticket of ConsoleTicket",
	"POST /api/auth/refresh":                     "sent by the client itself when its token nears expiry (TestRefreshBeforeExpiry)",
	"GET /api/resources/tasks/{id}":              "GetTask uses GET /api/tasks/{id}",
	"GET /api/virt/vms":                          "Machines uses GET /api/client/machines (operators: any tenant)",
	"GET /api/resources/machines":                "Machines uses GET /api/client/machines",
	"GET /api/virt/vms/{id}":                     "GetMachine uses GET /api/resources/machines/{id}",
	"POST /api/resources/machines":               "CreateMachine uses POST /api/client/machines (ForTenant for operators)",
	"GET /api/virt/templates":                    "Templates uses GET /api/resources/templates",
	"GET /api/virt/nodes":                        "Nodes uses GET /api/resources/nodes",
	"GET /api/virt/nodes/{id}":                   "GetNode uses GET /api/resources/nodes/{id}",
	"GET /api/resources/firewall-rules":          "FirewallRules uses GET /api/client/firewall/rules",
	"POST /api/resources/firewall-rules":         "CreateFirewallRule uses POST /api/client/firewall/rules",
	"PATCH /api/resources/firewall-rules/{id}":   "UpdateFirewallRule and PatchFirewallRule use PATCH /api/client/firewall/rules/{id}",
	"DELETE /api/resources/firewall-rules/{id}":  "DeleteFirewallRule uses DELETE /api/client/firewall/rules/{id}",
	"GET /api/monitoring/health-checks":          "HealthChecks uses GET /api/resources/health-checks (operators see all)",
	"POST /api/monitoring/health-checks":         "CreateHealthCheck uses POST /api/resources/health-checks",
	"GET /api/monitoring/health-checks/{id}":     "GetHealthCheck uses GET /api/resources/health-checks/{id}",
	"PATCH /api/monitoring/health-checks/{id}":   "UpdateHealthCheck uses PATCH /api/resources/health-checks/{id}",
	"DELETE /api/monitoring/health-checks/{id}":  "DeleteHealthCheck uses DELETE /api/resources/health-checks/{id}",
	"GET /api/monitoring/alerts/events":          "Alerts uses GET /api/resources/alert-events",
	"GET /api/monitoring/alerts/events/{id}":     "GetAlert uses GET /api/resources/alert-events/{id}",
	"PATCH /api/monitoring/alerts/events/{id}":   "AcknowledgeAlert uses PATCH /api/resources/alert-events/{id}",
}

// checkEveryRoute fails for each operation of the server's OpenAPI document that no
// request of the test reached and that notCalled does not account for, and for
// entries of notCalled the document no longer has.
func checkEveryRoute(t *testing.T, ctx context.Context, w *world) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	raw, err := w.admin.OpenAPI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\\\{[^/]+\\\}`)
	w.log.mu.Lock()
	defer w.log.mu.Unlock()
	var missing []string
	known := map[string]bool{}
	for path, ops := range doc.Paths {
		re := regexp.MustCompile("^" + param.ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + "$")
		for method := range ops {
			op := strings.ToUpper(method) + " " + path
			switch strings.ToUpper(method) {
			case "GET", "POST", "PUT", "PATCH", "DELETE":
			default:
				continue
			}
			known[op] = true
			if _, ok := notCalled[op]; ok {
				continue
			}
			hit := false
			for seen := range w.log.seen {
				m, p, _ := strings.Cut(seen, " ")
				if m == strings.ToUpper(method) && re.MatchString(p) {
					hit = true
					break
				}
			}
			if !hit {
				missing = append(missing, op)
			}
		}
	}
	sort.Strings(missing)
	for _, op := range missing {
		t.Errorf("no call of the client reached %s", op)
	}
	for op := range notCalled {
		if !known[op] {
			t.Errorf("notCalled names %s, which the API document no longer has", op)
		}
	}
}
