package addresses

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: pools, their names, and the
// allocations.
var Keys = []persistence.KeyKind{
	{Prefix: "ip-pool", Holds: "ip-pool/<id>: an IP address pool"},
	{Prefix: "ip-pool-name", Holds: "ip-pool-name/<folded name>: the pool of a name, ignoring case"},
	{Prefix: "ip-alloc", Holds: "ip-alloc/<pool>/<address>: the holder of one address (or IPv6 prefix) of a pool"},
}

func poolKey(id string) []byte { return persistence.Key("ip-pool", id) }
