package cli

import (
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/client"
)

func (a *app) templateCmd() *cobra.Command {
	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list the OS templates machines are created from",
		Args:  args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := collect(c.Templates(cmd.Context(), client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.print(items, func(w *tabwriter.Writer) {
				header(w, "ID", "NAME", "OS", "DISK_GB")
				for _, t := range items {
					row(w, t.ID, t.Name, orDash(t.OS), num(t.DiskGB))
				}
			})
		},
	}
	limitFlag(list, &lim)
	return group(&cobra.Command{Use: "template", Short: "OS templates"}, list)
}

func (a *app) overviewCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "overview",
		Short: "the tenant's dashboard: machines, usage against quota, open alerts (operators: --tenant ID)",
		Args:  args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			o, err := c.Overview(cmd.Context())
			if err != nil {
				return err
			}
			return p.print(o, func(w *tabwriter.Writer) {
				header(w, "", "USED", "QUOTA")
				row(w, "machines", num(o.Usage.Machines), limit(o.Quota.Machines))
				row(w, "cpu cores", num(o.Usage.CPUCores), limit(o.Quota.CPUCores))
				row(w, "memory MB", num(o.Usage.MemoryMB), limit(o.Quota.MemoryMB))
				row(w, "disk GB", num(o.Usage.DiskGB), limit(o.Quota.DiskGB))
				row(w, "")
				field(w, "Machines", num(o.Machines.Total)+" ("+num(o.Machines.Running)+" running, "+num(o.Machines.Stopped)+" stopped)")
				field(w, "Open alerts", num(o.AlertsOpen))
				field(w, "Backups", num(o.Backups))
				if len(o.MissingNodes) > 0 {
					field(w, "Offline nodes", strings.Join(o.MissingNodes, ", "))
				}
			})
		},
	}
}
