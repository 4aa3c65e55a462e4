package tenants

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// restoreFixture makes a tenant with a machine and one backup of it, and answers the
// tenant, the machine and the backup's id.
func restoreFixture(t *testing.T, ctx context.Context, s *testSystem, quota *QuotaChange) (Tenant, machines.Machine, string) {
	t.Helper()
	if _, err := s.Inventory.Sync(ctx); err != nil { // the templates
		t.Fatal(err)
	}
	ten, err := s.Tenants.Create(ctx, "restorer", quota)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Tenants.CreateMachine(ctx, ten.ID, MachineSpec{Name: "src", TemplateID: "tpl-debian-12", CPUCores: 2, MemoryMB: 1024, DiskGB: 20})
	if err != nil {
		t.Fatal(err)
	}
	if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("create: got %+v, %v", task, err)
	}
	task, err := s.Machines.BackupNow(ctx, p.Machine.ID, &ten.ID, machines.BackupRequest{Note: "before"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("backup: got %+v, %v", got, err)
	}
	return ten, p.Machine, task.ID // an on-demand backup's id is its task's
}

// A backup restored into a new machine: the machine is the tenant's, counted in its
// usage, has the backup's disks and a vmid of its own, and runs when asked to; the
// source stays. Unknown backups, tenants and nodes, a bad name and a suspended
// tenant are refused before anything is recorded.
func TestRestoreNewMakesATenantsMachine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) { o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 2}) })
	ten, src, backupID := restoreFixture(t, ctx, s, nil)
	srcNow, err := s.Machines.Get(ctx, src.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Tenants.RestoreNew(ctx, backupID, RestoreNewRequest{Name: "copy", StartAfter: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Machine.TenantID == nil || *p.Machine.TenantID != ten.ID || p.Task.Type != "vm.restore_new" || p.Machine.CPUCores != 2 {
		t.Fatalf("got %+v; want a machine of the backup's tenant, with the source's sizes, and a vm.restore_new task", p)
	}
	if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("restore: got %+v, %v", task, err)
	}
	got, err := s.Machines.Get(ctx, p.Machine.ID, &ten.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.VMID == 0 || got.VMID == srcNow.VMID || got.Name != "copy" || got.Status != machines.StatusRunning ||
		len(got.Disks) != len(srcNow.Disks) || got.DiskGB != srcNow.DiskGB {
		t.Fatalf("got %+v; want a running machine named copy with its own vmid and the source's disks %+v", got, srcNow.Disks)
	}
	if u, err := s.Tenants.Usage(ctx, ten.ID); err != nil || u.Machines != 2 || u.CPUCores != 4 {
		t.Fatalf("usage: %+v, %v; want two machines of 2 cores", u, err)
	}

	for name, c := range map[string]struct {
		id   string
		req  RestoreNewRequest
		want error
	}{
		"unknown backup": {"NOPE", RestoreNewRequest{}, apierr.ErrNotFound},
		"unknown tenant": {backupID, RestoreNewRequest{TenantID: kit.Ptr("nobody")}, apierr.ErrInvalidRequest},
		"unknown node":   {backupID, RestoreNewRequest{Node: "nowhere"}, apierr.ErrInvalidRequest},
		"bad name":       {backupID, RestoreNewRequest{Name: "not a name"}, apierr.ErrInvalidRequest},
	} {
		if _, err := s.Tenants.RestoreNew(ctx, c.id, c.req); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v; want %v", name, err, c.want)
		}
	}
	if _, err := s.Tenants.Suspend(ctx, ten.ID, "unpaid", SuspendNone); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tenants.RestoreNew(ctx, backupID, RestoreNewRequest{}); !errors.Is(err, apierr.ErrTenantSuspended) {
		t.Fatalf("restore for a suspended tenant: got %v; want tenant_suspended", err)
	}
	if u, err := s.Tenants.Usage(ctx, ten.ID); err != nil || u.Machines != 2 {
		t.Fatalf("usage after the refusals: %+v, %v; want still two machines", u, err)
	}
}

// Concurrent restores of one tenant hold its quota: with room for two more machines,
// of ten restores at once exactly two are accepted, the others 409 quota_exceeded.
func TestRestoreNewHoldsTheQuotaUnderConcurrency(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) { o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1}) })
	ten, _, backupID := restoreFixture(t, ctx, s, &QuotaChange{Machines: kit.Ptr(3)})
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		accepted []Provisioned
		refused  int
	)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := s.Tenants.RestoreNew(ctx, backupID, RestoreNewRequest{})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				accepted = append(accepted, p)
			case errors.Is(err, apierr.ErrQuotaExceeded):
				refused++
			default:
				t.Errorf("restore: %v", err)
			}
		}()
	}
	wg.Wait()
	if len(accepted) != 2 || refused != 8 {
		t.Fatalf("accepted %d, refused %d; want 2 and 8", len(accepted), refused)
	}
	for _, p := range accepted {
		if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
			t.Fatalf("restore: got %+v, %v", task, err)
		}
	}
	if u, err := s.Tenants.Usage(ctx, ten.ID); err != nil || u.Machines != 3 {
		t.Fatalf("usage: %+v, %v; want three machines", u, err)
	}
}

// A restore of the backup of a machine gone, with no name asked, gets a name of its
// own ("restored-" and hex digits), which its record holds from the start: a restart
// before the task records the vmid finds the machine by it (without one the task
// failed and the sync adopted the copy as nobody's).
func TestRestoreNewOfAGoneMachineIsNamed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) { o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1}) })
	ten, src, backupID := restoreFixture(t, ctx, s, nil)
	task, err := s.Machines.Destroy(ctx, src.ID, &ten.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("destroy: got %+v, %v", got, err)
	}
	p, err := s.Tenants.RestoreNew(ctx, backupID, RestoreNewRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Machine.Name, "restored-") || !machines.ValidName(p.Machine.Name) {
		t.Fatalf("the record of a nameless restore of a gone machine's backup: %+v; want a valid name restored-...", p.Machine)
	}
	if got, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || got.Status != tasks.TaskSucceeded {
		t.Fatalf("restore: got %+v, %v", got, err)
	}
	if got, err := s.Machines.Get(ctx, p.Machine.ID, &ten.ID); err != nil || got.Name != p.Machine.Name || got.VMID == 0 {
		t.Fatalf("restored machine %+v, %v; want the hypervisor's machine under the name %s", got, err, p.Machine.Name)
	}
}
