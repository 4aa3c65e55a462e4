package machines

import (
	"context"
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
