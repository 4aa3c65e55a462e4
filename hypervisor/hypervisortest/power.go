package hypervisortest

import (
	"context"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// WantPower is the power state machine as the tests expect it, written out here on
// purpose rather than read from hypervisor.PowerTransition: it is the oracle that
// catches a wrong shared table. want[from][action] is the state after the action; an
// absent entry means the state forbids the action. It returns a fresh map each call.
func WantPower() map[hypervisor.State]map[hypervisor.PowerAction]hypervisor.State {
	const (
		R = hypervisor.StateRunning
		S = hypervisor.StateStopped
		P = hypervisor.StateSuspended
	)
	return map[hypervisor.State]map[hypervisor.PowerAction]hypervisor.State{
		S: {hypervisor.ActionStart: R},
		R: {hypervisor.ActionStop: S, hypervisor.ActionShutdown: S, hypervisor.ActionReboot: R, hypervisor.ActionReset: R, hypervisor.ActionSuspend: P},
		P: {hypervisor.ActionResume: R, hypervisor.ActionStop: S},
	}
}

// PowerMatrix checks a driver against WantPower, action by action from each state a
// machine rests in: an allowed action lands in the state WantPower says; a forbidden
// one fails with hypervisor.ErrWrongState (409 invalid_state), names the action and
// the state, and changes nothing. add makes a machine in the given state and returns
// its vmid (one per case); check, when set, looks further at each case (what the
// driver sent, for one).
func PowerMatrix(t *testing.T, d hypervisor.Driver, add func(from hypervisor.State) int,
	check func(from hypervisor.State, action hypervisor.PowerAction, vmid int, allowed bool)) {
	t.Helper()
	want := WantPower()
	ctx := context.Background()
	for _, from := range []hypervisor.State{hypervisor.StateStopped, hypervisor.StateRunning, hypervisor.StateSuspended} {
		for _, action := range hypervisor.PowerActions {
			what := string(action) + " from " + string(from)
			vmid := add(from)
			err := d.Power(ctx, hypervisor.Ref{VMID: vmid}, action)
			m, merr := d.Machine(ctx, hypervisor.Ref{VMID: vmid})
			if merr != nil {
				t.Fatalf("%s: Machine(%d): %v", what, vmid, merr)
			}
			to, allowed := want[from][action]
			if allowed {
				WantErr(t, what, err)
				if m.State != to {
					t.Errorf("%s: got state %s; want %s", what, m.State, to)
				}
			} else {
				WantErr(t, what, err, hypervisor.ErrWrongState, apierr.ErrInvalidState)
				if err != nil && (!strings.Contains(err.Error(), string(action)) || !strings.Contains(err.Error(), string(from))) {
					t.Errorf("%s: got message %q; want it to name the action and the state", what, err)
				}
				if m.State != from {
					t.Errorf("%s (forbidden): got state %s; want %s unchanged", what, m.State, from)
				}
			}
			if check != nil {
				check(from, action, vmid, allowed)
			}
		}
	}
}
