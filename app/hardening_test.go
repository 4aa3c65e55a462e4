package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/internal/testwait"
)

// disklessDriver is the simulator that, once detached is set, reports every machine
// without disks: what a Proxmox VM whose disks were all detached parses to.
type disklessDriver struct {
	*sim.Driver
	detached atomic.Bool
}

func (d *disklessDriver) Machine(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	hm, err := d.Driver.Machine(ctx, ref)
	if d.detached.Load() {
		hm.Disks = nil
	}
	return hm, err
}

func (d *disklessDriver) Configure(ctx context.Context, ref hypervisor.Ref, c hypervisor.ConfigChange) (hypervisor.Machine, error) {
	hm, err := d.Driver.Configure(ctx, ref, c)
	if d.detached.Load() {
		hm.Disks = nil
	}
	return hm, err
}

func (d *disklessDriver) Inventory(ctx context.Context) (hypervisor.Inventory, error) {
	inv, err := d.Driver.Inventory(ctx)
	d.shape(inv.Machines)
	return inv, err
}

// MachinePages is the sync's read of the machines (hypervisor.MachinePager).
func (d *disklessDriver) MachinePages(ctx context.Context, n int, page func([]hypervisor.Machine) error) error {
	return d.Driver.MachinePages(ctx, n, func(ms []hypervisor.Machine) error {
		d.shape(ms)
		return page(ms)
	})
}

// shape takes the disks off machines once detached is set.
func (d *disklessDriver) shape(ms []hypervisor.Machine) {
	if d.detached.Load() {
		for i := range ms {
			ms[i].Disks = nil
		}
	}
}

// startDiskless starts a server on a disklessDriver.
func startDiskless(t *testing.T) (*testServer, *disklessDriver) {
	t.Helper()
	cfg := testConfig(t)
	d, err := NewDriver(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	dd := &disklessDriver{Driver: d.(*sim.Driver)}
	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}, driver: dd}
	s.start()
	t.Cleanup(s.stop)
	return s, dd
}

// TestResizeOfMachineWithNoDisk: growing the disk of a machine with none is 409, and
// a machine whose disks vanished from the hypervisor after the check fails its task;
// the server serves on either way (it used to crash on an index out of range).
func TestResizeOfMachineWithNoDisk(t *testing.T) {
	t.Parallel()
	s, d := startDiskless(t)
	admin := s.adminToken()
	s.sync(admin)
	a := s.tenant(admin, "Diskless", nil)
	m := s.provision(a.Token, smallMachine)
	path := "/api/client/machines/" + m.ID + "/resources"

	// The hypervisor loses the disks; the record still shows one: the task fails.
	d.detached.Store(true)
	task := s.waitTask(a.Token, s.startTask(req{method: "PATCH", path: path, token: a.Token, body: map[string]any{"disk_gb": m.DiskGB + 5}}).ID)
	if task.Status != tasks.TaskFailed || task.Error == nil || !strings.Contains(*task.Error, "no disk to grow") {
		t.Fatalf("got task %+v; want failed: no disk to grow", task)
	}
	// Once the record knows (sync), the request itself is refused.
	s.sync(admin)
	if got := s.machine(admin, m.ID); len(got.Disks) != 0 {
		t.Fatalf("got disks %+v after sync; want none", got.Disks)
	}
	r := s.do(req{method: "PATCH", path: path, token: a.Token, body: map[string]any{"disk_gb": 20}})
	expect(t, r, 409, "invalid_state")
	var p problemBody
	r.decode(t, &p)
	if p.Detail != "machine has no disk to grow" {
		t.Fatalf("got detail %q; want it to say there is no disk to grow", p.Detail)
	}
	expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")
	// Cores still change: only the disk is missing.
	if task := s.run(req{method: "PATCH", path: path, token: a.Token, body: map[string]any{"cpu_cores": 2}}); task.Status != tasks.TaskSucceeded {
		t.Fatalf("got %+v; want the core change to succeed", task)
	}
}

// panickyDriver is the simulator with a Power that panics while panics is set, as a
// driver bug would.
type panickyDriver struct {
	*sim.Driver
	panics atomic.Bool
}

