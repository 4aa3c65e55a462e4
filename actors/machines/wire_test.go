package machines

import (
	"context"
	"errors"
	"testing"

	"github.com/vmplane/vmplane/actors/kit/wiretest"
)

// TestWire checks that every message and answer registered with kit.Wire (this
// package's and those of the packages it imports) crosses members whole, and that every
// message this package sends through a Kind, and every answer its entities give, is
// registered (as far as reading the source tells).
func TestWire(t *testing.T) { wiretest.Check(t) }

// TestAcrossMembers runs some of this package's tests with every request crossing
// members (wiretest.Loopback); VMPLANE_TEST_WIRE=1 runs all of them so.
func TestAcrossMembers(t *testing.T) {
	wiretest.AcrossMembers(t, TestSecondReportKeepsFirstOutcome, TestStaleObservationIsDropped, TestStaleVanishKeepsTheRecord,
		TestTasksWaitIsToldTheEnd, TestSnapshotLifecycle, TestBackupOnDemandAndRestore, TestMediaAndRescue, testMachineRequests)
}

// testMachineRequests makes the requests of a machine's and a node's life that the
// other tests leave out (reads, the reference, an assignment, a push outcome) and
// checks their answers, so that TestAcrossMembers sends them across members.
func testMachineRequests(t *testing.T) {
	ctx := context.Background()
	s, m := syncedMachine(t, ctx, 2)
	got, err := s.Machines.Get(ctx, m.ID, nil)
	if err != nil || got.ID != m.ID || got.VMID != m.VMID || got.Node != m.Node || len(got.Disks) != len(m.Disks) {
		t.Fatalf("get: %+v, %v; want %+v", got, err, m)
	}
	ref, err := s.Machines.Ref(ctx, m.ID, nil)
	if err != nil || ref.ID != m.ID || ref.Ref.VMID != m.VMID || ref.Ref.Node != m.Node || ref.Status != m.Status {
		t.Fatalf("ref: %+v, %v; want machine %s on %s", ref, err, m.ID, m.Node)
	}
	n, err := s.Nodes.Get(ctx, m.Node)
	if err != nil || n.ID != m.Node || n.CPUCores == 0 {
		t.Fatalf("node: %+v, %v; want node %s", n, err, m.Node)
	}
	tenant := "t1"
	if got, err = s.Machines.Assign(ctx, m.ID, &tenant); err != nil || got.TenantID == nil || *got.TenantID != tenant {
		t.Fatalf("assign: %+v, %v; want tenant %s", got, err, tenant)
	}
	if _, err := s.Machines.Get(ctx, m.ID, new(string)); err == nil {
		t.Fatal("another tenant's get found the machine")
	}
	s.Machines.FirewallPushed(m.ID, errors.New("refused"))
	if got, err = s.Machines.Get(ctx, m.ID, &tenant); err != nil || got.Firewall == nil || got.Firewall.State != FirewallFailed {
		t.Fatalf("after a failed push: %+v, %v; want firewall failed", got.Firewall, err)
	}
}
