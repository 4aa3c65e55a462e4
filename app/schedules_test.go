package app

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/internal/testwait"
)

// Schedules are tested with per-second cron expressions (a leading seconds field), so a
// test sees several runs in a few seconds. No assertion depends on tight timing: each
// waits, with a generous deadline, for what the API reports.

// everySecond is a 6-field cron expression due at every second.
const everySecond = "* * * * * *"

func (s *testServer) powerSchedule(tok, id string) schedules.PowerSchedule {
	s.t.Helper()
	r := s.do(req{method: "GET", path: "/api/resources/power-schedules/" + id, token: tok})
	expect(s.t, r, 200, "")
	var p schedules.PowerSchedule
	r.decode(s.t, &p)
	return p
}

func (s *testServer) backupSchedule(tok, id string) schedules.BackupSchedule {
	s.t.Helper()
	r := s.do(req{method: "GET", path: "/api/resources/backup-schedules/" + id, token: tok})
	expect(s.t, r, 200, "")
	var b schedules.BackupSchedule
	r.decode(s.t, &b)
	return b
}

func (s *testServer) createBackupSchedule(tok, machine string, body map[string]any) schedules.BackupSchedule {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/client/machines/" + machine + "/backup-schedules", token: tok, body: body})
	expect(s.t, r, 201, "")
	var b schedules.BackupSchedule
	r.decode(s.t, &b)
	return b
}

// backupsOf lists a machine's backups through the generic resource.
func (s *testServer) backupsOf(tok, machine string) []backups.Backup {
	s.t.Helper()
	return listOf[backups.Backup](s, tok, "/api/resources/backups?limit=500&machine_id="+machine)
}

// disableBackupSchedule disables a schedule and waits for a run in flight to end.
func (s *testServer) disableBackupSchedule(tok, id string) schedules.BackupSchedule {
	s.t.Helper()
	r := s.do(req{method: "PATCH", path: "/api/resources/backup-schedules/" + id, token: tok, body: map[string]any{"enabled": false}})
	expect(s.t, r, 200, "")
	var b schedules.BackupSchedule
	r.decode(s.t, &b)
	if b.Enabled || b.NextRunAt != nil {
		s.t.Fatalf("got enabled %v, next_run_at %v; want disabled with no next run", b.Enabled, b.NextRunAt)
	}
	testwait.Eventually(s.t, "the last run is still running", func() bool {
		b = s.backupSchedule(tok, id)
		return b.LastStatus == nil || *b.LastStatus != schedules.RunRunning
	})
	return b
}