func (d *panickyDriver) Power(ctx context.Context, ref hypervisor.Ref, a hypervisor.PowerAction) error {
	if d.panics.Load() {
		var disks []hypervisor.Disk
		_ = disks[0] // the kind of bug that used to end the process
	}
	return d.Driver.Power(ctx, ref, a)
}

// TestDriverPanicFailsOnlyItsTask: a panic in the driver during a machine's task fails
// that task and unlocks the machine; the server goes on serving.
func TestDriverPanicFailsOnlyItsTask(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	d, err := NewDriver(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	pd := &panickyDriver{Driver: d.(*sim.Driver)}
	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}, driver: pd}
	s.start()
	t.Cleanup(s.stop)
	admin := s.adminToken()
	s.sync(admin)
	m := byStatus(t, s.machines(admin), machines.StatusRunning)
	path := "/api/virt/vms/" + m.ID + "/actions/reboot"
	pd.panics.Store(true)
	task := s.waitTask(admin, s.startTask(req{method: "POST", path: path, token: admin}).ID)
	if task.Status != tasks.TaskFailed || task.Error == nil || !strings.Contains(*task.Error, "internal error") {
		t.Fatalf("got %+v; want the task failed with an internal error", task)
	}
	expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")
	if got := s.machine(admin, m.ID); got.TaskID != nil || got.Status != machines.StatusRunning {
		t.Fatalf("got %+v; want the machine unlocked and still running", got)
	}
	pd.panics.Store(false)
	s.run(req{method: "POST", path: path, token: admin})
}

// gatedDriver is the simulator whose backups wait until release is closed: a backup
// that holds its machine as long as the test needs.
type gatedDriver struct {
	*sim.Driver
	release chan struct{}
}

func (d *gatedDriver) Backup(ctx context.Context, ref hypervisor.Ref, mode hypervisor.BackupMode) (hypervisor.Backup, error) {
	select {
	case <-d.release:
	case <-ctx.Done():
		return hypervisor.Backup{}, hypervisor.ContextError(ctx.Err())
	}
	return d.Driver.Backup(ctx, ref, mode)
}

// TestScheduleWaitsForBusyMachine: a backup schedule and a power schedule due in the
// same minute; the stop finds the machine busy with the backup, waits for it instead
// of failing "busy", and its run record says so.
func TestScheduleWaitsForBusyMachine(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	d, err := NewDriver(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	gd := &gatedDriver{Driver: d.(*sim.Driver), release: make(chan struct{})}
	core, logs := observer.New(zap.InfoLevel)
	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}, driver: gd, log: zap.New(core)}
	s.start()
	t.Cleanup(s.stop)
	t.Cleanup(func() {
		select {
		case <-gd.release:
		default:
			close(gd.release)
		}
	})
	admin := s.adminToken()
	s.sync(admin)
	a := s.tenant(admin, "Busy", nil)
	m := s.provision(a.Token, smallMachine)

	// Daily, due a little ahead: the backup first; once its task holds the machine, a
	// stop due a little later.
	daily := func(t time.Time) string { return fmt.Sprintf("%d %d %d * * *", t.Second(), t.Minute(), t.Hour()) }
	at := time.Now().Add(3 * time.Second).Truncate(time.Second).UTC()
	b := s.createBackupSchedule(a.Token, m.ID, map[string]any{"cron": daily(at), "timezone": "UTC", "retention": 3, "mode": "snapshot"})
	testwait.Eventually(t, "the backup run did not start", func() bool {
		bs := s.backupSchedule(a.Token, b.ID)
		if bs.LastTaskID == nil {
			return false
		}
		r := s.do(req{method: "GET", path: "/api/tasks/" + *bs.LastTaskID, token: a.Token})
		return r.Status == 200
	})
	at = time.Now().Add(3 * time.Second).Truncate(time.Second).UTC()
	r := s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/power-schedules", token: a.Token,
		body: map[string]any{"action": "stop", "cron": daily(at), "timezone": "UTC"}})
	expect(t, r, 201, "")
	var p schedules.PowerSchedule
	r.decode(t, &p)

	testwait.Eventually(t, "the stop did not start waiting for the backup", func() bool {
		return logs.FilterMessage("schedule run waits for the machine's task to end").FilterField(zap.String("schedule_id", p.ID)).Len() > 0
	})
	close(gd.release)
	var bs schedules.BackupSchedule
	testwait.Eventually(t, "the backup run did not finish", func() bool {
		bs = s.backupSchedule(a.Token, b.ID)
		return bs.LastStatus != nil && *bs.LastStatus != schedules.RunRunning
	})
	if *bs.LastStatus != schedules.RunSucceeded || bs.LastTaskID == nil {
		t.Fatalf("got backup run %s; want succeeded", status(bs.LastStatus))
	}
	var ps schedules.PowerSchedule
	testwait.Eventually(t, "the stop run did not finish", func() bool {
		ps = s.powerSchedule(a.Token, p.ID)
		return ps.LastStatus != nil && *ps.LastStatus != schedules.RunRunning
	})
	want := "succeeded; started "
	if got := status(ps.LastStatus); !strings.HasPrefix(got, want) || !strings.Contains(got, "busy with task "+*bs.LastTaskID+" (vm.backup)") {
		t.Fatalf("got stop run %q; want %q... naming the backup task %s", got, want, *bs.LastTaskID)
	}
	if got := s.machine(admin, m.ID).Status; got != machines.StatusStopped {
		t.Fatalf("got machine %s; want stopped by the schedule", got)
	}
}

