// Package webhooks holds the webhooks: URLs that vmplane POSTs its events to (a
// billing system's, a tenant's automation), signed with the webhook's secret,
// retried with backoff for a day, logged attempt by attempt, and disabled (with an
// alert) after repeated failures.
//
// Delivery is durable across a cluster. The member where an event is published
// (events.SubscribeLocal) writes one delivery record per matching webhook, each
// conditional on its absence, with a due-time index beside it; the cluster-wide
// deliverer (run by the member that Leads it) takes due deliveries from the store,
// claims each with a conditional write before the POST, and records the attempt with
// another. A delivery queued on a member that then dies is delivered by whichever
// member leads the deliverer. What this promises, honestly: every delivery is
// attempted until one attempt succeeds or its day is over (at least once); a receiver
// may still see one twice (the deliverer died after the POST and before its record
// was written, or a redelivery), so receivers dedupe by the Vmplane-Event-Id header.
// An event published on a member that died before the event reached its own bus's
// subscriber has no delivery record and is not delivered.
package webhooks
