package schedules

import (
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
	wiretest.AcrossMembers(t, TestScheduleRunsOnTheRuntimesClock, TestRunGivesUpOnBusyMachineBeforeNextDue, TestScheduleBounds)
}