func status(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

func TestPowerScheduleFires(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Timer", nil)
	m := s.provision(a.Token, smallMachine)
	// Due once a day, at a second a little ahead, written in Berlin time: it fires once
	// during the test, so its status stays to be read.
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(3 * time.Second).Truncate(time.Second)
	local := at.In(berlin)
	daily := fmt.Sprintf("%d %d %d * * *", local.Second(), local.Minute(), local.Hour())
	// By vmid, as the client area allows.
	r := s.do(req{method: "POST", path: fmt.Sprintf("/api/client/machines/%d/power-schedules", m.VMID), token: a.Token,
		body: map[string]any{"action": "stop", "cron": daily, "timezone": "Europe/Berlin"}})
	expect(t, r, 201, "")
	var p schedules.PowerSchedule
	r.decode(t, &p)
	if p.ID == "" || p.MachineID != m.ID || p.TenantID != a.ID || p.Action != "stop" || p.Cron != daily ||
		p.Timezone != "Europe/Berlin" || !p.Enabled || p.LastRunAt != nil || p.LastStatus != nil || p.Runs != 0 {
		t.Fatalf("got %+v; want a new enabled stop schedule of machine %s", p, m.ID)
	}
	if p.NextRunAt == nil || !p.NextRunAt.Equal(at) || p.NextRunAt.Location() != time.UTC {
		t.Fatalf("got next_run_at %v; want %v, in UTC", p.NextRunAt, at.UTC())
	}
	if !strings.Contains(string(r.Body), `"next_run_at":"`+at.UTC().Format(time.RFC3339)+`"`) || !strings.Contains(string(r.Body), `"last_run_at":null`) {
		t.Fatalf("got body %s; want next_run_at in RFC 3339 UTC and last_run_at null", r.Body)
	}

	// It fires: the machine stops, and the run is recorded.
	var first schedules.PowerSchedule
	testwait.Eventually(t, "the schedule did not record a finished run", func() bool {
		first = s.powerSchedule(a.Token, p.ID)
		return first.LastStatus != nil && *first.LastStatus != schedules.RunRunning
	})
	if *first.LastStatus != schedules.RunSucceeded || first.Runs != 1 || first.LastRunAt == nil || !first.LastRunAt.Equal(at) || first.LastTaskID == nil {
		t.Fatalf("got %+v (status %s); want one succeeded run due %v", first, status(first.LastStatus), at.UTC())
	}
	// The next is a day on (23 or 25 hours across a change of daylight saving time).
	if first.NextRunAt == nil || first.NextRunAt.Sub(at) < 23*time.Hour || first.NextRunAt.Sub(at) > 25*time.Hour {
		t.Fatalf("got next_run_at %v; want a day after %v", first.NextRunAt, at.UTC())
	}
	if got := s.machine(admin, m.ID).Status; got != machines.StatusStopped {
		t.Fatalf("got machine %s; want stopped", got)
	}
	task := s.waitTask(a.Token, *first.LastTaskID)
	if task.Type != "vm.stop" || task.TargetID != m.ID || task.Status != tasks.TaskSucceeded {
		t.Fatalf("got task %+v; want a succeeded vm.stop of the machine", task)
	}

	// Every second now.
	r = s.do(req{method: "PATCH", path: "/api/resources/power-schedules/" + p.ID, token: a.Token, body: map[string]any{"cron": everySecond}})
	expect(t, r, 200, "")
	// Later runs find the machine stopped already: skipped, not failed, and no retry storm.
	var later schedules.PowerSchedule
	testwait.Eventually(t, "no later run was recorded as skipped", func() bool {
		later = s.powerSchedule(a.Token, p.ID)
		return later.LastRunAt != nil && later.LastRunAt.After(*first.LastRunAt) && later.LastStatus != nil && strings.HasPrefix(*later.LastStatus, "skipped: ")
	})
	if later.Runs <= first.Runs || !later.NextRunAt.After(*later.LastRunAt) {
		t.Fatalf("got runs %d after %d, next %v after last %v; want both to advance", later.Runs, first.Runs, later.NextRunAt, later.LastRunAt)
	}

	// Disabled, it stops firing.
	r = s.do(req{method: "PATCH", path: "/api/resources/power-schedules/" + p.ID, token: a.Token, body: map[string]any{"enabled": false}})
	expect(t, r, 200, "")
	var off schedules.PowerSchedule
	r.decode(t, &off)
	if off.Enabled || off.NextRunAt != nil {
		t.Fatalf("got %+v; want disabled with next_run_at null", off)
	}
	// The schedule's actor applies the change between two due times: nothing is
	// claimed after it. A witness, due every second from now on, shows when due times
	// have passed since: by its second run the disabled schedule has missed at least
	// one, and the short window catches a run still on its way.
	r = s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/power-schedules", token: a.Token,
		body: map[string]any{"action": "stop", "cron": everySecond}})
	expect(t, r, 201, "")
	var witness schedules.PowerSchedule
	r.decode(t, &witness)
	testwait.Eventually(t, "the witness schedule ran twice", func() bool {
		return s.powerSchedule(a.Token, witness.ID).Runs >= 2
	})
	testwait.Never(t, 300*time.Millisecond, "a run of the disabled schedule", func() bool {
		return s.powerSchedule(a.Token, p.ID).Runs != off.Runs
	})
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/power-schedules/" + witness.ID, token: a.Token}), 204, "")

	// Enabling recomputes next_run_at; a start schedule brings the machine back.
	r = s.do(req{method: "PATCH", path: "/api/resources/power-schedules/" + p.ID, token: a.Token,
		body: map[string]any{"enabled": true, "action": "start", "cron": "*/1 * * * * *"}})
	expect(t, r, 200, "")
	var on schedules.PowerSchedule
	r.decode(t, &on)
	if !on.Enabled || on.Action != "start" || on.NextRunAt == nil || !on.NextRunAt.After(*later.LastRunAt) {
		t.Fatalf("got %+v; want enabled start with a fresh next_run_at", on)
	}
	testwait.Eventually(t, "the start schedule did not start the machine", func() bool {
		return s.machine(admin, m.ID).Status == machines.StatusRunning
	})

	// Deleted, it is gone.
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/power-schedules/" + p.ID, token: a.Token}), 204, "")
	expect(t, s.do(req{method: "GET", path: "/api/resources/power-schedules/" + p.ID, token: a.Token}), 404, "not_found")
}

