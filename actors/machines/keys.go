package machines

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: machines (the nodes' are
// actors/machines/capacity's, the tasks' actors/machines/tasks', the tenants' usage
// counters actors/machines/counters', the tasks in flight held against the quotas
// actors/machines/quotahold'). No other package builds them; it asks.
var Keys = []persistence.KeyKind{
	{Prefix: "vm", Holds: "vm/<id>: a machine's record"},
	{Prefix: "vm-tenant", Holds: "vm-tenant/<tenant>/<machine>: a tenant's machines, each with what it holds against the quota (Holding)"},
	{Prefix: "vm-iso", Holds: "vm-iso/<iso>/<machine>: the machines whose CD-ROM drive holds an ISO image (media.go)"},
	{Prefix: "vm-terminate", Holds: "vm-terminate/<machine>: the machines marked for termination, each with its due time (terminate.go)"},
	{Prefix: "vm-vmid", Holds: "vm-vmid/<vmid>: the machine record that holds a vmid of the default location"},
	{Prefix: "vm-vmid-at", Holds: "vm-vmid-at/<location>/<vmid>: the machine record that holds a vmid of another location (vmids repeat across clusters)"},
}
