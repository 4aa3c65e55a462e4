package monitoring

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"

	"github.com/oklog/ulid/v2"

	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/persistence"
)

// insightFixture writes records straight into a system's store, as the entities would.
type insightFixture struct {
	t   *testing.T
	s   *testSystem
	now time.Time
}

func (f *insightFixture) commit(b *persistence.Batch) {
	f.t.Helper()
	if err := f.s.store.Commit(context.Background(), b); err != nil {
		f.t.Fatal(err)
	}
}

func (f *insightFixture) machine(id, status string, created time.Time) {
	f.t.Helper()
	tenant := "t-" + id
	b := new(persistence.Batch)
	if err := machines.Seed(b, machines.Machine{ID: id, Name: "vm-" + id, TenantID: &tenant, Status: status,
		CreatedAt: created, UpdatedAt: created}); err != nil {
		f.t.Fatal(err)
	}
	f.commit(b)
}

// task writes a finished task created ran before it finished ago.
func (f *insightFixture) task(machine, typ, status string, ago, ran time.Duration, msg string) {
	f.t.Helper()
	finished := f.now.Add(-ago)
	created := finished.Add(-ran)
	t := &tasks.Task{ID: ulid.MustNew(ulid.Timestamp(created), rand.Reader).String(), Type: typ, TargetType: "machine",
		TargetID: machine, Status: status, CreatedAt: created, StartedAt: &created, FinishedAt: &finished}
	if msg != "" {
		t.Error = &msg
	}
	b := new(persistence.Batch)
	if err := tasks.Put(b, t); err != nil {
		f.t.Fatal(err)
	}
	f.commit(b)
}

func (f *insightFixture) crash(machine string, ago time.Duration) {
	f.t.Helper()
	val, _ := persistence.Encode(insightRecordVersion, crashRecord{At: f.now.Add(-ago)})
	f.commit(new(persistence.Batch).Put(crashKey(machine), val))
}

func (f *insightFixture) healthCheck(id, machine, status string, checked time.Time, failures int) {
	f.t.Helper()
	rec := map[string]any{"id": id, "name": "web " + id, "type": "http", "target": "http://192.0.2.1/", "machine_id": machine,
		"tenant_id": nil, "interval_s": 30, "created_at": f.now.Add(-time.Hour),
		"last": map[string]any{"status": status, "checked_at": checked, "latency_ms": 12, "error": "connection refused",
			"consecutive_failures": failures}}
	val, _ := persistence.Encode(1, rec)
	f.commit(new(persistence.Batch).Put(persistence.Key("hc", id), val))
}