// TestPartialQuotaMerges: a partial quota keeps the default of the limits it omits on
// create and their value on change; -1 is unlimited, below that is 400.
func TestPartialQuotaMerges(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	create := func(body map[string]any) tenants.Tenant {
		t.Helper()
		r := s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: body})
		expect(t, r, 201, "")
		var ten tenants.Tenant
		r.decode(t, &ten)
		return ten
	}
	patch := func(id string, body map[string]any) tenants.Tenant {
		t.Helper()
		r := s.do(req{method: "PATCH", path: "/api/resources/tenants/" + id, token: admin, body: body})
		expect(t, r, 200, "")
		var ten tenants.Tenant
		r.decode(t, &ten)
		return ten
	}
	d := tenants.DefaultQuota
	ten := create(map[string]any{"name": "Beta", "quota": map[string]any{"machines": 2}})
	if want := (tenants.Quota{Machines: 2, CPUCores: d.CPUCores, MemoryMB: d.MemoryMB, DiskGB: d.DiskGB, Backups: d.Backups, Snapshots: d.Snapshots, BackupGB: d.BackupGB}); ten.Quota != want {
		t.Fatalf("got quota %+v on create; want %+v", ten.Quota, want)
	}
	ten = patch(ten.ID, map[string]any{"quota": map[string]any{"cpu_cores": 4}})
	if want := (tenants.Quota{Machines: 2, CPUCores: 4, MemoryMB: d.MemoryMB, DiskGB: d.DiskGB, Backups: d.Backups, Snapshots: d.Snapshots, BackupGB: d.BackupGB}); ten.Quota != want {
		t.Fatalf("got quota %+v after patch; want %+v", ten.Quota, want)
	}
	// A rename alone leaves the quota as it is.
	if ten = patch(ten.ID, map[string]any{"name": "Beta Corp"}); ten.Quota.Machines != 2 || ten.Quota.CPUCores != 4 {
		t.Fatalf("got quota %+v after a rename; want it unchanged", ten.Quota)
	}
	// Unlimited machines: more than the default of 10 fit.
	ten = patch(ten.ID, map[string]any{"quota": map[string]any{"machines": -1}})
	if ten.Quota.Machines != tenants.Unlimited || ten.Quota.CPUCores != 4 {
		t.Fatalf("got quota %+v; want machines unlimited, the rest kept", ten.Quota)
	}
	r := s.do(req{method: "PATCH", path: "/api/resources/tenants/" + ten.ID, token: admin, body: map[string]any{"quota": map[string]any{"disk_gb": -2}}})
	expect(t, r, 400, "invalid_request")
	var p problemBody
	r.decode(t, &p)
	if len(p.Errors) != 1 || p.Errors[0].Field != "quota.disk_gb" {
		t.Fatalf("got errors %+v; want one on quota.disk_gb", p.Errors)
	}
	users := s.do(req{method: "POST", path: "/api/resources/users", token: admin, body: map[string]any{
		"email": "beta@example.test", "name": "Beta user", "role": "user", "password": "tenant-password", "tenant_id": ten.ID}})
	expect(t, users, 201, "")
	tok := s.login("beta@example.test", "tenant-password").Token
	for i := range 3 {
		spec := map[string]any{"name": fmt.Sprintf("u-%d", i), "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10}
		expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: tok, body: spec}), 202, "")
	}
	// Cores are still limited to 4.
	big := map[string]any{"name": "big", "template_id": "tpl-debian-12", "cpu_cores": 2, "memory_mb": 512, "disk_gb": 10}
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: tok, body: big}), 409, "quota_exceeded")
}

