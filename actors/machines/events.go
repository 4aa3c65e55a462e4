package machines

import (
	"github.com/vmplane/vmplane/actors/events"
)

// MachineEvent is the data of a machine.updated event: the machine as the API shows
// it, with what changed it and its status before.
type MachineEvent struct {
	Machine
	// Cause is task, sync, create, assign, billing or terminate (see Event.Cause).
	Cause string `json:"cause"`
	// PreviousStatus is the status before this change; null for a new machine.
	PreviousStatus *string `json:"previous_status"`
}

// Publish records a machine's change on e with its cause and previous status,
// in the event and in its data, which is what a client of the stream reads.
func Publish(e *events.Events, m Machine, cause, previous string) {
	data := MachineEvent{Machine: m, Cause: cause}
	if previous != "" {
		data.PreviousStatus = &previous
	}
	e.PublishEvent(events.Event{Type: events.EventMachine, TenantID: m.TenantID, Cause: cause, PreviousStatus: previous}, data)
}
