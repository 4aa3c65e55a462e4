package consoles

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes.
var Keys = []persistence.KeyKind{
	{Prefix: "console-ticket", Holds: "console-ticket/<sha256 of the ticket>: a console ticket until it is redeemed or expires"},
}
