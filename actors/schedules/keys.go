package schedules

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes. The backups a schedule takes are
// machines' records (machines.Keys), put into the schedule's batch by machines.
var Keys = []persistence.KeyKind{
	{Prefix: "sched", Holds: "sched/<id>: a power or backup schedule"},
	{Prefix: "sched-tenant", Holds: "sched-tenant/<tenant>/<id>: a tenant's schedules"},
	{Prefix: "sched-count", Holds: "sched-count/<tenant>: a value every counted create of the tenant's schedules changes"},
}
