package alerts

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: alert events and their indexes.
var Keys = []persistence.KeyKind{
	{Prefix: "alert", Holds: "alert/<id>: an alert event"},
	{Prefix: "alert-open", Holds: "alert-open/<tenant or _>/<id>: the open events, for the overviews' counts"},
	{Prefix: "alert-cond", Holds: "alert-cond/<kind>/<target>: the open event of a condition"},
	{Prefix: "alert-tenant", Holds: "alert-tenant/<tenant>/<id>: a tenant's events"},
}