// TestTenantNamesAreUnique: a create or rename to a name in use, in any case, is 409.
func TestTenantNamesAreUnique(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Acme", nil)
	b := s.tenant(admin, "Other", nil)
	expect(t, s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": "ACME"}}), 409, "conflict")
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/tenants/" + b.ID, token: admin, body: map[string]any{"name": "acme"}}), 409, "conflict")
	// Renaming a tenant to its own name in another case is no conflict.
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/tenants/" + a.ID, token: admin, body: map[string]any{"name": "ACME"}}), 200, "")
	// Concurrent creates of one name: exactly one wins, the others are 409.
	statuses := make([]int, 8)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hr, _ := http.NewRequest("POST", s.base+"/api/resources/tenants", strings.NewReader(`{"name":"Race"}`))
			hr.Header.Set("Content-Type", "application/json")
			hr.Header.Set("Authorization", "Bearer "+admin)
			if res, err := s.client.Do(hr); err == nil {
				statuses[i] = res.StatusCode
				res.Body.Close()
			}
		}()
	}
	wg.Wait()
	created := 0
	for _, st := range statuses {
		switch st {
		case 201:
			created++
		case 409:
		default:
			t.Fatalf("got statuses %v; want one 201 and 409s", statuses)
		}
	}
	if created != 1 {
		t.Fatalf("got statuses %v; want exactly one 201", statuses)
	}
}

// TestDiskSmallerThanTemplate: a disk below the template's minimum is 400 naming the
// minimum, not a machine silently enlarged beyond what the quota counted.
func TestDiskSmallerThanTemplate(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Small", nil)
	spec := map[string]any{"name": "rocky", "template_id": "tpl-rocky-9", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 5}
	r := s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: spec})
	expect(t, r, 400, "invalid_request")
	var p problemBody
	r.decode(t, &p)
	if len(p.Errors) != 1 || p.Errors[0].Field != "disk_gb" || !strings.Contains(p.Errors[0].Message, "at least 12") {
		t.Fatalf("got errors %+v; want disk_gb: at least 12", p.Errors)
	}
	if n := len(s.clientList(a.Token, "")); n != 0 {
		t.Fatalf("got %d machines; want none created", n)
	}
	spec["disk_gb"] = 12
	if m := s.provision(a.Token, spec); m.DiskGB != 12 {
		t.Fatalf("got %d GB; want 12", m.DiskGB)
	}
}

