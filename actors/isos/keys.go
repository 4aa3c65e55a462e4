package isos

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes.
var Keys = []persistence.KeyKind{
	{Prefix: "iso", Holds: "iso/<id>: an ISO image of the library, public or one tenant's, with its fetch's status"},
}
