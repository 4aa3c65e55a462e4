package machines

import (
	"context"
	"fmt"
	"testing"

	"github.com/vmplane/vmplane/persistence"
)

// putMachine stores a machine record and its tenant index directly, as sync does.
func putMachine(t *testing.T, s *testSystem, tenant, id, name string, index bool) {
	t.Helper()
	rec := record{Machine: Machine{ID: id, Name: name, TenantID: &tenant, Status: StatusRunning}}
	val, err := persistence.Encode(recordVersion, &rec)
	if err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch).Put(machineKey(id), val)
	if index {
		b.Put(tenantKey(tenant, id), nil)
	}
	if err := s.store.Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

func names(p *MachinePage) string {
	s := ""
	for _, m := range p.Items {
		s += m.Name + ","
	}
	return s
}

func TestMachineListCache(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	putMachine(t, s, "t1", "m1", "one", true)
	putMachine(t, s, "t2", "m2", "two", true)

	p1, err := s.Machines.TenantPage(ctx, "t1", "", 50)
	if err != nil || names(p1) != "one," {
		t.Fatalf("got %q, %v; want one", names(p1), err)
	}
	if again, _ := s.Machines.TenantPage(ctx, "t1", "", 50); again != p1 {
		t.Fatal("the second list was read again; want the cached page")
	}
	p2, _ := s.Machines.TenantPage(ctx, "t2", "", 50)

	// A write to the record alone (no index key) drops the page of the tenant holding
	// it, and only that one.
	putMachine(t, s, "t1", "m1", "renamed", false)
	if p, _ := s.Machines.TenantPage(ctx, "t1", "", 50); p == p1 || names(p) != "renamed," {
		t.Fatalf("got %q after a record write; want the new name", names(p))
	}
	if p, _ := s.Machines.TenantPage(ctx, "t2", "", 50); p != p2 {
		t.Fatal("another tenant's page was dropped by t1's write")
	}

	// A write to a tenant's index drops that tenant's pages.
	putMachine(t, s, "t2", "m3", "three", true)
	if p, _ := s.Machines.TenantPage(ctx, "t2", "", 50); names(p) != "two,three," {
		t.Fatalf("got %q after an index write; want two,three", names(p))
	}

	// Later pages are never cached; first pages of each limit are.
	q, _ := s.Machines.TenantPage(ctx, "t2", "", 1)
	if q.Next == "" || names(q) != "two," {
		t.Fatalf("got %q next %q; want two and a cursor", names(q), q.Next)
	}
	if r, _ := s.Machines.TenantPage(ctx, "t2", q.Next, 1); names(r) != "three," {
		t.Fatalf("got %q for the second page; want three", names(r))
	}
	if again, _ := s.Machines.TenantPage(ctx, "t2", "", 1); again != q {
		t.Fatal("the limit=1 first page was not cached")
	}
}

// TestMachineListCacheRefusesRacedPages: a page read while a write was acknowledged may
// hold the old record, so it is not kept.
func TestMachineListCacheRefusesRacedPages(t *testing.T) {
	s := newTestSystem(t)
	l := s.Machines.lists
	seq := l.now()
	putMachine(t, s, "t1", "m1", "one", true) // acknowledged after seq was taken
	l.put("t1", 50, &MachinePage{Items: []Machine{{ID: "m1", Name: "stale"}}}, seq)
	if l.get("t1", 50) != nil {
		t.Fatal("a page read across a write was kept")
	}
	l.put("t1", 50, &MachinePage{Items: []Machine{{ID: "m1", Name: "one"}}}, l.now())
	if l.get("t1", 50) == nil {
		t.Fatal("a page read with no write in between was not kept")
	}
}

// TestMachineListCacheBound: the cache never holds more than maxCachedMachines.
func TestMachineListCacheBound(t *testing.T) {
	s := newTestSystem(t)
	l := s.Machines.lists
	page := func(tenant string, n int) *MachinePage {
		p := &MachinePage{}
		for i := range n {
			p.Items = append(p.Items, Machine{ID: fmt.Sprintf("%s-%d", tenant, i)})
		}
		return p
	}
	for i := range 5 {
		l.put(fmt.Sprintf("t%d", i), 500, page(fmt.Sprintf("t%d", i), maxCachedMachines/4), l.now())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	total := 0
	for _, byLimit := range l.pages {
		for _, p := range byLimit {
			total += len(p.Items)
		}
	}
	if total > maxCachedMachines || total != l.items || len(l.owner) != total {
		t.Fatalf("holding %d machines (counted %d, %d owners); want at most %d, counts agreeing", total, l.items, len(l.owner), maxCachedMachines)
	}
	if len(l.pages) != 4 {
		t.Fatalf("holding %d tenants; want the 4 that fit", len(l.pages))
	}
}

// TestMachineListCacheBoundsEmptyPages: pages of tenants with no machines count too.
func TestMachineListCacheBoundsEmptyPages(t *testing.T) {
	s := newTestSystem(t)
	l := s.Machines.lists
	for i := range maxCachedMachines + 100 {
		l.put(fmt.Sprintf("nobody-%d", i), 50, &MachinePage{}, l.now())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pages) > maxCachedMachines || l.items > maxCachedMachines {
		t.Fatalf("holding %d empty pages (cost %d); want at most %d", len(l.pages), l.items, maxCachedMachines)
	}
}
