// Package plans holds the plans a hosting company sells: named machine sizes (cores,
// memory, disk) with what else a machine of the plan may have (addresses, traffic,
// backups and snapshots, templates). A machine is created from a plan or moved to
// another one; the plan's capacity says how many more of it fit on the nodes now.
package plans
