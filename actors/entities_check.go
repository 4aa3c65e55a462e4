package actors

import "github.com/vmplane/vmplane/actors/kit"

// The runtime finds these behaviours by interface: a method renamed by mistake would
// silently turn them off, so the compiler checks them here.
var (
	_ kit.Absence  = (*machineEntity)(nil)
	_ kit.Absence  = (*nodeEntity)(nil)
	_ kit.Absence  = (*tenantEntity)(nil)
	_ kit.Absence  = (*userEntity)(nil)
	_ kit.Absence  = (*scheduleEntity)(nil)
	_ kit.Absence  = (*alertEntity)(nil)
	_ kit.Busy     = (*machineEntity)(nil)
	_ kit.Busy     = (*tenantEntity)(nil)
	_ kit.Busy     = (*idemEntity)(nil)
	_ kit.HandsOff = (*tenantEntity)(nil)
)
