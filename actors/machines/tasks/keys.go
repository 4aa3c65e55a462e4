package tasks

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: tasks and their indexes. No
// other package builds them; it asks (Put, Load, ScanOpen).
var Keys = []persistence.KeyKind{
	{Prefix: "task", Holds: "task/<id>: a task, the record of slow work on the hypervisor"},
	{Prefix: "task-open", Holds: "task-open/<task>: the unfinished tasks, each with its target, which a start settles"},
	{Prefix: "task-tenant", Holds: "task-tenant/<tenant>/<task>: a tenant's tasks"},
	{Prefix: "task-vm", Holds: "task-vm/<machine>/<task id, each character mirrored in the ULID alphabet>: a machine's tasks, newest first"},
}