// TestOperatorAcknowledgesOnMonitoringRoute: PATCH /api/monitoring/alerts/events/:id
// acknowledges (it answered 405), with the resources route's rules; users get 403.
func TestOperatorAcknowledgesOnMonitoringRoute(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	m := byStatus(t, s.machines(admin), machines.StatusRunning)
	if err := s.sim.SetNodeStatus(m.Node, hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	s.sync(admin)
	open := "/api/monitoring/alerts/events?status=firing&kind=node_offline"
	testwait.Eventually(t, "node_offline", func() bool { return len(s.alertsOf(admin, open, m.Node)) == 1 })
	a := s.alertsOf(admin, open, m.Node)[0]
	path := "/api/monitoring/alerts/events/" + a.ID
	expect(t, s.do(req{method: "PATCH", path: path, token: admin, body: map[string]any{"status": "resolved"}}), 400, "invalid_request")
	expect(t, s.do(req{method: "PATCH", path: "/api/monitoring/alerts/events/nope", token: admin, body: map[string]any{"status": "acknowledged"}}), 404, "not_found")
	u := s.tenant(admin, "Watcher", nil)
	expect(t, s.do(req{method: "PATCH", path: path, token: u.Token, body: map[string]any{"status": "acknowledged"}}), 403, "forbidden")
	r := s.do(req{method: "PATCH", path: path, token: admin, body: map[string]any{"status": "acknowledged"}})
	expect(t, r, 200, "")
	var acked alerts.Alert
	r.decode(t, &acked)
	if acked.ID != a.ID || acked.Status != alerts.AlertAcknowledged || acked.AcknowledgedAt == nil {
		t.Fatalf("got %+v; want the event acknowledged", acked)
	}
}

// TestHealthCheckDefaults: a check created without interval or timeout gets 60 s and
// 5000 ms (the timeout stays below a shorter interval given alone); explicit values are
// still checked.
func TestHealthCheckDefaults(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	path := "/api/monitoring/health-checks"
	hc := s.createCheck(admin, path, map[string]any{"name": "plain", "type": "tcp", "target": "192.0.2.1:80", "enabled": false})
	if hc.IntervalS != monitoring.DefaultCheckIntervalS || hc.TimeoutMS != monitoring.DefaultCheckTimeoutMS {
		t.Fatalf("got interval %d s, timeout %d ms; want %d s and %d ms", hc.IntervalS, hc.TimeoutMS, monitoring.DefaultCheckIntervalS, monitoring.DefaultCheckTimeoutMS)
	}
	hc = s.createCheck(admin, path, map[string]any{"name": "fast", "type": "tcp", "target": "192.0.2.1:80", "interval_s": 2, "enabled": false})
	if hc.IntervalS != 2 || hc.TimeoutMS != 1000 {
		t.Fatalf("got interval %d s, timeout %d ms; want 2 s and 1000 ms", hc.IntervalS, hc.TimeoutMS)
	}
	expect(t, s.do(req{method: "POST", path: path, token: admin, body: map[string]any{"name": "bad", "type": "tcp",
		"target": "192.0.2.1:80", "interval_s": 2, "timeout_ms": 2000}}), 400, "invalid_request")
}

// TestEventStreamStartsNowWithCause: a new subscriber without Last-Event-ID gets what
// happens from now on, not the backlog of old states (?since=0 asks for it), and a
// machine.updated event's data says what changed the machine and its status before.
func TestEventStreamStartsNowWithCause(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	m := byStatus(t, s.machines(admin), machines.StatusRunning)
	old := s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: admin})

	// ?since=0 replays what is kept, the earlier task included. (Its end is also how
	// the test knows that event was published: the task record is durable first.)
	backlog := s.subscribeQuery(admin, "?since=0", 0)
	backlog.until(t, taskDone(old.ID))

	fresh := s.subscribeQuery(admin, "", 0)
	start := s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/start", token: admin})
	seen := fresh.until(t, taskDone(start.ID))
	for _, ev := range seen {
		if strings.Contains(ev.Data, old.ID) {
			t.Fatalf("got an event of the earlier task %s on a new stream: %+v", old.ID, ev)
		}
	}
	var started *machines.MachineEvent
	for _, ev := range seen {
		var me machines.MachineEvent
		if ev.Type == events.EventMachine && json.Unmarshal([]byte(ev.Data), &me) == nil && me.ID == m.ID && me.Status == machines.StatusRunning {
			started = &me
		}
	}
	if started == nil || started.Cause != "task" || started.PreviousStatus == nil || *started.PreviousStatus != machines.StatusStopped {
		t.Fatalf("got machine event %+v; want cause task and previous_status stopped", started)
	}
	expect(t, s.do(req{method: "GET", path: "/api/events?since=yesterday", token: admin}), 400, "invalid_request")
}
