package apitype

import (
	"encoding/json"
)

// Event is one server-sent event of GET /api/events.
type Event struct {
	// ID is the event's position in the server's stream; resume after it with
	// Events(ctx, ID). It is 0 for the stream's own notices (gap).
	ID uint64
	// Type is task.updated, machine.updated, machine.deleted or alert.updated, or gap
	// when the server no longer keeps some events after the position asked for.
	Type string
	// Data is the record as JSON (a Task for task.updated, a Machine for
	// machine.updated, ...): decode it with json.Unmarshal.
	Data json.RawMessage
}
