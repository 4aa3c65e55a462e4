package cli

import (
	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/machinecmd"
	"github.com/vmplane/vmplane/client"
)

// backupRestoreNewCmd restores a backup into a new machine: an operator's verb (a
// tenant restores over its own machine with 'vmplane machine restore').
func (a *app) backupRestoreNewCmd() *cobra.Command {
	var (
		spec client.RestoreNewSpec
		wf   cmdline.WaitFlags
	)
	cmd := &cobra.Command{
		Use:   "restore-new ID [--node NODE] [--name NAME] [--start]",
		Short: "restore a backup into a new machine (operators), of --tenant or else the backup's tenant, within its quota",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			spec.TenantID = a.tenantScope()
			m, t, err := c.RestoreBackupAsNew(cmd.Context(), argv[0], spec)
			if err != nil {
				return err
			}
			return machinecmd.Provisioned(cmd.Context(), machineApp{a}, c, p, m, t, wf)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&spec.Node, "node", "", "the node to restore to (default: the hypervisor's choice, the backup's node when its storage is local)")
	fl.StringVar(&spec.Name, "name", "", "the new machine's name (default: the backup's machine's)")
	fl.BoolVar(&spec.StartAfter, "start", false, "start the machine once it is restored")
	wf.Add(cmd)
	return cmd
}
