package resources

import (
	"github.com/vmplane/vmplane/actors/webhooks"
	"github.com/vmplane/vmplane/httpedge/api"
)

// webhookResources are the registry entry of webhooks. Tenant users keep their own
// tenant's (which get that tenant's events only); an operator's webhook is for one
// tenant it names, or for every event. Their writes are a billing system's calls
// (the billing scope of an API key): a webhook is how it learns what happened.
func (h *handlers) webhookResources() []resource {
	svc := h.svc
	return []resource{
		{name: "webhooks", scoped: true, read: api.Authenticated, write: api.Authenticated, summary: "webhooks", stamped: true,
			item: itemOf[webhooks.Webhook](), createBody: webhooks.WebhookSpec{}, updateBody: webhooks.WebhookChange{},
			createReply: webhooks.NewWebhook{},
			list: func(c *api.Call, scope *string, cursor string, limit int) (any, string, error) {
				return svc.Webhooks.List(c.Context(), scope, cursor, limit)
			},
			get: func(c *api.Call, scope *string, id string) (any, error) {
				return svc.Webhooks.Get(c.Context(), id, scope)
			},
			create: func(c *api.Call, _ *string, tenant *string) (any, error) {
				var b webhooks.WebhookSpec
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				b.TenantID = tenant
				if b.TenantID != nil && *b.TenantID == "" {
					b.TenantID = nil
				}
				w, err := svc.Webhooks.Create(c.Context(), b)
				if err != nil {
					return nil, err
				}
				return api.Created(w), nil
			},
			update: func(c *api.Call, scope *string, id string) (any, error) {
				var b webhooks.WebhookChange
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				return svc.Webhooks.Update(c.Context(), id, b, scope)
			},
			delete: func(c *api.Call, scope *string, id string) (any, error) {
				return api.NoContent, svc.Webhooks.Delete(c.Context(), id, scope)
			},
		},
	}
}

// webhookRoutes are the webhooks' routes beyond the registry's: the delivery log and
// a redelivery.
func (h *handlers) webhookRoutes() []api.Route {
	const base = "/api/resources/webhooks/{id}/deliveries"
	return []api.Route{
		{Method: "GET", Path: base, Access: api.Authenticated, Tag: "resources", Query: api.WithPage(nil),
			Summary: "A webhook's deliveries", Reply: api.Page[webhooks.Delivery]{},
			Description: "The webhook's deliveries, one per event sent (oldest first), each with its attempts: when, the receiver's status code " +
				"or the error, and how long it took. A failing delivery is retried with backoff (30 s, doubling, at most an hour apart) for a day. " +
				"A tenant user sees its own tenant's webhooks' only.",
			Handler: func(c *api.Call) (any, error) {
				limit, cursor, err := c.Paging()
				if err != nil {
					return nil, err
				}
				items, next, err := h.svc.Webhooks.Deliveries(c.Context(), c.Param("id"), c.Scope(), cursor, limit)
				if err != nil {
					return nil, err
				}
				return api.PageOf(items, next), nil
			}},
		{Method: "POST", Path: base + "/{delivery}/redeliver", Access: api.Authenticated, Tag: "resources",
			Summary: "Send a delivery again", Reply: webhooks.Delivery{},
			Exempt: "a redelivery only queues the event again, and the receiver dedupes by its event id",
			Description: "Queues the delivery again, due now, with a new day of retries: the receiver gets the same event, with the same " +
				"Vmplane-Event-Id, once more. A delivery being attempted this moment, or one of a disabled webhook, is 409.",
			Handler: func(c *api.Call) (any, error) {
				return h.svc.Webhooks.Redeliver(c.Context(), c.Param("id"), c.Param("delivery"), c.Scope())
			}},
	}
}
