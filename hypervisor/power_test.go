package hypervisor_test

import (
	"errors"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
)

// TestPowerTransitionMatchesTheOracle: the shared table is what the tests' own
// literal matrix says, cell by cell, including the cells it forbids.
func TestPowerTransitionMatchesTheOracle(t *testing.T) {
	want := hypervisortest.WantPower()
	states := []hypervisor.State{hypervisor.StateStopped, hypervisor.StateRunning, hypervisor.StateSuspended, "unknown"}
	for _, from := range states {
		for _, a := range hypervisor.PowerActions {
			to, ok := hypervisor.PowerTransition(from, a)
			wantTo, wantOK := want[from][a]
			if to != wantTo || ok != wantOK {
				t.Errorf("PowerTransition(%s, %s) = %q, %v; want %q, %v", from, a, to, ok, wantTo, wantOK)
			}
			got, err := hypervisor.CheckPower(7, from, a)
			switch {
			case wantOK && (err != nil || got != wantTo):
				t.Errorf("CheckPower(%s, %s) = %q, %v; want %q", from, a, got, err, wantTo)
			case !wantOK:
				hypervisortest.WantErr(t, "CheckPower "+string(a)+" from "+string(from), err, hypervisor.ErrWrongState, apierr.ErrInvalidState)
			}
		}
	}
	for from, row := range want {
		for a, to := range row {
			if got, ok := hypervisor.PowerTarget(a); !ok || got != to {
				t.Errorf("PowerTarget(%s) = %q, %v; want %q (its target from %s)", a, got, ok, to, from)
			}
		}
	}
	if _, ok := hypervisor.PowerTarget("explode"); ok {
		t.Errorf("PowerTarget of an unknown action: got ok")
	}
	if _, ok := hypervisor.PowerTransition(hypervisor.StateRunning, "explode"); ok {
		t.Errorf("PowerTransition of an unknown action: got allowed")
	}
}

func TestValidatePowerAction(t *testing.T) {
	for _, a := range hypervisor.PowerActions {
		if err := hypervisor.ValidatePowerAction(a); err != nil || !a.Known() {
			t.Errorf("%s: got %v, known %v; want valid", a, err, a.Known())
		}
	}
	err := hypervisor.ValidatePowerAction("explode")
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Status != 400 || len(ae.Allowed) != len(hypervisor.PowerActions) {
		t.Errorf("unknown action: got %v; want 400 listing the %d actions", err, len(hypervisor.PowerActions))
	}
	if _, err := hypervisor.CheckPower(7, hypervisor.StateRunning, "explode"); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Errorf("CheckPower of an unknown action: got %v; want 400", err)
	}
}
