package tenants

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// meddlingStore runs meddle, once armed, just before the first conditional batch it
// is given (a create's, which requires the tenant's usage counter as it read it): what
// another member's write of one of the tenant's machines does between the tenant's
// quota check and its commit.
type meddlingStore struct {
	persistence.Store
	armed  atomic.Bool
	meddle func()
}

func (m *meddlingStore) Commit(ctx context.Context, b *persistence.Batch) error {
	if len(b.Conds) > 0 && m.armed.CompareAndSwap(true, false) {
		m.meddle()
	}
	return m.Store.Commit(ctx, b)
}

// A create whose batch lost the race to a write of another of the tenant's machines
// (which moved the usage counter) checks the quota again on what the tenant holds then:
// refused when a resize took the room, made when a delete freed some.
func TestCreateRacedByAnotherMachineIsCheckedAgain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	meddling := &meddlingStore{}
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1})
		meddling.Store = o.Store
		o.Store = meddling
	})
	if _, err := s.Inventory.Sync(ctx); err != nil { // the templates
		t.Fatal(err)
	}
	ten, err := s.Tenants.Create(ctx, "raced", &QuotaChange{CPUCores: kit.Ptr(4)})
	if err != nil {
		t.Fatal(err)
	}
	spec := MachineSpec{Name: "vm", TemplateID: "tpl-debian-12", CPUCores: 1, MemoryMB: 512, DiskGB: 20}
	made := make([]machines.Machine, 2)
	for i := range made {
		p, err := s.Tenants.CreateMachine(ctx, ten.ID, spec)
		if err != nil {
			t.Fatal(err)
		}
		if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
			t.Fatalf("create: %+v, %v", task, err)
		}
		made[i] = p.Machine
	}
	run := func(id string, op machines.Operation) {
		task, err := s.Machines.Start(ctx, id, op, nil)
		if err == nil {
			var ended *tasks.Task
			if ended, err = s.Tasks.Wait(ctx, task.ID); err == nil && ended.Status != tasks.TaskSucceeded {
				err = errors.New("the task failed")
			}
		}
		if err != nil {
			t.Errorf("%s of %s: %v", op.Type, id, err)
		}
	}
	retried := s.Machines.CounterRetries()

	// 2 of 4 cores held: a create of 1 fits, but an operator's resize to 3 cores lands
	// first.
	meddling.meddle = func() {
		run(made[1].ID, machines.Operation{Type: machines.OpResize, Config: &hypervisor.ConfigChange{CPUCores: kit.Ptr(3)}})
	}
	meddling.armed.Store(true)
	if _, err := s.Tenants.CreateMachine(ctx, ten.ID, spec); !errors.Is(err, apierr.ErrQuotaExceeded) {
		t.Fatalf("a create raced by a resize that took the room: %v; want quota_exceeded", err)
	}

	// 4 of 5 cores held: a create of 1 fits, and a delete lands first.
	if _, err := s.Tenants.Update(ctx, ten.ID, TenantChange{Quota: &QuotaChange{CPUCores: kit.Ptr(5)}}); err != nil {
		t.Fatal(err)
	}
	meddling.meddle = func() { run(made[0].ID, machines.Operation{Type: machines.OpDestroy}) }
	meddling.armed.Store(true)
	p, err := s.Tenants.CreateMachine(ctx, ten.ID, spec)
	if err != nil {
		t.Fatalf("a create raced by a delete: %v; want it made", err)
	}
	if task, err := s.Tasks.Wait(ctx, p.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("create: %+v, %v", task, err)
	}
	if u, err := s.Tenants.Usage(ctx, ten.ID); err != nil || u.Machines != 2 || u.CPUCores != 4 {
		t.Fatalf("usage %+v, %v; want the resized machine and the new one: 2 machines, 4 cores", u, err)
	}
	if got := s.Machines.CounterRetries() - retried; got != 2 {
		t.Fatalf("%d creates made again; want 2", got)
	}
}
