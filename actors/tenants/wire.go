package tenants

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster a tenant's entity may be active on another member than the one that
// asks it: the edge's requests, and the tells its own goroutines and timers send it
// through the Kind (pushes, rule-write failures), which reach it wherever it is now.
// Every such message, and every answer, travels as JSON (kit.Wire); TestWire checks
// that each crosses whole.
func init() {
	// Messages of a tenant entity.
	kit.Wire("tenants.getTenant", 1, (*getTenant)(nil))
	kit.Wire("tenants.createTenant", 1, (*createTenant)(nil))
	kit.Wire("tenants.updateTenant", 1, (*updateTenant)(nil))
	kit.Wire("tenants.deleteTenant", 1, (*deleteTenant)(nil))
	kit.Wire("tenants.tenantUsage", 1, (*tenantUsage)(nil))
	kit.Wire("tenants.createMachine", 1, (*createMachine)(nil))
	kit.Wire("tenants.restoreMachine", 1, (*restoreMachine)(nil))
	kit.Wire("tenants.reserveResize", 1, (*reserveResize)(nil))
	kit.Wire("tenants.resizeStarted", 1, (*resizeStarted)(nil))
	kit.Wire("tenants.releaseResize", 1, (*releaseResize)(nil))
	kit.Wire("tenants.suspendTenant", 1, (*suspendTenant)(nil))
	kit.Wire("tenants.suspendedMachines", 1, (*suspendedMachines)(nil))
	kit.Wire("tenants.unsuspendTenant", 1, (*unsuspendTenant)(nil))
	// Its firewall's messages, told ones included (pushDone, rulesSettled, pushNow,
	// retryPush: sent through the Kind from goroutines and timers).
	kit.Wire("tenants.listRules", 1, (*listRules)(nil))
	kit.Wire("tenants.getRule", 1, (*getRule)(nil))
	kit.Wire("tenants.createRule", 1, (*createRule)(nil))
	kit.Wire("tenants.updateRule", 1, (*updateRule)(nil))
	kit.Wire("tenants.deleteRule", 1, (*deleteRule)(nil))
	kit.Wire("tenants.pushDone", 1, (*pushDone)(nil))
	kit.Wire("tenants.rulesSettled", 1, (*rulesSettled)(nil))
	kit.Wire("tenants.pushNow", 1, (*pushNow)(nil))
	kit.Wire("tenants.retryPush", 1, (*retryPush)(nil))
	// Answers.
	kit.Wire("tenants.Tenant", 1, Tenant{})
	kit.Wire("tenants.Usage", 1, Usage{})
	kit.Wire("tenants.Provisioned", 1, Provisioned{})
	kit.Wire("tenants.Suspended", 1, Suspended{})
	kit.Wire("tenants.resizeReserved", 1, resizeReserved{})
	kit.Wire("tenants.Rules", 1, Rules{})
	kit.Wire("tenants.FirewallRule", 1, FirewallRule{})
}
