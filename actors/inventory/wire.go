package inventory

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster every sync runs on the member where the sync entity is active (see
// Inventory), so a sync asked elsewhere travels there. The names are those the sync
// had when it lived in package machines: they are the protocol between members of
// different releases, which must not change with a package.
func init() {
	kit.Wire("machines.runSync", 1, (*runSync)(nil))
	kit.Wire("machines.SyncResult", 1, SyncResult{})
}
