package hypervisor

import (
	"github.com/vmplane/vmplane/apierr"
)

// powerTable is the power state machine every driver follows, Proxmox's own: for
// each action, the states it may start from and the state it leaves the machine in.
// stop is the one action that also ends a suspended machine (Proxmox kills a paused
// guest); nothing starts from a state not listed.
var powerTable = map[PowerAction]struct {
	from []State
	to   State
}{
	ActionStart:    {[]State{StateStopped}, StateRunning},
	ActionStop:     {[]State{StateRunning, StateSuspended}, StateStopped},
	ActionShutdown: {[]State{StateRunning}, StateStopped},
	ActionReboot:   {[]State{StateRunning}, StateRunning},
	ActionReset:    {[]State{StateRunning}, StateRunning},
	ActionSuspend:  {[]State{StateRunning}, StateSuspended},
	ActionResume:   {[]State{StateSuspended}, StateRunning},
}

// PowerTransition is the power state machine: the state a power action leaves a
// machine in that is in state from, and false when from forbids the action (or the
// action is unknown).
func PowerTransition(from State, a PowerAction) (State, bool) {
	t, ok := powerTable[a]
	if !ok {
		return "", false
	}
	for _, s := range t.from {
		if s == from {
			return t.to, true
		}
	}
	return "", false
}

// PowerTarget is the state an action leaves a machine in, from any state that allows
// it (reboot and reset: running again), and false for an unknown action. A caller that
// sees a machine in this state after the action knows it took effect, except after a
// reboot or reset, which leave the state as it was.
func PowerTarget(a PowerAction) (State, bool) {
	t, ok := powerTable[a]
	return t.to, ok
}

// Known reports whether a is one of PowerActions.
func (a PowerAction) Known() bool {
	_, ok := powerTable[a]
	return ok
}

// ValidatePowerAction answers 400 invalid_request, listing every power action in
// Allowed, for an action that is not one of PowerActions; nil otherwise. Drivers call
// it before they look at the machine, so a typo never waits for the hypervisor.
func ValidatePowerAction(a PowerAction) error {
	if a.Known() {
		return nil
	}
	e := apierr.New(apierr.ErrInvalidRequest, "unknown power action %q", a)
	for _, k := range PowerActions {
		e.Allowed = append(e.Allowed, string(k))
	}
	return e
}

// CheckPower checks a power action against the state the hypervisor reports for
// machine vmid and returns the state the action leads to. An unknown action is
// ValidatePowerAction's 400; a forbidden one is ErrWrongState (409 invalid_state),
// naming the action, the machine and its state.
func CheckPower(vmid int, from State, a PowerAction) (State, error) {
	if err := ValidatePowerAction(a); err != nil {
		return "", err
	}
	to, ok := PowerTransition(from, a)
	if !ok {
		return "", NewError(ErrWrongState, "cannot %s machine %d: it is %s", a, vmid, from)
	}
	return to, nil
}