func TestFaultyDeploymentRules(t *testing.T) {
	s := newTestSystem(t)
	now := time.Now().UTC()
	f := &insightFixture{t: t, s: s, now: now}
	old := now.Add(-72 * time.Hour)
	const m = time.Minute

	// Provisioning failed an hour ago.
	f.machine("prov", machines.StatusError, now.Add(-61*m))
	f.task("prov", "vm.create", tasks.TaskFailed, 60*m, m, "no space left on storage local-lvm")
	// Provisioning failed three days ago: only status error tells.
	f.machine("olderr", machines.StatusError, old)
	val, _ := persistence.Encode(insightRecordVersion, errorSince{Since: old})
	f.commit(new(persistence.Batch).Put(errorIndexKey("olderr"), val))
	// A reinstall failed and a later one succeeded: fine now.
	f.machine("fixed", machines.StatusRunning, old)
	f.task("fixed", "vm.reinstall", tasks.TaskFailed, 120*m, m, "template missing")
	f.task("fixed", "vm.reinstall", tasks.TaskSucceeded, 60*m, m, "")
	// The latest reinstall failed, after failed reboots: the deployment reason wins.
	f.machine("reinst", machines.StatusRunning, old)
	for i := 0; i < 3; i++ {
		f.task("reinst", "vm.reboot", tasks.TaskFailed, time.Duration(300-i)*m, m, "qmp timeout")
	}
	f.task("reinst", "vm.reinstall", tasks.TaskFailed, 30*m, m, "disk image corrupt")
	// Three failed reboots within the window.
	f.machine("flaky", machines.StatusRunning, old)
	f.task("flaky", "vm.reboot", tasks.TaskFailed, 20*time.Hour, m, "first")
	f.task("flaky", "vm.start", tasks.TaskSucceeded, 10*time.Hour, m, "")
	f.task("flaky", "vm.reboot", tasks.TaskFailed, 5*time.Hour, m, "second")
	f.task("flaky", "vm.reboot", tasks.TaskFailed, 2*time.Hour, m, "third")
	// Three failed reboots, one of them outside the window.
	f.machine("aging", machines.StatusRunning, old)
	f.task("aging", "vm.reboot", tasks.TaskFailed, 30*time.Hour, m, "")
	f.task("aging", "vm.reboot", tasks.TaskFailed, 5*time.Hour, m, "")
	f.task("aging", "vm.reboot", tasks.TaskFailed, 2*time.Hour, m, "")
	// A create that started before the window and failed inside it.
	f.machine("slow", machines.StatusError, now.Add(-24*time.Hour-6*m))
	f.task("slow", "vm.create", tasks.TaskFailed, 24*time.Hour-m, 6*m, "timed out")
	// Crashes: three within the hour; and three of which one is older.
	f.machine("crashy", machines.StatusRunning, old)
	f.crash("crashy", 50*m)
	f.crash("crashy", 30*m)
	f.crash("crashy", 5*m)
	f.machine("calm", machines.StatusRunning, old)
	f.crash("calm", 90*m)
	f.crash("calm", 30*m)
	f.crash("calm", 5*m)
	// Failing checks: on a machine created ten minutes ago, and on an old one.
	f.machine("fresh", machines.StatusRunning, now.Add(-10*m))
	f.healthCheck("hc1", "fresh", "failing", now.Add(-m), 3)
	f.machine("veteran", machines.StatusRunning, old)
	f.healthCheck("hc2", "veteran", "failing", now.Add(-m), 3)
	f.machine("passing", machines.StatusRunning, now.Add(-10*m))
	f.healthCheck("hc3", "passing", "passing", now.Add(-m), 0)
	// Failed tasks of a machine that is gone.
	for i := 0; i < 3; i++ {
		f.task("gone", "vm.create", tasks.TaskFailed, time.Duration(10+i)*m, m, "x")
	}
	// A healthy machine with successful tasks.
	f.machine("healthy", machines.StatusRunning, now.Add(-10*m))
	f.task("healthy", "vm.create", tasks.TaskSucceeded, 9*m, m, "")

	got, err := s.Insights.faulty(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		reason string
		failed int
		err    string
		since  time.Time
	}
	wants := map[string]want{
		"prov":   {ReasonProvisioningFailed, 1, "no space left", now.Add(-60 * m)},
		"olderr": {ReasonProvisioningFailed, 0, "", old},
		"reinst": {ReasonReinstallFailed, 4, "disk image corrupt", now.Add(-30 * m)},
		"flaky":  {ReasonRepeatedFailures, 3, "third", now.Add(-20 * time.Hour)},
		"slow":   {ReasonProvisioningFailed, 1, "timed out", now.Add(-24*time.Hour + m)},
		"crashy": {ReasonCrashLoop, 0, "", now.Add(-50 * m)},
		"fresh":  {ReasonFailingHealthChecks, 0, "connection refused", now.Add(-m - 2*30*time.Second)},
	}
	seen := map[string]bool{}
	for _, it := range got.Items {
		w, ok := wants[it.MachineID]
		if !ok {
			t.Errorf("got %s listed (%s); want it absent", it.MachineID, it.Reason)
			continue
		}
		seen[it.MachineID] = true
		if it.Reason != w.reason || it.FailedTasks != w.failed || !it.Since.Equal(w.since) {
			t.Errorf("%s: got reason %s, %d failed tasks, since %s; want %s, %d, %s",
				it.MachineID, it.Reason, it.FailedTasks, it.Since, w.reason, w.failed, w.since)
		}
		gotErr := ""
		if it.LastError != nil {
			gotErr = *it.LastError
		}
		if (w.err == "") != (gotErr == "") || !strings.Contains(gotErr, w.err) {
			t.Errorf("%s: got last_error %q; want one containing %q", it.MachineID, gotErr, w.err)
		}
		if it.Name != "vm-"+it.MachineID || it.TenantID == nil || *it.TenantID != "t-"+it.MachineID {
			t.Errorf("%s: got name %q, tenant %v; want the machine's", it.MachineID, it.Name, it.TenantID)
		}
	}
	for id := range wants {
		if !seen[id] {
			t.Errorf("got %s absent; want it listed", id)
		}
	}
	for i := 1; i < len(got.Items); i++ {
		if got.Items[i].Since.After(got.Items[i-1].Since) {
			t.Errorf("got items out of order at %d; want the newest problem first", i)
		}
	}
}

