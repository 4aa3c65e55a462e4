package app

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys the wiring writes itself.
var Keys = []persistence.KeyKind{
	{Prefix: "meta/jwt-key", Holds: "the access tokens' signing key, generated at the first start unless configured"},
	{Prefix: "sim-at", Holds: "sim-at/<location>/sim/...: the simulated world of each sim location (--sim-locations' and those added through the API), laid out as the default world's sim/ keys (hypervisor/sim/world); made with the location's driver, deleted after the location's delete is durable, and swept at start for locations no longer recorded"},
}
