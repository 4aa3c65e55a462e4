package monitoring

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: health checks, the insights' own
// records and the usage history.
var Keys = []persistence.KeyKind{
	{Prefix: "hc", Holds: "hc/<id>: a health check and its last result"},
	{Prefix: "hc-tenant", Holds: "hc-tenant/<tenant>/<id>: a tenant's health checks"},
	{Prefix: "crash", Holds: "crash/<machine>/<ulid>: one unexpected stop of a machine, for the crash-loop rule"},
	{Prefix: "insight-error", Holds: "insight-error/<machine>: a machine in status error, and since when"},
	{Prefix: "usage-day", Holds: "usage-day/<YYYY-MM-DD>: a day's usage summary of the nodes"},
}
