package cluster

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the etcd keys a member writes beside the store's, under the same
// prefix (Options.Prefix), so they must not overlap the store's kinds.
var Keys = []persistence.KeyKind{
	{Prefix: "members", Holds: "members/<name>: a live member, under its lease (its address, what it maintains, whether it answers read-lease acks); every store transaction reads them"},
	{Prefix: "owners", Holds: "owners/<kind>/<id>: the member that holds an entity, under that member's lease"},
	{Prefix: "events", Holds: "events/<id>: the events the members' buses share (events.go)"},
	{Prefix: "cluster/secret", Holds: "the secret members authenticate each other's requests with"},
}