func TestFaultyThresholdsAreConfigurable(t *testing.T) {
	s := newTestSystem(t, func(o *testOptions) {
		o.Faulty = FaultyOptions{Window: time.Hour, TaskFailures: 2, CrashLoopCount: 5}
	})
	now := time.Now().UTC()
	f := &insightFixture{t: t, s: s, now: now}
	f.machine("a", machines.StatusRunning, now.Add(-48*time.Hour))
	f.task("a", "vm.stop", tasks.TaskFailed, 90*time.Minute, time.Minute, "outside the hour")
	f.task("a", "vm.stop", tasks.TaskFailed, 30*time.Minute, time.Minute, "")
	f.task("a", "vm.stop", tasks.TaskFailed, 10*time.Minute, time.Minute, "")
	for i := 0; i < 4; i++ {
		f.crash("a", time.Duration(i+1)*time.Minute)
	}
	got, err := s.Insights.faulty(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].Reason != ReasonRepeatedFailures || got.Items[0].FailedTasks != 2 {
		t.Fatalf("got %+v; want a repeated_failures item with 2 failed tasks (4 crashes are under 5)", got.Items)
	}
	if o := s.Insights.Options(); o.CrashLoopWindow != time.Hour || o.HealthWindow != time.Hour {
		t.Fatalf("got options %+v; want the defaults where none were given", o)
	}
}

