package monitoring

import (
	"context"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/persistence"
)

// TestWire checks that every message and answer registered with kit.Wire (this
// package's and those of the packages it imports) crosses members whole, and that every
// message this package sends through a Kind, and every answer its entities give, is
// registered (as far as reading the source tells).
func TestWire(t *testing.T) { wiretest.Check(t) }

// TestAcrossMembers runs some of this package's tests with every request crossing
// members (wiretest.Loopback); VMPLANE_TEST_WIRE=1 runs all of them so.
func TestAcrossMembers(t *testing.T) {
	wiretest.AcrossMembers(t, TestAlertOneOpenEventPerCondition, TestAlertAcknowledge, TestCheckUpdateAndDisable,
		TestTenantCheckTargetsOnlyItsMachines, TestDeletedCheckStopsProbing, testCheckLosesItsMachine)
}

// testCheckLosesItsMachine: a change that clears a check's machine ("machine_id": null,
// HealthCheckChange.ClearMachine, which the API's JSON leaves out) clears it, also when
// the check's entity is on another member.
func testCheckLosesItsMachine(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	b := new(persistence.Batch)
	if err := machines.Seed(b, machines.Machine{ID: "m1", VMID: 100, Name: "m1", Status: machines.StatusRunning}); err != nil {
		t.Fatal(err)
	}
	if err := s.rt.Commit(b); err != nil {
		t.Fatal(err)
	}
	hc, err := s.HealthChecks.Create(ctx, HealthCheckSpec{Name: "c", Type: CheckTCP, Target: "127.0.0.1:1", IntervalS: 60,
		TimeoutMS: 200, MachineID: kit.Ptr("m1"), Enabled: kit.Ptr(false)}, nil)
	if err != nil || hc.MachineID == nil || *hc.MachineID != "m1" {
		t.Fatalf("create: machine %v, %v; want m1", hc.MachineID, err)
	}
	if hc, err = s.HealthChecks.Update(ctx, hc.ID, HealthCheckChange{ClearMachine: true}, nil); err != nil || hc.MachineID != nil {
		t.Fatalf("update: machine %v, %v; want none", hc.MachineID, err)
	}
	if hc, err = s.HealthChecks.Get(ctx, hc.ID, nil); err != nil || hc.MachineID != nil {
		t.Fatalf("get: machine %v, %v; want none", hc.MachineID, err)
	}
}
