package addresses

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// TestReleasedAddressCoolsDownThenIsTakenOver: a released address stays held (the
// pool counts it, a new machine gets nothing from a full pool) until the cool-down
// has passed; then the next allocation takes its record over, and a second batch
// that read the same released record is refused and sees it taken.
func TestReleasedAddressCoolsDownThenIsTakenOver(t *testing.T) {
	a, store := newTestService(t)
	ctx := ctxFor(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a.clock = func() time.Time { return now }
	// A /30 has two host addresses; one is the gateway.
	p, err := a.Create(ctx, PoolSpec{Name: "tiny", CIDR: "192.0.2.0/30", Gateway: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch)
	g, err := a.Allocate(ctx, b, Want{IPv4: 1}, "vm-1", nil)
	if err != nil || len(g.Addresses) != 1 || g.Addresses[0].Address != "192.0.2.2" {
		t.Fatalf("first allocation: %+v %v", g, err)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	// Another machine's id releases nothing.
	b = new(persistence.Batch)
	if err := a.Release(ctx, b, "vm-other", g.Addresses); err != nil || len(b.Ops) != 0 {
		t.Fatalf("release by another machine: %d writes, %v", len(b.Ops), err)
	}
	b = new(persistence.Batch)
	if err := a.Release(ctx, b, "vm-1", g.Addresses); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Get(ctx, p.ID); err != nil || got.Allocated != 1 {
		t.Fatalf("pool while cooling down: %+v %v; want allocated 1", got, err)
	}
	if _, err := a.Allocate(ctx, new(persistence.Batch), Want{IPv4: 1}, "vm-2", nil); !errors.Is(err, apierr.ErrPoolExhausted) {
		t.Fatalf("allocation while cooling down: %v; want pool_exhausted", err)
	}
	now = now.Add(DefaultCooldown)
	if got, err := a.Get(ctx, p.ID); err != nil || got.Allocated != 0 {
		t.Fatalf("pool after the cool-down: %+v %v; want allocated 0", got, err)
	}
	b2, b3 := new(persistence.Batch), new(persistence.Batch)
	g2, err := a.Allocate(ctx, b2, Want{IPv4: 1}, "vm-2", nil)
	if err != nil || len(g2.Addresses) != 1 || g2.Addresses[0].Address != "192.0.2.2" {
		t.Fatalf("allocation after the cool-down: %+v %v", g2, err)
	}
	g3, err := a.Allocate(ctx, b3, Want{IPv4: 1}, "vm-3", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, b2); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, b3); !persistence.IsConditionFailed(err) {
		t.Fatalf("second take-over of one released address: %v; want refused", err)
	}
	if taken, err := a.Taken(ctx, g3); err != nil || !taken {
		t.Fatalf("Taken after the refused take-over: %v %v; want true", taken, err)
	}
	if got, err := a.Get(ctx, p.ID); err != nil || got.Allocated != 1 {
		t.Fatalf("pool after the take-over: %+v %v; want allocated 1", got, err)
	}
}

// TestPoolDeleteRacingAnAllocation: a pool deleted after an allocation read it fails
// that allocation's batch (Taken tells its maker to allocate again, and the pool is
// gone), a pool is never deleted while an allocation commits, and a released address
// whose cool-down has passed goes with its pool.
func TestPoolDeleteRacingAnAllocation(t *testing.T) {
	a, store := newTestService(t)
	ctx := ctxFor(t)
	p, err := a.Create(ctx, PoolSpec{Name: "p", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch)
	g, err := a.Allocate(ctx, b, Want{IPv4: 1}, "vm-1", nil)
	if err != nil || len(g.Addresses) != 1 {
		t.Fatalf("allocation: %+v %v", g, err)
	}
	if err := a.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, b); !persistence.IsConditionFailed(err) {
		t.Fatalf("allocation from a pool deleted meanwhile: %v; want refused", err)
	}
	if taken, err := a.Taken(ctx, g); err != nil || !taken {
		t.Fatalf("Taken: %v %v; want true", taken, err)
	}

	// Both at once, many times: never a deleted pool with an allocation left.
	for i := range 30 {
		p, err := a.Create(ctx, PoolSpec{Name: "race", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1"})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var allocErr, delErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			b := new(persistence.Batch)
			if _, allocErr = a.Allocate(ctx, b, Want{IPv4: 1}, "vm-race", nil); allocErr == nil {
				allocErr = store.Commit(ctx, b)
			}
		}()
		go func() {
			defer wg.Done()
			delErr = a.Delete(ctx, p.ID)
		}()
		wg.Wait()
		_, getErr := a.Get(ctx, p.ID)
		h, err := a.held(ctx, p.ID, a.now())
		if err != nil {
			t.Fatal(err)
		}
		gone := errors.Is(getErr, apierr.ErrNotFound)
		if gone && len(h.held) > 0 {
			t.Fatalf("round %d: pool deleted (%v) with an allocation committed (%v)", i, delErr, allocErr)
		}
		if !gone {
			// The allocation won: release it at once and delete the pool for the next round.
			a.cooldown = 0
			b := new(persistence.Batch)
			if err := a.Release(ctx, b, "vm-race", []hypervisor.Address{{Pool: p.ID, Address: "198.51.100.2"}}); err != nil {
				t.Fatal(err)
			}
			if err := store.Commit(ctx, b); err != nil {
				t.Fatal(err)
			}
			if err := a.Delete(ctx, p.ID); err != nil {
				t.Fatalf("round %d: delete with only a cooled release left: %v", i, err)
			}
			a.cooldown = DefaultCooldown
		}
	}
}

// TestReassignMovesTheAllocationsTenant: a machine moved to another tenant takes its
// addresses along (the allocation names the new tenant, or none), and another
// machine's id moves nothing. It kept the old tenant before.
func TestReassignMovesTheAllocationsTenant(t *testing.T) {
	a, store := newTestService(t)
	ctx := ctxFor(t)
	if _, err := a.Create(ctx, PoolSpec{Name: "pool", CIDR: "192.0.2.0/29", Gateway: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	old, next := "tenant-a", "tenant-b"
	b := new(persistence.Batch)
	g, err := a.Allocate(ctx, b, Want{IPv4: 2}, "vm-1", &old)
	if err != nil || len(g.Addresses) != 2 {
		t.Fatalf("allocation: %+v %v", g, err)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	tenantOf := func(ad hypervisor.Address) *string {
		raw, err := store.Get(ctx, allocKey(ad.Pool, ad.Address))
		if err != nil {
			t.Fatal(err)
		}
		var al Allocation
		if _, err := persistence.Decode(raw, &al); err != nil {
			t.Fatal(err)
		}
		return al.TenantID
	}
	b = new(persistence.Batch)
	if err := a.Reassign(ctx, b, "vm-other", g.Addresses, &next); err != nil || len(b.Ops) != 0 {
		t.Fatalf("reassign by another machine: %d writes, %v", len(b.Ops), err)
	}
	for _, to := range []*string{&next, nil} {
		b = new(persistence.Batch)
		if err := a.Reassign(ctx, b, "vm-1", g.Addresses, to); err != nil {
			t.Fatal(err)
		}
		if err := store.Commit(ctx, b); err != nil {
			t.Fatal(err)
		}
		for _, ad := range g.Addresses {
			if got := tenantOf(ad); (got == nil) != (to == nil) || got != nil && *got != *to {
				t.Fatalf("%s after the move to %v: tenant %v", ad.Address, to, got)
			}
		}
	}
}
