package addresses

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// TestConcurrentAllocationsNeverShare: many creates allocating at once from a small
// pool, each committing its own batch and allocating again when refused, are given
// distinct addresses (never the network, broadcast or gateway); once the pool is full
// the next is 409 pool_exhausted.
func TestConcurrentAllocationsNeverShare(t *testing.T) {
	a, store := newTestService(t)
	ctx := ctxFor(t)
	// A /27 has 30 host addresses, one the gateway: 29 to give.
	if _, err := a.Create(ctx, PoolSpec{Name: "small", CIDR: "192.0.2.0/27", Gateway: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	const makers = 29
	got := make([]hypervisor.Address, makers)
	var wg sync.WaitGroup
	errs := make(chan error, makers)
	for i := range makers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for try := 0; try < 1000; try++ {
				b := new(persistence.Batch)
				g, err := a.Allocate(ctx, b, Want{Node: "node-1", IPv4: 1}, fmt.Sprint("vm-", i), nil)
				if err != nil {
					errs <- err
					return
				}
				err = store.Commit(ctx, b)
				if persistence.IsConditionFailed(err) {
					if taken, terr := a.Taken(ctx, g); terr == nil && taken {
						continue
					}
				}
				if err != nil {
					errs <- err
					return
				}
				got[i] = g.Addresses[0]
				return
			}
			errs <- errors.New("no address after 1000 tries")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ad := range got {
		if seen[ad.Address] || ad.Address == "192.0.2.0" || ad.Address == "192.0.2.1" || ad.Address == "192.0.2.31" || ad.Prefix != 27 {
			t.Fatalf("address %+v given twice or not a host address", ad)
		}
		seen[ad.Address] = true
	}
	_, err := a.Allocate(ctx, new(persistence.Batch), Want{Node: "node-1", IPv4: 1}, "vm-late", nil)
	if !errors.Is(err, apierr.ErrPoolExhausted) {
		t.Fatalf("allocation from a full pool: %v; want pool_exhausted", err)
	}
}

// TestAllocationPrefersTheNodesPools: a node's own pool serves it before a shared
// one, another node is served by the shared pool only, IPv6 gives a /64 other than
// the gateway's, and a version no pool serves gives nothing.
func TestAllocationPrefersTheNodesPools(t *testing.T) {
	a, _ := newTestService(t)
	ctx := ctxFor(t)
	node := "pve1"
	own, err := a.Create(ctx, PoolSpec{Name: "own", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1", Node: &node})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Create(ctx, PoolSpec{Name: "shared", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	alloc := func(w Want, id string) ([]hypervisor.Address, error) {
		g, err := a.Allocate(ctx, new(persistence.Batch), w, id, nil)
		return g.Addresses, err
	}
	addrs, err := alloc(Want{Node: "pve1", IPv4: 1}, "vm-1")
	if err != nil || len(addrs) != 1 || addrs[0].Pool != own.ID || addrs[0].Address != "198.51.100.2" {
		t.Fatalf("pve1: %+v %v", addrs, err)
	}
	addrs, err = alloc(Want{Node: "pve2", IPv4: 2}, "vm-2")
	if err != nil || len(addrs) != 2 || addrs[0].Address != "192.0.2.2" || addrs[1].Address != "192.0.2.3" {
		t.Fatalf("pve2: %+v %v", addrs, err)
	}
	// No IPv6 pool: nothing, and no error.
	addrs, err = alloc(Want{Node: "pve2", IPv6: true}, "vm-3")
	if err != nil || len(addrs) != 0 {
		t.Fatalf("no IPv6 pool: %+v %v", addrs, err)
	}
	if _, err := a.Create(ctx, PoolSpec{Name: "v6", CIDR: "2001:db8::/48", Gateway: "2001:db8::1"}); err != nil {
		t.Fatal(err)
	}
	addrs, err = alloc(Want{Node: "pve2", IPv6: true}, "vm-3")
	if err != nil || len(addrs) != 1 || addrs[0].Address != "2001:db8:0:1::" || addrs[0].Prefix != 64 || addrs[0].Version != 6 {
		t.Fatalf("IPv6: %+v %v", addrs, err)
	}
}
