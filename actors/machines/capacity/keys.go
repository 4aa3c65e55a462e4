package capacity

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: the nodes' records. No other
// package builds them; it asks.
var Keys = []persistence.KeyKind{
	{Prefix: "node", Holds: "node/<id>: a hypervisor node, as the last sync saw it"},
}
