package quotahold

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes. No other package builds them; it
// asks.
var Keys = []persistence.KeyKind{
	{Prefix: "quota-hold", Holds: "quota-hold/<tenant>: the tenant's snapshot and backup tasks in flight, counted against its quotas (actors/machines/quotahold)"},
}
