package schedules

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster a schedule's entity may be active on another member than the one that
// asks it (the edge's requests, the start-up wake, a run's report from the goroutine
// that followed its task). Every message sent through the Kind, and its answer, travels
// as JSON (kit.Wire); TestWire checks that each crosses whole. fireSchedule is not here:
// the schedule's timer sends it to the kind's own address (Kind.Ref), so it never
// leaves its member.
func init() {
	kit.Wire("schedules.createSchedule", 1, (*createSchedule)(nil))
	kit.Wire("schedules.getSchedule", 1, (*getSchedule)(nil))
	kit.Wire("schedules.updateSchedule", 1, (*updateSchedule)(nil))
	kit.Wire("schedules.deleteSchedule", 1, (*deleteSchedule)(nil))
	kit.Wire("schedules.wakeSchedule", 1, (*wakeSchedule)(nil))
	kit.Wire("schedules.runDone", 1, (*runDone)(nil))
	// The one answer (a zero record for a delete and a run's report).
	kit.Wire("schedules.scheduleRecord", 1, scheduleRecord{})
}
