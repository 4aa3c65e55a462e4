package counters

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: the tenants' usage counters and
// their marker. No other package builds them; it asks.
var Keys = []persistence.KeyKind{
	{Prefix: "vm-usage", Holds: "vm-usage/<tenant>: what a tenant's machines hold, kept in the batch of every write that changes it (actors/machines/counters)"},
	{Prefix: "meta/usage-counters", Holds: "present once every tenant's vm-usage counter was built from the tenant index: quota reads trust the counters"},
}

func usageKey(tenant string) []byte { return persistence.Key("vm-usage", tenant) }

// Forget puts into b the delete of a deleted tenant's counter (its tenant holds no
// machine any more), so that nothing of the tenant stays behind.
func Forget(b *persistence.Batch, tenant string) { b.Del(usageKey(tenant)) }

// markerKey exists once every counter was built from the index.
var markerKey = persistence.Key(persistence.KindMeta, "usage-counters")
