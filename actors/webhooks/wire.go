package webhooks

import "github.com/vmplane/vmplane/actors/kit"

// The webhooks ask no entity, but a create made with an Idempotency-Key records its
// answer with the key (kit.Stamp), which any member may read back: the answer is
// registered like every message that may cross members.
func init() {
	kit.Wire("webhooks.NewWebhook", 1, NewWebhook{})
}
