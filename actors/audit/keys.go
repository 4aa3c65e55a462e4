package audit

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: the entries of the audit log and
// the copies of each tenant's.
var Keys = []persistence.KeyKind{
	{Prefix: "audit", Holds: "audit/<id>: an entry of the audit log (ids sort newest first: NewID)"},
	{Prefix: "audit-tenant", Holds: "audit-tenant/<tenant>/<id>: a copy of an entry that concerns the tenant, the list its users read"},
}
