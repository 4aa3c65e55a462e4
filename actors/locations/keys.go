package locations

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: locations and their names.
var Keys = []persistence.KeyKind{
	{Prefix: "location", Holds: "location/<id>: a location, its driver's settings and its sealed token secret"},
	{Prefix: "location-name", Holds: "location-name/<folded name>: the location of a name, ignoring case"},
}
