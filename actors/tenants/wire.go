package tenants

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster a tenant's entity may be active on another member than the one that
// asks it: the edge's requests, and the tells its own goroutines and timers send it
// through the Kind (pushes, rule-write failures), which reach it wherever it is now.
// Every such message, and every answer, travels as JSON (kit.Wire); TestWire checks
// that each crosses whole.
func init() {
	kit.Wire(
		// Messages of a tenant entity.
		(*getTenant)(nil), (*createTenant)(nil), (*updateTenant)(nil), (*deleteTenant)(nil),
		(*tenantUsage)(nil), (*createMachine)(nil), (*reserveResize)(nil), (*resizeStarted)(nil),
		(*releaseResize)(nil),
		// Its firewall's messages, told ones included (pushDone, rulesSettled, pushNow,
		// retryPush: sent through the Kind from goroutines and timers).
		(*listRules)(nil), (*getRule)(nil), (*createRule)(nil), (*updateRule)(nil), (*deleteRule)(nil),
		(*pushDone)(nil), (*rulesSettled)(nil), (*pushNow)(nil), (*retryPush)(nil),
		// Answers.
		Tenant{}, Usage{}, Provisioned{}, resizeReserved{}, Rules{}, FirewallRule{}, kit.Done{},
	)
}
