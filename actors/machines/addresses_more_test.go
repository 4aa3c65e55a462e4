package machines

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// fakePool hands out 198.51.100.10, .11, ... and notes what is undone and released.
type fakePool struct {
	mu               sync.Mutex
	next             int
	undone, released []string
}

func (p *fakePool) add(_ context.Context, _ *persistence.Batch, _ string, _ *string, _, _ string, _ []hypervisor.Address, r AddressRequest) (hypervisor.Address, func(context.Context) (bool, error), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	return hypervisor.Address{Address: fmt.Sprint("198.51.100.", 9+p.next), Prefix: 24, Version: r.Version, Pool: "p"},
		func(context.Context) (bool, error) { return false, nil }, nil
}

func (p *fakePool) unallocate(_ context.Context, _ *persistence.Batch, _ string, a hypervisor.Address) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.undone = append(p.undone, a.Address)
	return nil
}

func (p *fakePool) release(_ context.Context, _ *persistence.Batch, _ string, addrs []hypervisor.Address) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range addrs {
		p.released = append(p.released, a.Address)
	}
	return nil
}

// TestAddressPushFailures: an address the hypervisor refuses is undone once the
// previous set is back in place; when the hypervisor takes neither, the machine keeps
// it (the pools never free what the hypervisor may let through); a removal the
// hypervisor refuses changes nothing, and one it takes releases the address alone.
func TestAddressPushFailures(t *testing.T) {
	ctx := context.Background()
	drv := sim.New(sim.Config{OpDelay: -1, Seed: 1})
	pool := &fakePool{}
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver, o.AddAddress, o.UnallocateAddress, o.ReleaseAddresses = drv, pool.add, pool.unallocate, pool.release
	})
	if _, err := s.adopt(ctx); err != nil {
		t.Fatal(err)
	}
	mk := func(addrs ...hypervisor.Address) Machine {
		t.Helper()
		b := new(persistence.Batch)
		c, err := s.Machines.AddCreate(ctx, b, "T", hypervisor.CreateSpec{Name: "vm", TemplateID: "tpl-debian-12", CPUCores: 1,
			MemoryMB: 512, DiskGB: 10, Addresses: addrs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.store.Commit(ctx, b); err != nil {
			t.Fatal(err)
		}
		s.Machines.Created(c)
		if task, err := s.Tasks.Wait(ctx, c.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
			t.Fatalf("create: %+v, %v; want it to succeed", task, err)
		}
		m, err := s.Machines.Stored(ctx, c.Machine.ID)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// A machine whose network is configured outside vmplane takes none.
	if _, err := s.Machines.AddAddress(ctx, mk().ID, nil, AddressRequest{Version: 4}); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("an add to a machine of no pool address: %v; want conflict", err)
	}
	m := mk(hypervisor.Address{Address: "198.51.100.9", Prefix: 24, Version: 4, Pool: "p"})
	net0 := func() []string {
		t.Helper()
		hm, err := drv.Machine(ctx, hypervisor.Ref{VMID: m.VMID})
		if err != nil {
			t.Fatal(err)
		}
		return hm.Interfaces[0].IPAddresses
	}
	stored := func() []string {
		t.Helper()
		got, err := s.Machines.Stored(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		return hypervisor.Hosts(got.Addresses)
	}
	// A machine of no plan: an operator adds freely.
	if _, err := s.Machines.AddAddress(ctx, m.ID, nil, AddressRequest{Version: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Machines.AddAddress(ctx, m.ID, nil, AddressRequest{Version: 4}); err != nil {
		t.Fatal(err)
	}
	want := []string{"198.51.100.9", "198.51.100.10", "198.51.100.11"}
	if !slices.Equal(stored(), want) || !slices.Equal(net0(), want) {
		t.Fatalf("after two adds: record %v, hypervisor %v; want %v", stored(), net0(), want)
	}
	down := hypervisor.NewError(hypervisor.ErrUnavailable, "the IP set is locked")
	// Refused once: the previous set goes back, the third is undone.
	drv.FailNext(m.VMID, sim.OpSetAddresses, down)
	if _, err := s.Machines.AddAddress(ctx, m.ID, nil, AddressRequest{Version: 4}); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("an add the hypervisor refuses: %v; want unavailable", err)
	}
	if !slices.Equal(stored(), want) || !slices.Equal(net0(), want) || !slices.Equal(pool.undone, []string{"198.51.100.12"}) {
		t.Fatalf("after a refused add: record %v, hypervisor %v, undone %v; want %v and .12 undone", stored(), net0(), pool.undone, want)
	}
	// Refused for good: neither set is taken, and the machine keeps the fourth.
	drv.FailAlways(m.VMID, sim.OpSetAddresses, down)
	if _, err := s.Machines.AddAddress(ctx, m.ID, nil, AddressRequest{Version: 4}); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("an add the hypervisor never takes: %v; want unavailable", err)
	}
	if got := stored(); !slices.Equal(got, append(slices.Clone(want), "198.51.100.13")) || len(pool.undone) != 1 {
		t.Fatalf("after an add the hypervisor never took: record %v, undone %v; want .13 kept, nothing more undone", got, pool.undone)
	}
	// A removal the hypervisor refuses changes nothing.
	if _, err := s.Machines.RemoveAddress(ctx, m.ID, nil, "198.51.100.11"); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("a removal the hypervisor refuses: %v; want unavailable", err)
	}
	if len(stored()) != 4 || len(pool.released) != 0 {
		t.Fatalf("after a refused removal: record %v, released %v; want all kept", stored(), pool.released)
	}
	drv.ClearFailures()
	// The next change gives the hypervisor the whole set again.
	got, err := s.Machines.RemoveAddress(ctx, m.ID, nil, "198.51.100.11")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"198.51.100.9", "198.51.100.10", "198.51.100.13"}
	if !slices.Equal(hypervisor.Hosts(got.Addresses), want) || !slices.Equal(net0(), want) || !slices.Equal(pool.released, []string{"198.51.100.11"}) {
		t.Fatalf("after a removal: record %v, hypervisor %v, released %v; want %v and .11 released", hypervisor.Hosts(got.Addresses), net0(), pool.released, want)
	}
	if _, err := s.Machines.RemoveAddress(ctx, m.ID, nil, "198.51.100.9"); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("removal of the first address: %v; want conflict", err)
	}
	other, own := "T2", "T"
	if _, err := s.Machines.AddAddress(ctx, m.ID, &other, AddressRequest{Version: 4}); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("a tenant's add to a machine not its own: %v; want not found", err)
	}
	if _, err := s.Machines.AddAddress(ctx, m.ID, &own, AddressRequest{Version: 4}); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("the tenant's add to its machine of no plan: %v; want conflict", err)
	}
}
