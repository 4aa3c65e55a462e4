// Package alerts owns the alert events: one open event per condition (kind and target),
// raised, updated, acknowledged and resolved by the condition's entity, so concurrent
// raises of one condition never open two. Other packages raise and resolve through
// Alerts (Raise and Resolve wait; Notify and Clear do not, for entities that must not
// block their mailbox); it imports only the event bus and the runtime.
package alerts