func TestBackupScheduleKeepsRetention(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Keeper", nil)
	m := s.provision(a.Token, smallMachine)
	b := s.createBackupSchedule(a.Token, m.ID, map[string]any{"cron": everySecond, "retention": 2})
	if b.Retention != 2 || b.Mode != "snapshot" || b.Timezone != "UTC" || !b.Enabled || b.NextRunAt == nil {
		t.Fatalf("got %+v; want retention 2, mode snapshot, UTC, enabled", b)
	}
	testwait.Eventually(t, "fewer than 3 succeeded backup runs", func() bool {
		b = s.backupSchedule(a.Token, b.ID)
		return b.Runs >= 3 && b.LastStatus != nil && *b.LastStatus == schedules.RunSucceeded
	})
	b = s.disableBackupSchedule(a.Token, b.ID)

	list := s.backupsOf(a.Token, m.ID)
	if len(list) != 2 {
		t.Fatalf("got %d backups after %d runs; want 2 (the retention)", len(list), b.Runs)
	}
	for _, x := range list {
		if x.Origin != backups.OriginSchedule || x.ScheduleID == nil || *x.ScheduleID != b.ID {
			t.Fatalf("got %+v; want a backup of origin schedule, naming %s", x, b.ID)
		}
	}
	onHV, err := s.sim.Backups(t.Context(), hypervisorRef(m))
	if err != nil {
		t.Fatal(err)
	}
	if len(onHV) != 2 || onHV[0].ID != list[0].BackupID || onHV[1].ID != list[1].BackupID {
		t.Fatalf("got %+v on the hypervisor and %+v on record; want the same two", onHV, list)
	}
	// They are the newest: the last run's backup is among them, and the older kept one
	// is from an earlier due time.
	sort.Slice(list, func(i, j int) bool { return list[i].ScheduledAt.Before(*list[j].ScheduledAt) })
	newest := list[1]
	if b.LastStatus == nil || *b.LastStatus != schedules.RunSucceeded || !newest.ScheduledAt.Equal(*b.LastRunAt) {
		t.Fatalf("got newest backup due %v, last run %v (%s); want the last run's backup kept", newest.ScheduledAt, b.LastRunAt, status(b.LastStatus))
	}
	if !list[0].ScheduledAt.Before(*newest.ScheduledAt) {
		t.Fatalf("got due times %v and %v; want two different runs", list[0].ScheduledAt, newest.ScheduledAt)
	}
	for _, bk := range list {
		if bk.MachineID != m.ID || bk.TenantID != a.ID || bk.VMID != m.VMID || bk.ScheduleID == nil || *bk.ScheduleID != b.ID ||
			bk.Mode != "snapshot" || bk.SizeBytes <= 0 || bk.Storage == "" || bk.CreatedAt.IsZero() || bk.TaskID == nil || *bk.TaskID != bk.ID {
			t.Fatalf("got backup %+v; want it complete and tied to the schedule", bk)
		}
	}
	var o tenants.Overview
	r := s.do(req{method: "GET", path: "/api/client/overview", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &o)
	if o.Backups != 2 {
		t.Fatalf("got %d backups in the overview; want 2", o.Backups)
	}

	// Read one, delete it: gone from the hypervisor and from the record.
	r = s.do(req{method: "GET", path: "/api/resources/backups/" + list[0].ID, token: a.Token})
	expect(t, r, 200, "")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/backups/" + list[0].ID, token: a.Token}), 204, "")
	expect(t, s.do(req{method: "GET", path: "/api/resources/backups/" + list[0].ID, token: a.Token}), 404, "not_found")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/backups/" + list[0].ID, token: a.Token}), 404, "not_found")
	if onHV, _ = s.sim.Backups(t.Context(), hypervisorRef(m)); len(onHV) != 1 || onHV[0].ID != newest.BackupID {
		t.Fatalf("got %+v on the hypervisor; want only the newest backup", onHV)
	}
	// Backups are not writable through the registry.
	expect(t, s.do(req{method: "POST", path: "/api/resources/backups", token: a.Token, body: map[string]any{}}), 405, "method_not_allowed")
	// An operator sees them too, and lists them by tenant.
	r = s.do(req{method: "GET", path: "/api/resources/backups?tenant_id=" + a.ID, token: admin})
	expect(t, r, 200, "")
	if !strings.Contains(string(r.Body), newest.ID) {
		t.Fatalf("got %s; want the tenant's backup in the operator's list", r.Body)
	}
}

func TestScheduleRestartDoesNotDoubleFire(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Restarter", nil)
	m := s.provision(a.Token, smallMachine)
	b := s.createBackupSchedule(a.Token, m.ID, map[string]any{"cron": everySecond, "retention": 100})
	testwait.Eventually(t, "fewer than 2 runs before the restart", func() bool {
		return s.backupSchedule(a.Token, b.ID).Runs >= 2
	})
	s.restart()
	atRestart := s.backupSchedule(a.Token, b.ID)
	testwait.Eventually(t, "fewer than 2 runs after the restart", func() bool {
		got := s.backupSchedule(a.Token, b.ID)
		return got.Runs >= atRestart.Runs+2 && got.LastStatus != nil && *got.LastStatus == schedules.RunSucceeded
	})
	b = s.disableBackupSchedule(a.Token, b.ID)

	list := s.backupsOf(a.Token, m.ID)
	due := map[time.Time]bool{}
	for _, bk := range list {
		if bk.ScheduledAt == nil {
			t.Fatalf("got backup %+v without its due time", bk)
		}
		if due[*bk.ScheduledAt] {
			t.Fatalf("due time %v ran twice: %+v", bk.ScheduledAt, list)
		}
		due[*bk.ScheduledAt] = true
		if bk.ScheduledAt.After(*b.LastRunAt) {
			t.Fatalf("got a backup due %v after the last run %v", bk.ScheduledAt, b.LastRunAt)
		}
	}
	// Every run is counted once; at most the run the restart interrupted took no backup.
	if len(list) > b.Runs || len(list) < b.Runs-1 {
		t.Fatalf("got %d backups for %d runs; want one per run, save an interrupted one", len(list), b.Runs)
	}
	onHV, err := s.sim.Backups(t.Context(), hypervisorRef(m))
	if err != nil {
		t.Fatal(err)
	}
	if len(onHV) != len(list) {
		t.Fatalf("got %d backups on the hypervisor and %d on record; want no backup without a record", len(onHV), len(list))
	}
}

func TestMissedRunsWithinAndBeyondGrace(t *testing.T) {
	t.Parallel()
	// The schedules' clock is moved forward while the server is down, as if vmplane had
	// been stopped across a due time: deterministic, with no waiting for real time.
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	s, admin := synced(t, func(c *Config) {
		c.ScheduleClock = clock
		c.ScheduleGrace = time.Hour
	})
	a := s.tenant(admin, "Sleeper", nil)
	m := s.provision(a.Token, smallMachine)
	yearly := map[string]any{"cron": "0 0 1 1 *", "retention": 5}
	b := s.createBackupSchedule(a.Token, m.ID, yearly)
	due := *b.NextRunAt
	if due.Month() != time.January || due.Day() != 1 || due.Hour() != 0 || !due.After(time.Now()) {
		t.Fatalf("got next_run_at %v; want the next 1 January, 00:00 UTC", due)
	}
	downUntil := func(at time.Time) {
		t.Helper()
		s.stop()
		offset.Store(int64(time.Until(at)))
		s.start()
	}

	// Down across the due time, back 30 minutes later: within the grace, it runs once.
	downUntil(due.Add(30 * time.Minute))
	testwait.Eventually(t, "the missed run within the grace did not run", func() bool {
		b = s.backupSchedule(a.Token, b.ID)
		return b.LastStatus != nil && *b.LastStatus == schedules.RunSucceeded
	})
	if b.Runs != 1 || b.LastRunAt == nil || !b.LastRunAt.Equal(due) || b.NextRunAt == nil || !b.NextRunAt.Equal(due.AddDate(1, 0, 0)) {
		t.Fatalf("got runs %d, last %v, next %v; want one run due %v and the next a year on", b.Runs, b.LastRunAt, b.NextRunAt, due)
	}
	if list := s.backupsOf(a.Token, m.ID); len(list) != 1 || !list[0].ScheduledAt.Equal(due) {
		t.Fatalf("got %+v; want one backup of the run due %v", list, due)
	}

	// Another restart at the same time: nothing is due again.
	s.restart()
	if got := s.backupSchedule(a.Token, b.ID); got.Runs != 1 || status(got.LastStatus) != schedules.RunSucceeded {
		t.Fatalf("got runs %d, status %s after another restart; want the one run only", got.Runs, status(got.LastStatus))
	}

	// Down across the next due time, back 2 hours later: beyond the grace, skipped and
	// recorded, and the following due time is armed.
	next := due.AddDate(1, 0, 0)
	downUntil(next.Add(2 * time.Hour))
	b = s.backupSchedule(a.Token, b.ID)
	if b.Runs != 1 || !b.LastRunAt.Equal(due) || b.LastStatus == nil ||
		!strings.HasPrefix(*b.LastStatus, "skipped: missed while vmplane was down") || !strings.Contains(*b.LastStatus, next.Format(time.RFC3339)) {
		t.Fatalf("got runs %d, last %v, status %s; want the run due %v skipped and recorded", b.Runs, b.LastRunAt, status(b.LastStatus), next)
	}
	if b.NextRunAt == nil || !b.NextRunAt.Equal(next.AddDate(1, 0, 0)) {
		t.Fatalf("got next_run_at %v; want %v", b.NextRunAt, next.AddDate(1, 0, 0))
	}
	if list := s.backupsOf(a.Token, m.ID); len(list) != 1 {
		t.Fatalf("got %d backups; want still 1", len(list))
	}
	// A power schedule created now does not treat earlier due times as missed.
	r := s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/power-schedules", token: a.Token,
		body: map[string]any{"action": "reboot", "cron": "0 0 1 1 *"}})
	expect(t, r, 201, "")
	var p schedules.PowerSchedule
	r.decode(t, &p)
	s.restart()
	if got := s.powerSchedule(a.Token, p.ID); got.Runs != 0 || got.LastStatus != nil {
		t.Fatalf("got %+v; want a new schedule with nothing missed", got)
	}
}

