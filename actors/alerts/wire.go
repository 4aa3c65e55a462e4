package alerts

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster a condition's entity may be active on another member than the one
// that raises, resolves or acknowledges it: every message other packages and the edge
// send it through the Kind, and every answer it gives, travels as JSON (kit.Wire).
// TestWire checks that each crosses whole.
func init() {
	// Messages: Raise and Notify, Resolve and Clear, Acknowledge.
	kit.Wire("alerts.raiseAlert", 1, (*raiseAlert)(nil))
	kit.Wire("alerts.resolveAlert", 1, (*resolveAlert)(nil))
	kit.Wire("alerts.ackAlert", 1, (*ackAlert)(nil))
	// Answers.
	kit.Wire("alerts.Alert", 1, Alert{})
}
