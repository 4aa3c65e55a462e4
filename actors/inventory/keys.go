package inventory

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: the templates, which only the
// sync writes.
var Keys = []persistence.KeyKind{
	{Prefix: "template", Holds: "template/<id>: a template machines are created from, as the last sync saw it"},
}
