package backups

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes (through the batches of the
// backups' takers, Put and Del): the records and their indexes.
var Keys = []persistence.KeyKind{
	{Prefix: "backup", Holds: "backup/<tenant>/<id>: a backup a schedule or a user (on demand) took"},
	{Prefix: "backup-id", Holds: "backup-id/<id>: the tenant of a backup, for lookups by id alone"},
	{Prefix: "backup-sched", Holds: "backup-sched/<schedule>/<id>: the backups a schedule took, for its retention"},
}
