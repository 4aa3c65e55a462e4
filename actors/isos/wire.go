package isos

import "github.com/vmplane/vmplane/actors/kit"

// The library asks no entity, but an add made with an Idempotency-Key records its
// answer with the key (kit.Stamp), which any member may read back: the answer is
// registered like every message that may cross members.
func init() {
	kit.Wire("isos.ISOAdded", 1, ISOAdded{})
}