func TestScheduleOfDestroyedMachineStops(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Leaver", nil)
	m := s.provision(a.Token, smallMachine)
	r := s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/power-schedules", token: a.Token,
		body: map[string]any{"action": "reboot", "cron": "0 0 1 1 *"}})
	expect(t, r, 201, "")
	var p schedules.PowerSchedule
	r.decode(t, &p)
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + m.ID, token: a.Token})
	r = s.do(req{method: "PATCH", path: "/api/resources/power-schedules/" + p.ID, token: a.Token, body: map[string]any{"cron": everySecond}})
	expect(t, r, 200, "")
	testwait.Eventually(t, "the schedule of a destroyed machine was not disabled", func() bool {
		p = s.powerSchedule(a.Token, p.ID)
		return !p.Enabled
	})
	if p.Runs != 1 || p.NextRunAt != nil || !strings.HasPrefix(status(p.LastStatus), "failed: machine "+m.ID+" no longer exists") {
		t.Fatalf("got %+v (status %s); want one failed run and the schedule disabled", p, status(p.LastStatus))
	}
}

func TestScheduleValidation(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Picky", nil)
	b := s.tenant(admin, "Nosy", nil)
	m := s.provision(a.Token, smallMachine)
	bm := s.provision(b.Token, smallMachine)
	power := "/api/client/machines/" + m.ID + "/power-schedules"
	backup := "/api/client/machines/" + m.ID + "/backup-schedules"
	cases := []struct {
		name, path string
		body       map[string]any
		field      string
	}{
		{"cron with 4 fields", power, map[string]any{"action": "stop", "cron": "* * * *"}, "cron"},
		{"cron out of range", power, map[string]any{"action": "stop", "cron": "61 * * * *"}, "cron"},
		{"cron words", power, map[string]any{"action": "stop", "cron": "every day"}, "cron"},
		{"cron with its own zone", power, map[string]any{"action": "stop", "cron": "CRON_TZ=UTC 0 3 * * *"}, "cron"},
		{"cron never due", power, map[string]any{"action": "stop", "cron": "0 0 30 2 *"}, "cron"},
		{"cron missing", power, map[string]any{"action": "stop"}, "cron"},
		{"unknown time zone", power, map[string]any{"action": "stop", "cron": "0 3 * * *", "timezone": "Mars/Olympus_Mons"}, "timezone"},
		{"server-local zone", power, map[string]any{"action": "stop", "cron": "0 3 * * *", "timezone": "Local"}, "timezone"},
		{"bad action", power, map[string]any{"action": "explode", "cron": "0 3 * * *"}, "action"},
		{"suspend is no schedule action", power, map[string]any{"action": "suspend", "cron": "0 3 * * *"}, "action"},
		{"action missing", power, map[string]any{"cron": "0 3 * * *"}, "action"},
		{"retention 0", backup, map[string]any{"cron": "0 3 * * *", "retention": 0}, "retention"},
		{"retention 101", backup, map[string]any{"cron": "0 3 * * *", "retention": 101}, "retention"},
		{"retention missing", backup, map[string]any{"cron": "0 3 * * *"}, "retention"},
		{"bad mode", backup, map[string]any{"cron": "0 3 * * *", "retention": 3, "mode": "fast"}, "mode"},
		{"action on a backup schedule", backup, map[string]any{"cron": "0 3 * * *", "retention": 3, "action": "stop"}, "action"},
		{"machine_id in the client body", power, map[string]any{"action": "stop", "cron": "0 3 * * *", "machine_id": m.ID}, "machine_id"},
		{"another tenant's machine", "/api/resources/power-schedules", map[string]any{"action": "stop", "cron": "0 3 * * *", "machine_id": bm.ID}, "machine_id"},
		{"no machine", "/api/resources/backup-schedules", map[string]any{"cron": "0 3 * * *", "retention": 3}, "machine_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.do(req{method: "POST", path: c.path, token: a.Token, body: c.body})
			expect(t, r, 400, "invalid_request")
			var p problemBody
			r.decode(t, &p)
			found := false
			for _, e := range p.Errors {
				found = found || e.Field == c.field
			}
			if !found {
				t.Fatalf("got errors %+v; want one on %s", p.Errors, c.field)
			}
		})
	}
	// Several faults are reported together: those the schema states (checked first, at
	// the edge) and those only the schedule's owner can judge.
	r := s.do(req{method: "POST", path: backup, token: a.Token, body: map[string]any{"cron": "nope", "retention": 3, "timezone": "Nowhere"}})
	expect(t, r, 400, "invalid_request")
	var p problemBody
	r.decode(t, &p)
	if len(p.Errors) != 2 {
		t.Fatalf("got %+v; want errors on cron and timezone", p.Errors)
	}
	r = s.do(req{method: "POST", path: backup, token: a.Token, body: map[string]any{"cron": "0 3 * * *", "retention": 0, "mode": "later"}})
	expect(t, r, 400, "invalid_request")
	p = problemBody{}
	r.decode(t, &p)
	if len(p.Errors) != 2 {
		t.Fatalf("got %+v; want errors on retention and mode", p.Errors)
	}
	// Nothing was stored by the refused requests.
	for _, path := range []string{"/api/resources/power-schedules", "/api/resources/backup-schedules"} {
		r := s.do(req{method: "GET", path: path, token: a.Token})
		expect(t, r, 200, "")
		if strings.Contains(string(r.Body), `"id"`) {
			t.Fatalf("got %s; want no schedules", r.Body)
		}
	}
	// Good ones: 5 fields, seconds, a descriptor, a zone, through the resources too.
	for _, body := range []map[string]any{
		{"action": "shutdown", "cron": "30 22 * * 1-5", "timezone": "America/New_York"},
		{"action": "start", "cron": "0 30 7 * * *"},
		{"action": "reboot", "cron": "@weekly", "enabled": false},
	} {
		expect(t, s.do(req{method: "POST", path: power, token: a.Token, body: body}), 201, "")
	}
	r = s.do(req{method: "POST", path: "/api/resources/backup-schedules", token: a.Token,
		body: map[string]any{"machine_id": m.ID, "cron": "0 3 * * *", "timezone": "Asia/Tokyo", "retention": 7, "mode": "stop", "tenant_id": a.ID}})
	expect(t, r, 201, "")
	var bs schedules.BackupSchedule
	r.decode(t, &bs)
	// 03:00 in Tokyo is 18:00 UTC.
	if bs.Mode != "stop" || bs.Retention != 7 || bs.NextRunAt == nil || bs.NextRunAt.Hour() != 18 || bs.NextRunAt.Minute() != 0 {
		t.Fatalf("got %+v; want mode stop, retention 7, next run at 18:00 UTC", bs)
	}
	// An operator creates for a tenant by naming it.
	r = s.do(req{method: "POST", path: "/api/resources/power-schedules", token: admin,
		body: map[string]any{"machine_id": m.ID, "tenant_id": a.ID, "action": "stop", "cron": "0 3 * * *"}})
	expect(t, r, 201, "")
	// PATCH validates the whole schedule too, and does not move it.
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"retention": 0}, "retention"},
		{map[string]any{"timezone": "Atlantis"}, "timezone"},
		{map[string]any{"cron": "* * *"}, "cron"},
		{map[string]any{"machine_id": bm.ID}, "machine_id"},
	} {
		r := s.do(req{method: "PATCH", path: "/api/resources/backup-schedules/" + bs.ID, token: a.Token, body: c.body})
		expect(t, r, 400, "invalid_request")
		var p problemBody
		r.decode(t, &p)
		if len(p.Errors) == 0 || p.Errors[0].Field != c.field {
			t.Fatalf("PATCH %v: got %+v; want an error on %s", c.body, p.Errors, c.field)
		}
	}
	if got := s.backupSchedule(a.Token, bs.ID); got.Retention != 7 || got.Timezone != "Asia/Tokyo" {
		t.Fatalf("got %+v; want it unchanged by refused changes", got)
	}
	r = s.do(req{method: "PATCH", path: "/api/resources/backup-schedules/" + bs.ID, token: admin, body: map[string]any{"tenant_id": b.ID}})
	expect(t, r, 400, "invalid_request")
}

