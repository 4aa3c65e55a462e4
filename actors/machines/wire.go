package machines

import "github.com/vmplane/vmplane/actors/kit"

// In a cluster a machine's or a node's entity may be active on another member than
// the one that asks it: the edge's requests, the tenants' provisioning and resizes, the
// schedules' runs, the sync, and the task goroutines' reports (a task whose machine
// moved reports to the new owner). Every message sent through the Kinds, and every
// answer, travels as JSON (kit.Wire); TestWire checks that each crosses whole.
func init() {
	kit.Wire(
		// Messages of a machine entity.
		(*getMachine)(nil), (*getRef)(nil), (*startOp)(nil), (*opDone)(nil), (*observe)(nil),
		(*vanish)(nil), (*settle)(nil), (*provision)(nil), (*assignTenant)(nil), (*firewallPushed)(nil),
		// Its answers.
		Machine{}, machineRef{}, Task{}, changed{},
		// Messages of a node entity (answers: Node, changed).
		(*getNode)(nil), (*observeNode)(nil), (*vanishNode)(nil),
		Node{},
		// The sync entity's request and answer.
		(*runSync)(nil), SyncResult{},
	)
}
