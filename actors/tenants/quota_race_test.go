package tenants

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// heldDriver is the simulator whose snapshots and backups wait for release to close,
// so that their tasks stay in flight while a test asks for more.
type heldDriver struct {
	*sim.Driver
	release chan struct{}
	once    sync.Once
	size    int64 // the size of every backup taken, when set
}

// open lets the waiting snapshots and backups go on (once).
func (d *heldDriver) open() { d.once.Do(func() { close(d.release) }) }

func (d *heldDriver) CreateSnapshot(ctx context.Context, ref hypervisor.Ref, spec hypervisor.SnapshotSpec) (hypervisor.Snapshot, error) {
	<-d.release
	return d.Driver.CreateSnapshot(ctx, ref, spec)
}

func (d *heldDriver) Backup(ctx context.Context, ref hypervisor.Ref, mode hypervisor.BackupMode) (hypervisor.Backup, error) {
	<-d.release
	b, err := d.Driver.Backup(ctx, ref, mode)
	if d.size > 0 {
		b.SizeBytes = d.size
	}
	return b, err
}

// quotaRaceSystem is a test system on a heldDriver with a tenant of quota q and n
// running machines.
func quotaRaceSystem(t *testing.T, ctx context.Context, q *QuotaChange, n int) (*testSystem, *heldDriver, string, []string) {
	t.Helper()
	d := &heldDriver{Driver: sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1}), release: make(chan struct{})}
	s := newTestSystem(t, func(o *testOptions) { o.Driver = d })
	t.Cleanup(d.open)                                // before the system stops (cleanups run last first), on a failure too
	if _, err := s.Inventory.Sync(ctx); err != nil { // the templates
		t.Fatal(err)
	}
	ten, err := s.Tenants.Create(ctx, "racing", q)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range n {
		p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: fmt.Sprintf("vm%d", i), TemplateID: "tpl-debian-12", CPUCores: 1, MemoryMB: 512, DiskGB: 20})
		if err != nil {
			t.Fatal(err)
		}
		if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
			t.Fatalf("create: got %+v, %v", task, err)
		}
		ids = append(ids, p.Machine.ID)
	}
	return s, d, ten.ID, ids
}

// startAll asks start of every machine at once and returns the tasks accepted; every
// refusal must be 409 quota_exceeded.
func startAll(t *testing.T, ids []string, start func(id string) (tasks.Task, error)) []tasks.Task {
	t.Helper()
	type answer struct {
		task tasks.Task
		err  error
	}
	ch := make(chan answer, len(ids))
	for _, id := range ids {
		go func() {
			task, err := start(id)
			ch <- answer{task, err}
		}()
	}
	var ok []tasks.Task
	for range ids {
		a := <-ch
		switch {
		case a.err == nil:
			ok = append(ok, a.task)
		case !errors.Is(a.err, apierr.ErrQuotaExceeded):
			t.Errorf("a start: got %v; want success or quota_exceeded", a.err)
		}
	}
	return ok
}

// Ten snapshots asked at once on ten machines of a tenant with a quota of 3 make
// exactly 3, the rest 409 quota_exceeded, and the tasks still in flight count: a
// later ask is refused before they end, and after they end by the records. Backups on
// demand likewise (asked at once of the seven machines left idle).
func TestQuotaOfSnapshotsAndBackupsHoldsUnderConcurrency(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, d, ten, ids := quotaRaceSystem(t, ctx, &QuotaChange{Snapshots: kit.Ptr(3), Backups: kit.Ptr(3)}, 10)

	snaps := startAll(t, ids, func(id string) (tasks.Task, error) {
		return s.Machines.CreateSnapshot(ctx, id, &ten, machines.SnapshotRequest{Name: "s1"})
	})
	var idle []string // the machines without a snapshot task: a backup of the others is 409 busy
	for _, id := range ids {
		if !busy(snaps, nil, id) {
			idle = append(idle, id)
		}
	}
	backups := startAll(t, idle, func(id string) (tasks.Task, error) {
		return s.Machines.BackupNow(ctx, id, &ten, machines.BackupRequest{})
	})
	if len(snaps) != 3 || len(backups) != 3 {
		t.Fatalf("accepted %d snapshots and %d backups; want 3 of each", len(snaps), len(backups))
	}
	// In flight still: a machine that took none is refused too.
	for _, id := range ids {
		if busy(snaps, backups, id) {
			continue
		}
		if _, err := s.Machines.CreateSnapshot(ctx, id, &ten, machines.SnapshotRequest{Name: "late"}); !errors.Is(err, apierr.ErrQuotaExceeded) {
			t.Fatalf("a snapshot while 3 are in flight: got %v; want quota_exceeded", err)
		}
		break
	}
	d.open()
	for _, task := range append(snaps, backups...) {
		if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
			t.Fatalf("task %s: got %+v, %v", task.ID, got, err)
		}
	}
	u, err := s.Tenants.Usage(ctx, ten)
	if err != nil || u.Snapshots != 3 || u.Backups != 3 {
		t.Fatalf("got usage %+v, %v; want 3 snapshots and 3 backups", u, err)
	}
	if _, err := s.Machines.BackupNow(ctx, ids[0], &ten, machines.BackupRequest{}); !errors.Is(err, apierr.ErrQuotaExceeded) {
		t.Fatalf("a fourth backup: got %v; want quota_exceeded", err)
	}
}

// busy reports whether one of the tasks targets the machine.
func busy(a, b []tasks.Task, id string) bool {
	for _, t := range append(a, b...) {
		if t.TargetID == id {
			return true
		}
	}
	return false
}

// A tenant's backup_gb bounds the sizes of its backups: a backup is refused (409
// quota_exceeded naming backup_gb) once those on record and in flight, with the new
// one expected as large as its machine's newest, would pass it; its usage shows the
// GB held, rounded up.
func TestBackupSizeQuota(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, d, ten, ids := quotaRaceSystem(t, ctx, &QuotaChange{BackupGB: kit.Ptr(5)}, 2)
	d.size = 2 << 30 // 2 GB each
	d.open()
	backup := func(id string) error {
		t.Helper()
		task, err := s.Machines.BackupNow(ctx, id, &ten, machines.BackupRequest{})
		if err != nil {
			return err
		}
		if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
			t.Fatalf("backup: got %+v, %v", got, err)
		}
		return nil
	}
	// The first backup of a machine has no expected size: taken while the quota
	// is not used up.
	if err := backup(ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := backup(ids[0]); err != nil { // 2 + 2 ≤ 5
		t.Fatal(err)
	}
	err := backup(ids[0]) // 4 + 2 > 5
	var e *apierr.Error
	if !errors.As(err, &e) || !errors.Is(err, apierr.ErrQuotaExceeded) || len(e.Fields) != 1 || e.Fields[0].Field != "backup_gb" {
		t.Fatalf("a third 2 GB backup under 5 GB: got %v; want quota_exceeded naming backup_gb", err)
	}
	if err := backup(ids[1]); err != nil { // no backup of it yet: 4 < 5
		t.Fatal(err)
	}
	if err := backup(ids[1]); !errors.Is(err, apierr.ErrQuotaExceeded) { // 6 ≥ 5
		t.Fatalf("a backup past a used-up quota: got %v; want quota_exceeded", err)
	}
	u, err := s.Tenants.Usage(ctx, ten)
	if err != nil || u.BackupGB != 6 || u.Backups != 3 {
		t.Fatalf("got usage %+v, %v; want 3 backups, 6 GB", u, err)
	}
}
