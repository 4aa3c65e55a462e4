package addresses

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// newTestService is the addresses on a runtime and store of their own.
func newTestService(t *testing.T) (*Addresses, persistence.Store) {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(func() {
		rt.Shutdown()
		store.Close()
	})
	return Start(Deps{Runtime: rt}), store
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestPoolLifecycle: a pool is created with its version from the range and its
// addresses in canonical form, read, listed, changed (a null clears the node) and
// deleted; a second pool of the same name (ignoring case) is a 409.
func TestPoolLifecycle(t *testing.T) {
	a, _ := newTestService(t)
	ctx := ctxFor(t)
	p, err := a.Create(ctx, PoolSpec{Name: "Docs v6", CIDR: "2001:DB8::/48", Gateway: "2001:db8::1", Node: kit.Ptr("pve1"), DNS: []string{"2001:db8:0:0::53"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 6 || p.CIDR != "2001:db8::/48" || p.DNS[0] != "2001:db8::53" || *p.Node != "pve1" {
		t.Fatalf("created %+v", p)
	}
	v4, err := a.Create(ctx, PoolSpec{Name: "docs v4", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if v4.Version != 4 || v4.Node != nil || v4.DNS == nil {
		t.Fatalf("created %+v", v4)
	}
	if _, err := a.Create(ctx, PoolSpec{Name: "DOCS V6", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1"}); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("second pool of the name: %v; want 409", err)
	}
	list, _, err := a.List(ctx, nil, "", 10)
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %v %v", list, err)
	}
	up, err := a.Update(ctx, p.ID, PoolChange{Name: kit.Ptr("renamed")}, map[string]bool{"node": true})
	if err != nil || up.Node != nil || up.Name != "renamed" || up.CIDR != p.CIDR {
		t.Fatalf("update: %+v %v", up, err)
	}
	if err := a.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, p.ID); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	// The name is free again.
	if _, err := a.Create(ctx, PoolSpec{Name: "Docs V6", CIDR: "2001:db8::/48", Gateway: "fe80::1"}); err != nil {
		t.Fatal(err)
	}
}

// TestPoolValidation: ranges with host bits, out-of-bounds lengths, gateways outside
// the range and resolvers that are no addresses are refused with the field named.
func TestPoolValidation(t *testing.T) {
	a, _ := newTestService(t)
	ctx := ctxFor(t)
	for _, tc := range []struct {
		spec  PoolSpec
		field string
	}{
		{PoolSpec{Name: "a", CIDR: "192.0.2.1/24", Gateway: "192.0.2.1"}, "cidr"},
		{PoolSpec{Name: "a", CIDR: "192.0.2.0/31", Gateway: "192.0.2.1"}, "cidr"},
		{PoolSpec{Name: "a", CIDR: "2001:db8::/96", Gateway: "2001:db8::1"}, "cidr"},
		{PoolSpec{Name: "a", CIDR: "nonsense", Gateway: "192.0.2.1"}, "cidr"},
		{PoolSpec{Name: "a", CIDR: "192.0.2.0/24", Gateway: "198.51.100.1"}, "gateway"},
		{PoolSpec{Name: "a", CIDR: "192.0.2.0/24", Gateway: "fe80::1"}, "gateway"},
		{PoolSpec{Name: "a", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1", DNS: []string{"dns.example"}}, "dns[0]"},
		{PoolSpec{Name: " ", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"}, "name"},
	} {
		_, err := a.Create(ctx, tc.spec)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 400 || len(e.Fields) != 1 || e.Fields[0].Field != tc.field {
			t.Errorf("create %+v: %v; want 400 naming %s", tc.spec, err, tc.field)
		}
	}
}

// TestPoolWithAllocationsIsNotDeleted: a pool one of whose addresses is held answers
// a delete with 409 and stays.
func TestPoolWithAllocationsIsNotDeleted(t *testing.T) {
	a, store := newTestService(t)
	ctx := ctxFor(t)
	p, err := a.Create(ctx, PoolSpec{Name: "v4", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, new(persistence.Batch).Put(persistence.Key("ip-alloc", p.ID, "192.0.2.2"), []byte("{}"))); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, p.ID); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("delete of a pool in use: %v; want 409", err)
	}
	if _, err := a.Get(ctx, p.ID); err != nil {
		t.Fatalf("pool gone after a refused delete: %v", err)
	}
}

// TestPoolWritesCarryTheirAuditEntry: a pool's create and delete add the request's
// audit entry to their own batch, naming the pool.
func TestPoolWritesCarryTheirAuditEntry(t *testing.T) {
	a, _ := newTestService(t)
	var got []kit.AuditEntry
	a.rt.SetAuditor(func(_ *persistence.Batch, e *kit.AuditEntry) error {
		got = append(got, *e)
		return nil
	})
	ctx := ctxFor(t)
	create := (&kit.AuditEntry{ID: "e1", Action: "POST /api/resources/ip-pools"}).Track()
	p, err := a.Create(kit.WithAudit(ctx, create), PoolSpec{Name: "audited", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	del := (&kit.AuditEntry{ID: "e2", Action: "DELETE /api/resources/ip-pools/{id}"}).Track()
	if err := a.Delete(kit.WithAudit(ctx, del), p.ID); err != nil {
		t.Fatal(err)
	}
	if !create.Carried() || !del.Carried() || len(got) != 2 || got[0].TargetID != p.ID || got[1].TargetID != p.ID {
		t.Fatalf("carried %v %v, entries %+v; want both in their batches, naming pool %s", create.Carried(), del.Carried(), got, p.ID)
	}
}
