package inventory

import (
	"testing"

	"github.com/vmplane/vmplane/actors/kit/wiretest"
)

// TestWire checks that every message and answer registered with kit.Wire crosses
// members whole, and that every message this package sends through a Kind is
// registered (as far as reading the source tells).
func TestWire(t *testing.T) { wiretest.Check(t) }

// TestAcrossMembers runs this package's tests with every request (the sync's, and
// those it makes of the machines and the nodes) crossing members (wiretest.Loopback).
func TestAcrossMembers(t *testing.T) {
	wiretest.AcrossMembers(t, TestSyncsAskedAtOnceAdoptOnce, TestSyncFindsChanges)
}
