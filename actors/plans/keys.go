package plans

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: plans and their names.
var Keys = []persistence.KeyKind{
	{Prefix: "plan", Holds: "plan/<id>: a plan"},
	{Prefix: "plan-name", Holds: "plan-name/<folded name>: the plan of a name, ignoring case"},
}
