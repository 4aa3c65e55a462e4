package isos

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes.
var Keys = []persistence.KeyKind{
	{Prefix: "iso", Holds: "iso/<id>: an ISO image of the library, public or one tenant's, with its fetch's status"},
	{Prefix: "iso-fetch", Holds: "iso-fetch/<id>: the process fetching a pending image (kit.Runtime.Owner); once it is gone, the fetch is failed"},
}

// fetchKey names the process that runs a pending image's fetch, so that the fetch is
// failed once that process is gone (Settle).
func fetchKey(id string) []byte { return persistence.Key("iso-fetch", id) }
