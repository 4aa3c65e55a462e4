package cli

import (
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// Webhooks: URLs the server POSTs its events to, signed with the webhook's secret.

func (a *app) webhookCmd() *cobra.Command {
	var spec client.WebhookSpec
	var secret string
	var disabled bool
	create := &cobra.Command{
		Use:   "create URL --event TYPE... [--secret S] [--disabled]",
		Short: "make a webhook; a generated secret is printed this once",
		Long: `Make a webhook: the server POSTs each event of the types named (--event, repeatable:
` + strings.Join([]string{client.EventMachineUpdated, client.EventMachineDeleted, client.EventMachineTerminated, client.EventTaskUpdated,
			client.EventAlertUpdated, client.EventTenantSuspended, client.EventTenantUnsuspended}, ", ") + `, or * for all) to URL,
signed in the Vmplane-Signature header with the webhook's secret. A tenant user's
webhook gets its tenant's events; an operator's gets every event, or with --tenant
one tenant's. Without --secret the server makes one, printed only now.`,
		Args: cmdline.Args(1, "URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(spec.Events) == 0 {
				return cmdline.Usagef("name at least one --event (or --event '*' for all)")
			}
			spec.URL = args[0]
			if secret != "" {
				spec.Secret = &secret
			}
			if disabled {
				spec.Enabled = new(bool)
			}
			spec.TenantID = a.tenantScope()
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			h, err := c.CreateWebhook(cmd.Context(), spec)
			if err != nil {
				return err
			}
			return p.Print(h, func(w *tabwriter.Writer) {
				webhookCard(w, &h.Webhook)
				output.Field(w, "Secret", h.Secret+"   (shown only now)")
			})
		},
	}
	create.Flags().StringArrayVar(&spec.Events, "event", nil, "an event type to send (repeatable; * for all)")
	create.Flags().StringVar(&secret, "secret", "", "the signing secret (16 to 200 characters; default: the server makes one)")
	create.Flags().BoolVar(&disabled, "disabled", false, "create it disabled")

	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list webhooks (never their secrets)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.Webhooks(cmd.Context(), client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "URL", "EVENTS", "TENANT", "ENABLED", "FAILED_IN_ROW")
				for _, h := range items {
					output.Row(w, h.ID, h.URL, strings.Join(h.Events, ","), output.Str(h.TenantID), output.YesNo(h.Enabled), output.Num(h.FailedInRow))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a webhook",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			h, err := c.GetWebhook(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return p.Print(h, func(w *tabwriter.Writer) { webhookCard(w, h) })
		},
	}
	var ch struct {
		url, secret     string
		events          []string
		enable, disable bool
	}
	update := &cobra.Command{
		Use:   "update ID [--url URL] [--event TYPE...] [--secret S] [--enable | --disable]",
		Short: "change a webhook; --enable after the server disabled it forgets its failures",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var wc client.WebhookChange
			if ch.url != "" {
				wc.URL = client.Set(ch.url)
			}
			if len(ch.events) > 0 {
				wc.Events = client.Set(ch.events)
			}
			if ch.secret != "" {
				wc.Secret = client.Set(ch.secret)
			}
			switch {
			case ch.enable && ch.disable:
				return cmdline.Usagef("--enable or --disable, not both")
			case ch.enable:
				wc.Enabled = client.Set(true)
			case ch.disable:
				wc.Enabled = client.Set(false)
			}
			if wc.URL.IsZero() && wc.Events.IsZero() && wc.Secret.IsZero() && wc.Enabled.IsZero() {
				return cmdline.Usagef("nothing to change: give --url, --event, --secret, --enable or --disable")
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			h, err := c.UpdateWebhook(cmd.Context(), args[0], wc)
			if err != nil {
				return err
			}
			return p.Print(h, func(w *tabwriter.Writer) { webhookCard(w, h) })
		},
	}
	update.Flags().StringVar(&ch.url, "url", "", "the new URL")
	update.Flags().StringArrayVar(&ch.events, "event", nil, "the event types to send (repeatable; replaces the list)")
	update.Flags().StringVar(&ch.secret, "secret", "", "a new signing secret")
	update.Flags().BoolVar(&ch.enable, "enable", false, "enable it")
	update.Flags().BoolVar(&ch.disable, "disable", false, "disable it")
	del := &cobra.Command{
		Use:   "delete ID",
		Short: "delete a webhook and its delivery log",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DeleteWebhook(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("deleted webhook %s", args[0])
			return nil
		},
	}
	var dlim int
	deliveries := &cobra.Command{
		Use:   "deliveries ID",
		Short: "a webhook's deliveries, oldest event first, with their last attempt",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.WebhookDeliveries(cmd.Context(), args[0], client.ListOptions{}), dlim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "EVENT", "STATUS", "ATTEMPTS", "LAST", "NEXT")
				for _, d := range items {
					output.Row(w, d.ID, d.EventType, d.Status, output.Num(int64(len(d.Attempts))), lastAttempt(d), output.WhenPtr(d.NextAttemptAt))
				}
			})
		},
	}
	cmdline.LimitFlag(deliveries, &dlim)
	redeliver := &cobra.Command{
		Use:   "redeliver ID DELIVERY",
		Short: "send a delivery's event again",
		Args:  cmdline.Args(2, "ID DELIVERY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if _, err := c.Redeliver(cmd.Context(), args[0], args[1]); err != nil {
				return err
			}
			a.done("queued delivery %s of webhook %s again", args[1], args[0])
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "webhook", Short: "webhooks: the events POSTed, signed, to URLs"},
		create, list, show, update, del, deliveries, redeliver)
}

// webhookCard prints a webhook's fields.
func webhookCard(w *tabwriter.Writer, h *client.Webhook) {
	output.Field(w, "ID", h.ID)
	output.Field(w, "URL", h.URL)
	output.Field(w, "Events", strings.Join(h.Events, ", "))
	output.Field(w, "Tenant", output.Str(h.TenantID))
	output.Field(w, "Enabled", output.YesNo(h.Enabled))
	if h.DisabledReason != nil {
		output.Field(w, "Disabled", *h.DisabledReason)
	}
	output.Field(w, "Failed in a row", output.Num(h.FailedInRow))
	output.Field(w, "Created", output.When(h.CreatedAt))
}

// lastAttempt is a delivery's last attempt: its status code or error.
func lastAttempt(d client.WebhookDelivery) string {
	if len(d.Attempts) == 0 {
		return "-"
	}
	at := d.Attempts[len(d.Attempts)-1]
	if at.StatusCode != nil {
		return output.Num(*at.StatusCode)
	}
	return output.Str(at.Error)
}