func countKeys(t *testing.T, s *testSystem, prefix []byte) int {
	t.Helper()
	n := 0
	if err := s.store.Scan(context.Background(), prefix, nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFollowerRecordsCrashesAndErrors(t *testing.T) {
	s := newTestSystem(t)
	m := machines.Machine{ID: "01CRASHY", Status: machines.StatusStopped}
	// Only a sync that finds a running machine stopped is a crash.
	machines.Publish(s.Events, m, "task", machines.StatusRunning)
	machines.Publish(s.Events, machines.Machine{ID: "01CRASHY", Status: machines.StatusSuspended}, "sync", machines.StatusRunning)
	machines.Publish(s.Events, m, "sync", machines.StatusSuspended)
	machines.Publish(s.Events, m, "sync", machines.StatusRunning)
	machines.Publish(s.Events, m, "sync", machines.StatusRunning)
	kittest.WaitFor(t, "two crash records", func() bool { return countKeys(t, s, persistence.Prefix("crash", "01CRASHY")) == 2 })

	e := machines.Machine{ID: "01BROKEN", Status: machines.StatusError}
	machines.Publish(s.Events, e, "task", machines.StatusProvisioning)
	kittest.WaitFor(t, "error indexed", func() bool { return countKeys(t, s, persistence.Prefix("insight-error")) == 1 })
	e.Status = machines.StatusRunning
	machines.Publish(s.Events, e, "task", machines.StatusError)
	kittest.WaitFor(t, "error unindexed", func() bool { return countKeys(t, s, persistence.Prefix("insight-error")) == 0 })
	e.Status = machines.StatusError
	machines.Publish(s.Events, e, "task", machines.StatusRunning)
	kittest.WaitFor(t, "error indexed again", func() bool { return countKeys(t, s, persistence.Prefix("insight-error")) == 1 })
	s.Events.Publish(events.EventMachineDeleted, nil, map[string]string{"id": e.ID})
	kittest.WaitFor(t, "deleted machine unindexed", func() bool { return countKeys(t, s, persistence.Prefix("insight-error")) == 0 })
	if n := countKeys(t, s, persistence.Prefix("crash", "01CRASHY")); n != 2 {
		t.Fatalf("got %d crash records; want 2", n)
	}
}

func TestFollowerRebuildsErrorIndexAtStart(t *testing.T) {
	dir := t.TempDir()
	open := func() (*testSystem, persistence.Store) {
		store, err := persistence.Open(persistence.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return startTestSystem(t, store, testOptions{}), store
	}
	s, store := open()
	now := time.Now().UTC()
	f := &insightFixture{t: t, s: s, now: now}
	// Written behind the follower's back, as a process that died before it caught up.
	f.machine("01ERR", machines.StatusError, now.Add(-time.Hour))
	val, _ := persistence.Encode(insightRecordVersion, errorSince{Since: now})
	f.commit(new(persistence.Batch).Put(errorIndexKey("01STALE"), val))
	s.Stop()
	store.Close()

	s, store = open()
	defer func() { s.Stop(); store.Close() }()
	kittest.WaitFor(t, "index rebuilt", func() bool {
		_, errStale := s.store.Get(context.Background(), errorIndexKey("01STALE"))
		_, errErr := s.store.Get(context.Background(), errorIndexKey("01ERR"))
		return errStale != nil && errErr == nil
	})
	got, err := s.Insights.FaultyDeployments(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].MachineID != "01ERR" || got.Items[0].Reason != ReasonProvisioningFailed ||
		!got.Items[0].Since.Equal(now.Add(-time.Hour)) {
		t.Fatalf("got %+v; want 01ERR provisioning_failed since its last update", got.Items)
	}
}

// TestWatchersOnASharedStoreSeeOtherMembersRecords: in a cluster, a machine may move
// to this member after another member's watchers indexed it in error or raised its
// task_failed alert; this member's watchers resolve both as the other's would have.
func TestWatchersOnASharedStoreSeeOtherMembersRecords(t *testing.T) {
	srv := etcdtest.Start(t)
	store, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints(), Prefix: "/shared/"})
	if err != nil {
		t.Fatal(err)
	}
	s := startTestSystem(t, store, testOptions{})
	t.Cleanup(func() { s.Stop(); store.Close() })
	ctx := context.Background()

	// The follower runs (its start's rebuild is over) once it indexed this one.
	machines.Publish(s.Events, machines.Machine{ID: "01HERE", Status: machines.StatusError}, "task", machines.StatusProvisioning)
	kittest.WaitFor(t, "error indexed", func() bool { _, err := store.Get(context.Background(), errorIndexKey("01HERE")); return err == nil })

	// What the other member's watchers wrote.
	val, _ := persistence.Encode(insightRecordVersion, errorSince{Since: time.Now().UTC()})
	if err := store.Commit(ctx, new(persistence.Batch).Put(errorIndexKey("01MOVED"), val)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Alerts.Raise(ctx, alerts.AlertRaise{Kind: alerts.AlertTaskFailed, Severity: alerts.SeverityWarning,
		TargetType: "machine", TargetID: "01MOVED", Message: "failed on the other member"}); err != nil {
		t.Fatal(err)
	}
	if n := monKeys(t, s, persistence.Prefix("alert-cond", alerts.AlertTaskFailed)); n != 1 {
		t.Fatalf("%d open task_failed conditions; want the one raised", n)
	}

	machines.Publish(s.Events, machines.Machine{ID: "01MOVED", Status: machines.StatusRunning}, "task", machines.StatusError)
	s.Events.Publish(events.EventTask, nil, tasks.Task{ID: "01TASK", Type: "vm.reboot", TargetType: "machine",
		TargetID: "01MOVED", Status: tasks.TaskSucceeded})
	kittest.WaitFor(t, "the other member's error index entry removed", func() bool {
		_, err := store.Get(context.Background(), errorIndexKey("01MOVED"))
		return errors.Is(err, persistence.ErrNotFound)
	})
	kittest.WaitFor(t, "the other member's task_failed alert resolved", func() bool {
		return monKeys(t, s, persistence.Prefix("alert-cond", alerts.AlertTaskFailed)) == 0
	})
}
