package webhooks

import "github.com/vmplane/vmplane/persistence"

// Keys is the table of the keys this package writes: webhooks, their deliveries and
// the queue of deliveries due.
var Keys = []persistence.KeyKind{
	{Prefix: "webhook", Holds: "webhook/<id>: a webhook, with its secret"},
	{Prefix: "webhook-delivery", Holds: "webhook-delivery/<webhook>/<delivery>: one event's delivery to a webhook and its attempts (the delivery id is the event id, so an event is queued once per webhook)"},
	{Prefix: "webhook-due", Holds: "webhook-due/<unix ms>/<webhook>/<delivery>: the deliveries to attempt, by the time they are due"},
}

func webhookKey(id string) []byte { return persistence.Key("webhook", id) }
func deliveryKey(webhook, delivery string) []byte {
	return persistence.Key("webhook-delivery", webhook, delivery)
}
