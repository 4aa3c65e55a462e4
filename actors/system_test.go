package actors

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// The composition root wires each service to the ones it uses: a machine assigned to
// a tenant is checked against the tenants (started after the machines), and Stop ends
// every kind; a request after Stop is refused, not left waiting.
func TestStartWiresTheServicesAndStopEndsThem(t *testing.T) {
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, err := Start(Options{Store: store, Driver: sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 1}),
		Auth: auth.AuthOptions{BcryptCost: 4, AdminPassword: "initial-password"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 1 {
		t.Fatalf("got %d machines, %v; want the sim's one", len(ms), err)
	}
	if _, err := s.Machines.Assign(ctx, ms[0].ID, strPtr("no-such-tenant")); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("assign to a missing tenant: got %v; want invalid (checked through TenantExists)", err)
	}
	ten, err := s.Tenants.Create(ctx, "acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := s.Machines.Assign(ctx, ms[0].ID, &ten.ID); err != nil || m.TenantID == nil || *m.TenantID != ten.ID {
		t.Fatalf("assign: got %+v, %v", m, err)
	}
	if kinds := s.Kinds(); kinds["machines"] == 0 || kinds["tenants"] == 0 {
		t.Fatalf("live kinds %v; want machines and tenants running", kinds)
	}
	s.Stop()
	if _, err := s.Tenants.Get(ctx, ten.ID); err == nil {
		t.Fatal("a request after Stop was answered; want it refused")
	}
}

func strPtr(s string) *string { return &s }
