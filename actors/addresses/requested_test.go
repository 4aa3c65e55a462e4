package addresses

import (
	"errors"
	"sync"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// TestRequestedAddress: an address asked for is given first, the others after it
// from the lowest free; one held is 409 address_taken, one outside every usable pool
// (or a pool's network, broadcast or gateway address) 422 address_unusable, and one
// that is no IPv4 address 400.
func TestRequestedAddress(t *testing.T) {
	a, store := newTestService(t)
	ctx := ctxFor(t)
	if _, err := a.Create(ctx, PoolSpec{Name: "v4", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch)
	g, err := a.Allocate(ctx, b, Want{IPv4: 2, Address: "192.0.2.50"}, "vm-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Addresses) != 2 || g.Addresses[0].Address != "192.0.2.50" || g.Addresses[1].Address != "192.0.2.2" || g.Addresses[0].Prefix != 24 {
		t.Fatalf("addresses %+v; want 192.0.2.50/24 then 192.0.2.2", g.Addresses)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	f := func(w Want, want *apierr.Error) {
		t.Helper()
		_, err := a.Allocate(ctx, new(persistence.Batch), w, "vm-2", nil)
		if !errors.Is(err, want) {
			t.Fatalf("allocate %+v: %v; want %s", w, err, want.Code)
		}
	}
	f(Want{IPv4: 1, Address: "192.0.2.50"}, apierr.ErrAddressTaken)
	f(Want{IPv4: 1, Address: "192.0.2.2"}, apierr.ErrAddressTaken)
	f(Want{IPv4: 1, Address: "198.51.100.7"}, apierr.ErrAddressUnusable)
	f(Want{IPv4: 1, Address: "192.0.2.1"}, apierr.ErrAddressUnusable)
	f(Want{IPv4: 1, Address: "192.0.2.255"}, apierr.ErrAddressUnusable)
	f(Want{IPv4: 1, Address: "192.0.2.0"}, apierr.ErrAddressUnusable)
	f(Want{IPv4: 1, Address: "2001:db8::5"}, apierr.ErrInvalidRequest)
	f(Want{IPv4: 1, Address: "not an address"}, apierr.ErrInvalidRequest)
	f(Want{IPv6: true, Address: "192.0.2.60"}, apierr.ErrInvalidRequest)
}

// TestRequestedAddressOnceUnderConcurrency: many machines asking for the same address
// at once, each committing its own batch and allocating again when refused, end with
// exactly one holder; every other is 409 address_taken.
func TestRequestedAddressOnceUnderConcurrency(t *testing.T) {
	a, store := newTestService(t)
	ctx := ctxFor(t)
	if _, err := a.Create(ctx, PoolSpec{Name: "v4", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	const makers = 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, taken := 0, 0
	for i := range makers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := new(persistence.Batch)
				g, err := a.Allocate(ctx, b, Want{IPv4: 1, Address: "192.0.2.77"}, "vm-"+string(rune('a'+i)), nil)
				if err == nil {
					err = store.Commit(ctx, b)
					if persistence.IsConditionFailed(err) {
						if again, terr := a.Taken(ctx, g); terr == nil && again {
							continue
						}
					}
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
				case errors.Is(err, apierr.ErrAddressTaken):
					taken++
				default:
					t.Errorf("maker %d: %v", i, err)
				}
				return
			}
		}()
	}
	wg.Wait()
	if won != 1 || taken != makers-1 {
		t.Fatalf("%d given, %d refused address_taken; want 1 and %d", won, taken, makers-1)
	}
}

// TestReleaseOfOneAddress: releasing one of a machine's addresses cools that one down
// and leaves the others held; Unallocate frees an allocation at once, and only the
// machine's own.
func TestReleaseOfOneAddress(t *testing.T) {
	a, store := newTestService(t)
	ctx := ctxFor(t)
	p, err := a.Create(ctx, PoolSpec{Name: "v4", CIDR: "192.0.2.0/29", Gateway: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch)
	g, err := a.Allocate(ctx, b, Want{IPv4: 3}, "vm-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	b = new(persistence.Batch)
	if err := a.Release(ctx, b, "vm-1", []hypervisor.Address{g.Addresses[1]}); err != nil || len(b.Ops) != 1 {
		t.Fatalf("release of one address: %d writes, %v; want 1", len(b.Ops), err)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	// Still three allocated (one cooling down); the released one is not given again.
	if got, err := a.Get(ctx, p.ID); err != nil || got.Allocated != 3 {
		t.Fatalf("pool after one release: %+v %v; want allocated 3", got, err)
	}
	b = new(persistence.Batch)
	if _, err := a.Allocate(ctx, b, Want{IPv4: 1, Address: g.Addresses[1].Address}, "vm-2", nil); !errors.Is(err, apierr.ErrAddressTaken) {
		t.Fatalf("the released address asked for while cooling down: %v; want address_taken", err)
	}
	// Unallocate: another machine's id deletes nothing, the holder's frees it at once.
	b = new(persistence.Batch)
	if err := a.Unallocate(ctx, b, "vm-other", g.Addresses[2]); err != nil || len(b.Ops) != 0 {
		t.Fatalf("unallocate by another machine: %d writes, %v", len(b.Ops), err)
	}
	if err := a.Unallocate(ctx, b, "vm-1", g.Addresses[2]); err != nil || len(b.Ops) != 1 {
		t.Fatalf("unallocate: %d writes, %v", len(b.Ops), err)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	b = new(persistence.Batch)
	g2, err := a.Allocate(ctx, b, Want{IPv4: 1, Address: g.Addresses[2].Address}, "vm-2", nil)
	if err != nil || g2.Addresses[0].Address != g.Addresses[2].Address {
		t.Fatalf("the unallocated address asked for: %+v %v; want it", g2.Addresses, err)
	}
}

// TestPreferredPools: an allocation that prefers a pool gives from it first, though
// another usable pool comes before it.
func TestPreferredPools(t *testing.T) {
	a, _ := newTestService(t)
	ctx := ctxFor(t)
	if _, err := a.Create(ctx, PoolSpec{Name: "first", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	second, err := a.Create(ctx, PoolSpec{Name: "second", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.Allocate(ctx, new(persistence.Batch), Want{IPv4: 1, Prefer: []string{second.ID}}, "vm-1", nil)
	if err != nil || g.Addresses[0].Pool != second.ID {
		t.Fatalf("preferring %s: %+v %v", second.ID, g.Addresses, err)
	}
}
