package cli

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// backupCmd reads and deletes backups, and restores one into a new machine
// (restore-new). Backups are taken by backup schedules ('vmplane schedule create
// --kind backup') or on demand ('vmplane machine backup'), and a machine is restored
// over itself with 'vmplane machine restore'.
func (a *app) backupCmd() *cobra.Command {
	var (
		machine string
		lim     int
	)
	list := &cobra.Command{
		Use:   "list [--machine ID]",
		Short: "list backups, oldest first (of one machine with --machine; operators: of --tenant)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.Backups(cmd.Context(), client.RecordFilter{MachineID: machine, TenantID: a.tenantScope()}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "MACHINE", "VMID", "NODE", "STORAGE", "MODE", "SIZE", "SCHEDULE", "CREATED")
				for _, b := range items {
					output.Row(w, b.ID, b.MachineID, output.Num(b.VMID), b.Node, b.Storage, b.Mode, output.BytesIEC(float64(b.SizeBytes)), output.Str(b.ScheduleID), output.When(b.CreatedAt))
				}
			})
		},
	}
	list.Flags().StringVar(&machine, "machine", "", "only the backups of this machine")
	cmdline.LimitFlag(list, &lim)

	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a backup",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			b, err := c.GetBackup(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return p.Print(b, func(w *tabwriter.Writer) {
				output.Field(w, "ID", b.ID)
				output.Field(w, "Backup", b.BackupID)
				output.Field(w, "Machine", b.MachineID)
				output.Field(w, "Tenant", output.OrDash(b.TenantID))
				output.Field(w, "VMID", output.Num(b.VMID))
				output.Field(w, "Node", b.Node)
				output.Field(w, "Storage", b.Storage)
				output.Field(w, "Mode", b.Mode)
				output.Field(w, "Size", output.BytesIEC(float64(b.SizeBytes)))
				output.Field(w, "Schedule", output.Str(b.ScheduleID))
				output.Field(w, "Scheduled", output.WhenPtr(b.ScheduledAt))
				output.Field(w, "Task", output.Str(b.TaskID))
				output.Field(w, "Created", output.When(b.CreatedAt))
			})
		},
	}

	del := &cobra.Command{
		Use:     "delete ID",
		Aliases: []string{"rm"},
		Short:   "delete a backup from the hypervisor's storage",
		Args:    cmdline.Args(1, "ID"),
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
	return cmdline.Group(&cobra.Command{Use: "backup", Short: "backups of machines: list, show, delete, restore into a new machine"}, list, show, del, a.backupRestoreNewCmd())
}
