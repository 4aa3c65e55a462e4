package tenants

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: tenants, their names and their
// firewall rules. A tenant's machines are machines' (machines.Keys), written into the
// tenant's batch by machines.
var Keys = []persistence.KeyKind{
	{Prefix: "tenant", Holds: "tenant/<id>: a tenant and its quota"},
	{Prefix: "tenant-ext", Holds: "tenant-ext/<external id>: the tenant another system knows by that id"},
	{Prefix: "tenant-name", Holds: "tenant-name/<folded name>: the tenant of a name, ignoring case"},
	{Prefix: "fw", Holds: "fw/<tenant>/<id>: a firewall rule, under its tenant"},
	{Prefix: "fw-rule", Holds: "fw-rule/<id>: the tenant of a firewall rule, for lookups by id alone"},
	{Prefix: "meta/tenant-name-index", Holds: "before schema version 2: the tenant-name index was built; the migration removes it"},
}
