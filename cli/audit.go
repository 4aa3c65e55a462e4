package cli

import (
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

func (a *app) auditCmd() *cobra.Command {
	var (
		f            client.AuditFilter
		since, until string
		lim          int
	)
	list := &cobra.Command{
		Use:   "list [--actor ID] [--target ID] [--action A] [--since TIME] [--until TIME]",
		Short: "list who did what, newest first (a tenant's user: its tenant's; an operator: all)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			now := time.Now()
			for _, b := range []struct {
				flag, v string
				t       *time.Time
			}{{"--since", since, &f.Since}, {"--until", until, &f.Until}} {
				if b.v == "" {
					continue
				}
				t, err := parseSince(b.v, now)
				if err != nil {
					return cmdline.Usagef("%s: %v", b.flag, err)
				}
				*b.t = t
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.AuditLog(cmd.Context(), f), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "TIME", "ACTOR", "ACTION", "TARGET", "RESULT", "CLIENT")
				for _, e := range items {
					actor := e.Actor
					if e.ActorKind == "api_key" {
						actor = "key " + e.Actor + " (" + e.UserID + ")"
					}
					output.Row(w, output.When(e.Time), actor, e.Action, e.TargetKind+" "+e.TargetID, e.Result, e.Client)
				}
			})
		},
	}
	fl := list.Flags()
	fl.StringVar(&f.Actor, "actor", "", "only what this user or API key did (a user: also what its keys did)")
	fl.StringVar(&f.Target, "target", "", "only what was done to this id, or kind/id (machines/ID)")
	fl.StringVar(&f.Action, "action", "", `only this action, as listed ("POST /api/client/firewall/rules")`)
	fl.StringVar(&since, "since", "", "only entries made since: a time (RFC 3339) or a duration back from now (1h, 30m)")
	fl.StringVar(&until, "until", "", "only entries made until: a time (RFC 3339) or a duration back from now")
	cmdline.LimitFlag(list, &lim)
	return cmdline.Group(&cobra.Command{Use: "audit", Short: "the audit log: who did what, when, from where"}, list)
}
