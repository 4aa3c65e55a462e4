package addresses

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: pools, their names, and the
// allocations.
var Keys = []persistence.KeyKind{
	{Prefix: "ip-pool", Holds: "ip-pool/<id>: an IP address pool"},
	{Prefix: "ip-pool-name", Holds: "ip-pool-name/<folded name>: the pool of a name, ignoring case"},
	{Prefix: "ip-pool-stamp", Holds: "ip-pool-stamp/<pool>: a value every allocation from the pool writes anew, which the pool's delete requires as it read it before counting the allocations"},
	{Prefix: "ip-alloc", Holds: "ip-alloc/<pool>/<address>: the holder of one address (or IPv6 prefix) of a pool"},
}

func poolKey(id string) []byte { return persistence.Key("ip-pool", id) }

// stampKey is a pool's allocation stamp: each batch that allocates from the pool
// writes it anew, and the pool's delete requires it as it read it before it counted
// the pool's allocations, so a delete and an allocation made at once never both
// commit (the allocation requires the pool record itself unchanged, which covers the
// other order).
func stampKey(pool string) []byte { return persistence.Key("ip-pool-stamp", pool) }
