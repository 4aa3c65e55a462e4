package cli

import (
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

func (a *app) alertCmd() *cobra.Command {
	var (
		f     client.AlertFilter
		since string
		lim   int
	)
	list := &cobra.Command{
		Use:   "list [--status S] [--severity S] [--kind K] [--since TIME]",
		Short: "list alert events, oldest first (a tenant's user: its tenant's; an operator: all)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return cmdline.Usagef("--since: %v", err)
				}
				f.Since = t
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.Alerts(cmd.Context(), f), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "STATUS", "SEVERITY", "KIND", "TARGET", "STARTED", "MESSAGE")
				for _, al := range items {
					output.Row(w, al.ID, al.Status, al.Severity, al.Kind, al.TargetType+" "+al.TargetID, output.When(al.StartedAt), al.Message)
				}
			})
		},
	}
	fl := list.Flags()
	fl.StringVar(&f.Status, "status", "", "only alerts in this state: firing, acknowledged or resolved")
	fl.StringVar(&f.Severity, "severity", "", "only alerts of this severity: info, warning or critical")
	fl.StringVar(&f.Kind, "kind", "", "only alerts of this kind (health_check, node_offline, task_failed, ...)")
	fl.StringVar(&since, "since", "", "only alerts changed since: a time (RFC 3339) or a duration back from now (1h, 30m)")
	cmdline.LimitFlag(list, &lim)
	for name, vals := range map[string][]string{
		"status":   {client.AlertFiring, client.AlertAcknowledged, client.AlertResolved},
		"severity": {"info", "warning", "critical"},
	} {
		_ = list.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
	}

	show := &cobra.Command{
		Use:   "show ID",
		Short: "show an alert event",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			al, err := c.GetAlert(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return cards.Alert(p, al)
		},
	}
	ack := &cobra.Command{
		Use:     "ack ID",
		Aliases: []string{"acknowledge"},
		Short:   "acknowledge an open alert: it stays open until its condition clears, but no longer fires",
		Args:    cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			al, err := c.AcknowledgeAlert(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return cards.Alert(p, al)
		},
	}
	return cmdline.Group(&cobra.Command{Use: "alert", Short: "alert events: raised, acknowledged, resolved"}, list, show, ack)
}

// parseSince reads a time in RFC 3339, or a duration back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, cmdline.Usagef("%q is neither a time (2026-01-02T15:04:05Z) nor a duration (1h)", s)
	}
	return now.Add(-d), nil
}
