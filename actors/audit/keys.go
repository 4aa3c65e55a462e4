package audit

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: the entries of the audit log and
// each tenant's index of them.
var Keys = []persistence.KeyKind{
	{Prefix: "audit", Holds: "audit/<id>: an entry of the audit log (ids sort newest first: NewID)"},
	{Prefix: "audit-tenant", Holds: "audit-tenant/<tenant>/<id>: the index of the entries that concern the tenant (keys alone), the list its users read"},
}
