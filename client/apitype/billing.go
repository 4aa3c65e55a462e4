package apitype

import (
	"time"
)

// Suspension is why and since when a tenant is suspended.
type Suspension struct {
	Reason string `json:"reason"`
	// Action is what the suspension did to the machines that were running: stop,
	// suspend or none.
	Action string    `json:"action"`
	Since  time.Time `json:"since"`
	// Machines are the machines it stopped or suspended, which UnsuspendTenant with
	// start brings back.
	Machines []string `json:"machines"`
}

// SuspendSpec is the body of SuspendTenant and SuspendMachineBilling.
type SuspendSpec struct {
	// Reason is what the tenant's users are told when a write is refused.
	Reason string `json:"reason"`
	// Action is SuspendStop, SuspendHypervisor or SuspendNone; empty: the server's
	// default (VMPLANE_SUSPEND_ACTION).
	Action string `json:"action,omitempty"`
}

// BillingSuspension is why and since when an operator suspended one machine for
// billing: its tenant's users may read it, and every change, power action or console
// of theirs fails with ErrMachineSuspended. It is apart from the power state suspended.
type BillingSuspension struct {
	Reason string    `json:"reason"`
	Action string    `json:"action"`
	Since  time.Time `json:"since"`
	// WasRunning says the machine ran when suspended: UnsuspendMachineBilling with
	// start brings it back.
	WasRunning bool `json:"was_running"`
}
