package monitoring

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster a health check's entity may be active on another member than the one
// that asks it (the edge's requests, the start-up wake). Every message sent through the
// Kind, and its answer, travels as JSON (kit.Wire); TestWire checks that each crosses
// whole. tickCheck and probeDone are not here: the check's timer and its probe
// goroutine send them to the kind's own address (Kind.Ref), so they never leave their
// member.
func init() {
	kit.Wire("monitoring.createCheck", 1, (*createCheck)(nil))
	kit.Wire("monitoring.updateCheck", 1, (*updateCheck)(nil))
	kit.Wire("monitoring.deleteCheck", 1, (*deleteCheck)(nil))
	kit.Wire("monitoring.wakeCheck", 1, (*wakeCheck)(nil))
	kit.Wire("monitoring.HealthCheck", 1, HealthCheck{})
}