func TestScheduleIsolation(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Owner", nil)
	b := s.tenant(admin, "Intruder", nil)
	am := s.provision(a.Token, smallMachine)
	bm := s.provision(b.Token, smallMachine)
	r := s.do(req{method: "POST", path: "/api/client/machines/" + am.ID + "/power-schedules", token: a.Token,
		body: map[string]any{"action": "reboot", "cron": "0 3 * * *"}})
	expect(t, r, 201, "")
	var ap schedules.PowerSchedule
	r.decode(t, &ap)
	ab := s.createBackupSchedule(a.Token, am.ID, map[string]any{"cron": everySecond, "retention": 3})
	testwait.Eventually(t, "no backup was taken", func() bool { return len(s.backupsOf(a.Token, am.ID)) > 0 })
	s.disableBackupSchedule(a.Token, ab.ID)
	abk := s.backupsOf(a.Token, am.ID)[0]

	for _, c := range []struct {
		r    req
		want int
		code string
	}{
		{req{method: "GET", path: "/api/resources/power-schedules/" + ap.ID}, 404, "not_found"},
		{req{method: "PATCH", path: "/api/resources/power-schedules/" + ap.ID, body: map[string]any{"enabled": false}}, 404, "not_found"},
		{req{method: "DELETE", path: "/api/resources/power-schedules/" + ap.ID}, 404, "not_found"},
		{req{method: "GET", path: "/api/resources/backup-schedules/" + ab.ID}, 404, "not_found"},
		{req{method: "PATCH", path: "/api/resources/backup-schedules/" + ab.ID, body: map[string]any{"retention": 1}}, 404, "not_found"},
		{req{method: "DELETE", path: "/api/resources/backup-schedules/" + ab.ID}, 404, "not_found"},
		{req{method: "GET", path: "/api/resources/backups/" + abk.ID}, 404, "not_found"},
		{req{method: "DELETE", path: "/api/resources/backups/" + abk.ID}, 404, "not_found"},
		{req{method: "POST", path: "/api/client/machines/" + am.ID + "/power-schedules", body: map[string]any{"action": "stop", "cron": "0 3 * * *"}}, 404, "not_found"},
		{req{method: "POST", path: "/api/client/machines/" + am.ID + "/backup-schedules", body: map[string]any{"cron": "0 3 * * *", "retention": 1}}, 404, "not_found"},
		{req{method: "GET", path: "/api/client/machines/" + am.ID + "/power-schedules"}, 404, "not_found"},
		{req{method: "GET", path: "/api/client/machines/" + am.ID + "/backup-schedules"}, 404, "not_found"},
		{req{method: "POST", path: "/api/resources/power-schedules", body: map[string]any{"machine_id": am.ID, "action": "stop", "cron": "0 3 * * *"}}, 400, "invalid_request"},
		{req{method: "POST", path: "/api/resources/backup-schedules", body: map[string]any{"machine_id": bm.ID, "cron": "0 3 * * *", "retention": 1, "tenant_id": a.ID}}, 403, "forbidden"},
		{req{method: "POST", path: "/api/client/machines/" + bm.ID + "/power-schedules", body: map[string]any{"action": "stop", "cron": "0 3 * * *", "tenant_id": a.ID}}, 403, "forbidden"},
	} {
		c.r.token = b.Token
		expect(t, s.do(c.r), c.want, c.code)
	}
	for _, p := range []string{"/api/resources/power-schedules", "/api/resources/backup-schedules", "/api/resources/backups",
		"/api/resources/backups?machine_id=" + am.ID, "/api/client/machines/" + bm.ID + "/power-schedules"} {
		r := s.do(req{method: "GET", path: p, token: b.Token})
		expect(t, r, 200, "")
		for _, id := range []string{ap.ID, ab.ID, abk.ID, am.ID} {
			if strings.Contains(string(r.Body), id) {
				t.Fatalf("%s for tenant B contains tenant A's %s", p, id)
			}
		}
	}
	// A's records are intact; a power schedule is not a backup schedule.
	if got := s.powerSchedule(a.Token, ap.ID); !got.Enabled || got.Action != "reboot" {
		t.Fatalf("got %+v; want A's schedule unchanged", got)
	}
	expect(t, s.do(req{method: "GET", path: "/api/resources/backup-schedules/" + ap.ID, token: a.Token}), 404, "not_found")
	expect(t, s.do(req{method: "GET", path: "/api/resources/backups/" + abk.ID, token: a.Token}), 200, "")
	// Tenant B's own schedules work, and its list holds only them.
	r = s.do(req{method: "POST", path: "/api/resources/power-schedules", token: b.Token,
		body: map[string]any{"machine_id": bm.ID, "tenant_id": b.ID, "action": "stop", "cron": "0 3 * * *"}})
	expect(t, r, 201, "")
	r = s.do(req{method: "GET", path: "/api/client/machines/" + bm.ID + "/power-schedules", token: b.Token})
	var list struct{ Items []schedules.PowerSchedule }
	r.decode(t, &list)
	if len(list.Items) != 1 || list.Items[0].TenantID != b.ID {
		t.Fatalf("got %+v; want B's one schedule", list.Items)
	}
}

// The operator's bounds on schedules hold at the API, with the configuration's
// defaults: backups every 15 s are refused (400 naming cron and the 1 h bound), and
// power actions every 5 minutes are made.
func TestScheduleBoundsAtTheAPI(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) {
		d := Defaults()
		c.ScheduleMinBackupInterval, c.ScheduleMinPowerInterval = d.ScheduleMinBackupInterval, d.ScheduleMinPowerInterval
	})
	a := s.tenant(admin, "Bounded", nil)
	m := s.provision(a.Token, smallMachine)
	r := s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/backup-schedules", token: a.Token,
		body: map[string]any{"cron": "@every 15s", "retention": 2}})
	expect(t, r, 400, "invalid_request")
	if !strings.Contains(string(r.Body), "cron") || !strings.Contains(string(r.Body), "1h0m0s") {
		t.Fatalf("got %s; want the answer to name cron and the bound 1h0m0s", r.Body)
	}
	r = s.do(req{method: "POST", path: "/api/client/machines/" + m.ID + "/power-schedules", token: a.Token,
		body: map[string]any{"action": "reboot", "cron": "*/5 * * * *"}})
	expect(t, r, 201, "")
}
