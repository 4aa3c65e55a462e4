package machines

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster a machine's entity may be active on another member than
// the one that asks it: the edge's requests, the tenants' provisioning and resizes, the
// schedules' runs, the sync, and the task goroutines' reports (a task whose machine
// moved reports to the new owner). Every message sent through the Kinds, and every
// answer, travels as JSON (kit.Wire); TestWire checks that each crosses whole.
func init() {
	// Messages of a machine entity.
	kit.Wire("machines.getMachine", 1, (*getMachine)(nil))
	kit.Wire("machines.getRef", 1, (*getRef)(nil))
	kit.Wire("machines.startOp", 1, (*startOp)(nil))
	kit.Wire("machines.opDone", 1, (*opDone)(nil))
	kit.Wire("machines.observe", 1, (*observe)(nil))
	kit.Wire("machines.vanish", 1, (*vanish)(nil))
	kit.Wire("machines.settle", 1, (*settle)(nil))
	kit.Wire("machines.provision", 1, (*provision)(nil))
	kit.Wire("machines.assignTenant", 1, (*assignTenant)(nil))
	kit.Wire("machines.suspendBilling", 1, (*suspendBilling)(nil))
	kit.Wire("machines.unsuspendBilling", 1, (*unsuspendBilling)(nil))
	kit.Wire("machines.markTerminate", 1, (*markTerminate)(nil))
	kit.Wire("machines.cancelTerminate", 1, (*cancelTerminate)(nil))
	kit.Wire("machines.firewallPushed", 1, (*firewallPushed)(nil))
	kit.Wire("machines.changeAddresses", 1, (*changeAddresses)(nil))
	kit.Wire("machines.addAddress", 1, (*addAddress)(nil))
	kit.Wire("machines.removeAddress", 1, (*removeAddress)(nil))
	// Its answers (and capacity.Changed and tasks.Task, registered by
	// their packages under their names of before, machines.changed and machines.Task).
	kit.Wire("machines.Machine", 1, Machine{})
	kit.Wire("machines.machineRef", 1, machineRef{})
	kit.Wire("machines.billingChanged", 1, billingChanged{})
}
