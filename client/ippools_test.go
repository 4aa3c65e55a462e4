package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// testIPPools: operators create, read, list and change pools, a machine's create
// takes an address from one (which then is not deleted); tenant users are refused.
func testIPPools(t *testing.T, ctx context.Context, w *world) {
	p, err := w.admin.CreateIPPool(ctx, client.IPPoolSpec{Name: "client v4", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1"})
	if err != nil || p.Version != 4 || p.DNS == nil {
		t.Fatalf("create pool: %+v %v", p, err)
	}
	if _, err := w.a.CreateIPPool(ctx, client.IPPoolSpec{Name: "mine", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1"}); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a tenant user's create: %v; want ErrForbidden", err)
	}
	node := w.m.Node
	up, err := w.admin.UpdateIPPool(ctx, p.ID, client.IPPoolChange{Node: client.Set(node), DNS: client.Set([]string{"198.51.100.53"})})
	if err != nil || up.Node == nil || *up.Node != node || len(up.DNS) != 1 {
		t.Fatalf("update pool: %+v %v", up, err)
	}
	seen := false
	for q, err := range w.admin.IPPools(ctx, client.ListOptions{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		seen = seen || q.ID == p.ID
	}
	if !seen {
		t.Fatal("pool not listed")
	}
	if got, err := w.admin.IPPool(ctx, p.ID); err != nil || got.Name != "client v4" {
		t.Fatalf("pool: %+v %v", got, err)
	}
	// Locations: the pool is the default location's, listed there and not elsewhere;
	// an unknown one is refused, and a null takes it back to the default one.
	if p.LocationID != "default" {
		t.Fatalf("pool location: %q; want default", p.LocationID)
	}
	if _, err := w.admin.UpdateIPPool(ctx, p.ID, client.IPPoolChange{LocationID: client.Set("nowhere")}); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("move to an unknown location: %v; want ErrInvalidRequest", err)
	}
	if got, err := w.admin.UpdateIPPool(ctx, p.ID, client.IPPoolChange{LocationID: client.Null[string]()}); err != nil || got.LocationID != "default" {
		t.Fatalf("a null location: %+v %v", got, err)
	}
	for loc, want := range map[string]bool{"default": true, "nowhere": false} {
		found := false
		for q, err := range w.admin.IPPoolsIn(ctx, client.LocationFilter{Location: loc}) {
			if err != nil {
				t.Fatal(err)
			}
			found = found || q.ID == p.ID
		}
		if found != want {
			t.Fatalf("pools of %s: listed %v; want %v", loc, found, want)
		}
	}
	// An operator's create of explicit sizes asks for an address; the machine and
	// the pool show it. The node is the pool's, which serves that node alone.
	ipv4 := int64(1)
	m, task, err := w.admin.ForTenant(w.tenA.ID).CreateMachine(ctx, client.MachineSpec{Name: "addressed", TemplateID: w.tpl.ID,
		CPUCores: 1, MemoryMB: 512, DiskGB: 10, Node: node, IPv4: &ipv4})
	if err != nil || len(m.Addresses) != 1 || m.Addresses[0].Address != "198.51.100.2" || m.Addresses[0].Pool != p.ID {
		t.Fatalf("create with an address: %+v %v", m, err)
	}
	if got, err := w.admin.IPPool(ctx, p.ID); err != nil || got.Allocated != 1 {
		t.Fatalf("pool after the create: %+v %v; want allocated 1", got, err)
	}
	if _, err := w.admin.WaitTask(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	// Reverse names: the tenant's own machine, the operator's route, not tenant B.
	if got, err := w.a.SetMyMachineAddressPTR(ctx, m.ID, "198.51.100.2", "Web.Example.com."); err != nil || got.Addresses[0].PTR != "web.example.com" {
		t.Fatalf("the tenant's ptr: %+v %v; want web.example.com", got, err)
	}
	if got, err := w.admin.SetMachineAddressPTR(ctx, m.ID, "198.51.100.2", ""); err != nil || got.Addresses[0].PTR != "" {
		t.Fatalf("the operator's clear: %+v %v", got, err)
	}
	_, err = w.b.SetMyMachineAddressPTR(ctx, m.ID, "198.51.100.2", "x.example.com")
	isNotFound(t, "tenant B sets a name on A's machine", err)
	// Extra addresses: the operator adds to a machine of no plan (the tenant may not),
	// asks for one, and takes them away; the primary stays; tenant B sees nothing.
	if _, err := w.a.AddMyMachineAddress(ctx, m.ID, client.AddressRequest{Version: 4}); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("a tenant's add to a machine of no plan: %v; want ErrConflict", err)
	}
	got, err := w.admin.AddMachineAddress(ctx, m.ID, client.AddressRequest{Version: 4})
	if err != nil || len(got.Addresses) != 2 || got.Addresses[1].Address != "198.51.100.3" {
		t.Fatalf("the operator's add: %+v %v; want 198.51.100.3 second", got, err)
	}
	if _, err := w.admin.AddMachineAddress(ctx, m.ID, client.AddressRequest{Version: 4, Address: "198.51.100.3"}); !errors.Is(err, client.ErrAddressTaken) {
		t.Fatalf("an add of a held address: %v; want ErrAddressTaken", err)
	}
	if _, err := w.admin.AddMachineAddress(ctx, m.ID, client.AddressRequest{Version: 4, Address: "203.0.113.7"}); !errors.Is(err, client.ErrAddressUnusable) {
		t.Fatalf("an add of an address in no pool: %v; want ErrAddressUnusable", err)
	}
	if got, err = w.admin.AddMachineAddress(ctx, m.ID, client.AddressRequest{Version: 4, Address: "198.51.100.40"}); err != nil || len(got.Addresses) != 3 {
		t.Fatalf("an add of an address asked for: %+v %v", got, err)
	}
	_, err = w.b.RemoveMyMachineAddress(ctx, m.ID, "198.51.100.3")
	isNotFound(t, "tenant B removes an address of A's machine", err)
	if _, err := w.a.RemoveMyMachineAddress(ctx, m.ID, "198.51.100.2"); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("removal of the primary: %v; want ErrConflict", err)
	}
	if got, err = w.a.RemoveMyMachineAddress(ctx, m.ID, "198.51.100.3"); err != nil || len(got.Addresses) != 2 {
		t.Fatalf("the tenant's removal: %+v %v", got, err)
	}
	if got, err = w.admin.RemoveMachineAddress(ctx, m.ID, "198.51.100.40"); err != nil || len(got.Addresses) != 1 {
		t.Fatalf("the operator's removal: %+v %v", got, err)
	}
	if err := w.admin.DeleteIPPool(ctx, p.ID); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("delete of a pool in use: %v; want ErrConflict", err)
	}
	if _, err := w.admin.DeleteMachine(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
}
