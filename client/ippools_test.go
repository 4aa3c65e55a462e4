package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// testIPPools: operators create, read, list, change and delete pools; tenant users
// are refused.
func testIPPools(t *testing.T, ctx context.Context, w *world) {
	p, err := w.admin.CreateIPPool(ctx, client.IPPoolSpec{Name: "client v4", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1"})
	if err != nil || p.Version != 4 || p.DNS == nil {
		t.Fatalf("create pool: %+v %v", p, err)
	}
	if _, err := w.a.CreateIPPool(ctx, client.IPPoolSpec{Name: "mine", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1"}); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a tenant user's create: %v; want ErrForbidden", err)
	}
	node := "node-1"
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
	if err := w.admin.DeleteIPPool(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
}
