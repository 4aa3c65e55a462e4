package cli

import (
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

func (a *app) templateCmd() *cobra.Command {
	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list the OS templates machines are created from",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.Templates(cmd.Context(), client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "OS", "DISK_GB")
				for _, t := range items {
					output.Row(w, t.ID, t.Name, output.OrDash(t.OS), output.Num(t.DiskGB))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	return cmdline.Group(&cobra.Command{Use: "template", Short: "OS templates"}, list)
}

func (a *app) overviewCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "overview",
		Short: "the tenant's dashboard: machines, usage against quota, open alerts (operators: --tenant ID)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			o, err := c.Overview(cmd.Context())
			if err != nil {
				return err
			}
			return p.Print(o, func(w *tabwriter.Writer) {
				output.Header(w, "", "USED", "QUOTA")
				output.Row(w, "machines", output.Num(o.Usage.Machines), output.Limit(o.Quota.Machines))
				output.Row(w, "cpu cores", output.Num(o.Usage.CPUCores), output.Limit(o.Quota.CPUCores))
				output.Row(w, "memory MB", output.Num(o.Usage.MemoryMB), output.Limit(o.Quota.MemoryMB))
				output.Row(w, "disk GB", output.Num(o.Usage.DiskGB), output.Limit(o.Quota.DiskGB))
				output.Row(w, "")
				output.Field(w, "Machines", output.Num(o.Machines.Total)+" ("+output.Num(o.Machines.Running)+" running, "+output.Num(o.Machines.Stopped)+" stopped)")
				output.Field(w, "Open alerts", output.Num(o.AlertsOpen))
				output.Field(w, "Backups", output.Num(o.Backups))
				if len(o.MissingNodes) > 0 {
					output.Field(w, "Offline nodes", strings.Join(o.MissingNodes, ", "))
				}
			})
		},
	}
}
