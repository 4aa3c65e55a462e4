package cli

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/client"
)

// backupCmd reads and deletes backups. Backups are taken by backup schedules
// ('vmplane schedule create --kind backup'); the API restores none (yet), so there is
// no restore verb.
func (a *app) backupCmd() *cobra.Command {
	var (
		machine string
		lim     int
	)
	list := &cobra.Command{
		Use:   "list [--machine ID]",
		Short: "list backups, oldest first (of one machine with --machine; operators: of --tenant)",
		Args:  args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := collect(c.Backups(cmd.Context(), client.RecordFilter{MachineID: machine, TenantID: a.tenantScope()}), lim)
			if err != nil {
				return err
			}
			return p.print(items, func(w *tabwriter.Writer) {
				header(w, "ID", "MACHINE", "VMID", "NODE", "STORAGE", "MODE", "SIZE", "SCHEDULE", "CREATED")
				for _, b := range items {
					row(w, b.ID, b.MachineID, num(b.VMID), b.Node, b.Storage, b.Mode, bytesIEC(float64(b.SizeBytes)), str(b.ScheduleID), when(b.CreatedAt))
				}
			})
		},
	}
	list.Flags().StringVar(&machine, "machine", "", "only the backups of this machine")
	limitFlag(list, &lim)

	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a backup",
		Args:  args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			b, err := c.GetBackup(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return p.print(b, func(w *tabwriter.Writer) {
				field(w, "ID", b.ID)
				field(w, "Backup", b.BackupID)
				field(w, "Machine", b.MachineID)
				field(w, "Tenant", orDash(b.TenantID))
				field(w, "VMID", num(b.VMID))
				field(w, "Node", b.Node)
				field(w, "Storage", b.Storage)
				field(w, "Mode", b.Mode)
				field(w, "Size", bytesIEC(float64(b.SizeBytes)))
				field(w, "Schedule", str(b.ScheduleID))
				field(w, "Scheduled", whenPtr(b.ScheduledAt))
				field(w, "Task", str(b.TaskID))
				field(w, "Created", when(b.CreatedAt))
			})
		},
	}

	del := &cobra.Command{
		Use:     "delete ID",
		Aliases: []string{"rm"},
		Short:   "delete a backup from the hypervisor's storage",
		Args:    args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DeleteBackup(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("deleted backup %s", args[0])
			return nil
		},
	}
	return group(&cobra.Command{Use: "backup", Short: "backups of machines, taken by backup schedules"}, list, show, del)
}
